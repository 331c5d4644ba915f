"""Job markets in `compare`: the auction models by name, and the market columns for every model."""

import math

import pytest

from gridmarket.errors import InvalidInput
from gridmarket.scenarios.commands import compare as compare_cli
from gridmarket.scenarios.config import load_toml_text
from gridmarket.scenarios.experiment import SUMMARY_COLUMNS, compare

TOML = """
name = "tiny-market"
seed = 2
models = ["best-effort", "greedy", "first-price", "vickrey", "english", "dutch", "double", "double-gd", "negotiate", "dbc", "sla"]
[[providers]]
name = "a"
procs = 16
[[providers]]
name = "b"
procs = 32
policy = "conservative"
prices = "fixed"
[workload]
source = "lublin"
n_jobs = 30
procs = 16
load_factor = 4.0
n_workflows = 1
workflow_tasks = 4
[parameters]
maxq = 8
"""


@pytest.fixture(scope="module")
def runs():
    return compare(load_toml_text(TOML))


def test_every_model_reports_surplus_revenue_welfare_and_negotiation_cost(runs):
    for col in ("users_surplus", "provider_revenue", "social_welfare", "negotiation_messages", "negotiation_rounds",
                "sla_contracts", "sla_violations", "sla_penalties"):
        assert col in SUMMARY_COLUMNS
    for r in runs:
        s = r.summary
        assert s["provider_revenue"] == pytest.approx(s["allocation_cost"])
        assert s["social_welfare"] == pytest.approx(s["users_surplus"] + s["provider_revenue"])
        assert math.isfinite(s["social_welfare"]) and s["social_welfare"] > 0
    by = {r.model: r.summary for r in runs}
    assert by["best-effort"]["negotiation_messages"] == 0 and by["best-effort"]["negotiation_rounds"] == 0
    assert by["english"]["negotiation_rounds"] > by["vickrey"]["negotiation_rounds"] > 0
    assert by["sla"]["sla_contracts"] > 0 and by["best-effort"]["sla_contracts"] == 0
    assert by["sla"]["sla_violations"] <= by["sla"]["sla_contracts"] and by["sla"]["sla_penalties"] >= 0
    # the same jobs run under every model: each of the 30 jobs once
    assert {s["jobs"] for s in by.values()} == {30}


def test_compare_command_takes_the_auction_models_by_name(tmp_path, capsys):
    path = tmp_path / "s.toml"
    path.write_text(TOML)
    out = tmp_path / "res"
    assert compare_cli.main(["compare", "--scenario", str(path), "--models", "dutch", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "dutch" in text and "surplus = users' surplus (SU)" in text and "welfare = social welfare (SU)" in text
    assert compare_cli.main(["compare", "--scenario", str(path), "--models", "vickery", "--out",
                             str(tmp_path / "x")]) == 2
    assert "did you mean 'vickrey'" in capsys.readouterr().err


def test_overbooking_providers_in_a_scenario_break_contracts_and_the_columns_settle_them():
    """The tiny market's providers overbooking by 2 (the TOML key): contracts are violated, late or never run;
    compare's columns add up from the settled contracts and the revenue is net of the penalties."""
    text = TOML.replace('models = ["best-effort", "greedy", "first-price", "vickrey", "english", "dutch", "double", '
                        '"double-gd", "negotiate", "dbc", "sla"]', 'models = ["sla"]')
    text = text.replace("procs = 16\n[[providers]]", "procs = 16\noverbooking = 2.0\n[[providers]]")
    text = text.replace('prices = "fixed"\n', 'prices = "fixed"\noverbooking = 2.0\n')
    config = load_toml_text(text)
    assert [p.overbooking for p in config.providers] == [2.0, 2.0]
    (run,) = compare(config)
    s, slas = run.summary, run.slas
    assert s["sla_violations"] == s["sla_late"] + s["sla_never_ran"] > 0
    assert s["sla_penalties"] == pytest.approx(slas["penalty"].sum()) and s["sla_penalties"] > 0
    ran = slas["start"].notna()  # a broken contract's price is never paid; its penalty is
    assert s["sla_net_revenue"] == pytest.approx(slas.loc[ran, "price"].sum() - s["sla_penalties"])
    assert s["provider_revenue"] == pytest.approx(run.records["cost"].sum())
    with pytest.raises(InvalidInput, match=r"provider 'a': overbooking must be in \[1, inf\], got 0\.5"):
        load_toml_text(text.replace("overbooking = 2.0", "overbooking = 0.5", 1))


def test_a_dbc_market_of_quoting_advertising_and_auctioning_providers_runs_from_toml():
    text = TOML.replace('models = ["best-effort", "greedy", "first-price", "vickrey", "english", "dutch", "double", '
                        '"double-gd", "negotiate", "dbc", "sla"]', 'models = ["dbc"]')
    text = text.replace("procs = 16\n[[providers]]", 'procs = 16\nsells = "post"\n[[providers]]')
    text = text.replace('prices = "fixed"\n', 'prices = "fixed"\nsells = "auction"\n')
    config = load_toml_text(text)
    assert [p.sells for p in config.providers] == ["post", "auction"]
    (run,) = compare(config)
    assert run.summary["jobs"] == 30 and run.messages["advertise"] > 0 and run.messages["bid"] > 0
    with pytest.raises(InvalidInput, match=r"provider 'b': sells must be one of 'quote', 'post', 'auction', "
                                           r"got 'auctions' \(did you mean 'auction'\?\)"):
        load_toml_text(text.replace('sells = "auction"', 'sells = "auctions"'))


def test_predicted_contracts_from_toml_overrun_and_the_columns_add_up():
    """sla-predict from the TOML's model list: jobs run past their predicted contracts, the users pay the overrun
    at the base rate, and compare's columns add up from the settled contracts."""
    text = TOML.replace('models = ["best-effort", "greedy", "first-price", "vickrey", "english", "dutch", "double", '
                        '"double-gd", "negotiate", "dbc", "sla"]', 'models = ["sla-predict"]')
    (run,) = compare(load_toml_text(text))
    s, slas = run.summary, run.slas
    assert s["sla_overruns"] == int((slas["overrun"] > 0).sum()) > 0
    assert s["sla_overrun_charges"] == pytest.approx(slas["overrun_charge"].sum()) and s["sla_overrun_charges"] > 0
    assert (slas["duration"] <= run.records.set_index("job_id").loc[slas["job_id"], "estimate"].values).all()
    assert s["provider_revenue"] == pytest.approx(run.records["cost"].sum())
    assert s["sla_violations"] == s["sla_late"] + s["sla_never_ran"]
