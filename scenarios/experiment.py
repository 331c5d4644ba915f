"""Run a scenario's interaction models on one workload and seed: build, run, summarise.

Composes ``market`` (workloads, electricity prices, metrics) and ``agents``
(the Mesa market model) from a :class:`gridmarket.scenarios.config.ScenarioConfig`. It
holds no algorithm. One ``numpy.random.SeedSequence(config.seed)`` is split
into independent streams for the workload, the price series and the model,
so every interaction model sees the same jobs and prices.

Times are integer seconds from simulation start; allocation cost is SU
(processor-hours at the best-effort rate ``gridmarket.pricing.BASE_RATE``);
electricity cost is in the price series' currency (eq. 7 of Murali & Vadhiyar).
"""

from __future__ import annotations

import math
import sys
import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

import networkx as nx
import numpy as np
import pandas as pd

from gridmarket.agents import MarketModel, MetaschedulerSpec, ProviderSpec
from gridmarket.agents.broker import WorkflowRequest
from gridmarket.agents.model import BrokerSpec, RunResult, check_market
from gridmarket.energy.prices import (
    HourlyPrices,
    fixed_prices,
    read_prices,
    synthetic_prices,
)
from gridmarket.errors import InvalidInput
from gridmarket.limits import BYTES_PER_PRICE_HOUR
from gridmarket.metrics import summarize
from gridmarket.pricing import BASE_RATE, SECONDS_PER_HOUR
from gridmarket.scenarios.config import ProviderConfig, ScenarioConfig, check_model
from gridmarket.scenarios.interaction import resolve_model
from gridmarket.validation import check_fits_memory
from gridmarket.valuation import Valuation, draw_valuations, realised_values
from gridmarket.workflows.generators import layered_workflow
from gridmarket.workloads import DroppedJobsWarning, lublin_workload, read_trace, scale_load, truncate
from gridmarket.workloads.behaviour import SCENARIOS as BEHAVIOURS
from gridmarket.workloads.behaviour import apply_behaviour
from gridmarket.workloads.workload import Workload

__all__ = [
    "SUMMARY_COLUMNS", "ModelRun", "Requests", "build_inputs", "build_market", "build_prices", "build_requests", "build_valuations", "build_workload", "check_models", "compare", "read_workflow_file",
    "run_id", "run_model", "summary_row",
]  # fmt: skip

SUMMARY_COLUMNS = (
    "model", "jobs", "makespan", "mean_wait", "mean_response", "mean_bsld", "workflow_makespan",
    "reservation_success", "reservation_cost", "reservation_cost_median", "allocation_cost", "electricity_cost",
    "success_rate", "messages", "users_surplus", "provider_revenue", "social_welfare", "negotiation_messages",
    "negotiation_rounds", "sla_contracts", "sla_violations", "sla_late", "sla_never_ran", "sla_penalties",
    "sla_net_revenue", "sla_reoffered", "sla_overruns", "sla_overrun_charges",
)  # fmt: skip
"""Columns of the comparison table, in print order (``msg_<kind>`` columns follow)."""

_STREAMS = 4  # workload, prices, model, workflows and reservation requests (spawned children are stable by index)


def run_id(config: ScenarioConfig, model: str) -> str:
    """Readable id: ``quickstart-mcmf-a0.5-seed3``."""
    return f"{config.name}-{model}-a{config.parameters.alpha:g}-seed{config.seed}"


def _streams(seed: int) -> list[np.random.Generator]:
    return [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(_STREAMS)]


