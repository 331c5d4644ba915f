"""Scenario configs, the registry and `gridmarket compare` (sweeps: test_sweep.py)."""

import json

import pandas as pd
import pytest

from gridmarket.errors import InvalidInput
from gridmarket.scenarios.commands import compare as compare_cli
from gridmarket.scenarios.config import ProviderConfig, load_toml, load_toml_text, with_overrides
from gridmarket.scenarios.experiment import compare
from gridmarket.scenarios.registry import get_scenario

TOML = """
name = "tiny"
seed = 2
models = ["best-effort", "mcmf"]
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
n_jobs = 40
procs = 16
load_factor = 4.0
[parameters]
maxq = 8
"""


@pytest.fixture
def tiny():
    return load_toml_text(TOML)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        (TOML.replace("procs = 32", "procs = 0"), r"providers\[1\]: provider 'b': procs must be an int >= 1"),
        (TOML.replace('policy = "conservative"', 'policy = "conservativ"'), r"did you mean 'conservative'"),
        (TOML.replace("maxq = 8", "maxqq = 8"), r"parameters: unknown key 'maxqq' \(did you mean 'maxq'\?\)"),
        (TOML.replace("maxq = 8", "alpha = 1.5"), r"parameters.alpha must be in \[0, 1\], got 1.5"),
        (TOML.replace('"mcmf"', '"mcfm"'), r"unknown interaction model 'mcfm' \(did you mean 'mcmf'\?\)"),
        (TOML.replace("maxq = 8", 'maxq = 8\nprice_forecasts = "sarim"'),
         r"parameters.price_forecasts: expected 'actual' or 'sarima', got 'sarim' \(did you mean 'sarima'\?\)"),
        (TOML.replace("seed = 2", "sed = 2"), r"unknown key 'sed' \(did you mean 'seed'\?\)"),
        (TOML.replace('source = "lublin"', 'source = "trace"'), r"workload.trace: a trace source needs a file"),
        (TOML + "\n[oops", r"not TOML"),
        (TOML.replace("maxq = 8", "transfer_gbps = 0"), r"parameters.transfer_gbps must be a finite number > 0"),
        (TOML.replace("maxq = 8", "transfer_gbps = inf"), r"parameters.transfer_gbps must be a finite number > 0"),
        (TOML.replace("maxq = 8", "transfer_latency = -1"), r"parameters.transfer_latency must be an int >= 0"),
        (TOML.replace("load_factor = 4.0", "workflow_data_gb = -1"), r"workload.workflow_data_gb must be in"),
    ],
)
def test_bad_scenario_toml_names_the_key(text, match):
    with pytest.raises(InvalidInput, match=match):
        load_toml_text(text)


def test_toml_file_round_trips_through_the_dataclasses(tmp_path, tiny):
    path = tmp_path / "s.toml"
    path.write_text(TOML)
    assert load_toml(path) == tiny
    assert tiny.providers[1] == ProviderConfig("b", 32, "conservative", "fixed")
    with pytest.raises(InvalidInput, match="cannot read scenario"):
        load_toml(tmp_path / "missing.toml")


def test_the_network_parameters_give_the_thesis_transfer_time(tiny):
    assert tiny.parameters.network() is None  # no latency, no bandwidth limit: transfers are free
    cfg = load_toml_text(TOML.replace("maxq = 8", "transfer_latency = 150\ntransfer_gbps = 10"))
    assert cfg.parameters.network().transfer(125e9, "a", "b") == 250  # 1000 Gb at 10 Gb/s + 150 s (ch. 4.9)
    assert cfg.parameters.network().transfer(125e9, "a", "a") == 0
    assert with_overrides(cfg, {"transfer_latency": 0}).parameters.network().transfer(125e9, "a", "b") == 100


