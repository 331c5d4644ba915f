"""A steppable view of a gridmarket market for Mesa's SolaraViz: one step = a fixed slice of market time.

``gridmarket.agents.MarketModel`` runs on Mesa 3.5's event-driven clock in seconds;
SolaraViz calls ``model.step()``, which advances a model by one tick.
:class:`MarketView` is that tick: each step runs the market (and, for the
summary table, the same scenario under every other interaction model, on the
same workload, prices and seed) ``step_seconds`` further with ``run_until``.
It also checks the page's control values (:func:`parse_controls`) and turns
bad values or a model exception into a message for the page instead of an
exception that would leave a dead page.

Times are integer seconds from simulation start; ``alpha`` in [0, 1]
(Singh eq. 15), ``w_t`` in percent (Murali & Vadhiyar eq. 6).
"""

from __future__ import annotations

import copy
import math
import time
import traceback
from dataclasses import dataclass

import mesa

from gridmarket.errors import InvalidInput
from gridmarket.plugins import is_plugin_name
from gridmarket.scenarios.config import INTERACTION_MODELS, ScenarioConfig, check_model, suggest, with_overrides
from gridmarket.scenarios.experiment import build_inputs, build_market
from gridmarket.scenarios.registry import get_scenario
from gridmarket.viz.summary import running_summary

__all__ = ["DEFAULT_HORIZON_SECONDS", "DEFAULT_STEP_SECONDS", "Controls", "MarketView", "parse_controls"]

DEFAULT_STEP_SECONDS = 3600
"""Market time per step: one hour."""

DEFAULT_HORIZON_SECONDS = 8 * 3600
"""How far ahead the Gantt chart draws the plan: 8 h, as Singh 2008 Fig. 1."""


@dataclass(frozen=True, slots=True)
class Controls:
    """The page's control values, checked: scenario, interaction model, α, w_t (%), load factor, reservation
    fraction, seed."""

    scenario_name: str
    interaction_model: str
    alpha: float
    w_t: float
    load_factor: float
    reservation_fraction: float
    seed: int


def _number(name: str, value) -> float:
    if isinstance(value, bool):
        raise InvalidInput(f"{name} must be a number, got {value!r}")
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            raise InvalidInput(f"{name} must be a number, got {value!r}") from None
    if not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InvalidInput(f"{name} must be a finite number, got {value!r}")
    return float(value)


def _seed(value) -> int:
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    raise InvalidInput(f"seed must be an int >= 0, got {value!r}")


def parse_controls(scenario_name, interaction_model, alpha=None, w_t=None, load_factor=None,
                   reservation_fraction=None, seed=None) -> tuple[Controls, ScenarioConfig]:
    """Check the page's control values and build the scenario they describe.

    Numbers may come as text (the seed is a text field); None keeps the
    scenario's own value. The interaction models are read from
    ``gridmarket.scenarios.config.INTERACTION_MODELS`` at call time; a plug-in
    ``"package.module:Name"`` (:mod:`gridmarket.scenarios.interaction`) is imported here.

    Returns
    -------
    (Controls, ScenarioConfig)
        The checked values and the scenario with them applied.

    Raises
    ------
    InvalidInput
        Naming the control and its value; unknown names suggest the closest.

    Examples
    --------
    >>> c, cfg = parse_controls("quickstart", "best-effort", alpha=0.25, load_factor="2.5", seed="7")
    >>> c.seed, cfg.parameters.alpha, cfg.workload.load_factor, cfg.parameters.w_t
    (7, 0.25, 2.5, 25.0)
    >>> parse_controls("quickstart", "best-effort", seed="-3")
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: seed must be an int >= 0, got '-3'
    """
    if not isinstance(scenario_name, str) or not scenario_name:
        raise InvalidInput(f"scenario must be a scenario name or a .toml file, got {scenario_name!r}")
    if is_plugin_name(interaction_model):
        check_model(interaction_model, "interaction model")  # imported here: a bad plug-in is one line
    elif interaction_model not in INTERACTION_MODELS:
        raise InvalidInput(f"unknown interaction model {interaction_model!r}"
                           f"{suggest(str(interaction_model), INTERACTION_MODELS)}")
    config = get_scenario(scenario_name)
    par = config.parameters

    def given(value, default):
        return default if value is None else value

    controls = Controls(
        scenario_name=scenario_name,
        interaction_model=interaction_model,
        alpha=_number("alpha", given(alpha, par.alpha)),
        w_t=_number("w_t", given(w_t, par.w_t)),
        load_factor=_number("load factor", given(load_factor, config.workload.load_factor)),
        reservation_fraction=_number("reservation fraction", given(reservation_fraction, par.reservation_fraction)),
        seed=_seed(given(seed, config.seed)),
    )
    config = with_overrides(config, {
        "alpha": controls.alpha,
        "w_t": controls.w_t,
        "workload.load_factor": controls.load_factor,
        "reservation_fraction": controls.reservation_fraction,
        "seed": controls.seed,
    })
    return controls, config


def _finished(market, now: int) -> bool:
    """Nothing left to happen: the market's own test when it has one, else every job submitted and all idle."""
    pending = getattr(market, "_pending", None)  # MarketModel.run's loop test; kept by the agents' owners
    if callable(pending):
        return not pending()
    if any(j.submit > now for j in market.workload.jobs):
        return False
    for p in market.providers.values():
        if p.machine.next_time() is not None or p.machine.scheduler.queue:
            return False
    meta = market.metascheduler
    return meta is None or not meta.pending