def build_workload(config: ScenarioConfig, *, rng: np.random.Generator) -> Workload:
    """The scenario's jobs, each with a user and a home provider (``site``).

    Synthetic jobs are dealt to ``n_users`` users by id; a trace keeps its
    users. ``estimates`` set to a user-behaviour tag (BE, GE, CF, CFG, DI,
    HDI; Rocchetti et al. Table 2) rewrites every job's estimate with the
    accuracy of its user's group (``gridmarket.workloads.behaviour``). A user's home provider is ``user mod n_providers`` in config order;
    with ``source = "providers"`` it is the provider whose trace the job came from (:func:`_provider_traces`).
    A job wider than its home goes to the smallest provider that fits (a job
    wider than every provider is dropped, with one ``DroppedJobsWarning`` counting them).
    """
    w = config.workload
    homes: dict[int, ProviderConfig] = {}  # job id -> its site (per-provider traces)
    if w.source == "lublin":
        workload = lublin_workload(w.n_jobs, procs=w.procs, rng=rng,
                                   estimates="tsafrir" if w.estimates == "tsafrir" else None)
    elif w.source == "trace":
        workload = _read_trace(w.trace, w.n_jobs)  # type: ignore[arg-type]  # source "trace": the config names one
    else:
        workload, homes = _provider_traces(config)
    if w.load_factor != 1.0 and w.source != "providers":
        workload = scale_load(workload, w.load_factor)
    providers = sorted(config.providers, key=lambda p: (p.procs, config.providers.index(p)))
    users = sorted({j.user for j in workload.jobs})
    index = {u: k for k, u in enumerate(users)}
    jobs = []
    largest = providers[-1]
    too_wide = 0
    for job in workload.jobs:
        if config.duration_seconds is not None and job.submit >= config.duration_seconds:
            continue
        if job.procs > largest.procs:  # no provider could ever run it: dropped and counted, as simulate does
            too_wide += 1
            continue
        user = job.id % w.n_users if w.source == "lublin" else index[job.user]
        home = homes[job.id] if homes else config.providers[user % len(config.providers)]
        if job.procs > home.procs:
            home = next(p for p in providers if p.procs >= job.procs)
        jobs.append(replace(job, user=user, site=home.name))
    if too_wide:
        warnings.warn(f"{workload.name or 'workload'}: dropped {too_wide} job(s) wider than the largest provider "
                      f"{largest.name!r} ({largest.procs} processors)", DroppedJobsWarning, stacklevel=2)
    if not jobs:
        why = (f"all {too_wide} job(s) are wider than the largest provider {largest.name!r} ({largest.procs} "
               "processors)" if too_wide else f"no job submits before duration_seconds={config.duration_seconds}")
        raise InvalidInput(f"scenario {config.name!r}: {why}")
    out = Workload(tuple(jobs), name=workload.name, max_procs=workload.max_procs)
    if w.estimates in BEHAVIOURS:  # each user estimates with the accuracy of its Rocchetti et al. group
        out = apply_behaviour(out, w.estimates, n_users=None, rng=rng)
    return out


def _read_trace(path: str | Path, n_jobs: int) -> Workload:
    """An SWF/GWF/Batsim JSON trace (:func:`gridmarket.workloads.read_trace`), its first ``n_jobs`` (0 = all)."""
    workload = read_trace(path)
    return truncate(workload, n_jobs) if n_jobs else workload


def _provider_traces(config: ScenarioConfig) -> tuple[Workload, dict[int, ProviderConfig]]:
    """Every provider's own trace (``providers[].trace``) merged into one workload, and each job's site.

    Each trace keeps its first ``workload.n_jobs`` jobs (0 = all), starts at 0 s (the readers
    rebase submits) and has its load scaled by ``workload.load_factor``. Jobs are merged in
    ``(submit, provider order, trace id)`` order and renumbered 1..n; a site's users stay its
    own (user ``u`` of provider ``k`` becomes ``(k, u)``, numbered in that order), so two
    sites' user 1 are two users. Returns the workload and job id -> its provider.
    """
    w = config.workload
    merged = []
    for k, provider in enumerate(config.providers):
        if provider.trace is None:
            continue
        try:
            trace = _read_trace(provider.trace, w.n_jobs)
        except (InvalidInput, OSError) as err:
            why = f"{provider.trace}: cannot read ({err.strerror})" if isinstance(err, OSError) else err
            raise InvalidInput(f"provider {provider.name!r}: trace: {why}") from None
        if w.load_factor != 1.0:
            trace = scale_load(trace, w.load_factor)
        merged += [(job.submit, k, job.id, job) for job in trace.jobs]
    merged.sort(key=lambda item: item[:3])
    users = {u: i for i, u in enumerate(sorted({(k, job.user) for _, k, _, job in merged}))}
    jobs, homes = [], {}
    for new_id, (_, k, _, job) in enumerate(merged, 1):
        jobs.append(replace(job, id=new_id, user=users[(k, job.user)]))
        homes[new_id] = config.providers[k]
    name = "+".join(Path(p.trace).name for p in config.providers if p.trace is not None)
    return Workload(tuple(jobs), name=name, max_procs=max(p.procs for p in config.providers)), homes


