"""Scenario configuration as data: frozen dataclasses, loaded from TOML or built in Python.

A scenario names its providers (size, local policy, electricity prices), its
workload (a trace file or a synthetic model with parameters), the interaction
models to compare (:mod:`gridmarket.scenarios.interaction`: registered names or plug-ins), the market parameters (α, w_t, MaxQ, f_g, reservation
fraction, penalty), a duration and a seed. Everything is checked on
construction; errors name the key (``providers[1].procs``) and, for unknown
names, suggest the closest known one.

Times are integer seconds from simulation start (``duration_seconds``,
``cycle_seconds``); electricity prices are ``price_per_mwh``; power ``watts``.

Examples
--------
>>> cfg = load_toml_text('''
... name = "tiny"
... seed = 3
... models = ["best-effort"]
... [[providers]]
... name = "a"
... procs = 16
... [workload]
... source = "lublin"
... n_jobs = 10
... procs = 16
... ''')
>>> cfg.providers[0].policy, cfg.workload.n_jobs, cfg.parameters.w_t
('easy', 10, 25.0)
>>> with_overrides(cfg, {"alpha": 0.25, "seed": 4}).parameters.alpha
0.25
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from gridmarket.decoding import parse_toml, read_toml
from gridmarket.errors import InvalidInput
from gridmarket.limits import BYTES_PER_USER
from gridmarket.scenarios.interaction import INTERACTION_MODELS, check_model
from gridmarket.scheduling import resolve_machine_policy
from gridmarket.validation import check_fits_memory, check_number, check_path_name, suggest
from gridmarket.workflows import Network
from gridmarket.workloads.behaviour import SCENARIOS as BEHAVIOURS

__all__ = [
    "INTERACTION_MODELS",
    "check_model",
    "PRICE_SOURCES",
    "WORKLOAD_SOURCES",
    "Parameters",
    "ProviderConfig",
    "ScenarioConfig",
    "WorkloadConfig",
    "from_dict",
    "load_toml",
    "load_toml_text",
    "suggest",
    "with_overrides",
]

PRICE_SOURCES = ("synthetic", "fixed")
"""Electricity price sources; any other value is read as a price CSV path (``gridmarket.energy.read_prices``)."""

WORKLOAD_SOURCES = ("lublin", "trace", "providers")


def _check_type(where: str, value, kinds, what: str):
    if isinstance(value, bool) and bool not in (kinds if isinstance(kinds, tuple) else (kinds,)):
        raise InvalidInput(f"{where} must be {what}, got {value!r}")
    if not isinstance(value, kinds):
        raise InvalidInput(f"{where} must be {what}, got {value!r}")
    return value


def _int_at_least(where: str, value, low: int, quantity: str) -> None:
    """An int >= ``low`` and within ``quantity``'s upper bound (:mod:`gridmarket.limits`)."""
    _check_type(where, value, int, f"an int >= {low}")
    if value < low:
        raise InvalidInput(f"{where} must be an int >= {low}, got {value!r}")
    check_number(where, value, quantity, low=low)


def _number_in(where: str, value, low: float, high: float, quantity: str) -> None:
    """A finite number in ``[low, high]`` and within ``quantity``'s bounds (:mod:`gridmarket.limits`)."""
    _check_type(where, value, (int, float), f"a number in [{low}, {high}]")
    if not low <= value <= high:
        raise InvalidInput(f"{where} must be in [{low}, {high}], got {value!r}")
    check_number(where, value, quantity, low=low)