def test_registry_and_overrides_suggest_the_closest_name(tiny):
    assert get_scenario("quickstart").name == "quickstart"
    with pytest.raises(InvalidInput, match=r"unknown scenario 'quick-start' \(did you mean 'quickstart'\?\)"):
        get_scenario("quick-start")
    with pytest.raises(InvalidInput, match=r"unknown parameter 'alhpa' \(did you mean 'alpha'\?\)"):
        with_overrides(tiny, {"alhpa": 0.5})
    assert with_overrides(tiny, {"w_t": 100, "workload.n_jobs": 5}).workload.n_jobs == 5


def test_compare_refuses_a_progress_callback_it_would_never_call(tiny):
    # gridmarket run once passed a callback here: truthy, so it drew the bar, and the callback never ran
    with pytest.raises(InvalidInput, match=r"compare: progress must be True or False, got <built-in function print>"):
        compare(tiny, progress=print)


def test_compare_is_deterministic_for_a_seed_and_every_model_runs_every_job(tiny):
    first = compare(tiny)
    again = compare(tiny)

    def strip(runs):
        return [{k: v for k, v in r.summary.items() if k != "seconds"} for r in runs]

    assert strip(first) == strip(again)
    for a, b in zip(first, again):
        pd.testing.assert_frame_equal(a.records, b.records)
    assert [r.model for r in first] == ["best-effort", "mcmf"]
    assert all(r.summary["jobs"] == 40 for r in first)
    # 40 jobs, 4 of them reservation requests that go user -> broker -> provider
    assert first[0].messages == {"submit": 40 + len(first[0].reservations)}
    n_ar = len(first[1].reservations)
    assert first[1].messages == {"submit": 40 + n_ar, "dispatch": 40 - n_ar}
    routed = first[1].records[first[1].records["kind"] == "job"]
    assert routed["routed"].all() and (routed["dispatch"] > routed["submit"]).all()
    assert set(compare(with_overrides(tiny, {"seed": 3}))[0].records["submit"]) != set(first[0].records["submit"])


def test_compare_command_writes_the_results_folder_and_refuses_to_overwrite(tmp_path, capsys):
    out = tmp_path / "res"
    args = ["compare", "--scenario", "quickstart", "--models", "best-effort", "--out", str(out)]
    assert compare_cli.main(args) == 0
    printed = capsys.readouterr().out
    assert "best-effort" in printed and "[time]" in printed and "wait = mean wait (s), lower is better" in printed
    assert sorted(p.name for p in out.iterdir()) == [
        "gantt.png", "jobs.csv", "jobs.parquet", "manifest.json", "messages.png", "metrics.png", "pareto.png", "prices.png",
        "reservations.csv", "summary.csv", "summary.md", "workflows.csv"]
    jobs = pd.read_parquet(out / "jobs.parquet")
    assert {"model", "seed", "job_id", "site", "submit", "start", "end", "procs", "electricity_cost"} <= set(jobs)
    assert pd.api.types.is_integer_dtype(jobs["start"]) and pd.api.types.is_float_dtype(jobs["electricity_cost"])
    pd.testing.assert_frame_equal(jobs, pd.read_csv(out / "jobs.csv"), check_dtype=False)
    from gridmarket.vocabulary import is_metric

    summary = pd.read_csv(out / "summary.csv")
    assert [c for c in summary.columns if not is_metric(c)] == ["run_id", "seed", "model"]
    markdown = (out / "summary.md").read_text()
    assert "## time" in markdown and "## money" in markdown and "- alloc = allocation cost (SU), lower is better" in markdown
    doc = json.loads((out / "manifest.json").read_text())
    assert doc["seed"] == 1 and doc["scenario"]["name"] == "quickstart" and doc["packages"]["mesa"]
    assert (out / "metrics.png").read_bytes()[:4] == b"\x89PNG"
    assert compare_cli.main(args) == 2
    assert "pass --force" in capsys.readouterr().err
    assert compare_cli.main(args + ["--force"]) == 0


