"""Named reproductions of the seeds (``gridmarket run NAME``): each at its small size, the CLI, bad input."""

import json
import math
from pathlib import Path

import pandas as pd
import pytest

from gridmarket.datasets import needed_by
from gridmarket.errors import InvalidInput
from gridmarket.plugins import Registry
from gridmarket.scenarios.commands import run as run_cli
from gridmarket.scenarios.commands.cli import main
from gridmarket.scenarios.reproductions import (
    REPRODUCTIONS,
    Check,
    Report,
    Row,
    get_reproduction,
    write_report,
)
from gridmarket.scenarios.reproductions.report import read_report

NEEDS_DATA = {n for n in REPRODUCTIONS if needed_by(n)}
"""The reproductions that read real data, and what each reads: the registry's (gridmarket.datasets.needed_by);
test_a_reproduction_without_its_data_names_a_file_the_registry_lists_for_it holds each to it."""

ROBUST = {
    # directions that hold at the small size in each of seeds 1, 2 and 3 (`gridmarket run NAME --seeds 1..3`,
    # benchmarks/RESULTS_reproductions.md); the others are reported there, not pinned here
    "singh-advertisement": ["provisioned makespan at alpha = 0 (the fastest plan) below best effort",
                            "MOGA alpha = 1 allocation cost / best effort ('almost the same')",
                            "CTC: provisioned makespan below best effort for every alpha",
                            "provisioned makespan lower at CTC than at SDSC for every alpha"],
    "singh-pricing": ["price highest at alpha = 0, above every other alpha", "price zero at alpha = 1",
                      "at alpha = 0 reservations wait less than best-effort jobs",
                      "CB+actual: price rises with load at alpha",
                      "with 50 % reservations best-effort waits fall as alpha rises",
                      "prices higher with inaccurate (recorded) than accurate estimates",
                      "waits longer with inaccurate estimates",
                      "with inaccurate estimates at alpha = 1 reservations wait longer than best-effort jobs"],
    "singh-var": ["VAR costs less than adaptive pricing on average",
                  "adaptive pricing succeeds more often than VAR",
                  "32 nodes x 1 h: adaptive pricing strictly cheaper in a majority of the cases where both succeed",
                  "the combined scheme costs less than adaptive pricing"],
    # singh-greedy's "provisioned makespan changes less than best effort's with the number of providers" left
    # this list when best effort took ch. 4.9's rule whole (gridmarket.provisioning.JustInTime counts a task
    # handed over an instant before): seed 1 now gives relative ranges 0.26 vs 0.25; it holds in 4 of seeds 1-5
    # before and after, and 1 of 10 seeds at full size (RESULTS_reproductions.md)
    "singh-greedy": ["provisioned makespan below best effort for every number of providers",
                     "ch. 7.2 SDSC: greedy provisioned makespan below best effort for every alpha",
                     "ch. 7.2 CTC: greedy provisioned makespan below best effort for every alpha",
                     "ch. 7.2: provisioned allocation cost relative to best effort higher at SDSC than CTC"],
    # murali-xsede and murali-nordugrid at the authors' set-up: recorded from small runs of seeds 1-3 at d062301,
    # checked against the -ours lists below (the earlier set-up's, unchanged): the printed w_t = 25 % change and
    # mean response (seeds 2, 3: -41.3 / -48.6 %, 357.4 min at seed 3) and NorduGrid's -11.7 % change (seed 1:
    # -23.5 %) and Table IV responses (BS 1,429-1,602 min) no longer hold in every seed at this size
    "murali-xsede": ["MCMF w_t = 100 % has a lower mean response time than BS",
                     "MCMF w_t = 25 % improves both response time and electricity cost over BS",
                     "bs: mean response = 633.7"],
    "murali-xsede-ours": ["MCMF w_t = 100 % has a lower mean response time than BS",
                          "MCMF w_t = 25 % improves both response time and electricity cost over BS",
                          "mcmf-w25: response change vs BS = -24.6 %", "bs: mean response = 633.7",
                          "mcmf-w25: mean response = 477.5"],
    "murali-xsede-lublin": ["MCMF w_t = 100 % has a lower mean response time than BS",
                            "MCMF w_t = 25 % improves both response time and electricity cost over BS",
                            "mcmf-w25: response change vs BS = -24.6 %"],
    "murali-nordugrid": ["MCMF (w_t = 92.5 %) has a lower mean response time than BS"],
    "murali-nordugrid-ours": ["MCMF (w_t = 92.5 %) has a lower mean response time than BS",
                              "mcmf-w92.5: response change vs BS = -11.7 %",
                              "bs: mean response = 1,900.3", "mcmf-w92.5: mean response = 1,678.6"],
    "ha-selection": ["the model sends the whole workload to SuperMIC",
                     "eq. 2 at base clocks over-predicts Tx on every XSEDE machine",
                     "eq. 2's over-prediction on OSG is within the paper's 7-18 %"],
    # on Cluster FING's 1672 cores the paper's stated workload never queues: no direction holds (RESULTS)
    "rocchetti-psp": [],
    "rocchetti-psp-64": ["CF: the most accurate class waits at least 2.25x less",
                         "CFG: the most accurate class waits at least 2.25x less",
                         "HDI: the most accurate class waits at least 2.25x less",
                         "CF: the wait falls with every step up"],
    "measy": ["MEASY has a lower average response time than EASY at every load",
              "MEASY has a lower average bounded slowdown than EASY at every load",
              "MEASY's average response improvement over EASY = 23.1 %"],
    "measy-bg-departure": ["MEASY has a lower average response time than EASY at every load",
                           "MEASY has a lower average bounded slowdown than EASY at every load"],
    "measy-robustness": ["JWload without usage information: KEASY below EASY",
                         "JWload without usage information: MEASY below EASY",
                         "JWload at 100 % usage: KEASY below EASY", "JWload at 100 % usage: MEASY below EASY",
                         "JWload at 100 % usage: MEASY's response time at most KEASY's",
                         "JWload: MEASY with a 0 s migration cost", "JWload: MEASY with a 120 s migration cost"],
}