@dataclass(frozen=True)
class Requests:
    """What users hand to brokers: workflows, and advance-reservation requests (job id -> wanted start, s).

    ``valuations`` (job id) and ``workflow_valuations`` (workflow id): what completing each is worth
    by when (:class:`gridmarket.valuation.Valuation`, SU), the same for every interaction model.
    """

    workflows: tuple[WorkflowRequest, ...] = ()
    reservations: dict[int, int] = field(default_factory=dict)
    valuations: dict[int, Valuation] = field(default_factory=dict)
    workflow_valuations: dict[int, Valuation] = field(default_factory=dict)


def _critical_path(graph: nx.DiGraph) -> int:
    """Seconds of the workflow's longest chain of task runtimes (a runtime by resource counts its largest)."""
    finish: dict = {}
    for t in nx.topological_sort(graph):
        runtime = graph.nodes[t].get("runtime", 0)
        runtime = max(runtime.values()) if isinstance(runtime, Mapping) else runtime
        finish[t] = max((finish[p] for p in graph.predecessors(t)), default=0) + runtime
    return int(max(finish.values(), default=0))


def _work_su(graph: nx.DiGraph) -> float:
    total = 0.0
    for _, data in graph.nodes(data=True):
        runtime = data.get("runtime", 0)
        runtime = max(runtime.values()) if isinstance(runtime, Mapping) else runtime
        total += data.get("procs", 1) * runtime * BASE_RATE / SECONDS_PER_HOUR
    return total


def build_valuations(workload: Workload, workflows, *, rng: np.random.Generator):
    """Every job's and workflow's valuation (:func:`gridmarket.valuation.draw_valuations`), jobs first.

    A job's value is set on what it asks for, ``procs x estimate`` at the base rate (SU, what a
    reservation of it costs with nothing delayed), and its deadline on how long it really runs
    (``min(runtime, estimate)`` s: users know their jobs' length; estimates are padded against
    kills); a workflow's on the sum of its tasks' work and its critical path (s).
    """
    jobs = draw_valuations(((j.id, j.submit, j.procs * j.estimate * BASE_RATE / SECONDS_PER_HOUR,
                             max(1, min(j.runtime, j.estimate))) for j in workload.jobs), rng=rng)
    flows = draw_valuations(((w.id, w.submit, _work_su(w.graph), max(1, _critical_path(w.graph)))
                             for w in workflows), rng=rng)
    return jobs, flows


def build_requests(config: ScenarioConfig, workload: Workload, *, rng: np.random.Generator) -> Requests:
    """The scenario's workflows and reservation requests, the same for every interaction model.

    ``n_workflows`` layered workflows (Singh ch. 4.7 generator), then one
    workflow per file of ``workflow_files`` (:func:`read_workflow_file`),
    arrive at evenly spaced instants over the jobs' submit span, from users
    taken in turn, each at its user's home provider. A seeded ``reservation_fraction``
    of the jobs ask, at their submit time, for their processors over
    ``estimate`` seconds from ``submit + reservation_lead`` (Singh ch. 6). Then every job
    and workflow gets its valuation (:func:`build_valuations`).
    """
    w, par = config.workload, config.parameters
    jobs = workload.jobs
    first, last = min(j.submit for j in jobs), max(j.submit for j in jobs)
    biggest = max(p.procs for p in config.providers)
    graphs = []
    for _ in range(w.n_workflows):
        graph = layered_workflow(w.workflow_tasks, mean_runtime=w.workflow_runtime, mean_procs=w.workflow_procs,
                                 mean_data_bytes=w.workflow_data_gb * 1e9, rng=rng)
        for t in graph:
            graph.nodes[t]["procs"] = min(graph.nodes[t]["procs"], biggest)
        graphs.append(graph)
    graphs += [read_workflow_file(path, biggest, where=f"workload.workflow_files[{i}]")
               for i, path in enumerate(w.workflow_files)]
    workflows = []
    for k, graph in enumerate(graphs):
        user = k % w.n_users
        site = config.providers[user % len(config.providers)].name
        submit = first + (last - first) * (k + 1) // (len(graphs) + 1)
        workflows.append(WorkflowRequest(k + 1, submit, user, site, graph))
    picked = rng.random(len(jobs)) < par.reservation_fraction
    if picked.all():  # every model's summary measures waits and slowdowns on the plain jobs
        raise InvalidInput(f"parameters.reservation_fraction = {par.reservation_fraction}: all {len(jobs)} jobs "
                           "became advance-reservation requests, leaving no plain job to measure waits and "
                           "slowdowns on; use a smaller fraction (or more jobs)")
    reservations = {j.id: j.submit + par.reservation_lead for j, p in zip(jobs, picked) if p}
    valuations, flows = build_valuations(workload, workflows, rng=rng)  # drawn last: earlier draws unchanged
    return Requests(tuple(workflows), reservations, valuations, flows)