def test_compare_writes_a_batsim_jobs_file_per_model_and_provider_with_energy_that_evalys_reads(tmp_path):
    """Batsim jobs.csv per provider with consumed_energy from the provider's power (it was -1), and the
    machine-state and energy series beside it: evalys's utilisation of the jobs is our computing count."""
    evalys_jobset = pytest.importorskip("evalys.jobset")
    evalys_mstates = pytest.importorskip("evalys.mstates")
    out = tmp_path / "res"
    assert compare_cli.main(["compare", "--models", "best-effort,greedy", "--batsim", "--out", str(out)]) == 0
    jobs = pd.read_csv(out / "jobs.csv")
    providers = {p.name: p for p in get_scenario("quickstart").providers}
    files = sorted(out.glob("batsim/*/*/jobs.csv"))
    assert [f.relative_to(out / "batsim").parts[:2] for f in files] == sorted(
        (m, p) for m in ("best-effort", "greedy") for p in providers)
    for f in files:
        model, site = f.relative_to(out / "batsim").parts[:2]
        ran = jobs[(jobs["model"] == model) & (jobs["site"] == site)]
        js = evalys_jobset.JobSet.from_csv(str(f))
        assert len(js.df) == len(ran) > 0
        busy = (ran["procs"] * (ran["end"] - ran["start"])).sum()
        assert js.df["consumed_energy"].sum() == pytest.approx(busy * providers[site].watts_per_proc)
        assert (js.df["consumed_energy"] > 0).all() and js.MaxProcs <= providers[site].procs
        states = evalys_mstates.MachineStatesChanges(str(f.with_name("machine_states.csv"))).df
        assert states["total"].unique().tolist() == [providers[site].procs]
        # ours also has a row at 0 s, where evalys's load starts at the first job's start
        assert states.set_index("time")["nb_computing"].to_dict() == {0: 0, **js.utilisation["load"].to_dict()}
        energy = pd.read_csv(f.with_name("consumed_energy.csv"))
        assert len(energy) == 2 * len(ran) and energy["energy"].is_monotonic_increasing
        assert energy["energy"].iloc[-1] == pytest.approx(js.df["consumed_energy"].sum())


def test_price_plot_has_a_panel_per_model_a_legend_outside_and_no_zero_on_a_log_axis(tmp_path):
    """One panel per model, colours per provider, legend outside the data, the whole run, no 0 on a log axis."""
    from gridmarket.plots import price_history

    logs = {"greedy": {"a": [(0, 0.0, "quote"), (3600, 50.0, "paid")], "b": [(7200, 0.2, "quote")]},
            "moga": {"a": [(1800, 3.0, "paid")], "b": []}, "best-effort": {"a": [], "b": []}}
    fig = price_history(logs, tmp_path / "p.png", "t", until=36 * 3600)
    axes = [ax for ax in fig.axes if ax.get_title(loc="left")]
    assert [ax.get_title(loc="left") for ax in axes] == ["greedy", "moga"]  # a model that priced nothing: no panel
    assert all(ax.get_legend() is None for ax in axes) and len(fig.legends) == 1
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels[:2] == ["a", "b"] and "free (0 SU), at the bottom" in labels
    assert all(ax.get_yscale() == "log" and ax.get_ylim()[0] > 0 for ax in axes)  # 50 / 0.2 > 50: log, 0 drawn apart
    assert axes[-1].get_xlim() == (0.0, 36.0)
    flat = price_history({"greedy": {"a": [(0, 2.0, "quote"), (60, 5.0, "paid")]}}, tmp_path / "q.png", "t")
    assert flat.axes[0].get_yscale() == "linear" and flat.axes[0].get_ylim()[0] == 0