PINNED_FIGURES = {
    # Seed 1, small size: a change in any of these is a change of the reproduction's result, to be explained in
    # benchmarks/RESULTS_reproductions.md (its sections on the Singh set-ups and on each reproduction) and re-pinned,
    # not a tolerance to widen (rel 1e-6 covers float sums in another order only). Each entry says where its
    # figures come from: the commit of the run that recorded them, and what they were checked against.
    #
    # singh-advertisement: recorded at 2354ed9 (instants evenly spaced in time; with instants spaced over the job
    # indices they were 0.5697463331566179, 0.8953260694294073 and 12.25). Checked: SDSC's mean advertised slots
    # equal Fig. 4's 14 (the row's seed value); both makespan ratios below 1, Fig. 13's direction.
    "singh-advertisement": {"SDSC: MOGA a=0 makespan / best effort": 0.539322156609878,
                            "CTC: MOGA a=0 makespan / best effort": 0.8584206491183235,
                            "SDSC: mean advertised slots at submission": 14.0},
    # singh-pricing: recorded at 3404a09 (AB+recorded, CB+actual), ea45d5e (the +40 % copy a week earlier; the
    # copy a week later gave 93.12167955832507) and 138b487 (CB+recorded with v_q planned afresh, Fig. 22 as
    # written; from the scheduler's compressed plan 60.05644935752078, and 151.73838624338623 with slots sized by
    # the recorded estimate before Figs. 30-31's slots of actual length). Checked: the +40 % offered load against
    # the thesis's 87.4 % (88.87 %); prices highest at alpha = 0 and higher with recorded than actual estimates
    # (ROBUST above); the thesis prints no price at this size.
    "singh-pricing": {"SDSC AB+recorded: mean price, alpha=0": 139.1107350718065,
                      "SDSC CB+actual: mean price, alpha=0": 28.325840891912325,
                      "SDSC CB+recorded: mean price, alpha=0": 54.291439909297054,
                      "SDSC CB+actual +40 % load: offered load with the copy": 88.8701339802414},
    # singh-var: recorded at 3404a09 (VAR) and 09d006f (adaptive prices from the queue planned afresh, Fig. 22 as
    # written; 30.58256224872076 from the replaying scheduler's compressed plan). Checked: VAR cheaper than
    # adaptive pricing and succeeding less often (Figs. 38-45's directions, ROBUST above); 25 % = 3 of 12 requests.
    "singh-var": {"all: VAR success rate": 25.0, "all: VAR normalised allocation cost": 2.2403611111111115,
                  "all: adaptive pricing normalised allocation cost": 14.044760399533992},
    # singh-greedy: recorded at 3404a09 (2 providers) and 2354ed9 (ch. 7.2's instants evenly spaced in time; over
    # the job indices 0.455753185523223 and 7.708584177006911). Checked: makespan ratios below 1 (Figs. 52/56's
    # direction); the 2-provider cost ratio 1.0002 against ch. 7.3's 1.43 (the row's seed value: not reproduced
    # at this size, RESULTS_reproductions.md).
    "singh-greedy": {"2 providers: makespan provisioned / best effort": 0.8675511091779035,
                     "2 providers: allocation cost provisioned / best effort": 1.0001742305723837,
                     "ch. 7.2 CTC: greedy a=0 makespan / best effort": 0.47697175409799536,
                     "ch. 7.2 SDSC: greedy a=0 allocation cost / best effort": 4.951670247843229},
    # The rest: recorded from a run at commit 3785e0f (small size, seed 1) unless said, the same at d062301.
    # ha-selection, an illustration on hand-set waits and IPCs: checked against Ha et al.: SuperMIC's eq. 2
    # over-prediction inside Fig. 5's 157-171 %, OSG's inside sec. IV-A3's 7-18 %; the TTC reductions' smallest
    # inside Fig. 6(a)'s 67-85 %, the largest above it (the waits are ours, not measured).
    "ha-selection": {"smallest reduction over the sizes": 81.97469093981272,
                     "largest reduction over the sizes": 92.55806021805446,
                     "SuperMIC: eq. 2 over-prediction of Tx": 169.17499999999998,
                     "OSG: eq. 2 over-prediction of Tx": 15.278688524590155},
    # measy: checked against Liu et al. 2012 Figs. 6-8: the average response improvement 23.29 % against the
    # paper's 23.1 %; FWload's average parallelism 28.1 against 23.4 and JWload's one-process share 45.2 % against
    # 40.8 % (the generated workloads, sec. 3.4).
    "measy": {"average response improvement over EASY": 23.288523190431565,
              "FWload: average parallelism": 28.121, "JWload: share of one-process jobs": 45.2,
              "jann97 load 0.7: MEASY response improvement over EASY": 31.702925019529648},
    # measy-robustness: the paper prints no figure for these (Figs. 9-14 are curves); checked against their
    # directions: JWload without usage information MEASY still beats EASY (ROBUST above), and MEASY's response over
    # KEASY's rises with the migration cost, 0.90 at 0 s to 0.99 at 2400 s (Fig. 14).
    "measy-robustness": {"JWload load 0.7 without usage information: MEASY response improvement over EASY":
                         19.378014978552105,
                         "JWload migration cost 0 s: MEASY response over KEASY's (mean over loads)": 0.901739700510235,
                         "JWload migration cost 2400 s: MEASY response over KEASY's (mean over loads)":
                         0.9913008731128108},
    # murali-nordugrid-ours and murali-xsede-ours: recorded at 3785e0f as murali-nordugrid and murali-xsede, the
    # same to the last digit at d062301 under their new names. Checked against Table IV: NorduGrid MCMF's mean
    # response 1,681 min against 1,678.6 and BS's 2,084 against 1,900.3 (the response change -19.3 % against
    # -11.7 %); XSEDE BS 580.9 min against 633.7, MCMF w_t = 25 % 478.8 against 477.5, its electricity cost change
    # -35.5 % against -3.0 % (not reproduced: RESULTS_reproductions.md).
    "murali-nordugrid-ours": {"bs: mean response": 2084.4781547619045,
                              "mcmf-w92.5: mean response": 1681.175119047619,
                              "mcmf-w92.5: response change vs BS": -19.347913759276214},
    "murali-xsede-ours": {"bs: mean response": 580.9427884615384, "mcmf-w25: mean response": 478.8171474358975,
                          "mcmf-w25: cost change vs BS": -35.47749531639316},
    # murali-nordugrid and murali-xsede with the authors' simulator's set-up (60 s cycles, 500 jobs a system of
    # history, XSEDE's max_req and max_ert): recorded at d062301, XSEDE's MCMF figures again when a non-positive
    # wait prediction became the nearest history job's wait (the authors' fallback; NorduGrid's small seed 1 is
    # unchanged by it). Checked against Table IV: NorduGrid BS 1,429 min against 1,900.3 and MCMF 1,093 against
    # 1,678.6 (outside the stated 15 %, so no longer in ROBUST); XSEDE BS 580.6 against 633.7, MCMF w_t = 25 %
    # 417.6 against 477.5 (411.1 with the zero), its response change -28.1 % against -24.6 % and cost change
    # -42.0 % against -3.0 %.
    "murali-nordugrid": {"bs: mean response": 1428.8963793103446, "mcmf-w92.5: mean response": 1092.5772988505746,
                         "mcmf-w92.5: response change vs BS": -23.53698178044892},
    "murali-xsede": {"bs: mean response": 580.6423780487805, "mcmf-w25: mean response": 417.5930894308943,
                     "mcmf-w25: response change vs BS": -28.08084541913822,
                     "mcmf-w25: cost change vs BS": -41.987351049905655},
    # murali-xsede-lublin: the earlier workload (most jobs under 30 min, 57.4 % here, where sec. 4.3.1 has none);
    # checked against Table IV's direction: MCMF w_t = 25 % improves the response over BS (-29.9 % against -24.6 %).
    "murali-xsede-lublin": {"bs: mean response": 313.920281124498,
                            "mcmf-w25: response change vs BS": -29.89220184611029,
                            "jobs under 30 minutes": 57.42971887550201},
    # rocchetti-psp: checked against Table 3: CF's class a2 waits 634.8 min against 637.53; the a1 / a5 ratio
    # 36.2x against 2.43x (the direction holds, its size does not: RESULTS); SLURM multifactor's CF a1 2,612 min
    # against 1,093.12.
    "rocchetti-psp-64": {"CF: class a2 wait": 634.7871589547769,
                      "CF: least / most accurate class wait (a1 / a5)": 36.2345222378387,
                      "SLURM multifactor: CF: class a1 wait": 2611.7463505672026},
}


