"""Run a scenario's interaction models on one workload and seed: build, run, summarise.

Composes ``market`` (workloads, electricity prices, metrics) and ``agents``
(the Mesa market model) from a :class:`scenarios.config.ScenarioConfig`. It
holds no algorithm. One ``numpy.random.SeedSequence(config.seed)`` is split
into independent streams for the workload, the price series and the model,
so every interaction model sees the same jobs and prices.

Times are integer seconds from simulation start; allocation cost is SU
(processor-hours at the best-effort rate ``market.pricing.BASE_RATE``);
electricity cost is in the price series' currency (eq. 7 of Murali & Vadhiyar).
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from agents import MarketModel, MetaschedulerSpec, ProviderSpec
from market.energy.prices import (
    HourlyPrices,
    fixed_prices,
    read_prices,
    synthetic_prices,
)
from market.errors import InvalidInput
from market.metrics import summarize
from market.pricing import BASE_RATE, SECONDS_PER_HOUR
from market.workloads import lublin_workload, read_gwf, read_swf, scale_load, truncate
from market.workloads.workload import Workload
from scenarios.config import INTERACTION_MODELS, ScenarioConfig, suggest

__all__ = [
    "SUMMARY_COLUMNS", "ModelRun", "build_inputs", "build_market", "build_prices", "build_workload", "compare",
    "run_id", "run_model",
]  # fmt: skip

SUMMARY_COLUMNS = (
    "model", "jobs", "makespan", "mean_wait", "mean_response", "mean_bsld", "allocation_cost",
    "electricity_cost", "success_rate", "messages",
)  # fmt: skip
"""Columns of the comparison table, in print order (``msg_<kind>`` columns follow)."""

_STREAMS = 3  # workload, prices, model


def run_id(config: ScenarioConfig, model: str) -> str:
    """Readable id: ``quickstart-mcmf-a0.5-seed3``."""
    return f"{config.name}-{model}-a{config.parameters.alpha:g}-seed{config.seed}"


def _streams(seed: int) -> list[np.random.Generator]:
    return [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(_STREAMS)]


def build_workload(config: ScenarioConfig, *, rng: np.random.Generator) -> Workload:
    """The scenario's jobs, each with a user and a home provider (``site``).

    Synthetic jobs are dealt to ``n_users`` users by id; a trace keeps its
    users. A user's home provider is ``user mod n_providers`` in config order;
    a job wider than its home goes to the smallest provider that fits (a job
    wider than every provider is an error naming it).
    """
    w = config.workload
    if w.source == "lublin":
        workload = lublin_workload(w.n_jobs, procs=w.procs, rng=rng,
                                   estimates=None if w.estimates == "exact" else "tsafrir")
    else:
        path = Path(w.trace)
        reader = read_gwf if path.name.removesuffix(".gz").endswith(".gwf") else read_swf
        workload = reader(path)
        if w.n_jobs:
            workload = truncate(workload, w.n_jobs)
    if w.load_factor != 1.0:
        workload = scale_load(workload, w.load_factor)
    providers = sorted(config.providers, key=lambda p: (p.procs, config.providers.index(p)))
    users = sorted({j.user for j in workload.jobs})
    index = {u: k for k, u in enumerate(users)}
    jobs = []
    for job in workload.jobs:
        if config.duration_seconds is not None and job.submit >= config.duration_seconds:
            continue
        user = job.id % w.n_users if w.source == "lublin" else index[job.user]
        home = config.providers[user % len(config.providers)]
        if job.procs > home.procs:
            fits = [p for p in providers if p.procs >= job.procs]
            if not fits:
                raise InvalidInput(f"job {job.id} needs {job.procs} processors; the largest provider "
                                   f"{providers[-1].name!r} has {providers[-1].procs}")
            home = fits[0]
        jobs.append(replace(job, user=user, site=home.name))
    if not jobs:
        raise InvalidInput(f"scenario {config.name!r}: no job submits before duration_seconds={config.duration_seconds}")
    return Workload(tuple(jobs), name=workload.name, max_procs=workload.max_procs)


def _horizon(workload: Workload, config: ScenarioConfig) -> int:
    """Seconds a price series must cover: every job could end by the last submit plus all runs in a row."""
    last = max(j.submit for j in workload.jobs)
    serial = sum(min(j.runtime, j.estimate) for j in workload.jobs)
    return last + serial + config.parameters.cycle_seconds * (len(workload.jobs) + 1)


def build_prices(config: ScenarioConfig, horizon: int, *, rng: np.random.Generator) -> dict[str, HourlyPrices]:
    """An hourly price series per provider covering ``horizon`` seconds."""
    n_days = max(1, math.ceil(horizon / 86400))
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


def _summary(model: str, records: pd.DataFrame, procs: int, messages: dict[str, int], n_jobs: int) -> dict:
    s = summarize(records, procs)
    run_seconds = records["end"] - records["start"]
    row = {
        "model": model,
        "jobs": s["jobs"],
        "makespan": s["makespan"],
        "mean_wait": s["mean_wait"],
        "mean_response": s["mean_response"],
        "mean_bsld": s["mean_bsld"],
        "allocation_cost": float((records["procs"] * run_seconds).sum()) * BASE_RATE / SECONDS_PER_HOUR,
        "electricity_cost": float(records["electricity_cost"].sum()) if "electricity_cost" in records else math.nan,
        "success_rate": float((records["outcome"] == "completed").sum()) / n_jobs,
        "utilization": s["utilization"],
        "messages": int(sum(messages.values())),
    }
    for kind, n in sorted(messages.items()):
        row[f"msg_{kind}"] = int(n)
    return row


def build_market(config: ScenarioConfig, model: str, workload: Workload, prices: dict[str, HourlyPrices], *,
                 rng) -> MarketModel:
    """The Mesa market of ``config`` for one interaction model, ready to step or run.

    ``workload`` and ``prices`` come from :func:`build_workload` and
    :func:`build_prices`; ``rng`` seeds the model (the third stream of
    ``config.seed`` in :func:`run_model`).
    """
    if model not in INTERACTION_MODELS:
        raise InvalidInput(f"unknown interaction model {model!r}{suggest(model, INTERACTION_MODELS)}")
    specs = [ProviderSpec(p.name, p.procs, p.policy, prices[p.name], p.watts_per_proc) for p in config.providers]
    par = config.parameters
    meta = None
    if model in ("mcmf", "stable"):
        meta = MetaschedulerSpec(model, par.w_t, par.maxq, par.cycle_seconds)
    return MarketModel(specs, workload, route="site", metascheduler=meta, grid_fraction=par.f_g, rng=rng)


def build_inputs(config: ScenarioConfig) -> tuple[Workload, dict[str, HourlyPrices], np.random.Generator]:
    """The scenario's workload, price series and model rng, all from ``config.seed``."""
    w_rng, p_rng, m_rng = _streams(config.seed)
    workload = build_workload(config, rng=w_rng)
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        prices = build_prices(config, _horizon(workload, config), rng=p_rng)
    return workload, prices, m_rng


