"""The ``gridmarket simulate`` command: output rows, summary, errors."""

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from gridmarket.scenarios.commands.cli import main

SWF = """; MaxProcs: 4
; UnixStartTime: 0
1 0 -1 100 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1
2 10 -1 50 2 -1 -1 2 60 -1 1 2 1 -1 -1 -1 -1 -1
3 20 -1 30 2 -1 -1 2 20 -1 1 2 1 -1 -1 -1 -1 -1
"""


@pytest.fixture
def trace(tmp_path):
    path = tmp_path / "tiny.swf"
    path.write_text(SWF)
    return path


@pytest.mark.parametrize("policy", ["fcfs", "easy", "conservative", "slots", "psp"])
def test_simulate_writes_one_row_per_job_and_prints_the_summary(trace, tmp_path, capsys, policy):
    out = tmp_path / "jobs.csv"
    assert main(["simulate", "--trace", str(trace), "--policy", policy, "--out", str(out)]) == 0
    rows = pd.read_csv(out)
    assert list(rows.columns[:7]) == ["job_id", "submit", "start", "end", "procs", "runtime", "estimate"]
    assert rows["start"].tolist() == [0, 100, 100]
    assert rows["end"].tolist() == [100, 150, 120]  # job 3 is killed at its 20 s estimate
    text = capsys.readouterr().out
    assert f"tiny.swf: {policy} on 4 processors" in text and "utilization" in text


def test_batsim_format_and_load_factor(trace, tmp_path):
    out = tmp_path / "jobs.csv"
    assert main(["simulate", "--trace", str(trace), "--format", "batsim", "--load-factor", "2",
                 "--out", str(out)]) == 0
    rows = pd.read_csv(out)
    assert rows["submission_time"].tolist() == [0, 5, 10]
    assert rows["final_state"].tolist()[-1] == "COMPLETED_WALLTIME_REACHED"


def test_batsim_workload_in_batsim_files_out_with_energy_beside_the_jobs_file(tmp_path, capsys):
    """The sample Batsim workload under FCFS: jobs, machine states and energy as Batsim names them by prefix."""
    from pathlib import Path

    sample = Path(__file__).resolve().parents[2] / "docs" / "examples" / "batsim-workload.json"
    out = tmp_path / "run1_jobs.csv"
    assert main(["simulate", "--trace", str(sample), "--policy", "fcfs", "--format", "batsim", "--out", str(out),
                 "--watts-per-proc", "20"]) == 0
    jobs = pd.read_csv(out)
    assert jobs["starting_time"].tolist() == [0, 10, 15, 15, 15] and jobs["consumed_energy"].sum() == 1240
    assert pd.read_csv(tmp_path / "run1_machine_states.csv")["nb_computing"].tolist() == [2, 4, 4, 2, 0]
    assert pd.read_csv(tmp_path / "run1_consumed_energy.csv")["energy"].iloc[-1] == 1240
    assert "run1_consumed_energy.csv" in capsys.readouterr().out
    assert main(["simulate", "--trace", str(sample), "--watts-per-proc", "20"]) == 2  # no Batsim output to fill
    assert capsys.readouterr().err.count("\n") == 1