def read_workflow_file(path: str, biggest: int, *, where: str = "workflow") -> nx.DiGraph:
    """A real workflow from ``path``: WfFormat or gridmarket JSON (``.json``) or Pegasus DAX (``.xml``/``.dax``).

    Raises ``InvalidInput`` naming ``where`` and the file when it cannot be read, or when a task needs
    more processors than the largest provider (``biggest``) has: such a workflow could never finish.
    """
    from gridmarket.workflows import read_dax, read_workflow_json

    if not Path(path).is_file():
        raise InvalidInput(f"{where}: {path}: no such file")
    try:
        graph = read_dax(path) if path.lower().endswith((".xml", ".dax")) else read_workflow_json(path)
    except InvalidInput as exc:
        raise InvalidInput(f"{where}: {exc}") from None
    wide = [t for t in graph if graph.nodes[t]["procs"] > biggest]
    if wide:
        raise InvalidInput(f"{where}: {path}: task {wide[0]!r} needs {graph.nodes[wide[0]]['procs']} processors; the "
                           f"largest provider has {biggest} ({len(wide)} such task(s))")
    return graph


def _horizon(workload: Workload, config: ScenarioConfig, requests: Requests | None = None) -> int:
    """Seconds a price series must cover: every job could end by the last submit plus all runs in a row."""
    w = config.workload
    last = max(j.submit for j in workload.jobs) + config.parameters.reservation_lead
    serial: float = sum(min(j.runtime, j.estimate) for j in workload.jobs)
    serial += w.n_workflows * w.workflow_tasks * 10 * w.workflow_runtime  # generous: task runtimes are drawn
    for request in (requests.workflows[w.n_workflows:] if requests is not None else ()):  # the real workflows
        for _, runtime in request.graph.nodes(data="runtime"):  # seconds, or seconds by resource
            serial += 2 * (max(runtime.values()) if isinstance(runtime, Mapping) else runtime)
    return last + int(serial) + config.parameters.cycle_seconds * (len(workload.jobs) + 1)


def build_prices(config: ScenarioConfig, horizon: int, *, rng: np.random.Generator) -> dict[str, HourlyPrices]:
    """An hourly price series per provider covering ``horizon`` seconds."""
    n_days = max(1, math.ceil(horizon / 86400))
    generated = sum(p.prices in ("synthetic", "fixed") for p in config.providers)
    check_fits_memory(f"the market's price horizon of {horizon} s (the last submit plus reservation_lead, every "
                      "job's run in a row and cycle_seconds x (jobs + 1))", 24 * n_days * generated,
                      bytes_each=BYTES_PER_PRICE_HOUR, what="hourly prices")
    out = {}
    for p in config.providers:
        if p.prices == "synthetic":
            out[p.name] = synthetic_prices(n_days, rng=rng, mean=p.price_per_mwh, zone=p.name)
        elif p.prices == "fixed":
            out[p.name] = fixed_prices(p.price_per_mwh, 24 * n_days, zone=p.name)
        else:
            out[p.name] = read_prices(p.prices)
    return out