class MarketView(mesa.Model):
    """The market of a scenario under one interaction model, advanced ``step_seconds`` per step.

    Parameters
    ----------
    scenario_name, interaction_model, alpha, w_t, load_factor, reservation_fraction, seed
        The page's controls (see :func:`parse_controls`); None keeps the scenario's value.
    compare_models : bool
        Also run the scenario's other interaction models in step, for the summary table.
    step_seconds : int
        Market time per step (seconds).
    horizon_seconds : int
        How far ahead of now the Gantt chart draws (seconds).

    Attributes
    ----------
    error : str or None
        Why there is nothing to show (invalid controls, a failed build, an
        exception in the shown model's step); the page shows it in an error panel.
    market : gridmarket.agents.MarketModel or None
        The shown interaction model's market.
    markets : dict of str to gridmarket.agents.MarketModel
        Every market run in step (the shown one first).
    failed : dict of str to str
        Markets that raised, with the message; they stop, the others go on.
    now : int
        Market time reached (seconds).
    last_step_seconds : float
        Wall-clock seconds the last step took (all markets).
    samples : list of tuple
        ``(time s, provider, queued jobs, busy processors, processors)`` of the
        shown market after every step.

    Examples
    --------
    >>> v = MarketView("quickstart", "best-effort", compare_models=False)
    >>> v.step(); v.step()
    >>> v.now, v.error, len(v.samples) == 3 * len(v.market.providers)
    (7200, None, True)
    >>> MarketView("quickstart", "best-effort", seed="x").error
    "Invalid control value: seed must be an int >= 0, got 'x'"
    """

    def __init__(
        self,
        scenario_name: str = "quickstart",
        interaction_model: str = "best-effort",
        alpha: float | None = None,
        w_t: float | None = None,
        load_factor: float | str | None = None,
        reservation_fraction: float | None = None,
        seed: int | str | None = None,
        compare_models: bool = True,
        step_seconds: int = DEFAULT_STEP_SECONDS,
        horizon_seconds: int = DEFAULT_HORIZON_SECONDS,
    ) -> None:
        super().__init__(rng=None)  # the market owns its seeded rng; the view draws nothing
        self.error: str | None = None
        self.details = ""
        self.controls: Controls | None = None
        self.config: ScenarioConfig | None = None
        self.market = None
        self.markets: dict = {}
        self.failed: dict[str, str] = {}
        self.samples: list[tuple[int, str, int, int, int]] = []
        self.now = 0
        self.last_step_seconds = 0.0  # wall-clock seconds the last step took
        self.step_seconds = step_seconds
        self.horizon_seconds = horizon_seconds
        try:
            for name, value in (("step_seconds", step_seconds), ("horizon_seconds", horizon_seconds)):
                if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                    raise InvalidInput(f"{name} must be an int >= 1 s, got {value!r}")
            self.controls, self.config = parse_controls(scenario_name, interaction_model, alpha, w_t, load_factor,
                                                        reservation_fraction, seed)
        except InvalidInput as err:
            self._fail(f"Invalid control value: {err}")
            return
        shown = self.controls.interaction_model
        names = [shown] + ([m for m in self.config.models if m != shown] if compare_models else [])
        try:
            # (workload, prices[, broker requests], model rng): the requests came with the broker models
            workload, prices, *requests, rng = build_inputs(self.config)
        except Exception as err:  # noqa: BLE001 - the page shows any failure
            self._fail(f"Could not build scenario {scenario_name!r}: {type(err).__name__}: {err}", tb=True)
            return
        extra = {"requests": requests[0]} if requests else {}
        for name in names:
            try:  # each market gets the same model stream, as ``gridmarket compare`` does
                self.markets[name] = build_market(self.config, name, workload, prices, rng=copy.deepcopy(rng),
                                                  **extra)
            except Exception as err:  # noqa: BLE001
                if name == shown:
                    self._fail(f"Could not build the {name} market: {type(err).__name__}: {err}", tb=True)
                    return
                self.failed[name] = f"{type(err).__name__}: {err}"
        self.market = self.markets[shown]
        self._sample()

    def _fail(self, message: str, *, tb: bool = False) -> None:
        self.error = message
        self.details = traceback.format_exc() if tb else ""
        self.running = False

    @property
    def n_jobs(self) -> int:
        """Jobs of the shown market's workload."""
        return len(self.market.workload.jobs) if self.market is not None else 0

    def step(self) -> None:
        """Run every market ``step_seconds`` further; stop when the shown one has nothing left to do."""
        if self.market is None or self.error is not None:
            self.running = False
            return
        started = time.perf_counter()
        target = self.now + self.step_seconds
        for name, market in self.markets.items():
            if name in self.failed:
                continue
            try:
                market.run_until(target)
            except Exception as err:  # noqa: BLE001 - shown as a panel, not a dead page
                self.failed[name] = f"{type(err).__name__}: {err}"
                if market is self.market:
                    self._fail(f"The {name} model raised before t = {target} s: {type(err).__name__}: {err}",
                               tb=True)
        self.now = target
        self._sample()
        self.last_step_seconds = time.perf_counter() - started
        if self.error is None:
            self.running = not all(_finished(m, target) for n, m in self.markets.items() if n not in self.failed)

    def _sample(self) -> None:
        for p in self.market.providers.values():  # type: ignore[union-attr]  # shown from the first step on
            self.samples.append((self.now, p.name, len(p.queue), p.busy, p.procs))

    def summaries(self) -> list[dict]:
        """One row of running metrics per market (:func:`gridmarket.viz.summary.running_summary`), shown model first."""
        rows = []
        order = list(self.markets) + [n for n in self.failed if n not in self.markets]
        for name in order:
            row = {"model": name}
            if name in self.failed:
                row["status"] = f"error: {self.failed[name]}"
            elif name in self.markets:
                market = self.markets[name]
                row["status"] = "finished" if _finished(market, self.now) else "running"
                row.update(running_summary(market, self.now))
            rows.append(row)
        return rows