@dataclass(frozen=True, slots=True)
class ProviderConfig:
    """A resource provider: one machine with a local policy and an electricity tariff.

    Parameters
    ----------
    name : str
    procs : int
        Processors, >= 1.
    policy : str
        Local policy: a registered name (``gridmarket.scheduling.POLICIES``), a plug-in
        ``"package.module:Name"`` (``docs/extending.md``), or a two-tier policy of Liu et al.
        (``"keasy"``, ``"reasy"``, ``"measy"``; :class:`gridmarket.agents.twotier_provider.TwoTierProvider`:
        runs users' jobs and dispatches, but keeps no plan, so models whose brokers buy slots
        refuse it).
    prices : str
        ``"synthetic"`` (seeded day-ahead-like series around ``price_per_mwh``),
        ``"fixed"`` (flat ``price_per_mwh``) or a price CSV path.
    price_per_mwh : float
        Mean (synthetic) or flat (fixed) price per MWh.
    watts_per_proc : float
        Power drawn per busy processor (HPL power / cores), watts.
    pricing : str
        How it prices slots for brokers (:mod:`gridmarket.pricing.rules`): ``"externality"``
        (Singh ch. 5, default), ``"flat"`` (the base rate only) or a plug-in
        ``"package.module:function"`` (``docs/extending.md``).
    overbooking : float
        Factor (>= 1) by which it signs service-level agreements (the ``sla`` model) beyond its
        processors, betting that jobs end before their estimates (:func:`gridmarket.sla.overbooked_state`).
        1, the default, signs only what its plan can honour; above 1 contracts can start late or
        never run, and the provider pays their penalties.
    sells : str
        How it sells to a deadline-and-budget-constrained broker (the ``dbc`` model; the other
        models fix how providers sell): ``"quote"`` (priced starts, Singh ch. 5; default),
        ``"post"`` (advertised slots at posted prices, ch. 3) or ``"auction"`` (a second-price
        auction of the job's slot with its quote as the reserve).
    trace : str or None
        This site's own jobs: an SWF/GWF/Batsim JSON file (``.gz`` read directly; path relative to the
        working directory), read when ``workload.source = "providers"``. Its jobs' home is
        this provider and its users are this site's users (:func:`gridmarket.scenarios.experiment.build_workload`).
    agent : str
        The provider's agent class: ``"provider"`` (:class:`gridmarket.agents.ResourceProvider`) or a plug-in
        ``"package.module:Name"`` subclassing it (``docs/extending.md``).
    """

    name: str
    procs: int
    policy: str = "easy"
    prices: str = "synthetic"
    price_per_mwh: float = 40.0
    watts_per_proc: float = 20.0
    pricing: str = "externality"
    overbooking: float = 1.0
    sells: str = "quote"
    trace: str | None = None
    agent: str = "provider"

    def __post_init__(self) -> None:
        where = f"provider {self.name!r}"
        if not isinstance(self.name, str) or not self.name:
            raise InvalidInput(f"provider name must be a non-empty str, got {self.name!r}")
        check_path_name("provider name", self.name)  # a folder of compare --batsim's output
        _int_at_least(f"{where}: procs", self.procs, 1, "processors")
        try:
            resolve_machine_policy(self.policy)  # a batch policy, or a two-tier one (a provider without a plan)
        except InvalidInput as err:
            raise InvalidInput(f"{where}: {err}") from None
        _check_type(f"{where}: prices", self.prices, str, "'synthetic', 'fixed' or a CSV path")
        _number_in(f"{where}: price_per_mwh", self.price_per_mwh, 0, math.inf, "price per MWh")
        _number_in(f"{where}: watts_per_proc", self.watts_per_proc, 0, math.inf, "watts")
        _number_in(f"{where}: overbooking", self.overbooking, 1, math.inf, "overbooking")
        from gridmarket.provisioning.dbc import DBC_SELLERS

        if self.sells not in DBC_SELLERS:
            raise InvalidInput(f"{where}: sells must be one of {', '.join(map(repr, DBC_SELLERS))}, "
                               f"got {self.sells!r}{suggest(str(self.sells), DBC_SELLERS)}")
        if self.trace is not None:
            _check_type(f"{where}: trace", self.trace, str, "an SWF/GWF/Batsim JSON file path")
            if not self.trace:
                raise InvalidInput(f"{where}: trace must be a file path, got ''")
        _check_type(f"{where}: agent", self.agent, str, "a provider agent name")
        from gridmarket.agents.registry import resolve_provider_agent

        try:
            resolve_provider_agent(self.agent)
        except InvalidInput as err:
            raise InvalidInput(f"{where}: {err}") from None
        _check_type(f"{where}: pricing", self.pricing, str, "a pricing rule name")
        from gridmarket.pricing.rules import resolve_pricing

        try:
            resolve_pricing(self.pricing)
        except InvalidInput as err:
            raise InvalidInput(f"{where}: {err}") from None