def test_bad_batsim_workload_is_one_line_naming_the_field(tmp_path, capsys):
    bad = tmp_path / "w.json"
    bad.write_text('{"jobs": [{"id": 1, "subtime": 0, "res": 1, "profile": "p"}], '
                   '"profiles": {"p": {"type": "smpi", "trace": "t.txt"}}}')
    assert main(["simulate", "--trace", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "w.json: profiles.p: profile type 'smpi' cannot be read" in err and err.count("\n") == 1


def test_bad_trace_line_is_reported_with_file_line_and_field(tmp_path, capsys):
    bad = tmp_path / "bad.swf"
    bad.write_text(SWF.replace("2 10 -1 50", "2 10 -1 fifty"))
    assert main(["simulate", "--trace", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.swf line 4" in err and "run time" in err


def test_missing_trace_and_bad_options_fail_cleanly(tmp_path, capsys):
    assert main(["simulate", "--trace", str(tmp_path / "nope.swf")]) == 2
    assert "nope.swf" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["simulate", "--policy", "sjf"])
    with pytest.raises(SystemExit):
        main(["simulate", "--policy", "mesy"])
    assert "unknown policy 'mesy' (did you mean 'measy'?)" in capsys.readouterr().err  # two-tier names known too
    with pytest.raises(SystemExit):
        main(["simulate", "--load-factor", "0"])


def test_default_workload_is_seeded_and_needs_no_files(tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    for out in (a, b):
        assert main(["simulate", "--jobs", "300", "--out", str(out)]) == 0
    assert a.read_bytes() == b.read_bytes()


def test_console_script_entry_point_runs():
    proc = subprocess.run([sys.executable, "-m", "gridmarket.scenarios.commands.cli", "simulate", "--jobs", "200"],
                          capture_output=True, text=True, check=True)
    assert "easy on 256 processors" in proc.stdout


@pytest.mark.parametrize("policy", ["keasy", "reasy", "measy"])
def test_two_tier_policies_run_from_the_cli_and_are_seeded(trace, tmp_path, policy):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    for out in (a, b):
        assert main(["simulate", "--trace", str(trace), "--policy", policy, "--seed", "3",
                     "--out", str(out)]) == 0
    assert a.read_bytes() == b.read_bytes()
    assert len(pd.read_csv(a)) == 3


def test_two_tier_policy_without_rng_is_refused():
    from gridmarket.errors import InvalidInput
    from gridmarket.job import Job
    from gridmarket.simulation import simulate

    with pytest.raises(InvalidInput, match="stochastic"):
        simulate([Job(1, 0, 1, 1, 1)], procs=1, policy="measy")


HEAVY = ("mesa", "matplotlib", "sklearn", "solara", "statsmodels", "ortools")


def _imported(args, tmp_path) -> set[str]:
    """Top-level packages a ``gridmarket ARGS`` process imports (read from ``-X importtime``)."""
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-X", "importtime", "-m", "gridmarket.scenarios.commands.cli", *args],
                            capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    return {line.split("|")[-1].strip().split(".")[0] for line in result.stderr.splitlines()
            if line.startswith("import time:")}


def test_help_and_quote_load_no_heavy_package(tmp_path):
    import json

    state = tmp_path / "state.json"
    state.write_text(json.dumps({"now": 0, "procs": 4, "queued": [{"id": 1, "submit": 0, "procs": 4,
                                                                    "estimate": 3600}]}))
    for args in (["--help"], ["quote", "--state", str(state), "--procs", "2", "--duration", "600", "--start", "0"],
                 ["advertise", "--state", str(state)]):
        loaded = _imported(args, tmp_path)
        assert "gridmarket" in loaded or args == ["--help"]
        assert not loaded & set(HEAVY), (args, loaded & set(HEAVY))
    assert "mesa" in _imported(["compare", "--help"], tmp_path)  # the check sees an import when there is one


def test_simulate_writes_its_table_without_loading_pandas(tmp_path):
    """A trace run to a CSV file needs neither pandas nor pyarrow: their import is a third of the command."""
    sample = Path(__file__).resolve().parents[2] / "data" / "samples" / "CTC-SP2-1996-3.1-cln-first5000.swf.gz"
    out = tmp_path / "jobs.csv"
    loaded = _imported(["simulate", "--policy", "easy", "--trace", str(sample), "--out", str(out)], tmp_path)
    assert "gridmarket" in loaded and not loaded & {"pandas", "pyarrow"}, loaded & {"pandas", "pyarrow"}
    # the same bytes as the table's own CSV, the way a Python caller gets it
    from gridmarket.simulation import simulate
    from gridmarket.workloads import read_trace

    records = simulate(read_trace(sample), policy="easy").records
    assert out.read_text() == records.to_csv(index=False)
    assert "pandas" in _imported(["simulate", "--jobs", "50", "--policy", "measy", "--out", str(out)], tmp_path)
