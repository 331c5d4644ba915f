"""``auction-market``: every negotiation mechanism here on one workload, against what the literature predicts.

Composes the agent scenario :func:`gridmarket.scenarios.registry.auction_market` (run by
:func:`gridmarket.scenarios.experiment.compare`: the same jobs, valuations and prices for every interaction
model) and a stand-alone continuous double auction for processor-hours
(:func:`gridmarket.auctions.mixed.mixed_market`) whose buyers are the seed's jobs. It holds no
algorithm. Times are seconds; values, prices, surplus, revenue and welfare are SU
(processor-hours at the base rate); prices in the stand-alone market are SU per processor-hour.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np

from gridmarket.pricing import BASE_RATE, SECONDS_PER_HOUR
from gridmarket.scenarios.reproductions.report import Check, Row, register, setup_check
from gridmarket.valuation import VALUE_FACTOR

__all__ = ["MARKET_METRICS", "SLA_METRICS", "auction_market", "pooled_checks", "run_auction_market"]

_AUCTIONS = ("first-price", "vickrey", "english", "dutch")

MARKET_METRICS = (
    ("social_welfare", "social welfare", "SU"),
    ("users_surplus", "users' surplus", "SU"),
    ("provider_revenue", "provider revenue", "SU"),
    ("value_share", "value realised", "%"),
    ("negotiation_messages", "negotiation messages", "messages"),
    ("negotiation_rounds", "negotiation rounds", "rounds"),
    ("mean_wait", "mean wait", "s"),
    ("mean_response", "mean response", "s"),
)
"""Per model: summary column, row label, units (``value_share``: welfare over every request's full value)."""

SLA_METRICS = (
    ("sla_contracts", "contracts signed", "contracts"),
    ("sla_violations", "contracts violated", "contracts"),
    ("sla_late", "contracts started late", "contracts"),
    ("sla_never_ran", "contracts broken (never ran)", "contracts"),
    ("sla_penalties", "penalties paid", "SU"),
    ("sla_net_revenue", "SLA revenue net of penalties", "SU"),
    ("sla_reoffered", "broken contracts re-signed elsewhere", "contracts"),
    ("sla_overruns", "jobs run past their contract", "jobs"),
    ("sla_overrun_charges", "overrun charges paid by users", "SU"),
)
"""The SLA models' extra rows: contracts, violations (late or never run), penalties paid by providers, what the
contracts earned them after those penalties, broken contracts re-signed with another provider, and the jobs that
ran past their contracted duration (``sla-predict``) with what their users paid for it."""

OVERBOOKING = (1.25, 1.5, 2.0)
"""Overbooking factors at which the ``sla`` model runs again, every provider signing on that many times its
processors (``ProviderConfig.overbooking``; the plain ``sla`` row is factor 1)."""

REVENUE_TOLERANCE = 0.05
"""Per seed, each auction format's revenue must lie within this share of Vickrey's (revenue equivalence)."""

EFFICIENCY_FLOOR = 0.9
"""Allocative efficiency the stand-alone double auction must reach (the literature reports 0.95-1.0)."""

def _config(size: str, seed: int):
    from gridmarket.scenarios.config import with_overrides
    from gridmarket.scenarios.registry import get_scenario

    config = with_overrides(get_scenario("auction-market"), {"seed": seed})
    if size == "full":
        config = with_overrides(config, {"workload.n_jobs": 1000, "workload.n_workflows": 12,
                                         "workload.workflow_tasks": 16, "population": 50, "generations": 10})
    return config


def _label(model: str, text: str) -> str:
    return f"{model}: {text}"


def _overbooked(factor: float) -> str:
    return f"sla overbooking x{factor:g}"


def run_auction_market(config, *, traders: int = 12, days: int = 5):
    """Run ``config``'s interaction models and the stand-alone double auction; ``(rows, checks, settings, notes)``.

    ``traders`` buyers (the first jobs' values per processor-hour) and as many sellers (unit costs
    drawn uniformly over the valuations' range of value factors, SU per processor-hour) trade
    ``days`` days in a ZIP-only, a GD-only and a mixed book. Directions whose models ``config``
    does not run are left out.
    """
    from gridmarket.auctions.mixed import mixed_market
    from gridmarket.scenarios.experiment import build_inputs, compare, run_model

    runs = compare(config)
    workload, prices, requests, _ = build_inputs(config)
    if "sla" in config.models:  # the same jobs and prices, every provider overbooking by each factor
        for factor in OVERBOOKING:
            over = replace(config, providers=tuple(replace(p, overbooking=factor) for p in config.providers))
            run = run_model(over, "sla", inputs=(workload, prices, requests))
            runs.append(replace(run, model=_overbooked(factor), summary={**run.summary, "model": _overbooked(factor)}))
    work = {j.id: j.procs * j.estimate * BASE_RATE / SECONDS_PER_HOUR for j in workload.jobs}  # SU
    total = sum(v.value for v in requests.valuations.values())
    total += sum(v.value for v in requests.workflow_valuations.values())
    by = {}
    for r in runs:
        s = dict(r.summary)
        s["value_share"] = 100 * s["social_welfare"] / total if total else math.nan
        by[r.model] = s
    rows = [Row(_label(m, label), float(by[m][col]), None, units)
            for m in by for col, label, units in MARKET_METRICS]
    for model in ("sla", "sla-predict", *map(_overbooked, OVERBOOKING)):
        if model in by:
            rows += [Row(_label(model, label), float(by[model][col]), None, units)
                     for col, label, units in SLA_METRICS]
    checks = _seed_checks(by)

    # ---- the double auction's efficiency, off the simulator: a book of processor-hours
    rng = np.random.default_rng(np.random.SeedSequence(config.seed).spawn(5)[4])
    jobs = sorted(requests.valuations.items())[:traders]
    values = [v.value / work[k] for k, v in jobs]  # SU per processor-hour: the value factor times the base rate
    costs = list(rng.uniform(VALUE_FACTOR[0] * BASE_RATE, VALUE_FACTOR[1] * BASE_RATE, len(values)))
    books = {}
    for name, strategies in (("zip", ["zip"] * (2 * len(values))), ("gd", ["gd"] * (2 * len(values))),
                             ("mixed", None)):
        books[name] = mixed_market(values, costs, strategies, rng=np.random.default_rng(rng.integers(2**32)),
                                   days=days)
    for name, ref in (("zip", "Cliff & Bruten 1997: ZIP markets reach 0.97-1.0"),
                      ("gd", "Gjerstad & Dickhaut 1998: GD markets reach about 0.99")):
        rows.append(Row(f"double auction, {name.upper()} traders only: efficiency (mean of days)",
                        float(np.mean([d.efficiency for d in books[name]])), None, "fraction", ref))
    mixed = books["mixed"]
    rows.append(Row("double auction, GD and ZIP mixed: efficiency (mean of days)",
                    float(np.mean([d.efficiency for d in mixed])), None, "fraction",
                    "Tesauro & Das 2001: mixed books stay near 1.0"))
    rows.append(Row("double auction, mixed: GD profit over its equilibrium profit (last day)", mixed[-1].share_gd,
                    None, "fraction", "Tesauro & Das 2001"))
    rows.append(Row("double auction, mixed: ZIP profit over its equilibrium profit (last day)", mixed[-1].share_zip,
                    None, "fraction", "Tesauro & Das 2001"))
    for name in ("zip", "gd"):
        eff = float(np.mean([d.efficiency for d in books[name]]))
        checks.append(setup_check(
            Check(f"a continuous double auction of {name.upper()} traders is allocatively efficient "
                  f"(>= {EFFICIENCY_FLOOR:g}; Gode & Sunder 1993, Cliff & Bruten 1997, Gjerstad & "
                  "Dickhaut 1998)", bool(eff >= EFFICIENCY_FLOOR), f"{eff:.3f} over {days} days"),
            "an implementation check: Gode & Sunder's zero-intelligence traders reach it too, so it does not tell "
            "the strategy from none"))
    settings = {"models": list(config.models), "n_jobs": config.workload.n_jobs,
                "load_factor": config.workload.load_factor, "cycle_seconds": config.parameters.cycle_seconds,
                "book_traders": len(values), "book_days": days}
    notes = ["moga and greedy buy the workflows (advertised slots, externality quotes) and leave the jobs to the "
             "queue at the posted base rate, charged on their runtime; the job markets buy each job's slot for "
             "its estimate, so their revenue is larger by the estimates' padding",
             "value realised: social welfare over the full value of every job and workflow (all done by their "
             "deadlines)"]
    return rows, checks, settings, notes


_THEORY = "an implementation check of auction theory's equivalence (no mechanism to switch off against it)"


def _seed_checks(by: dict) -> list[Check]:
    """The per-seed directions, for the models present."""
    checks = []
    if all(m in by for m in _AUCTIONS):
        rev = {m: by[m]["provider_revenue"] for m in _AUCTIONS}
        worst = max(abs(rev[m] / rev["vickrey"] - 1) for m in _AUCTIONS)
        checks.append(setup_check(Check(
            f"revenue equivalence: first-price, English and Dutch revenues within {REVENUE_TOLERANCE:.0%} of "
            "Vickrey's (Vickrey 1961; Myerson 1981; Riley & Samuelson 1981)", bool(worst <= REVENUE_TOLERANCE),
            ", ".join(f"{m} {rev[m]:,.0f}" for m in _AUCTIONS) + f" SU; largest gap {worst:.1%}"), _THEORY))
        pairs = (("english", "vickrey"), ("dutch", "first-price"))
        gaps = {a: abs(by[a]["social_welfare"] / by[b]["social_welfare"] - 1) for a, b in pairs}
        checks.append(setup_check(Check(
            "strategic equivalence: English allocates as Vickrey and Dutch as first-price (welfare within 1 %; "
            "Vickrey 1961)", bool(max(gaps.values()) <= 0.01),
            ", ".join(f"{a} vs {b}: {gaps[a]:.2%}" for a, b in pairs)), _THEORY))
        sealed = max(by[m]["negotiation_messages"] for m in ("first-price", "vickrey"))
        clock = min(by[m]["negotiation_messages"] for m in ("english", "dutch"))
        checks.append(setup_check(Check(
            "clock auctions (English, Dutch) exchange more messages than sealed-bid ones (Assuncao & Buyya 2006, "
            "GridSim)", bool(clock > sealed), f"fewest clock {clock:,}, most sealed {sealed:,}"),
            "holds by the protocols' construction (a clock round per price step)"))
        best = max(by[m]["users_surplus"] for m in _AUCTIONS)
        for double, traders in (("double", "ZIP"), ("double-gd", "GD")):
            if double in by:
                checks.append(Check(
                    f"the double auction ({traders} traders) leaves users more surplus than any one-sided slot "
                    "auction (Grosu & Das 2006; Kant & Grosu 2005)", bool(by[double]["users_surplus"] > best),
                    f"{double} {by[double]['users_surplus']:,.0f} SU, best one-sided {best:,.0f} SU",
                    "the best one-sided auction in the double auction's place", False))
        if "negotiate" in by:
            fp = by["first-price"]["users_surplus"]
            checks.append(Check(
                "a Boulware broker bargaining with conceder providers keeps more surplus for users than "
                "first-price auctions (Faratin, Sierra & Jennings 1998)", bool(by["negotiate"]["users_surplus"] > fp),
                f"negotiate {by['negotiate']['users_surplus']:,.0f} SU, first-price {fp:,.0f} SU",
                "first-price in the negotiation's place", False))
    over = [_overbooked(f) for f in OVERBOOKING]
    if "sla" in by and all(m in by for m in over):
        chain = ["sla", *over]
        viol = [by[m]["sla_violations"] for m in chain]
        checks.append(setup_check(Check(
            "no SLA is signed that the provider's plan cannot honour: without overbooking no contract is violated "
            "(the offer rule of gridmarket.sla)", viol[0] == 0,
            f"{viol[0]} of {by['sla']['sla_contracts']} contracts violated"), "holds by the offer rule's construction"))
        checks.append(Check(
            "overbooking breaks contracts: violations grow with the factor, from none at 1 (Sulistio, Kim & Buyya "
            "2008: the risk overbooking takes)", viol[-1] > 0 and all(a <= b for a, b in zip(viol, viol[1:])),
            ", ".join(f"x{f:g} {v}" for f, v in zip((1, *OVERBOOKING), viol)) + " violated",
            "no overbooking at every factor", viol[0] > 0))
        revs = [by[m]["provider_revenue"] for m in chain]
        checks.append(Check(
            f"overbooking by {OVERBOOKING[0]:g} raises providers' revenue net of penalties (Sulistio, Kim & Buyya "
            "2008, with cancellations and no-shows)", revs[1] > revs[0],
            ", ".join(f"x{f:g} {r:,.0f}" for f, r in zip((1, *OVERBOOKING), revs)) + " SU; penalties "
            + ", ".join(f"{by[m]['sla_penalties']:,.0f}" for m in chain) + " SU", "no overbooking at every factor",
            False))
    if "dbc" in by and "best-effort" in by:
        checks.append(Check(
            "a deadline-and-budget-constrained broker realises more value than the plain queue (Buyya, Abramson & "
            "Giddy 2000; Buyya & Murshed 2002)", bool(by["dbc"]["social_welfare"] > by["best-effort"]["social_welfare"]),
            f"dbc {by['dbc']['social_welfare']:,.0f} SU, best effort {by['best-effort']['social_welfare']:,.0f} SU",
            "best effort in the broker's place", False))
    return checks


def pooled_checks(metrics: dict) -> list[Check]:
    """Revenue equivalence over the seeds: every format's mean revenue inside every other's 95 % interval."""
    key = {m: _label(m, "provider revenue") for m in _AUCTIONS}
    if not all(k in metrics for k in key.values()):
        return []
    stats = {m: metrics[key[m]] for m in _AUCTIONS}
    inside = all(stats[b].low <= stats[a].mean <= stats[b].high for a in _AUCTIONS for b in _AUCTIONS)
    detail = ", ".join(f"{m} {s.mean:,.0f} [{s.low:,.0f}, {s.high:,.0f}]" for m, s in stats.items())
    return [setup_check(Check("revenue equivalence over seeds: each auction format's mean revenue lies inside every "
                              "other format's 95 % interval (Vickrey 1961; Myerson 1981)", bool(inside),
                              detail + " SU"), _THEORY)]


@register("auction-market", citation="the auction literature: GridSim auctions (Assuncao & Buyya 2006), Grosu & "
          "Das 2006, Buyya et al. 2002", summary="posted prices, quotes, four slot auctions, a double auction, "
          "negotiation, DBC and SLAs on one workload: welfare, revenue, surplus, messages", pooled=pooled_checks)
def auction_market(size: str, seed: int, data: Path | None):
    """Every negotiation mechanism on the same jobs and seeds: who gains, who pays, what it costs to talk.

    Runs the agent scenario ``auction-market`` (:func:`gridmarket.scenarios.registry.auction_market`): the
    plain queue (best effort), posted prices (``moga`` on advertised slots) and adaptive quotes
    (``greedy`` on externality prices) for the workflows, first-price, Vickrey, English and Dutch
    slot auctions with the externality quote as reserve, a continuous double auction of ZIP
    traders (``double``) and of Gjerstad-Dickhaut traders (``double-gd``), bilateral alternating-offers negotiation, a Nimrod-G DBC broker and service-level
    agreements (providers sign start windows their plans can honour, settled with value-based
    penalties), all on the same valued jobs; then a stand-alone continuous double auction for processor-hours (the
    seed's first jobs as buyers) with ZIP, GD and mixed traders. Per model: social welfare,
    users' surplus, provider revenue (SU), the share of the requests' full value realised,
    negotiation messages and rounds, mean wait and response (s); for ``sla`` also the contracts
    signed, violated (started late, never run), the penalties paid and the contracts' revenue net
    of them (SU). The ``sla`` model runs again with every provider overbooking by 1.25, 1.5 and 2
    (``ProviderConfig.overbooking``): signing on that many times its processors, betting that
    running jobs end before their estimates; a contract its provider then cannot start while the
    job has value is re-offered to the other providers. ``sla-predict`` contracts for each job's
    predicted run time (the mean of its user's last two, Tsafrir, Etsion & Feitelson, IEEE TPDS
    2007) instead of its estimate: jobs that run longer overrun their contracts, and the contracts
    moved out of their way start late or are broken, without any overbooking.

    Published results it can be set beside, and how it compares:

    * GridSim's auction framework (M. D. de Assuncao, R. Buyya, "An evaluation of communication
      demand of auction protocols in grid environments", GECON 2006) counts the messages of
      first-price sealed, English, Dutch and double auctions: the clock auctions need the most,
      growing with the number of bidders and clock steps. Checked here per seed (English and
      Dutch above both sealed formats).
    * D. Grosu, A. Das, "Auctioning resources in Grids: model and protocols" (Concurrency
      Computat. 2006; SimGrid) and U. Kant, D. Grosu, "Double auction protocols for resource
      allocation in grids" (ITCC 2005): first-price favours resources and Vickrey users when
      some users are risk-averse; the double auction favours users and resources. Our bidders
      are risk-neutral, so revenue equivalence (W. Vickrey 1961; R. Myerson 1981; J. Riley, W.
      Samuelson 1981) is the prediction instead: checked per seed (within 5 % of Vickrey) and
      over the seeds (each format's mean inside the others' 95 % intervals). The double auction
      leaves users more surplus than the one-sided auctions (checked) but providers earn less
      (they no longer set the price alone): it favours users, not both.
    * Strategic equivalence (Vickrey 1961): English allocates as Vickrey, Dutch as first-price.
    * Continuous double auctions: ZI-C (D. Gode, S. Sunder, J. Polit. Econ. 1993), ZIP (D. Cliff,
      J. Bruten, HP Labs HPL-97-141, 1997) and GD (S. Gjerstad, J. Dickhaut, Games Econ. Behav.
      1998) books reach 0.95-1.0 allocative efficiency; checked >= 0.9 on the stand-alone book
      (our in-simulator double auction has no optimum to measure against: each cycle's book
      holds only the slots near now).
    * R. Buyya, D. Abramson, J. Giddy, "Nimrod/G" (HPC Asia 2000) and R. Buyya, M. Murshed,
      "GridSim" (CCPE 2002): a DBC broker meets deadlines within budget; here it realises more
      value than the queue (checked). Nimrod-G plans at each scheduling event over the jobs then
      waiting: ``dbc-cycle`` gathers a cycle's jobs (earliest deadline first, a cycle's bidders
      competing at auctioning providers); on these short jobs the minute's wait costs it value
      against the per-job ``dbc`` (not a check: reported in ``benchmarks/RESULTS_auctions.md``).
    * A. Sulistio, K. H. Kim, R. Buyya, "Managing cancellations and no-shows of reservations with
      overbooking to increase resource revenue" (CCGrid 2008, GridSim): overbooking advance
      reservations raises a provider's revenue net of the compensation it pays when cancellations
      and no-shows are common. Checked: without overbooking no SLA is violated (the issue's
      property), violations grow with the factor, and whether overbooking by 1.25 raises the
      providers' revenue net of penalties (our jobs never cancel or fail to show; they only end
      before their estimates).
    * P. Faratin, C. Sierra, N. R. Jennings, "Negotiation decision functions for autonomous
      agents" (Robotics Auton. Syst. 1998): a Boulware agent facing a conceder gains most of the
      surplus; here users keep more under negotiation than under first-price auctions (checked).

    None of these studies prints a table we can match number for number (different workloads,
    simulators and valuations), so every check is a direction. ``small``: 150 jobs, 5 book days
    of 12 + 12 traders, 8-52 s a seed for the fourteen models on a shared 2-core VM (the GD double
    auction is the slowest, about 4 s); ``full``: 1000 jobs, 12 workflows of 16 tasks, 10 days of
    20 + 20 traders, about 5 min a seed with the twelve models of 2b594fe (seed 1: 8 of 9
    directions; first-price and Dutch 6-7 % below Vickrey's revenue). Over seeds 1-5 see ``benchmarks/RESULTS_auctions.md``.
    """
    config = _config(size, seed)
    if size == "full":
        return run_auction_market(config, traders=20, days=10)
    return run_auction_market(config)