@dataclass(frozen=True, slots=True)
class WorkloadConfig:
    """Where the jobs come from.

    Parameters
    ----------
    source : str
        ``"lublin"``: ``gridmarket.workloads.lublin_workload`` (Lublin & Feitelson 2003)
        with ``n_jobs``, ``procs`` and ``estimates``; ``"trace"``: an SWF/GWF/Batsim JSON file ``trace``;
        ``"providers"``: each provider's own trace (``providers[].trace``; a provider without one
        has no users of its own), merged in submit order, every trace starting at 0 s.
    n_jobs : int
        Jobs of the synthetic model, or the first jobs kept of a trace (0 = all; with
        ``"providers"``, of each provider's trace).
    procs : int
        Machine size the synthetic model draws job sizes for.
    estimates : str
        ``"tsafrir"`` (realistic user estimates), ``"exact"``, or a user-behaviour
        tag of Rocchetti et al. Table 2 (``"BE"``, ``"GE"``, ``"CF"``, ``"CFG"``,
        ``"DI"``, ``"HDI"``): each user estimates with its group's accuracy.
    load_factor : float
        Multiplies the offered load (inter-arrival times divided by it).
    n_users : int
        Synthetic jobs are dealt to this many users (job id mod n_users); each
        user's home provider is user mod number of providers.
    n_workflows : int
        Workflows (Singh's layered generator, ch. 4.7) submitted at evenly
        spread instants over the jobs' submit span; 0 = none.
    workflow_tasks, workflow_runtime, workflow_procs
        Tasks per workflow, mean task runtime (s) and mean processors per task.
    workflow_data_gb : float
        Mean data on each workflow edge, GB (1e9 bytes; Singh ch. 4.9 uses
        1000 Gb = 125 GB); it moves between providers at
        ``parameters.transfer_latency`` / ``transfer_gbps``. 0 = compute only.
    workflow_files : tuple of str
        Real workflows submitted besides the generated ones, one request per
        file: WfCommons/WfFormat JSON (e.g. WfInstances), the gridmarket
        workflow JSON (``docs/formats.md``) or a Pegasus DAX (``.xml``,
        ``.dax``; one processor per task). Paths are relative to the
        working directory, as ``trace`` is. All workflows arrive at evenly
        spread instants over the jobs' submit span, generated ones first.
    user_agent : str
        The users' agent class: ``"user"`` (:class:`gridmarket.agents.User`) or a plug-in
        ``"package.module:Name"`` subclassing it (``docs/extending.md``).
    """

    source: str = "lublin"
    trace: str | None = None
    n_jobs: int = 200
    procs: int = 64
    estimates: str = "tsafrir"
    load_factor: float = 1.0
    n_users: int = 8
    n_workflows: int = 0
    workflow_tasks: int = 20
    workflow_runtime: float = 1000.0
    workflow_procs: float = 4.0
    workflow_data_gb: float = 0.0
    workflow_files: tuple[str, ...] = ()
    user_agent: str = "user"

    def __post_init__(self) -> None:
        if isinstance(self.workflow_files, list):  # TOML arrays and JSON manifests give lists
            object.__setattr__(self, "workflow_files", tuple(self.workflow_files))
        _check_type("workload.workflow_files", self.workflow_files, tuple, "a list of workflow file paths")
        for i, path in enumerate(self.workflow_files):
            _check_type(f"workload.workflow_files[{i}]", path, str, "a file path")
            if not path.lower().endswith((".json", ".xml", ".dax")):
                raise InvalidInput(f"workload.workflow_files[{i}]: {path!r} is not a workflow file "
                                   "(.json: WfFormat or gridmarket JSON; .xml/.dax: Pegasus DAX)")
        if self.source not in WORKLOAD_SOURCES:
            raise InvalidInput(f"workload.source: unknown source {self.source!r}{suggest(self.source, WORKLOAD_SOURCES)}")
        if self.source == "trace" and not self.trace:
            raise InvalidInput("workload.trace: a trace source needs a file path")
        if self.trace is not None:
            _check_type("workload.trace", self.trace, str, "a file path")
            if self.source != "trace":  # it would be read by nothing: the jobs come from the source
                raise InvalidInput(f"workload.trace ({self.trace!r}) is read only with workload.source = 'trace', "
                                   f"not {self.source!r}; remove one of the two keys")
        _int_at_least("workload.n_jobs", self.n_jobs, 0 if self.source in ("trace", "providers") else 1, "jobs")
        if self.source == "lublin":  # generated: every job is held in memory (a trace's size is its file's)
            check_fits_memory("workload.n_jobs", self.n_jobs)
        _int_at_least("workload.procs", self.procs, 1, "processors")
        known = ("tsafrir", "exact", *BEHAVIOURS)
        if self.estimates not in known:
            raise InvalidInput(f"workload.estimates: unknown {self.estimates!r}{suggest(self.estimates, known)}")
        _check_type("workload.load_factor", self.load_factor, (int, float), "a number > 0")
        if not self.load_factor > 0:
            raise InvalidInput(f"workload.load_factor must be > 0, got {self.load_factor!r}")
        check_number("workload.load_factor", self.load_factor, "load factor")
        _int_at_least("workload.n_users", self.n_users, 1, "users")
        check_fits_memory("workload.n_users", self.n_users, bytes_each=BYTES_PER_USER, what="users")
        _int_at_least("workload.n_workflows", self.n_workflows, 0, "workflows")
        _int_at_least("workload.workflow_tasks", self.workflow_tasks, 1, "tasks")
        _number_in("workload.workflow_runtime", self.workflow_runtime, 1, math.inf, "mean seconds")
        _number_in("workload.workflow_procs", self.workflow_procs, 1, math.inf, "mean processors")
        _number_in("workload.workflow_data_gb", self.workflow_data_gb, 0, math.inf, "data")
        _check_type("workload.user_agent", self.user_agent, str, "a user agent name")
        from gridmarket.agents.registry import resolve_user_agent

        try:
            resolve_user_agent(self.user_agent)
        except InvalidInput as err:
            raise InvalidInput(f"workload.user_agent: {err}") from None