def test_metric_bars_name_each_model_say_the_run_makespan_and_the_currency(tmp_path):
    from gridmarket.plots import model_bars

    summary = pd.DataFrame({"model": ["best-effort", "greedy"], "mean_wait": [1.0, 2.0], "mean_response": [3.0, 4.0],
                            "mean_bsld": [1.0, 1.5], "makespan": [7200.0, 7200.0],
                            "workflow_makespan": [900.0, 600.0], "allocation_cost": [10.0, 12.0],
                            "electricity_cost": [0.5, 0.4]})
    fig = model_bars(summary, tmp_path / "m.png", "t", currency="EUR")
    assert fig.get_suptitle() == "t; run makespan 2.0 h for every model"
    titles = [ax.get_title() for ax in fig.axes]
    assert "mean workflow makespan (s), lower is better" in titles
    assert "electricity cost (EUR), lower is better" in titles and "makespan (s), lower is better" not in titles
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["best-effort", "greedy"]
    # each model in its own colour, the same in every panel and every figure
    from matplotlib.colors import to_hex

    from gridmarket.plots import MODEL_COLOURS

    assert [to_hex(bar.get_facecolor()) for bar in fig.axes[0].patches] == [MODEL_COLOURS["best-effort"],
                                                                          MODEL_COLOURS["greedy"]]


def test_the_summary_gives_the_median_reservation_cost_beside_the_mean(tmp_path):
    out = tmp_path / "res"
    assert compare_cli.main(["compare", "--models", "greedy", "--out", str(out)]) == 0
    summary, requests = pd.read_csv(out / "summary.csv"), pd.read_csv(out / "reservations.csv")
    met = requests.loc[requests["success"].astype(bool), "normalized_cost"]
    assert summary["reservation_cost"].item() == pytest.approx(met.mean())
    assert summary["reservation_cost_median"].item() == pytest.approx(met.median())
    assert met.median() < met.mean()  # quickstart, greedy: a few requests pay many times their n·D


def test_real_workflow_files_from_the_scenario_are_submitted_and_run(tiny, tmp_path):
    """A scenario TOML takes real workflows (gridmarket JSON, WfInstances JSON, Pegasus DAX)."""
    from pathlib import Path

    from gridmarket.scenarios.experiment import build_inputs

    root = Path(__file__).parents[2]
    files = [str(root / "docs" / "examples" / "workflow.json")]
    from gridmarket.datasets import data_root

    data = data_root()  # real WfInstances and DAX files where present ($GRIDMARKET_DATA, else the cache)
    wfinstance = data / "workflows" / "wfinstances" / "blast-chameleon-small-001.json"
    dax = data / "workflows" / "pegasus-dax" / "CyberShake_30.xml"
    files += [str(p) for p in (wfinstance, dax) if p.exists()]
    text = TOML.replace('[workload]', '[workload]\nn_workflows = 1\nworkflow_tasks = 5\nworkflow_files = [' +
                        ", ".join(f'"{f}"' for f in files) + ']')
    config = with_overrides(load_toml_text(text), {"models": ("best-effort", "greedy")})
    assert config.workload.workflow_files == tuple(files)
    _, _, requests, _ = build_inputs(config)
    assert [len(r.graph) for r in requests.workflows][0] == 5 and len(requests.workflows) == 1 + len(files)
    assert len(requests.workflows[1].graph) == 3  # docs/examples/workflow.json: prepare -> simulate -> analyse
    submits = [r.submit for r in requests.workflows]
    assert submits == sorted(submits) and len(set(submits)) == len(submits)
    for run in compare(config):
        assert len(run.workflows) == len(requests.workflows), run.model
        assert run.workflows["makespan"].notna().all(), run.model
    assert load_toml_text(text).to_dict()["workload"]["workflow_files"] == tuple(files)


@pytest.mark.parametrize(
    ("files", "match"),
    [('["wf.txt"]', r"workflow_files\[0\]: 'wf.txt' is not a workflow file"),
     ('"wf.json"', "workload.workflow_files must be a list"),
     ('["missing.json"]', r"workflow_files\[0\]: missing.json: no such file")],
)
def test_bad_workflow_files_are_refused_in_one_line(files, match, tmp_path, monkeypatch):
    from gridmarket.scenarios.experiment import build_inputs

    monkeypatch.chdir(tmp_path)
    text = TOML.replace('[workload]', f'[workload]\nworkflow_files = {files}')
    with pytest.raises(InvalidInput, match=match):
        build_inputs(load_toml_text(text))


