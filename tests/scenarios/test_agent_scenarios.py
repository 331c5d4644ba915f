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
    # seed (1). Recorded from a run at commit 06deb3d (the same to the last digit at 3785e0f); the models whose
    # workflows run just in time re-recorded when the broker took Singh's ch. 4.9 site rule (gridmarket.provisioning
    # .JustInTime: the provider with the fewest tasks running and queued, not the home queue); checked against
    # the records in the same run (the test below): the allocation cost is the sum of the records' cost
    # column, the mean wait the mean of start - submit over the jobs, and under best effort (no market:
    # every processor-second at the base rate) the allocation cost is the work procs x (end - start) x
    # BASE_RATE / 3600, by hand. A changed figure is a changed market: explain it (commit message,
    # benchmarks/RESULTS*.md) and re-record, never widen the tolerance, which covers float sums only.
    "auction-market": {
        "best-effort": (61.0, 416.6308333333334),
        "moga": (591.5166666666667, 416.6308333333333),
        "greedy": (968.1166666666667, 416.6308333333333),
        "first-price": (237.88333333333333, 3970.0986319074254),
        "vickrey": (237.88333333333333, 3630.307438098664),
        "english": (237.88333333333333, 3665.1575000000003),
        "dutch": (237.88333333333333, 3933.4908333333333),
        "double": (237.88333333333333, 2934.191805113461),
        "double-gd": (26.4, 2826.4271864129364),
        "negotiate": (16.316666666666666, 3262.2529986357986),
        "dbc": (0.0, 2944.5905555555555),
        "dbc-cycle": (53.083333333333336, 2509.2855555555557),
        "sla": (0.0, 2944.5905555555555),
        "sla-predict": (50.0, 416.63472222222225),
    },
    "grand-market": {
        "best-effort": (3815.6964285714284, 1156.415),
        "mcmf": (1303.857142857143, 1156.415),
        "greedy": (3992.339285714286, 1253.3600000000001),
        "grand": (2047.642857142857, 1662.6041666666667),
    },
    "quickstart": {
        "best-effort": (122.38888888888889, 429.3377777777778),
        "mcmf": (333.037037037037, 429.33777777777783),
        "stable": (332.55555555555554, 429.33777777777783),
        "moga": (16.796296296296298, 901.6172222222223),
        "greedy": (613.5555555555555, 901.6172222222223),
        "var": (714.925925925926, 480.9211111111111),
        "combined": (155.25925925925927, 901.6172222222222),
        "first-price": (389.81481481481484, 2484.234241472483),
        "vickrey": (389.81481481481484, 2292.2711018035184),
        "english": (389.81481481481484, 2327.486944444445),
        "dutch": (389.81481481481484, 2447.2369444444444),
        "double": (304.05555555555554, 1614.2437354102258),
        "double-gd": (288.9259259259259, 1787.1668089090736),
        "negotiate": (77.5, 1920.51781218232),
        "dbc": (0.0, 2485.0180555555553),
        "dbc-cycle": (325.2962962962963, 1613.1644444444444),
        "sla": (0.0, 2485.0180555555553),
        "sla-predict": (0.0, 429.3522222222222),
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