TESTED_ELSEWHERE = {"auction-market"}
"""Reproductions whose runs are tested in their own module (``auction-market``: tests/scenarios/test_auction_market.py
runs its harness on 30 jobs and pins the small size's seed-1 figures, about 3 s)."""


def test_every_seed_has_a_reproduction_with_a_documented_direction():
    assert set(REPRODUCTIONS) == set(ROBUST) | TESTED_ELSEWHERE
    for r in REPRODUCTIONS.values():
        assert "direction" in r.doc and "small" in r.doc and "full" in r.doc, r.name
        assert r.citation and r.summary


SLOW_AT_SMALL = {"singh-pricing", "singh-greedy", "singh-var"}
"""8-10 s a seed at small size (pure-Python kernel; benchmarks/RESULTS_reproductions.md, "Small size over
seeds 1..3"): only seed 1 runs here (its figures are pinned), so the pinned 3-seed test stays under ~60 s; their
3-seed counts are reported in RESULTS, not pinned."""


@pytest.mark.parametrize("name, seed", [pytest.param(n, s, marks=pytest.mark.data(*needed_by(n)))
                                        for n in sorted(ROBUST) for s in (1, 2, 3)
                                        if s == 1 or n not in SLOW_AT_SMALL])
def test_reproduction_runs_small_with_finite_rows_and_its_robust_directions(name, seed, request):
    data = request.getfixturevalue("data_dir") if name in NEEDS_DATA else None
    report = REPRODUCTIONS[name].run("small", seed, data=data)
    assert isinstance(report, Report) and report.name == name and report.size == "small" and report.seed == seed
    assert report.rows and report.checks
    for row in report.rows:
        assert isinstance(row, Row) and math.isfinite(row.ours), row
        assert row.seed_value is None or math.isfinite(row.seed_value), row
    holds = {c.statement: c.holds for c in report.checks}
    for wanted in ROBUST[name]:
        matching = [s for s in holds if wanted in s]
        assert matching, f"no check {wanted!r} in {list(holds)}"
        assert all(holds[s] for s in matching), [(s, c.detail) for c in report.checks for s in matching
                                                 if c.statement == s]
    if seed == 1:
        ours = {row.metric: row.ours for row in report.rows}
        for metric, value in PINNED_FIGURES.get(name, {}).items():
            assert ours[metric] == pytest.approx(value, rel=1e-6), (metric, ours[metric])
        _writes_a_figure_per_cited_figure(report, request.getfixturevalue("tmp_path"))
    frame = report.to_frame()
    assert list(frame["kind"].unique())[0] == "figure"
    assert set(frame["kind"].unique()) <= {"figure", "direction", "setup"}
    assert len(frame) == len(report.rows) + len(report.checks)