def test_a_workflow_task_wider_than_every_provider_is_refused_naming_the_file(tmp_path):
    from gridmarket.scenarios.experiment import build_inputs

    wide = tmp_path / "wide.json"
    wide.write_text('{"tasks": [{"id": "a", "procs": 64, "runtime": 60}], "edges": []}')
    text = TOML.replace('[workload]', f'[workload]\nworkflow_files = ["{wide}"]')
    with pytest.raises(InvalidInput, match=r"wide.json: task 'a' needs 64 processors; the largest provider has 32"):
        build_inputs(load_toml_text(text))


def test_trace_jobs_wider_than_every_provider_are_dropped_and_counted(tiny, tmp_path):
    """`compare --trace` aborted on the first job wider than every provider; it drops and counts them."""
    import numpy as np

    from gridmarket.job import Job
    from gridmarket.scenarios.experiment import build_workload
    from gridmarket.workloads import DroppedJobsWarning, Workload, write_swf

    jobs = [Job(i, 60 * i, procs, 600, 900, user=i % 3) for i, procs in enumerate([4, 40, 8, 33, 32, 2])]
    trace = tmp_path / "wide.swf"
    write_swf(Workload(tuple(jobs), max_procs=64), trace)
    config = with_overrides(tiny, {"workload.source": "trace", "workload.trace": str(trace)})
    with pytest.warns(DroppedJobsWarning, match=r"dropped 2 job\(s\) wider than the largest provider 'b' \(32"):
        workload = build_workload(config, rng=np.random.default_rng(1))
    assert [j.id for j in workload.jobs] == [0, 2, 4, 5]
    assert {j.id: j.site for j in workload.jobs}[4] == "b"  # 32 processors: only b holds it

    only_wide = tmp_path / "only-wide.swf"
    write_swf(Workload(tuple(j for j in jobs if j.procs > 32), max_procs=64), only_wide)
    config = with_overrides(tiny, {"workload.source": "trace", "workload.trace": str(only_wide)})
    with pytest.warns(DroppedJobsWarning), pytest.raises(InvalidInput, match="all 2 job\\(s\\) are wider"):
        build_workload(config, rng=np.random.default_rng(1))


def test_bar_panels_list_the_models_top_down(tmp_path):
    """The bar panels share their y axis: the first model is drawn at the top in every panel."""
    from gridmarket.plots import metric_by_model, model_bars
    from gridmarket.scenarios.pointtable import point_table

    summary = pd.DataFrame({"model": ["best-effort", "greedy"], "mean_wait": [1.0, 2.0], "mean_response": [3.0, 4.0],
                            "mean_bsld": [1.0, 1.5], "makespan": [7200.0, 7200.0], "allocation_cost": [10.0, 12.0],
                            "electricity_cost": [0.5, 0.4]})
    assert all(ax.yaxis_inverted() for ax in model_bars(summary, tmp_path / "m.png", "t").axes)
    table = summary.assign(seed=1)
    assert all(ax.yaxis_inverted() for ax in metric_by_model(point_table(table), tmp_path / "s.png", "t").axes)


def test_the_printed_table_splits_by_topic_and_names_the_run_s_currency_in_its_legend():
    from gridmarket.scenarios.results import format_table, summary_markdown

    summary = pd.DataFrame({"run_id": ["r1", "r2"], "model": ["best-effort", "greedy"], "mean_wait": [1.0, 2.0],
                            "allocation_cost": [10.0, 12.5], "electricity_cost": [0.5, float("nan")],
                            "msg_submit": [3, 4]})
    text = format_table(summary, currency="EUR")
    assert text.index("[time]") < text.index("[money]") and "msg" not in text  # message counts: the CSV's
    assert "energy = electricity cost (EUR), lower is better" in text
    assert "greedy 12.500      -" in text  # decimals from the vocabulary, a dash for a missing value
    markdown = summary_markdown(summary, "t", currency="EUR")
    assert markdown.index("## messages") < markdown.index("## run") and "| model | run_id |" in markdown
    assert "- submit = messages of that type sent" in markdown