@dataclass(frozen=True)
class ModelRun:
    """One interaction model's run: per-job records, a summary row, message counts, wall time."""

    model: str
    records: pd.DataFrame
    summary: dict
    messages: dict[str, int]
    seconds: float
    workflows: pd.DataFrame | None = None
    reservations: pd.DataFrame | None = None
    front: list = field(default_factory=list)  # last MOGA Pareto set: (allocation cost SU, makespan s)
    choice: int | None = None  # index of the plan eq. (15) chose in ``front``
    price_log: dict = field(default_factory=dict)  # provider -> [(time s, SU, kind)]
    currency: str = ""  # of the electricity prices ("" for the scenario's own unit: synthetic or fixed series)
    slas: pd.DataFrame | None = None  # the sla model's settled contracts (gridmarket.agents.trading.SLA_COLUMNS)


def summary_row(model: str, result: RunResult, procs: int, n_jobs: int, requests: Requests | None = None) -> dict:
    """One comparison row: job metrics over the users' own jobs, workflow makespan, reservation success.

    ``success_rate`` counts completed jobs, finished workflows and
    reservations started by their wanted start, over all three.

    Market outcomes (SU), from the requests' valuations (the same for every model):
    ``social_welfare`` is the users' realised value, each job's and workflow's utility at its end
    (:mod:`gridmarket.valuation`; 0 if it never ended or was killed at its estimate); ``provider_revenue`` is every SU users paid to
    providers (equal to ``allocation_cost``: base-rate charges, prices, penalties); the users'
    surplus is their difference. Providers' own costs are not in SU (electricity is its own column),
    so welfare = surplus + revenue. NaN without valuations. ``negotiation_messages`` leaves out the
    jobs handed over (``submit``, ``dispatch``); ``negotiation_rounds`` counts query-answer exchanges,
    auction rounds (1 sealed, one per clock step) and double-auction shouts. ``sla_contracts``,
    ``sla_violations`` (of which ``sla_late``: started after the window, ``sla_never_ran``: broken),
    ``sla_penalties`` (SU the providers paid back) and ``sla_net_revenue`` (SU: the contracts' prices
    less those penalties) count the ``sla`` and ``sla-predict`` models' settled contracts (0 otherwise);
    ``sla_reoffered`` counts the broken contracts whose job signed another, ``sla_overruns`` the jobs
    that ran past their contracted duration and ``sla_overrun_charges`` what their users paid for it (SU).
    """
    records, messages = result.records, result.messages
    jobs = records[records["kind"] == "job"]
    s = summarize(jobs, procs)
    wf, ar = result.workflows, result.reservations
    n_wf = 0 if wf is None else len(wf)
    n_ar = 0 if ar is None else len(ar)
    ok = int((jobs["outcome"] == "completed").sum())
    ok += 0 if wf is None else int(wf["finish"].notna().sum())
    ok += 0 if ar is None else int(ar["success"].astype(bool).sum())
    row = {
        "model": model,
        "jobs": int(records["kind"].isin(("job", "reservation")).sum()),  # the workload's jobs that ran
        "makespan": int(records["end"].max() - records["submit"].min()),
        "mean_wait": s["mean_wait"],
        "mean_response": s["mean_response"],
        "mean_bsld": s["mean_bsld"],
        "workflow_makespan": float(wf["makespan"].mean()) if n_wf else math.nan,  # type: ignore[index]  # n_wf: a table
        "reservation_success": float(ar["success"].astype(bool).mean()) if n_ar else math.nan,  # type: ignore[index]  # n_ar: a table
        "reservation_cost": (float(ar.loc[ar["success"].astype(bool), "normalized_cost"].mean())  # type: ignore[index, union-attr]  # n_ar: a table
                             if n_ar else math.nan),
        # the mean of f / n·D is one request's when a tiny n·D buys into a deep queue: the median beside it
        "reservation_cost_median": (float(ar.loc[ar["success"].astype(bool), "normalized_cost"].median())  # type: ignore[index, union-attr]  # n_ar: a table
                                    if n_ar else math.nan),
        "allocation_cost": float(records["cost"].sum()),
        "electricity_cost": float(records["electricity_cost"].sum()) if "electricity_cost" in records else math.nan,
        "success_rate": ok / (n_jobs + n_wf),  # the reservation requests are jobs of the workload
        "utilization": s["utilization"],
        "messages": int(sum(messages.values())),
    }
    revenue = float(records["cost"].sum())
    value = math.nan
    if requests is not None and (requests.valuations or requests.workflow_valuations):
        # a job killed at its estimate delivered nothing: it realises no value (as a job that never ran)
        mine = records[records["kind"].isin(("job", "reservation")) & (records["outcome"] == "completed")]
        value = sum(realised_values(dict(zip(mine["job_id"], mine["end"])), requests.valuations).values())
        if wf is not None and requests.workflow_valuations:
            ends = {int(k): f for k, f in zip(wf["workflow"], wf["finish"]) if pd.notna(f)}
            value += sum(realised_values(ends, requests.workflow_valuations).values())
    row.update({
        "users_surplus": value - revenue,
        "provider_revenue": revenue,
        "social_welfare": value,
        "negotiation_messages": int(sum(n for k, n in messages.items() if k not in ("submit", "dispatch"))),
        "negotiation_rounds": int(result.rounds),
        # service-level agreements (the sla model): contracts signed, broken (late or never run), SU paid back
        "sla_contracts": 0 if result.slas is None else len(result.slas),
        "sla_violations": 0 if result.slas is None else int(result.slas["violated"].sum()),
        "sla_late": 0 if result.slas is None else int((result.slas["late"] > 0).sum()),
        "sla_never_ran": 0 if result.slas is None else int(result.slas["start"].isna().sum()),
        "sla_penalties": 0.0 if result.slas is None else float(result.slas["penalty"].sum()),
        "sla_net_revenue": 0.0 if result.slas is None else float(result.slas["payment"].sum()),
        **_sla_extras(result.slas),
    })
    for kind, n in sorted(messages.items()):
        row[f"msg_{kind}"] = int(n)
    return row