def _writes_a_figure_per_cited_figure(report, out):
    """The report folder holds one ``figure-*.png`` per figure or table of the paper that the citation names and
    a row cites, listed in the manifest, and the folder reads back."""
    from gridmarket.scenarios.reproductions.figures import FIGURE_PREFIX, cited, paper_figures, reference

    written = write_report(out, report)
    names = {p.name for p in written if p.name.startswith(FIGURE_PREFIX)}
    keys = {reference(r.seed_ref) for r in report.rows} - {None}
    wanted = {k for k in keys if cited(k, report.citation)}
    assert wanted, (report.name, keys)  # every reproduction with a paper figure cites it in its rows
    figures = paper_figures(report.to_frame(), name=report.name, citation=report.citation, run="")
    assert wanted <= {f.key for f in figures}
    assert names == {f.file_name for f in figures}
    assert names == {p.name for p in out.glob(FIGURE_PREFIX + "*.png")}
    files = json.loads((out / "manifest.json").read_text())["files"]
    assert names <= set(files)
    assert read_report(out).rows == report.rows


def test_unknown_name_suggests_the_closest_across_reproductions_and_scenarios(capsys):
    with pytest.raises(InvalidInput, match="did you mean 'singh-pricing'"):
        get_reproduction("singh-pricng")
    assert main(["run", "murali-xsde"]) == 2
    assert "did you mean 'murali-xsede'" in capsys.readouterr().err
    assert main(["run", "quikstart"]) == 2
    assert "did you mean 'quickstart'" in capsys.readouterr().err


def test_bad_size_and_seed_are_rejected_before_running():
    with pytest.raises(InvalidInput, match="did you mean 'small'"):
        REPRODUCTIONS["ha-selection"].run("smal")
    with pytest.raises(InvalidInput, match="seed must be an int"):
        REPRODUCTIONS["ha-selection"].run("small", -1)


def test_the_registry_names_the_reproductions_that_read_data():
    assert {"singh-var", "singh-advertisement", "murali-xsede", "murali-nordugrid"} <= NEEDS_DATA


@pytest.mark.parametrize("name", sorted(NEEDS_DATA))
def test_a_reproduction_without_its_data_names_a_file_the_registry_lists_for_it(name, tmp_path):
    with pytest.raises(InvalidInput) as err:
        REPRODUCTIONS[name].run("small", data=tmp_path)
    message = str(err.value)
    assert "\n" not in message and any(f"needs {p}, which is not in {tmp_path}" in message for p in needed_by(name))
    assert "gridmarket data fetch" in message


def test_missing_data_file_is_named(tmp_path, monkeypatch):
    with pytest.raises(InvalidInput, match=r"singh-var needs .*SDSC-SP2-1998-4\.2-cln\.swf\.gz"):
        REPRODUCTIONS["singh-var"].run("small", data=tmp_path)
    monkeypatch.setenv("GRIDMARKET_DATA", str(tmp_path / "elsewhere"))
    with pytest.raises(InvalidInput, match="elsewhere.*nordpool_system_2013-2018_epftoolbox.csv"):
        REPRODUCTIONS["murali-nordugrid"].run("small")
    with pytest.raises(InvalidInput, match="pjm_comed_2013-2018_epftoolbox.csv"):
        REPRODUCTIONS["murali-xsede"].run("small", data=tmp_path)


def test_list_names_every_reproduction_and_agent_scenario(capsys):
    assert main(["run", "--list"]) == 0
    out = capsys.readouterr().out
    for name in [*REPRODUCTIONS, "quickstart"]:
        assert f"  {name} " in out


