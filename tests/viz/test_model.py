"""The steppable market view behind the page: control checks, stepping, errors as messages, running metrics."""

import math

import pytest

from gridmarket.errors import InvalidInput
from gridmarket.scenarios.config import INTERACTION_MODELS
from gridmarket.scenarios.experiment import run_model
from gridmarket.scenarios.interaction import InteractionModel
from gridmarket.scenarios.registry import get_scenario
from gridmarket.viz.model import MarketView, parse_controls
from gridmarket.viz.summary import SUMMARY_FIELDS, running_summary


@pytest.mark.parametrize("values, match", [
    ({"seed": "abc"}, r"seed must be an int >= 0, got 'abc'"),
    ({"seed": -1}, r"seed must be an int >= 0, got -1"),
    ({"seed": 1.5}, r"seed must be an int >= 0"),
    ({"alpha": 1.5}, r"parameters.alpha must be in \[0, 1\], got 1.5"),
    ({"alpha": "lots"}, r"alpha must be a number, got 'lots'"),
    ({"w_t": 120}, r"parameters.w_t must be in \[0, 100\]"),
    ({"load_factor": 0}, r"workload.load_factor must be > 0"),
    ({"load_factor": float("nan")}, r"load factor must be a finite number"),
    ({"reservation_fraction": -0.1}, r"parameters.reservation_fraction must be in \[0, 1\]"),
    ({"interaction_model": "mfcm"}, r"unknown interaction model 'mfcm' \(did you mean 'mcmf'\?\)"),
    ({"scenario_name": "quikstart"}, r"unknown scenario 'quikstart' \(did you mean 'quickstart'\?\)"),
    ({"scenario_name": ""}, r"scenario must be a scenario name"),
])
def test_parse_controls_rejects_bad_values_naming_the_control(values, match):
    args = {"scenario_name": "quickstart", "interaction_model": "best-effort", **values}
    with pytest.raises(InvalidInput, match=match):
        parse_controls(**args)


def test_parse_controls_applies_the_values_and_keeps_the_rest_of_the_scenario():
    controls, config = parse_controls("quickstart", "mcmf", alpha=0.2, w_t="40", load_factor=5, seed=" 9 ")
    base = get_scenario("quickstart")
    assert (controls.alpha, controls.w_t, controls.load_factor, controls.seed) == (0.2, 40.0, 5.0, 9)
    assert config.parameters.w_t == 40.0 and config.workload.load_factor == 5.0 and config.seed == 9
    assert config.parameters.reservation_fraction == base.parameters.reservation_fraction
    assert config.providers == base.providers


def test_interaction_models_are_read_at_call_time(monkeypatch):
    monkeypatch.setitem(INTERACTION_MODELS, "brand-new", InteractionModel("a model added after import"))
    controls, _ = parse_controls("quickstart", "brand-new")
    assert controls.interaction_model == "brand-new"


def test_invalid_controls_give_a_message_not_an_exception():
    view = MarketView("quickstart", "best-effort", alpha=2)
    assert view.error.startswith("Invalid control value: parameters.alpha must be in [0, 1]")
    assert view.market is None and view.running is False
    view.step()  # a dead view steps to nothing
    assert view.now == 0 and view.summaries() == []


def test_step_advances_the_market_by_step_seconds_and_samples_each_provider():
    view = MarketView("quickstart", "best-effort", compare_models=False, step_seconds=1800)
    view.step()
    view.step()
    assert view.now == 3600 and view.market.time == 3600
    assert [s[0] for s in view.samples] == [0] * 3 + [1800] * 3 + [3600] * 3
    assert list(view.markets) == ["best-effort"]


def test_view_runs_to_the_end_with_the_same_records_as_compare():
    view = MarketView("quickstart", "best-effort", compare_models=False)
    while view.running:
        view.step()
        assert view.now < 200 * 3600, "the view never finished"
    ended = sum(len(p.machine.end) for p in view.market.providers.values())
    result = run_model(get_scenario("quickstart"), "best-effort")
    assert ended == len(result.records)
    row = running_summary(view.market, view.now)
    assert row["ended"] == row["started"] == row["submitted"] == ended
    assert row["mean_wait"] == pytest.approx(result.records["wait"].mean())


def test_compare_models_runs_every_model_of_the_scenario_in_step():
    view = MarketView("quickstart", "stable", compare_models=True)
    models = get_scenario("quickstart").models
    assert next(iter(view.markets)) == "stable" and set(view.markets) == set(models)
    rows = view.summaries()
    assert [r["model"] for r in rows] == list(view.markets)
    assert set(rows[0]) == set(SUMMARY_FIELDS)


def test_an_exception_in_the_shown_model_becomes_an_error_message(monkeypatch):
    view = MarketView("quickstart", "best-effort", compare_models=False)

    def explode(t):
        raise RuntimeError("scheduler on fire")

    monkeypatch.setattr(view.market, "run_until", explode)
    view.step()
    assert view.error == "The best-effort model raised before t = 3600 s: RuntimeError: scheduler on fire"
    assert "scheduler on fire" in view.details and view.running is False
    assert view.summaries()[0]["status"] == "error: RuntimeError: scheduler on fire"


def test_an_exception_in_another_model_only_marks_its_row(monkeypatch):
    view = MarketView("quickstart", "best-effort", compare_models=True)
    other = next(name for name in view.markets if name != "best-effort")

    def explode(t):
        raise ValueError("bad clearing")

    monkeypatch.setattr(view.markets[other], "run_until", explode)
    view.step()
    assert view.error is None and view.running
    status = {r["model"]: r["status"] for r in view.summaries()}
    assert status[other] == "error: ValueError: bad clearing" and status["best-effort"] == "running"


def test_running_summary_of_an_empty_market_has_nan_means():
    view = MarketView("quickstart", "best-effort", compare_models=False)
    row = running_summary(view.market, 0)
    assert row["started"] == row["ended"] == 0 and row["utilization"] == 0.0
    assert math.isnan(row["mean_wait"]) and math.isnan(row["mean_bsld"])


@pytest.mark.parametrize("model", ["vickrey", "sla"])
def test_a_job_markets_view_counts_its_trades_and_ends_with_compares_figures(model):
    # jobs the broker bought run in reservations, on no machine's books: the table counts them all the same
    view = MarketView("auction-market", model, compare_models=False)
    while view.running:
        view.step()
        assert view.now < 200 * 3600, "the view never finished"
    row = running_summary(view.market, view.now)
    result = run_model(get_scenario("auction-market"), model)
    assert row["ended"] == row["started"] == row["submitted"] == len(result.records)
    assert row["mean_wait"] == pytest.approx(result.records["wait"].mean())
    assert 0 < row["traded"] == view.market.broker.desk.n_won and row["negotiation_rounds"] == result.summary["negotiation_rounds"]
