"""Every registered agent scenario runs, at a reduced size, every interaction model it names, to its golden figures."""

from __future__ import annotations

import math

import pytest

from gridmarket.errors import InvalidInput
from gridmarket.pricing import BASE_RATE, SECONDS_PER_HOUR
from gridmarket.scenarios.config import INTERACTION_MODELS, with_overrides
from gridmarket.scenarios.experiment import compare
from gridmarket.scenarios.registry import get_scenario, scenario_names

GOLDEN = {
    # model -> (mean wait s, allocation cost SU) of every registered scenario at the reduced size below, its own
    # seed (1). Recorded from a run at commit 06deb3d (the same to the last digit at 3785e0f); checked against
    # the records in the same run (the test below): the allocation cost is the sum of the records' cost
    # column, the mean wait the mean of start - submit over the jobs, and under best effort (no market:
    # every processor-second at the base rate) the allocation cost is the work procs x (end - start) x
    # BASE_RATE / 3600, by hand. A changed figure is a changed market: explain it (commit message,
    # benchmarks/RESULTS*.md) and re-record, never widen the tolerance, which covers float sums only.
    "auction-market": {
        "best-effort": (113.2, 416.6308333333334),
        "moga": (591.5166666666667, 416.6308333333333),
        "greedy": (968.1166666666667, 416.6308333333333),
        "first-price": (183.65, 3956.6857728407394),
        "vickrey": (179.4, 3567.403777201932),
        "english": (179.4, 3601.7575),
        "dutch": (183.65, 3921.0575),
        "double": (179.11666666666667, 2878.2742371070285),
        "double-gd": (27.216666666666665, 2803.0092963976485),
        "negotiate": (206.15, 3262.423947850286),
        "dbc": (0.0, 2944.5905555555555),
        "dbc-cycle": (634.5166666666667, 2509.285555555555),
        "sla": (0.0, 2944.5905555555555),
        "sla-predict": (489.6166666666667, 416.67972222222227),
    },
    "grand-market": {
        "best-effort": (4055.8571428571427, 1156.415),
        "mcmf": (1328.0, 1156.415),
        "greedy": (3992.339285714286, 1253.3600000000001),
        "grand": (2047.642857142857, 1662.6041666666667),
    },
    "quickstart": {
        "best-effort": (607.0925925925926, 429.3377777777778),
        "mcmf": (683.8333333333334, 429.33777777777783),
        "stable": (337.9259259259259, 429.33777777777783),
        "moga": (16.796296296296298, 901.6172222222223),
        "greedy": (613.5555555555555, 901.6172222222223),
        "var": (1355.0185185185185, 480.92111111111103),
        "combined": (610.1296296296297, 901.6172222222222),
        "first-price": (661.074074074074, 2480.343052558286),
        "vickrey": (661.074074074074, 2289.9979596819308),
        "english": (661.074074074074, 2326.0869444444447),
        "dutch": (661.074074074074, 2442.4119444444445),
        "double": (734.4444444444445, 1618.181513188004),
        "double-gd": (292.6666666666667, 1787.166808909074),
        "negotiate": (557.2592592592592, 1920.51781218232),
        "dbc": (0.0, 2485.0180555555553),
        "dbc-cycle": (680.425925925926, 1613.1644444444441),
        "sla": (0.0, 2485.0180555555553),
        "sla-predict": (347.462962962963, 429.40555555555557),
        "grand": (1446.6851851851852, 901.6172222222223),
    },
}
"""Mean wait (s) and allocation cost (SU) of each model of each registered scenario, 60 jobs, seed 1."""


@pytest.mark.parametrize("name", scenario_names())
def test_registered_scenario_runs_small_with_its_golden_figures(name):
    config = get_scenario(name)
    assert config.name == name and config.description
    small = with_overrides(config, {"workload.n_jobs": 60, "workload.n_workflows": min(2, config.workload.n_workflows),
                                    "workload.workflow_tasks": 6, "population": 10, "generations": 2})
    runs = compare(small)
    assert [r.model for r in runs] == list(config.models) == list(GOLDEN[name])
    for r in runs:
        s, rec = r.summary, r.records
        assert s["jobs"] == 60, r.model
        assert 0 < s["success_rate"] <= 1
        assert all(math.isfinite(s[k]) for k in ("mean_wait", "allocation_cost", "electricity_cost", "makespan"))
        jobs = rec[rec["kind"] == "job"]
        assert s["mean_wait"] == pytest.approx((jobs["start"] - jobs["submit"]).mean(), rel=1e-12), r.model
        assert s["allocation_cost"] == pytest.approx(rec["cost"].sum(), rel=1e-12), r.model
        if r.model == "best-effort":
            work = (rec["procs"] * (rec["end"] - rec["start"])).sum() * BASE_RATE / SECONDS_PER_HOUR
            assert s["allocation_cost"] == pytest.approx(work, rel=1e-12)
        assert (s["mean_wait"], s["allocation_cost"]) == pytest.approx(GOLDEN[name][r.model], rel=1e-9), r.model