def test_cli_prints_table_and_directions_and_writes_the_report(tmp_path, capsys):
    out = tmp_path / "ha"
    assert main(["run", "ha-selection", "--seed", "2", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "ha-selection: Ha et al." in text and "size small, seed 2" in text
    assert "metric" in text and "seed's figure" in text and "largest reduction over the sizes" in text
    assert "set-up check holds: yes  the model sends the whole workload to SuperMIC" in text
    assert "directions that discriminate (held here, not on their control): 0 of 0" in text  # an illustration
    rows = pd.read_csv(out / "report.csv")
    assert set(rows["kind"]) == {"figure", "setup"}
    assert rows.loc[rows["metric"] == "largest reduction over the sizes", "seed_value"].item() == 85.0
    assert "| metric | ours | seed |" in (out / "report.md").read_text()
    doc = json.loads((out / "manifest.json").read_text())
    assert doc["seed"] == 2 and doc["scenario"]["reproduction"] == "ha-selection"
    assert doc["scenario"]["size"] == "small" and doc["directions"][1]["holds"] is True
    assert doc["directions"][1]["control"].startswith("set-up check") and doc["directions"][1]["discriminates"] is False
    assert "packages" in doc and "git_commit" in doc


def test_cli_refuses_an_existing_out_folder_unless_forced(tmp_path, capsys):
    out = tmp_path / "done"
    out.mkdir()
    (out / "report.csv").write_text("old\n")
    assert main(["run", "rocchetti-psp", "--out", str(out)]) == 2
    assert "pass --force" in capsys.readouterr().err
    assert (out / "report.csv").read_text() == "old\n"
    assert main(["run", "ha-selection", "--out", str(out), "--force"]) == 0
    assert (out / "report.csv").read_text().startswith("kind,metric,ours")


def test_agent_scenario_file_runs_its_models_as_compare(tmp_path, capsys):
    toml = tmp_path / "tiny.toml"
    toml.write_text('name = "tiny"\nseed = 3\nmodels = ["best-effort"]\n[[providers]]\nname = "a"\nprocs = 16\n'
                    '[workload]\nsource = "lublin"\nn_jobs = 10\nprocs = 16\n')
    out = tmp_path / "res"
    assert main(["run", str(toml), "--seed", "4", "--out", str(out)]) == 0
    text, err = capsys.readouterr()
    assert "tiny, seed 4" in text and "model" in text and "best-effort" in text
    assert "  [1/1] best-effort: " in err  # compare's line per finished model
    assert (out / "summary.csv").is_file() and json.loads((out / "manifest.json").read_text())["seed"] == 4


def test_registered_agent_scenario_name_goes_to_the_comparison(monkeypatch, capsys):
    seen = []
    monkeypatch.setattr(run_cli, "_run_scenario", lambda args: seen.append(args.name) or 0)
    assert main(["run", "quickstart"]) == 0
    assert seen == ["quickstart"]


def test_report_formats_missing_seed_values_and_failed_directions():
    report = Report("x", "Seed, Table 9", "small", 1, (Row("m", 1.5, None, "h", "chart"), Row("n", 12345.0, 2.0, "")),
                    (Check("goes down", False, "1 vs 2"),), seconds=0.1)
    text = report.format_text()
    assert "direction holds: no   discriminates: no   goes down [1 vs 2]" in text
    assert "12,345" in text and "1.50" in text and " - " in text
    assert "**does not hold**: goes down" in report.to_markdown()
    assert not report.all_hold


@pytest.mark.data(*needed_by("singh-var"))
def test_progress_wraps_the_runner_loops_only_while_asked_and_changes_no_figure(monkeypatch):
    from gridmarket.scenarios.reproductions import report as report_mod

    assert report_mod.steps([1, 2], "x") == [1, 2]  # outside a run: the items themselves
    seen = []

    def spy(items, desc):
        bar = original(items, desc)
        seen.append((desc, type(bar).__name__, list(bar)))
        return bar

    original = report_mod.steps
    monkeypatch.setattr("gridmarket.scenarios.reproductions.singh.steps", spy)
    rep = get_reproduction("singh-var")
    with_bar, without = rep.run("small", 1, progress=True), rep.run("small", 1)
    assert [(r.metric, r.ours) for r in with_bar.rows] == [(r.metric, r.ours) for r in without.rows]
    assert seen[0][:2] == ("requests", "tqdm") and len(seen[0][2]) == 5 * 12  # 5 rounds of ch. 6.2's twelve
    assert seen[1][1] == "list"  # progress off again after the first run


# ------------------------------------------------------------ several seeds
def _report(seed, ours, holds, name="demo"):
    rows = (Row("speed-up", ours, 1.43, "ratio", "ch. 7.3"), Row("only-some", float("nan"), None, "h"))
    checks = (Check("provisioning is faster", holds, "", "best effort", False),
              Check("always true", True, "", "best effort", True))
    return Report(name, "Demo 2008, Fig. 1", "small", seed, rows, checks, seconds=1.0)


def test_ci95_is_the_student_t_interval_of_the_mean():
    from scipy import stats

    from gridmarket.scenarios.reproductions.report import ci95

    values = [1.2, 0.7, 1.9, 1.4, 1.1]
    mean, low, high = ci95(values)
    want = stats.t.interval(0.95, len(values) - 1, loc=sum(values) / 5, scale=stats.sem(values))
    assert mean == pytest.approx(1.26) and (low, high) == pytest.approx(want)
    assert ci95([2.0, 2.0, 2.0]) == (2.0, 2.0, 2.0)
    m, lo, hi = ci95([3.0, float("nan")])
    assert m == 3.0 and math.isnan(lo) and math.isnan(hi)


def test_seeds_report_counts_k_of_n_and_calls_80_percent_reproduced():
    from gridmarket.scenarios.reproductions.report import SeedsReport

    def joined(pattern):
        return SeedsReport(tuple(_report(s, 1.0 + s / 10, h) for s, h in enumerate(pattern, start=1)))

    five = joined([True, True, False, True, True])
    faster = five.directions()[0]
    assert (faster.statement, faster.held, faster.of, faster.reproduced) == ("provisioning is faster", 4, 5, True)
    assert not joined([True, True, False, True, False]).directions()[0].reproduced  # 3 of 5 = 60 %
    assert not joined([True, False]).directions()[0].reproduced  # 1 of 2: one failure in two is not 80 %
    speed = five.metrics()[0]
    assert (speed.metric, speed.n, speed.seed_value) == ("speed-up", 5, 1.43)
    assert speed.mean == pytest.approx(1.3) and speed.low < 1.3 < speed.high
    assert five.metrics()[1].n == 0 and math.isnan(five.metrics()[1].mean)
    with pytest.raises(InvalidInput, match="one reproduction at one size"):
        SeedsReport((_report(1, 1.0, True), _report(2, 1.0, True, name="other")))


def test_a_seeds_interval_of_an_amount_stays_at_or_above_zero_and_a_percentage_keeps_student_t():
    from gridmarket.scenarios.reproductions.report import SeedsReport, ci95

    def report(seed, hours, change):
        rows = (Row("mean hold", hours, None, "h"), Row("cost change vs BS", change, None, "%"))
        return Report("demo", "Demo 2008, Fig. 1", "small", seed, rows, (), seconds=1.0)

    joined = SeedsReport(tuple(report(s, h, c) for s, h, c in ((1, 0.0, -5.0), (2, 0.0, 1.0), (3, 0.0, 2.0),
                                                                 (4, 100.0, -9.0))))
    hold, change = joined.metrics()
    # resampled means of 0, 0, 0, 100 are 25 k, k ~ Binomial(4, 1/4): 2.5th percentile 0, 97.5th 75
    assert (hold.mean, hold.low, hold.high, hold.method) == (25.0, 0.0, 75.0, "bootstrap percentile")
    assert change.method == "Student t" and (change.low, change.high) == pytest.approx(ci95([-5.0, 1.0, 2.0, -9.0])[1:])
    text = joined.format_text()
    assert "bootstrap percentile" in text.splitlines()[1] and "CI by" in text
    assert joined.to_json()["metrics"][0]["ci_method"] == "bootstrap percentile"


def test_seeds_json_document_has_the_issue_schema_and_no_nan():
    from gridmarket.scenarios.reproductions.report import SeedsReport

    doc = SeedsReport((_report(1, 1.0, True), _report(2, 2.0, False))).to_json()
    text = json.dumps(doc, allow_nan=False)  # NaN would not be JSON
    assert {"name", "size", "seeds", "directions", "metrics"} <= set(doc)
    assert doc["seeds"] == [1, 2] and doc["size"] == "small"
    assert doc["directions"][0] == {"claim": "provisioning is faster", "held": 1, "of": 2, "reproduced": False,
                                    "control": "best effort", "control_held": 0, "discriminated": 1,
                                    "discriminates": False, "setup": False}
    assert doc["directions"][1]["reproduced"] and not doc["directions"][1]["discriminates"]  # held on its control
    assert doc["headline"].startswith("discriminating directions reproduced: 0 of 2")
    speed = doc["metrics"][0]
    assert speed["metric"] == "speed-up" and speed["mean"] == 1.5 and speed["paper"] == 1.43
    assert speed["ci95"][0] < 1.5 < speed["ci95"][1]
    assert doc["metrics"][1]["mean"] is None and doc["metrics"][1]["ci95"] == [None, None] and "NaN" not in text


@pytest.mark.parametrize("text, message", [("3..1", "names no seed"), ("1..x", "A..B or a,b,c"),
                                           ("-2..1", ">= 0"), ("1,2,1", "named twice"), ("", "A..B or a,b,c")])
def test_bad_seed_lists_are_refused_with_the_reason(text, message):
    with pytest.raises(InvalidInput, match=message):
        run_cli.parse_seeds(text)


def test_cli_runs_seeds_in_workers_and_prints_one_json_document(tmp_path, capsys):
    out = tmp_path / "ha"
    assert main(["run", "ha-selection", "--seeds", "1..3", "--workers", "2", "--json", "--out", str(out)]) == 0
    doc = json.loads(capsys.readouterr().out)  # exactly one document on stdout
    assert doc["name"] == "ha-selection" and doc["seeds"] == [1, 2, 3]
    singles = [REPRODUCTIONS["ha-selection"].run("small", s) for s in (1, 2, 3)]
    for d in doc["directions"]:
        assert d["of"] == 3 and d["held"] == sum(c.holds for r in singles for c in r.checks if c.statement == d["claim"])
        assert d["control"] and d["setup"] and d["discriminates"] is False  # an illustration: set-up checks only
    first = doc["metrics"][0]
    assert first["mean"] == pytest.approx(sum(r.rows[0].ours for r in singles) / 3)
    assert sorted(p.name for p in out.iterdir()) == ["figure-fig-5.png", "figure-fig-6-a.png", "manifest.json", "seed-1",
                                                     "seed-2", "seed-3", "summary.csv", "summary.md"]
    assert not list((out / "seed-2").glob("figure-*"))  # the figures are drawn once, over the seeds
    assert (out / "seed-2" / "report.csv").is_file()


@pytest.mark.parametrize("argv, message", [
    (["--seed", "1", "--seeds", "1..2"], "not both"),
    (["--workers", "2"], "add --seeds"),
    (["--seeds", "1..2", "--executor", "threads"], "invalid choice"),
])
def test_cli_refuses_seed_options_that_do_not_fit(argv, message, capsys):
    try:
        status = main(["run", "ha-selection", *argv])
    except SystemExit as exc:  # argparse's own refusals
        status = exc.code
    err = capsys.readouterr().err
    assert status == 2 and message in err and "Traceback" not in err


def test_a_failing_seed_is_reported_and_the_others_kept(monkeypatch, capsys):
    real = REPRODUCTIONS["ha-selection"].runner

    def flaky(size, seed, data):
        if seed == 2:
            raise InvalidInput("job 7 ends past its price series")
        return real(size, seed, data)

    import dataclasses

    flaky_selection = dataclasses.replace(REPRODUCTIONS["ha-selection"], runner=flaky)
    monkeypatch.delitem(REPRODUCTIONS, "ha-selection")  # a registry refuses a second object under a taken name
    monkeypatch.setitem(REPRODUCTIONS, "ha-selection", flaky_selection)
    status = main(["run", "ha-selection", "--seeds", "1..3", "--workers", "1", "--json"])
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert status == 2 and doc["seeds"] == [1, 3]
    assert doc["failed"] == [{"seed": 2, "error": "job 7 ends past its price series"}]
    assert "1 of 3 seeds failed (seeds 2)" in err and "Traceback" not in err


def test_a_size_a_reproduction_does_not_define_is_refused_naming_its_sizes(capsys):
    assert REPRODUCTIONS["ha-selection"].sizes == ("small", "full")
    with pytest.raises(InvalidInput, match="ha-selection has no size 'medium'; its sizes are small, full"):
        REPRODUCTIONS["ha-selection"].run("medium")
    assert main(["run", "ha-selection", "--size", "medium", "--seeds", "1..2"]) == 2
    err = capsys.readouterr().err
    assert "its sizes are small, full" in err and "Traceback" not in err and "seed 1" not in err


def test_register_accepts_only_known_sizes_and_runs_a_medium_size(monkeypatch):
    from gridmarket.scenarios.reproductions import register

    monkeypatch.setattr("gridmarket.scenarios.reproductions.report.REPRODUCTIONS",
                        Registry("reproduction", REPRODUCTIONS.contract, dict(REPRODUCTIONS)))
    from gridmarket.scenarios.reproductions import report as report_module

    with pytest.raises(InvalidInput, match="sizes must be among small, medium, full"):
        register("x-huge", citation="c", summary="s", sizes=("small", "huge"))

    @register("x-medium", citation="c", summary="s", sizes=("small", "medium"))
    def _runner(size, seed, data):
        return [Row("n", {"small": 1.0, "medium": 2.0}[size], None, "")], [], {}, []

    r = report_module.REPRODUCTIONS["x-medium"]
    assert r.run("medium", 1).rows[0].ours == 2.0
    with pytest.raises(InvalidInput, match="x-medium has no size 'full'; its sizes are small, medium"):
        r.run("full", 1)


@pytest.mark.parametrize("ours, holds", [(1.43, True), (1.50, True), (1.51, False), (1.36, True), (1.35, False),
                                         (math.nan, False)])
def test_paper_number_holds_within_its_stated_tolerance_only(ours, holds):
    from gridmarket.scenarios.reproductions import paper_number

    check = paper_number("cost ratio", ours, 1.43, rel_tol=0.05)  # 1.43 ± 0.0715
    assert check.holds is holds
    assert "1.43" in check.statement and "5%" in check.statement


def test_paper_number_uses_the_larger_tolerance_and_demands_one():
    from gridmarket.scenarios.reproductions import paper_number

    assert paper_number("wait", 0.3, 0.0, rel_tol=0.1, abs_tol=0.5).holds  # 10 % of 0 is 0: the 0.5 applies
    assert not paper_number("wait", 0.6, 0.0, rel_tol=0.1, abs_tol=0.5).holds
    with pytest.raises(InvalidInput, match="state a tolerance"):
        paper_number("wait", 0.3, 0.0)


@pytest.mark.parametrize("ours, holds, said", [(3.0e5, False, "3.0x the axis top"), (1.0e5, True, ""),
                                               (0.0, True, ""), (-1.0, False, "below the axis bottom"),
                                               (math.nan, False, "")])
def test_axis_range_reports_a_value_past_the_chart_as_a_failure(ours, holds, said):
    from gridmarket.scenarios.reproductions import axis_range

    check = axis_range("makespan", ours, 0.0, 1.0e5, where="Fig. 52", units="s")
    assert check.holds is holds and said in check.detail and "Fig. 52" in check.statement
    with pytest.raises(InvalidInput, match="low < high"):
        axis_range("makespan", 1.0, 5.0, 5.0)


def test_manifest_names_the_code_at_the_start_of_a_run(monkeypatch):
    """A manifest written at the end of a long run named the commit checked out then, not the code that ran."""
    import subprocess

    from gridmarket.scenarios import results

    results.code_version.cache_clear()
    first = results.code_version()
    head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=Path(results.__file__).parent)
    if head.returncode != 0:
        pytest.skip("not a git checkout")
    assert first.removesuffix("-dirty") == head.stdout.strip()
    calls = []
    monkeypatch.setattr(results.subprocess, "run", lambda *a, **k: calls.append(a))
    assert results.code_version() == first and not calls  # taken once per process
    assert results.manifest({}, 1)["git_commit"] == first
    results.code_version.cache_clear()


def test_seeds_run_apart_join_into_the_report_of_one_run(tmp_path, capsys):
    # seeds run on other machines or in other sessions: --join gives the same document as one --seeds run
    whole, first, rest = tmp_path / "whole", tmp_path / "first", tmp_path / "rest"
    assert main(["run", "rocchetti-psp", "--seeds", "1..3", "--workers", "1", "--json", "--out", str(whole)]) == 0
    expected = json.loads(capsys.readouterr().out)
    assert main(["run", "rocchetti-psp", "--seed", "1", "--out", str(first)]) == 0  # one seed's own folder
    assert main(["run", "rocchetti-psp", "--seeds", "2..3", "--workers", "1", "--out", str(rest)]) == 0
    capsys.readouterr()
    joined_out = tmp_path / "joined"
    assert main(["run", "--join", str(rest), str(first), "--json", "--out", str(joined_out)]) == 0
    joined = json.loads(capsys.readouterr().out)
    assert joined == expected  # every mean, interval and k of n, to the last bit
    assert (joined_out / "seed-3" / "report.csv").read_text() == (whole / "seed-3" / "report.csv").read_text()
    assert (joined_out / "summary.csv").read_text() == (whole / "summary.csv").read_text()


def test_join_refuses_a_seed_twice_another_reproduction_and_a_non_report(tmp_path, capsys):
    a, b = tmp_path / "a", tmp_path / "b"
    assert main(["run", "rocchetti-psp", "--seed", "1", "--out", str(a)]) == 0
    assert main(["run", "ha-selection", "--seed", "2", "--out", str(b)]) == 0
    capsys.readouterr()
    for argv, message in (([str(a), str(a)], "seed 1 is also in"),
                          ([str(a), str(b)], "only one reproduction at one size joins"),
                          ([str(tmp_path)], "not a reproduction's --out"),
                          ([str(a), "--seeds", "1..2"], "takes no seeds option")):
        assert main(["run", "--join", *argv]) == 2
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    (a / "manifest.json").write_text("{not json")
    assert main(["run", "--join", str(a)]) == 2
    assert "manifest.json: not a reproduction's manifest" in capsys.readouterr().err


def test_murali_xsede_prices_a_job_past_its_series_from_the_last_eight_weeks_repeated():
    """Full size, seed 3 ended a job at day 79.5 of the series' 78 (a lost seed before): such a job is priced from
    each series' last 8 weeks, hour for hour, and the report knows where the series ended."""
    from gridmarket.scenarios.harnesses.metascheduling import xsede_sites
    from gridmarket.scenarios.reproductions.murali import _xsede_continued

    sites = xsede_sites(15, seed=3)
    continued, data_end = _xsede_continued(sites)
    for before, after in zip(sites, continued):
        n = before.prices.n_hours
        assert after.prices is before.prices and after.system is before.system
        cut, paid = data_end[after.system.name]
        assert cut == before.prices.end_time == n * 3600
        # hour n + k is hour n - 1344 + k % 1344 of the series (8 weeks), to two years from second 0
        for k in (0, 1, 1343, 1344, 5000):
            assert after.continuation.prices[k] == before.prices.prices[n - 1344 + k % 1344]
            assert paid.prices[n + k] == after.continuation.prices[k]
        assert paid.n_hours == 2 * 365 * 24


# ------------------------------------------------------------ controls
def test_a_direction_that_holds_on_its_control_does_not_discriminate():
    from gridmarket.scenarios.reproductions import controlled

    faster = lambda r: (r["prov"] < r["be"], f"{r['prov']} vs {r['be']}")  # noqa: E731
    held = controlled("provisioning is faster", faster, {"prov": 1, "be": 2}, {"prov": 1, "be": 2}, control="x")
    assert held.holds and held.control_holds and not held.discriminates
    found = controlled("provisioning is faster", faster, {"prov": 1, "be": 2}, {"prov": 2, "be": 2}, control="x")
    assert found.holds and found.control_holds is False and found.discriminates
    assert "control (x): 2 vs 2" in found.detail


def test_paper_number_checks_its_control_at_the_same_tolerance():
    from gridmarket.scenarios.reproductions import paper_number

    near = paper_number("ratio", 0.86, 0.87, abs_tol=0.025, control="best effort", control_ours=1.0)
    assert near.holds and not near.control_holds and near.discriminates
    wide = paper_number("ratio", 0.86, 0.87, abs_tol=0.2, control="best effort", control_ours=1.0)
    assert wide.holds and wide.control_holds and not wide.discriminates  # a tolerance wider than the effect


def test_a_set_up_check_is_reported_apart_and_never_discriminates():
    from gridmarket.scenarios.reproductions import setup_check

    check = setup_check(Check("mean size 23.4", True, "23.1"), "a property of the generated workload")
    assert check.setup and not check.discriminates
    report = Report("x", "Seed", "small", 1, (Row("m", 1.0, None, ""),),
                    (check, Check("faster", True, "1 vs 2", "best effort", False)), seconds=0.1)
    text = report.format_text()
    assert "directions that discriminate (held here, not on their control): 1 of 1" in text
    assert "set-up check holds: yes  mean size 23.4" in text
    with pytest.raises(InvalidInput, match="say why"):
        setup_check(check, "")


def test_a_runner_check_without_a_control_is_refused(monkeypatch):
    from gridmarket.errors import MarketError
    from gridmarket.scenarios.reproductions.report import Reproduction

    bare = Reproduction("bare", "Seed", "demo", lambda size, seed, data: ([], [Check("faster", True)], {}, []))
    with pytest.raises(MarketError, match="'faster' names no control"):
        bare.run("small", 1)


def test_controls_survive_the_report_folder_round_trip(tmp_path):
    from gridmarket.scenarios.reproductions import setup_check, write_report
    from gridmarket.scenarios.reproductions.report import read_report

    checks = (Check("faster", True, "1 vs 2", "best effort", False),
              setup_check(Check("size", False, "9"), "workload"))
    report = Report("x", "Seed", "small", 1, (Row("m", 1.0, None, ""),), checks, seconds=0.1)
    write_report(tmp_path, report)
    back = read_report(tmp_path)
    assert back.checks == report.checks and back.checks[0].discriminates and back.checks[1].setup


def test_every_reproduction_gives_each_direction_a_control_or_marks_it_a_set_up_check():
    for name in ("rocchetti-psp-64", "measy", "ha-selection"):
        report = REPRODUCTIONS[name].run("small", 1)
        assert all(c.control for c in report.checks), name
    discriminating = {c.statement: c.discriminates for c in REPRODUCTIONS["rocchetti-psp-64"].run("small", 1).checks}
    # BE and GE have one class each, so PSP cannot order them: the direction holds without PSP too
    assert not discriminating["all-bad estimates (BE) wait longer than all-good (GE) (Table 3: 820 vs 796 min)"]
    assert discriminating["CF: the most accurate class waits at least 2.25x less than the least accurate "
                          "(Table 3; Sec. 6: 2.25-2.88x)"]