def _sla_extras(slas: pd.DataFrame | None) -> dict:
    """Re-offered broken contracts, overruns and their charges (SU) of a run's SLA table (0 without one)."""
    if slas is None or "broken" not in slas:
        return {"sla_reoffered": 0, "sla_overruns": 0, "sla_overrun_charges": 0.0}
    kept = set(slas.loc[~slas["broken"].astype(bool), "job_id"])
    return {"sla_reoffered": int(slas.loc[slas["broken"].astype(bool), "job_id"].isin(kept).sum()),
            "sla_overruns": int((slas["overrun"] > 0).sum()),
            "sla_overrun_charges": float(slas["overrun_charge"].sum())}


def build_market(config: ScenarioConfig, model: str, workload: Workload, prices: dict[str, HourlyPrices], *,
                 rng, requests: Requests | None = None) -> MarketModel:
    """The Mesa market of ``config`` for one interaction model, ready to step or run.

    ``workload``, ``prices`` and ``requests`` come from :func:`build_inputs`;
    ``rng`` seeds the model (the third stream of ``config.seed``). The model
    (:func:`gridmarket.scenarios.interaction.resolve_model`) names the broker strategy that
    takes the workflows, reservation requests and (job markets) jobs, and the
    clearing method of a metascheduler beside it, if any: ``grand`` is a greedy
    broker beside an MCMF metascheduler, ``mcmf`` a best-effort broker (tasks
    just in time, reservations submitted at their start) beside one.
    """
    check_model(model, "interaction model")
    spec = resolve_model(model)
    specs = _provider_specs(config, prices)
    par = config.parameters
    meta = None
    if spec.clearing is not None:
        meta = MetaschedulerSpec(spec.clearing, par.w_t, par.maxq, par.cycle_seconds, history=par.wait_history,
                                 price_forecasts=par.price_forecasts)
    requests = requests or Requests()
    broker = BrokerSpec(spec.broker, par.alpha, par.penalty, par.population, par.generations,
                        history=par.wait_history, cycle=par.cycle_seconds)
    return MarketModel(specs, workload, route="site", metascheduler=meta, grid_fraction=par.f_g,
                       workflows=requests.workflows, reservations=requests.reservations, broker=broker,
                       network=par.network(), valuations=requests.valuations or None,
                       user_agent=config.workload.user_agent, rng=rng)


def _provider_specs(config: ScenarioConfig, prices: dict[str, HourlyPrices] | None) -> list[ProviderSpec]:
    return [ProviderSpec(p.name, p.procs, p.policy, None if prices is None else prices[p.name], p.watts_per_proc,
                         p.pricing, p.overbooking, p.sells, p.agent) for p in config.providers]