@dataclass(frozen=True, slots=True)
class Parameters:
    """Market parameters shared by the interaction models.

    Parameters
    ----------
    alpha : float
        Cost/time trade-off factor in [0, 1] (Singh eq. 15 and Fig. 51).
    w_t : float
        Weight of response time in the metascheduler's cost, percent (Murali eq. 6).
    maxq : int or None
        Jobs a provider may receive per metascheduling cycle; None = unbounded.
    f_g : float
        Fraction of jobs users route to the metascheduler (a seeded trial per job).
    reservation_fraction : float
        Fraction of jobs that ask for an advance reservation (VAR / combined).
    penalty : float
        Cancellation penalty as a fraction of the reservation's price (Singh eq. 23).
    cycle_seconds : int
        Seconds between metascheduling cycles.
    reservation_lead : int
        Seconds between a reservation request and the start it asks for.
    population, generations : int
        MOGA's population size and generations (Singh ch. 4.5; 100 x 10 there).
    wait_history : int
        Past jobs replayed on each provider to train the metascheduler's wait
        predictors before the market opens (Murali & Vadhiyar sec. 4.3.2 use
        the last 2000 started jobs); 0 starts them empty, and then they
        predict no wait anywhere until a job that waited has started. The
        ``var``/``combined`` brokers' QBETS bounds (Singh ch. 6.1) are
        trained the same way; empty, they submit every VAR job at once.
    transfer_latency : int
        Seconds added to every transfer of workflow data between two
        providers (Singh ch. 4.9: 150 s).
    price_forecasts : str
        What the metascheduler plans electricity costs with: ``"actual"``
        prices (perfect foresight) or ``"sarima"`` (Murali & Vadhiyar sec.
        3.2: published day-ahead prices, then SARIMA forecasts;
        :class:`gridmarket.agents.metascheduler.MetaschedulerSpec`).
    transfer_gbps : float or None
        Bandwidth between providers, gigabits per second (ch. 4.9: 10);
        None = data moves instantly (only the latency counts). Transfers are
        not contended (ch. 4.9); the brokers' plans and the just-in-time runs
        both wait for them.
    """

    alpha: float = 0.5
    w_t: float = 25.0
    maxq: int | None = 2
    f_g: float = 1.0
    reservation_fraction: float = 0.1
    penalty: float = 0.1
    cycle_seconds: int = 600
    reservation_lead: int = 7200
    population: int = 50
    generations: int = 10
    wait_history: int = 2000
    transfer_latency: int = 0
    transfer_gbps: float | None = None
    price_forecasts: str = "actual"

    def __post_init__(self) -> None:
        if self.price_forecasts not in ("actual", "sarima"):
            raise InvalidInput(f"parameters.price_forecasts: expected 'actual' or 'sarima', got "
                               f"{self.price_forecasts!r}{suggest(str(self.price_forecasts), ('actual', 'sarima'))}")
        _number_in("parameters.alpha", self.alpha, 0, 1, "fraction")
        _number_in("parameters.w_t", self.w_t, 0, 100, "percent")
        if self.maxq is not None:
            _int_at_least("parameters.maxq", self.maxq, 1, "jobs")
        _number_in("parameters.f_g", self.f_g, 0, 1, "fraction")
        _number_in("parameters.reservation_fraction", self.reservation_fraction, 0, 1, "fraction")
        _number_in("parameters.penalty", self.penalty, 0, 1, "fraction")
        _int_at_least("parameters.cycle_seconds", self.cycle_seconds, 1, "seconds")
        _int_at_least("parameters.reservation_lead", self.reservation_lead, 0, "seconds")
        _int_at_least("parameters.population", self.population, 2, "population")
        _int_at_least("parameters.generations", self.generations, 0, "generations")
        _int_at_least("parameters.wait_history", self.wait_history, 0, "jobs")
        _int_at_least("parameters.transfer_latency", self.transfer_latency, 0, "seconds")
        if self.transfer_gbps is not None:
            _check_type("parameters.transfer_gbps", self.transfer_gbps, (int, float), "a number > 0 (Gb/s)")
            if not 0 < self.transfer_gbps < math.inf:
                raise InvalidInput(f"parameters.transfer_gbps must be a finite number > 0 (Gb/s), "
                                   f"got {self.transfer_gbps!r}")
            check_number("parameters.transfer_gbps", self.transfer_gbps, "bandwidth")

    def network(self) -> Network | None:
        """The providers' ``gridmarket.workflows.Network``, or None when transfers take no time."""
        if self.transfer_latency == 0 and self.transfer_gbps is None:
            return None
        bandwidth = math.inf if self.transfer_gbps is None else self.transfer_gbps * 1e9 / 8
        return Network(latency=self.transfer_latency, bytes_per_second=bandwidth)