def test_grand_market_runs_broker_and_metascheduler_together():
    config = with_overrides(get_scenario("grand-market"), {
        "workload.n_jobs": 80, "workload.n_workflows": 2, "workload.workflow_tasks": 6, "models": ("grand",)})
    (run,) = compare(config)
    assert "grand" in INTERACTION_MODELS
    assert run.messages["dispatch"] > 0 and run.messages["quote"] > 0 and run.messages["reserve"] > 0
    assert run.workflows["provisioned"].all()


def test_the_readme_main_command_runs_every_interaction_model(tmp_path, capsys):
    from pathlib import Path

    from gridmarket.scenarios.commands.cli import main

    readme = (Path(__file__).parents[2] / "README.md").read_text().splitlines()
    first = next(line for line in readme if line.startswith("python -m venv"))
    assert first.endswith("gridmarket compare")
    assert main(["compare", "--out", str(tmp_path / "res")]) == 0
    table = capsys.readouterr().out
    for model in INTERACTION_MODELS:
        if model in get_scenario("quickstart").models:
            assert f"\n{model:>11} " in table or f"\n{model} " in table, model
    assert (tmp_path / "res" / "pareto.png").exists() and (tmp_path / "res" / "gantt.png").exists()


def test_users_carry_an_estimate_behaviour_and_psp_providers_rank_them():
    """Rocchetti et al. in the agent market: CF users on PSP providers; accurate users wait less (Table 3's direction)."""
    from gridmarket.scenarios.config import ProviderConfig, ScenarioConfig, WorkloadConfig

    config = ScenarioConfig(
        name="psp-market", providers=(ProviderConfig("a", 32, "psp", "fixed"), ProviderConfig("b", 32, "psp", "fixed")),
        workload=WorkloadConfig(n_jobs=600, procs=32, estimates="CF", load_factor=3.0, n_users=12),
        models=("best-effort",), seed=4)
    (run,) = compare(config)
    jobs = run.records[run.records["kind"] == "job"]
    accuracy = (jobs["runtime"] / jobs["estimate"]).groupby(jobs["user"]).mean()
    wait = jobs.groupby("user")["wait"].mean()
    assert accuracy.max() - accuracy.min() > 0.3  # users differ as their groups do
    # seeds 1-4 all give this direction (406 s vs 712 s here)
    assert wait[accuracy >= accuracy.median()].mean() < wait[accuracy < accuracy.median()].mean()
    with pytest.raises(InvalidInput, match=r"workload\.estimates: unknown 'tsafiri' \(did you mean 'tsafrir'\?\)"):
        WorkloadConfig(estimates="tsafiri")


def test_the_documented_example_scenario_loads_and_runs():
    from pathlib import Path

    from gridmarket.scenarios.config import load_toml

    config = load_toml(Path(__file__).parents[2] / "docs" / "example-scenario.toml")
    assert config.name == "two-sites" and config.parameters.w_t == 50.0
    runs = compare(with_overrides(config, {"workload.n_jobs": 40, "workload.n_workflows": 1,
                                           "models": ("best-effort", "moga")}))
    assert [r.summary["jobs"] for r in runs] == [40, 40]
    assert config.parameters.network().transfer(10e9, "cheap", "dear") == 158  # 80 Gb at 10 Gb/s + 150 s


def test_the_documented_example_scenario_shows_every_key():
    import tomllib
    from dataclasses import fields
    from pathlib import Path

    from gridmarket.scenarios.config import Parameters, ProviderConfig, ScenarioConfig, WorkloadConfig

    doc = tomllib.loads((Path(__file__).parents[2] / "docs" / "example-scenario.toml").read_text())
    # trace: only with source = "trace" (providers[].trace: with source = "providers");
    # duration_seconds: absent = run until every job ended
    assert set(doc) | {"duration_seconds"} == {f.name for f in fields(ScenarioConfig)}
    assert set(doc["providers"][0]) | {"trace"} == {f.name for f in fields(ProviderConfig)}
    assert set(doc["workload"]) | {"trace"} == {f.name for f in fields(WorkloadConfig)}
    assert set(doc["parameters"]) == {f.name for f in fields(Parameters)}