def check_models(config: ScenarioConfig) -> None:
    """``InvalidInput`` (one line naming the model) if any model of ``config`` cannot be built as a market.

    Every plug-in of every model is checked (:func:`gridmarket.agents.model.check_market`: the providers'
    agent classes, each model's broker strategy and clearing method, the policies a plan-reading broker
    prices) before any model runs, so a scenario is refused whole, not after its first models ran.
    """
    specs = _provider_specs(config, None)
    for model in config.models:
        check_model(model, "models")
        try:
            check_market(specs, resolve_model(model).broker)
        except InvalidInput as err:
            raise InvalidInput(f"models: {model!r}: {err}") from None


def build_inputs(config: ScenarioConfig) -> tuple[Workload, dict[str, HourlyPrices], Requests,
                                                  np.random.Generator]:
    """The scenario's workload, price series, broker requests and model rng, all from ``config.seed``."""
    w_rng, p_rng, m_rng, r_rng = _streams(config.seed)
    workload = build_workload(config, rng=w_rng)
    requests = build_requests(config, workload, rng=r_rng)
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        prices = build_prices(config, _horizon(workload, config, requests), rng=p_rng)
    return workload, prices, requests, m_rng


def run_model(config: ScenarioConfig, model: str, *, inputs=None, progress=None) -> ModelRun:
    """Run one interaction model of ``config`` as agents and return its records and summary.

    ``inputs`` = ``(workload, prices, requests)`` default to the scenario's own
    (built from its seed by :func:`build_inputs`); :func:`compare` builds them
    once and shares them. The model's rng is always the seed's own stream.
    ``progress(t)`` is called with the simulated time (s) as the run goes.
    """
    check_model(model, "interaction model")
    m_rng = _streams(config.seed)[2]
    if inputs is None:
        workload, prices, requests, m_rng = build_inputs(config)
    else:
        workload, prices, requests = inputs
    started = time.perf_counter()
    market = build_market(config, model, workload, prices, rng=m_rng, requests=requests)
    result = market.run(progress=progress)
    seconds = time.perf_counter() - started
    records = result.records.copy()
    records.insert(0, "model", model)
    records.insert(1, "seed", config.seed)
    summary = summary_row(model, result, sum(p.procs for p in config.providers), len(workload.jobs), requests)
    summary = {"run_id": run_id(config, model), "seed": config.seed, **summary, "seconds": seconds}
    return ModelRun(model, records, summary, dict(result.messages), seconds, result.workflows,
                    result.reservations, market.broker.last_front if market.broker else [],
                    market.broker.last_choice if market.broker else None,
                    {n: list(p.price_log) for n, p in market.providers.items()},
                    "/".join(sorted({p.currency for p in prices.values() if p.currency})), result.slas)


def compare(config: ScenarioConfig, *, progress: bool = False) -> list[ModelRun]:
    """Run every model of ``config.models`` on the same workload, prices and seed.

    ``progress=True`` shows a bar per model on stderr (a terminal only, via
    tqdm: simulated hours up to the last submission) and a line per finished model.
    Anything but a bool raises ``InvalidInput``: a callback would be truthy and silently never called.
    """
    if not isinstance(progress, bool):
        raise InvalidInput(f"compare: progress must be True or False, got {progress!r}")
    check_models(config)
    workload, prices, requests, _ = build_inputs(config)
    last = max([j.submit for j in workload.jobs] + [w.submit for w in requests.workflows])
    runs = []
    for k, model in enumerate(config.models, 1):
        bar = None
        if progress:
            from tqdm import tqdm

            bar = tqdm(total=max(1, last // 3600), desc=f"[{k}/{len(config.models)}] {model}", unit="h",
                       file=sys.stderr, disable=None, leave=False)
        tick = None if bar is None else (lambda t, b=bar: b.update(min(t // 3600, b.total) - b.n))
        runs.append(run_model(config, model, inputs=(workload, prices, requests), progress=tick))
        if bar is not None:
            bar.close()
            print(f"  [{k}/{len(config.models)}] {model}: {runs[-1].seconds:.1f} s", file=sys.stderr, flush=True)
    return runs
