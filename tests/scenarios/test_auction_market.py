"""``gridmarket run auction-market``: its harness on a tiny market, its checks over seeds, the CLI."""

import math

import pytest

from gridmarket.scenarios.config import with_overrides
from gridmarket.scenarios.registry import AUCTION_MARKET_MODELS, get_scenario
from gridmarket.scenarios.reproductions import REPRODUCTIONS, Check, Report, Row
from gridmarket.scenarios.reproductions.auctions import MARKET_METRICS, pooled_checks, run_auction_market
from gridmarket.scenarios.reproductions.report import SeedMetric, SeedsReport


@pytest.fixture(scope="module")
def tiny():
    config = with_overrides(get_scenario("auction-market"), {
        "workload.n_jobs": 30, "workload.n_workflows": 1, "workload.workflow_tasks": 4, "population": 6,
        "generations": 1, "seed": 2})
    return run_auction_market(config, traders=4, days=1)


def test_every_model_reports_every_market_metric_and_welfare_is_surplus_plus_revenue(tiny):
    rows, checks, settings, notes = tiny
    ours = {r.metric: r.ours for r in rows}
    for model in AUCTION_MARKET_MODELS:
        for _, label, _ in MARKET_METRICS:
            assert math.isfinite(ours[f"{model}: {label}"]), (model, label)
        assert ours[f"{model}: social welfare"] == pytest.approx(ours[f"{model}: users' surplus"]
                                                                 + ours[f"{model}: provider revenue"])
        assert 0 < ours[f"{model}: value realised"] <= 100
    assert ours["best-effort: negotiation messages"] == 0
    assert settings["models"] == list(AUCTION_MARKET_MODELS) and notes


def test_the_exact_predictions_hold_on_a_tiny_market(tiny):
    # strategic equivalence and the clock auctions' extra messages follow from the mechanisms themselves
    holds = {c.statement.split(":")[0].split(" (")[0]: c for c in tiny[1]}
    assert holds["strategic equivalence"].holds, holds["strategic equivalence"].detail
    assert holds["clock auctions"].holds, holds["clock auctions"].detail
    for c in tiny[1]:
        assert "(" in c.statement and c.detail, c  # every direction cites its source and shows our numbers


def _metric(model, mean, low, high):
    return SeedMetric(f"{model}: provider revenue", mean, low, high, 5, None, "SU", "")


def test_revenue_equivalence_over_seeds_needs_every_mean_inside_every_interval():
    close = {m.metric: m for m in (_metric("first-price", 100, 90, 110), _metric("vickrey", 102, 93, 111),
                                   _metric("english", 101, 92, 110), _metric("dutch", 99, 90, 108))}
    (check,) = pooled_checks(close)
    assert check.holds and "vickrey 102 [93, 111]" in check.detail
    far = dict(close, **{"dutch: provider revenue": _metric("dutch", 80, 75, 85)})
    assert not pooled_checks(far)[0].holds
    assert pooled_checks({}) == []  # a run without the four auctions has nothing to pool


def _report(seed, revenue):
    rows = [Row(f"{m}: provider revenue", revenue + k, None, "SU") for k, m in
            enumerate(("first-price", "vickrey", "english", "dutch"))]
    return Report("auction-market", "the auction literature", "small", seed, tuple(rows), (Check("x", True),))


def test_seeds_report_prints_and_exports_the_pooled_direction():
    joined = SeedsReport(tuple(_report(s, 100.0 + 10 * s) for s in (1, 2, 3)))
    text = joined.format_text()
    assert "over the seeds: yes  revenue equivalence over seeds" in text
    assert joined.to_json()["pooled"][0]["holds"] is True
    assert "Directions over the seeds together" in joined.to_markdown()
    assert SeedsReport((_report(1, 100.0),)).pooled_checks() == []  # one seed has no interval


def test_auction_market_is_listed_as_a_reproduction_with_its_literature():
    r = REPRODUCTIONS["auction-market"]
    assert r.pooled is pooled_checks and r.sizes == ("small", "full")
    for source in ("Assuncao", "Grosu", "Buyya", "revenue equivalence", "small", "full"):
        assert source in r.doc


def test_sla_runs_again_with_overbooking_providers_and_reports_their_violations(tiny):
    from gridmarket.scenarios.reproductions.auctions import OVERBOOKING, SLA_METRICS

    rows, checks, _, _ = tiny
    ours = {r.metric: r.ours for r in rows}
    for model in ("sla", *(f"sla overbooking x{f:g}" for f in OVERBOOKING)):
        for _, label, _ in SLA_METRICS:
            assert math.isfinite(ours[f"{model}: {label}"]), (model, label)
        assert ours[f"{model}: contracts violated"] == (ours[f"{model}: contracts started late"]
                                                         + ours[f"{model}: contracts broken (never ran)"])
    assert ours["sla: contracts violated"] == 0 and ours["sla: penalties paid"] == 0
    holds = {c.statement.split(":")[0]: c for c in checks}
    assert holds["no SLA is signed that the provider's plan cannot honour"].holds
    assert any(s.startswith("overbooking breaks contracts") for s in holds)


GOLDEN = {
    # Small size, seed 1 (`gridmarket run auction-market`): recorded from a run at commit 3785e0f, the same at
    # cb2140c; re-recorded when the workflows' just-in-time tasks took Singh's ch. 4.9 site rule (the provider
    # with the fewest tasks running and queued, gridmarket.provisioning.JustInTime, instead of the home queue),
    # which changes the queues the auctioned jobs meet. Checked against the mechanisms: welfare is users'
    # surplus plus provider revenue for every model (the test below); the four slot auctions allocate alike, so
    # their welfare is one figure (11,252.23 SU), and their revenues differ by under 3.3 % (first-price 7,959.6,
    # Vickrey 7,715.2 SU: revenue equivalence, Vickrey 1961 / Myerson 1981, which pooled_checks tests over
    # seeds); dbc and sla buy the same slots (13,423.36 SU); the English clock's messages (2,977) outnumber
    # the sealed bids' (633).
    "first-price: provider revenue": 7959.605994756503,
    "vickrey: provider revenue": 7715.157614063701,
    "english: social welfare": 11252.234588549274,
    "english: negotiation messages": 2977.0,
    "dbc: social welfare": 13423.35829573458,
    "negotiate: social welfare": 12838.451484445693,
    "sla overbooking x2: mean wait": 33.27333333333333,
}
"""Figures of the auction-market reproduction at its small size, seed 1 (SU, messages, s)."""


def test_auction_market_reproduction_small_seed_1_gives_its_golden_figures():
    report = REPRODUCTIONS["auction-market"].run("small", 1)
    ours = {row.metric: row.ours for row in report.rows}
    for model in AUCTION_MARKET_MODELS:
        assert ours[f"{model}: social welfare"] == pytest.approx(ours[f"{model}: users' surplus"]
                                                                 + ours[f"{model}: provider revenue"], rel=1e-12)
    assert len({ours[f"{m}: social welfare"] for m in ("first-price", "vickrey", "english", "dutch")}) == 1
    for metric, value in GOLDEN.items():
        assert ours[metric] == pytest.approx(value, rel=1e-9), (metric, ours[metric])