@dataclass(frozen=True, slots=True)
class ScenarioConfig:
    """A whole scenario: who, what workload, which interaction models, with which parameters.

    ``duration_seconds`` = None runs until every job has ended; otherwise only
    jobs submitted before it are replayed.
    """

    name: str
    providers: tuple[ProviderConfig, ...]
    workload: WorkloadConfig = field(default_factory=WorkloadConfig)
    models: tuple[str, ...] = tuple(INTERACTION_MODELS)
    parameters: Parameters = field(default_factory=Parameters)
    duration_seconds: int | None = None
    seed: int = 1
    description: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise InvalidInput(f"name must be a non-empty str, got {self.name!r}")
        check_path_name("name", self.name)  # part of the default results and sweep folders' names
        if not self.providers:
            raise InvalidInput("providers: a scenario needs at least one provider")
        names = [p.name for p in self.providers]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise InvalidInput(f"providers: names must be unique, {dup} repeated")
        traced = [i for i, p in enumerate(self.providers) if p.trace is not None]
        if self.workload.source == "providers" and not traced:
            raise InvalidInput("workload.source = 'providers' reads each provider's own trace: give at least one "
                               "provider a trace (providers[].trace = \"FILE.swf\")")
        if self.workload.source != "providers" and traced:
            raise InvalidInput(f"providers[{traced[0]}].trace ({self.providers[traced[0]].trace!r}) is read only "
                               f"with workload.source = 'providers', not {self.workload.source!r}")
        if not self.models:
            raise InvalidInput("models: name at least one interaction model")
        for m in self.models:
            check_model(m)
            check_path_name("models", m)  # a folder of compare --batsim's output
        # every provider replays wait_history past jobs to train its predictors before the market opens
        check_fits_memory("parameters.wait_history", self.parameters.wait_history * len(self.providers),
                          what="jobs replayed (wait_history x providers)")
        repeated = sorted({m for m in self.models if self.models.count(m) > 1})
        if repeated:  # it would run twice, as two rows of the same model in every table
            raise InvalidInput(f"models: {repeated[0]!r} is named twice; name each interaction model once")
        if self.duration_seconds is not None:
            _int_at_least("duration_seconds", self.duration_seconds, 1, "seconds")
        _int_at_least("seed", self.seed, 0, "seed")

    def to_dict(self) -> dict:
        """Plain data (for manifests and TOML round trips); ``from_dict(cfg.to_dict()) == cfg``."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["providers"] = [_as_dict(p) for p in self.providers]
        out["workload"] = _as_dict(self.workload)
        out["parameters"] = _as_dict(self.parameters)
        out["models"] = list(self.models)
        return out


def _as_dict(obj) -> dict:
    return {f.name: getattr(obj, f.name) for f in fields(obj)}


# ----------------------------------------------------------------------------- loading
def _build(cls, data: Any, where: str):
    if not isinstance(data, Mapping):
        raise InvalidInput(f"{where} must be a table, got {data!r}")
    known = [f.name for f in fields(cls)]
    for key in data:
        if key not in known:
            raise InvalidInput(f"{where}: unknown key {key!r}{suggest(key, known)}")
    return cls(**data)


def from_dict(data: Mapping[str, Any], *, where: str = "scenario") -> ScenarioConfig:
    """Build and check a :class:`ScenarioConfig` from plain data (a parsed TOML document).

    Raises
    ------
    InvalidInput
        Naming the key (``providers[0].policy``) and suggesting the closest known name.
    """
    if not isinstance(data, Mapping):
        raise InvalidInput(f"{where}: expected a table, got {data!r}")
    known = [f.name for f in fields(ScenarioConfig)]
    for key in data:
        if key not in known:
            raise InvalidInput(f"{where}: unknown key {key!r}{suggest(key, known)}")
    data = dict(data)
    if "providers" not in data:
        raise InvalidInput(f"{where}: missing key 'providers' (a list of [[providers]] tables)")
    if "name" not in data:
        raise InvalidInput(f"{where}: missing key 'name'")
    raw = data["providers"]
    if not isinstance(raw, (list, tuple)):
        raise InvalidInput(f"{where}: providers must be a list of tables, got {raw!r}")
    providers = []
    for i, p in enumerate(raw):
        prefix = f"{where}: providers[{i}]"
        try:
            providers.append(_build(ProviderConfig, p, prefix))
        except TypeError as exc:  # a missing required key
            raise InvalidInput(f"{prefix}: {exc}") from None
        except InvalidInput as exc:  # _build's own messages carry the prefix already
            raise (exc if str(exc).startswith(prefix) else InvalidInput(f"{prefix}: {exc}")) from None
    data["providers"] = tuple(providers)
    for key, cls in (("workload", WorkloadConfig), ("parameters", Parameters)):
        if key in data:
            try:
                data[key] = _build(cls, data[key], key)
            except InvalidInput as exc:
                raise InvalidInput(f"{where}: {exc}") from None
    if "models" in data:
        if not isinstance(data["models"], (list, tuple)):
            raise InvalidInput(f"{where}: models must be a list of names, got {data['models']!r}")
        data["models"] = tuple(data["models"])
    try:
        return ScenarioConfig(**data)
    except InvalidInput as exc:
        raise InvalidInput(f"{where}: {exc}") from None


def load_toml_text(text: str, *, where: str = "scenario") -> ScenarioConfig:
    """Parse TOML ``text`` into a checked :class:`ScenarioConfig`."""
    return from_dict(parse_toml(text, where, "scenario"), where=where)


def load_toml(path: str | Path) -> ScenarioConfig:
    """Read a scenario TOML file (UTF-8, :mod:`gridmarket.decoding`); errors start with the path."""
    return from_dict(read_toml(path, "scenario"), where=str(path))


# ----------------------------------------------------------------------------- overrides
_TOP = ("seed", "duration_seconds", "models")


def overridable() -> list[str]:
    """Names :func:`with_overrides` accepts: top-level keys, parameters, ``workload.*``, ``providers.*``."""
    return (list(_TOP) + [f.name for f in fields(Parameters)]
            + [f"workload.{f.name}" for f in fields(WorkloadConfig)]
            + [f"providers.{f.name}" for f in fields(ProviderConfig) if f.name != "name"])


def with_overrides(config: ScenarioConfig, values: Mapping[str, Any]) -> ScenarioConfig:
    """A copy of ``config`` with parameter values replaced (for sweeps and the CLI).

    Keys are parameter names (``alpha``, ``w_t``, ...), ``seed``,
    ``duration_seconds``, ``models``, ``workload.<key>`` or ``providers.<key>``
    (every provider's ``<key>``, e.g. ``providers.overbooking`` or
    ``providers.policy``; each provider checks its new value). Unknown names
    raise ``InvalidInput`` suggesting the closest.

    >>> from gridmarket.scenarios.registry import get_scenario
    >>> cfg = with_overrides(get_scenario("quickstart"), {"providers.overbooking": 1.5, "alpha": 0.2})
    >>> [p.overbooking for p in cfg.providers], cfg.parameters.alpha
    ([1.5, 1.5, 1.5], 0.2)
    """
    params: dict[str, Any] = {}
    work: dict[str, Any] = {}
    top: dict[str, Any] = {}
    prov: dict[str, Any] = {}
    pnames = {f.name for f in fields(Parameters)}
    wnames = {f.name for f in fields(WorkloadConfig)}
    provnames = {f.name for f in fields(ProviderConfig)} - {"name"}
    for key, value in values.items():
        if key in _TOP:
            top[key] = tuple(value) if key == "models" else value
        elif key in pnames:
            params[key] = value
        elif key.startswith("workload.") and key.removeprefix("workload.") in wnames:
            work[key.removeprefix("workload.")] = value
        elif key.startswith("providers.") and key.removeprefix("providers.") in provnames:
            prov[key.removeprefix("providers.")] = value
        else:
            raise InvalidInput(f"unknown parameter {key!r}{suggest(key, overridable())}")
    if prov:
        top["providers"] = tuple(replace(p, **prov) for p in config.providers)
    return replace(
        config,
        parameters=replace(config.parameters, **params),
        workload=replace(config.workload, **work),
        **top,
    )