def run_model(config: ScenarioConfig, model: str, *, workload: Workload | None = None,
              prices: dict[str, HourlyPrices] | None = None) -> ModelRun:
    """Run one interaction model of ``config`` as agents and return its records and summary.

    ``workload`` and ``prices`` default to the scenario's own (built from its
    seed); :func:`compare` builds them once and shares them.
    """
    if model not in INTERACTION_MODELS:
        raise InvalidInput(f"unknown interaction model {model!r}{suggest(model, INTERACTION_MODELS)}")
    w_rng, p_rng, m_rng = _streams(config.seed)
    if workload is None:
        workload = build_workload(config, rng=w_rng)
    if prices is None:
        prices = build_prices(config, _horizon(workload, config), rng=p_rng)
    started = time.perf_counter()
    market = build_market(config, model, workload, prices, rng=m_rng)
    result = market.run()
    seconds = time.perf_counter() - started
    records = result.records.copy()
    records.insert(0, "model", model)
    records.insert(1, "seed", config.seed)
    summary = _summary(model, result.records, sum(p.procs for p in config.providers), result.messages,
                       len(workload.jobs))
    summary = {"run_id": run_id(config, model), "seed": config.seed, **summary, "seconds": seconds}
    return ModelRun(model, records, summary, dict(result.messages), seconds)


def compare(config: ScenarioConfig, *, progress=None) -> list[ModelRun]:
    """Run every model of ``config.models`` on the same workload, prices and seed.

    ``progress``, if given, is called with each model's name before it runs.
    """
    w_rng, p_rng, _ = _streams(config.seed)
    workload = build_workload(config, rng=w_rng)
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        prices = build_prices(config, _horizon(workload, config), rng=p_rng)
    runs = []
    for model in config.models:
        if progress is not None:
            progress(model)
        runs.append(run_model(config, model, workload=workload, prices=prices))
    return runs
