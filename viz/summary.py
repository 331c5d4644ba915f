"""Running metrics of a market part-way through a run, for the page's summary table.

The end-of-run figures of ``gridmarket compare`` (``gridmarket.scenarios.experiment``)
need every job to have ended; these are the same kind of quantities over
what has happened up to ``now``. Times in seconds, allocation cost in SU
(processor-hours at ``gridmarket.pricing.BASE_RATE``), electricity cost in the
price series' currency (Murali & Vadhiyar eq. 7).
"""

from __future__ import annotations

import math

import numpy as np

from gridmarket.energy.electricity_cost import electricity_costs
from gridmarket.pricing import BASE_RATE, SECONDS_PER_HOUR
from gridmarket.vocabulary import metric

__all__ = ["SUMMARY_FIELDS", "running_summary"]

_METRICS = ("submitted", "started", "ended", "mean_wait", "mean_bsld", "utilization", "delivered_su", "slots_paid",
            "sla_violations", "sla_penalties", "electricity_cost", "messages", "traded", "negotiation_rounds")

SUMMARY_FIELDS = {"model": "interaction model", "status": "status", **{k: metric(k).heading for k in _METRICS}}
"""Columns of the table, with their headers: a metric's full name and unit from :mod:`gridmarket.vocabulary`."""


def running_summary(market, now: int) -> dict:
    """Metrics of ``market`` (an ``gridmarket.agents.MarketModel``) over ``[0, now]`` seconds.

    Returns
    -------
    dict
        ``submitted`` jobs that reached a provider or the metascheduler by
        ``now``; ``started`` and ``ended`` jobs on the providers;
        ``mean_wait`` (s, started jobs; under a metascheduler from the
        user's submit, so its cycle counts, as ``MarketModel.run`` records it); ``mean_bsld`` (ended jobs,
        max((w + r) / max(r, 10 s), 1)); ``utilization`` (processor-seconds
        delivered up to ``now`` / (processors x now)); ``delivered_su``
        (SU: those processor-seconds at the best-effort rate); ``slots_paid`` (SU:
        slot prices and cancellation penalties in the providers'
        ``price_log``, when they keep one, less the SLA penalties they paid back);
        ``sla_violations`` (SLA contracts started late or broken by now, ``sla`` and ``sla-predict``)
        and ``sla_penalties`` (SU the providers owe for them: the ``sla-penalty`` entries of their
        ``price_log``, logged when the late start or the breach happens); ``electricity_cost`` (eq. 7 over
        the same processor-seconds, NaN without price series); ``messages``
        sent so far. Means are NaN until a job qualifies. Jobs and tasks a broker runs in the
        slots it bought (``market.broker.rows``: workflow tasks, reservations, a job market's
        trades) count as submitted, started, ended and delivered like the providers' own;
        ``traded`` counts the jobs a job market bought by ``now`` (auctions, double auctions,
        negotiation, DBC, SLAs: ``gridmarket.agents.trading``) and ``negotiation_rounds`` its rounds so far.
        Every key but ``model`` and ``status`` is a metric of :mod:`gridmarket.vocabulary`.

    Examples
    --------
    >>> from gridmarket.agents import MarketModel, ProviderSpec
    >>> from gridmarket.job import Job
    >>> from gridmarket.workloads.workload import Workload
    >>> w = Workload((Job(1, 0, 2, 100, 100, user=1), Job(2, 0, 2, 100, 100, user=1)), name="tiny")
    >>> m = MarketModel([ProviderSpec("a", 2)], w, rng=1)
    >>> m.run_until(150)
    >>> s = running_summary(m, 150)
    >>> s["started"], s["ended"], s["mean_wait"], s["utilization"]
    (2, 1, 50.0, 1.0)
    """
    meta = getattr(market, "metascheduler", None)
    broker = getattr(market, "broker", None)
    desk = getattr(broker, "desk", None)
    # as MarketModel.run: a metascheduler's jobs wait from the user's submit, not from the dispatch, and a
    # job market's unsold jobs from the user's submit, not from their fallback to the queue
    submitted_at = getattr(market, "submitted", {}) if meta is not None or desk is not None else {}
    waits: list[int] = []
    bslds: list[float] = []
    delivered = 0.0
    electricity = 0.0
    paid = sla_penalties = 0.0
    sla_violations = 0
    has_prices = False
    n_submitted = n_ended = total_procs = 0
    for p in market.providers.values():
        m = p.machine
        total_procs += p.procs
        by_id = {}
        for j in m.jobs:
            by_id[j.id] = j
            n_submitted += j.submit <= now
        spans = []
        for job_id, start in m.start.items():
            job = by_id[job_id]
            submit = submitted_at.get(job_id, job.submit)
            waits.append(start - submit)
            end = m.end.get(job_id)
            until = min(end if end is not None else now, now)
            if until > start:
                delivered += job.procs * (until - start)
                spans.append((job.procs, start, until))
            if end is not None:
                n_ended += 1
                bslds.append(max((end - submit) / max(end - start, 10), 1.0))
        if p.prices is not None:
            has_prices = True
            if spans:
                procs, starts, ends = (np.array(x) for x in zip(*spans, strict=True))
                ends = np.minimum(ends, p.prices.end_time)
                starts = np.minimum(starts, ends)
                electricity += float(electricity_costs(procs * float(p.watts_per_proc), starts, ends,
                                                       p.prices).sum())
        for t, price, kind in getattr(p, "price_log", ()):
            if t > now or kind == "quote":
                continue
            if kind == "sla-penalty":  # paid back by the provider
                sla_penalties += price
                sla_violations += 1
            else:
                paid += price
    traded = 0
    for row in getattr(broker, "rows", ()):  # run by the broker in slots it bought: on no machine's books
        traded += row["kind"] == "job"
        n_submitted += row["submit"] <= now
        start, end = row["start"], row["end"]
        if start > now:
            continue
        waits.append(start - row["submit"])
        until = min(end, now)
        delivered += row["procs"] * max(0, until - start)
        if end <= now:
            n_ended += 1
            bslds.append(max((end - row["submit"]) / max(end - start, 10), 1.0))
    if desk is not None:
        n_submitted += len(desk.pending)  # handed to the broker, waiting for the market's next cycle
        n_submitted += len(getattr(desk, "waiting", ()))  # under an overbooked SLA, waiting for the machine
    if meta is not None:
        n_submitted += len(meta.pending)
    return {
        "submitted": n_submitted,
        "started": len(waits),
        "ended": n_ended,
        "mean_wait": sum(waits) / len(waits) if waits else math.nan,
        "mean_bsld": sum(bslds) / len(bslds) if bslds else math.nan,
        "utilization": delivered / (total_procs * now) if now > 0 and total_procs else 0.0,
        "delivered_su": delivered * BASE_RATE / SECONDS_PER_HOUR,
        "slots_paid": paid - sla_penalties,
        "sla_violations": sla_violations,
        "sla_penalties": sla_penalties,
        "electricity_cost": electricity if has_prices else math.nan,
        "messages": int(sum(market.message_counts.values())),
        "traded": int(traded),
        "negotiation_rounds": int(getattr(market, "negotiation_rounds", 0)),
    }
