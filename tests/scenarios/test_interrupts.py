"""Ctrl-C and SIGTERM during a real sweep: workers stop, finished runs stay, one line says how to resume."""

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from gridmarket.scenarios.sweepstore import read_runs

ROOT = Path(__file__).resolve().parents[2]


def _default_sigint() -> None:
    # a suite started in the background of a non-interactive shell (`cmd &`) inherits SIGINT ignored, and
    # Python then installs no Ctrl-C handler in the child: the test would measure how it was launched
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _sweep(out: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "gridmarket.scenarios.commands.cli", "sweep", "quickstart", "--grid", "seed=1..4", "--workers", "2",
         "--out", str(out), *extra],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_default_sigint,
    )


@pytest.mark.slow
@pytest.mark.parametrize("signum, status, word", [(signal.SIGINT, 130, "interrupted"),
                                                  (signal.SIGTERM, 143, "terminated")])
def test_signal_stops_a_sweep_keeps_finished_runs_and_resume_finishes_it(tmp_path, signum, status, word):
    out = tmp_path / "sweep"
    proc = _sweep(out)
    for line in proc.stderr:  # wait for the first finished run, then signal
        if line.startswith("  [1/4]"):
            break
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    last = err.strip().splitlines()[-1]
    assert proc.returncode == status, err
    assert last.startswith(f"gridmarket: {word}; ") and "--resume" in last and "Traceback" not in err
    kept = sorted(read_runs(out / "parts"))
    assert kept and not list((out / "parts").glob(".*"))  # no partial file
    assert len(kept) < 4 and not (out / "sweep.csv").exists()
    assert f"{len(kept)} of 4 runs finished" in last
    children = subprocess.run(["pgrep", "-f", f"--out {out}"], capture_output=True, text=True).stdout.split()
    assert children == []  # no worker left running

    resumed = _sweep(out, "--resume")
    _, err = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, err
    assert err.count(": skipped") == len(kept) and err.count(": done") == 4 - len(kept)
    assert len(read_runs(out / "parts")) == 4 and (out / "sweep.csv").is_file()


def _run_seeds(out: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "gridmarket.scenarios.commands.cli", "run", "singh-var", "--seeds", "1..6", "--workers", "2",
         "--out", str(out)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


@pytest.mark.slow
@pytest.mark.data("traces/SDSC-SP2-1998-4.2-cln.swf.gz")  # singh-var reads it
def test_sigterm_during_run_seeds_stops_its_workers_and_leaves_no_folder(tmp_path):
    out = tmp_path / "var"
    proc = _run_seeds(out)
    for line in proc.stderr:
        if line.startswith("running singh-var"):
            break
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    said = [line for line in err.splitlines() if line.startswith("gridmarket: terminated")]
    assert proc.returncode == 143 and len(said) == 1 and "nothing written" in said[0], err
    assert not out.exists() and "Traceback" not in err


@pytest.mark.slow
@pytest.mark.data("traces/SDSC-SP2-1998-4.2-cln.swf.gz")  # singh-var reads it
def test_sigterm_after_seeds_finished_keeps_their_reports_and_join_reports_them(tmp_path):
    out = tmp_path / "var"
    proc = _run_seeds(out)
    for line in proc.stderr:  # the first seed has finished (and been written): stop the run
        if line.startswith("  [1/6]"):
            break
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    said = [line for line in err.splitlines() if line.startswith("gridmarket: terminated")]
    assert proc.returncode == 143 and len(said) == 1 and "Traceback" not in err, err
    kept = sorted(out.glob("seed-*"))
    assert 1 <= len(kept) < 6 and f"{len(kept)} of 6 seeds had finished" in said[0]
    assert all((k / "report.csv").is_file() for k in kept) and not (out / "summary.csv").exists()
    assert "--join" in said[0] and " ".join(str(k) for k in kept) in said[0]
    joined = subprocess.run([sys.executable, "-m", "gridmarket.scenarios.commands.cli", "run", "--join", *map(str, kept), "--json"],
                            cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert joined.returncode == 0, joined.stderr
    import json

    assert json.loads(joined.stdout)["seeds"] == sorted(int(k.name[len("seed-"):]) for k in kept)


def test_a_stop_while_a_seed_report_is_written_leaves_no_seed_folder(tmp_path, monkeypatch):
    """A seed-N folder is whole or absent: the report is written beside it and renamed into place, so a stop
    in the middle of writing (CI saw the stop's count disagree with the folders) leaves only a partial folder,
    which the stop removes, and the count is the folders'."""
    from gridmarket.scenarios.commands import run as run_cmd

    def half_written(folder, report, command, figures=True):
        (Path(folder) / "report.csv").write_text("kind,metric\n")
        raise KeyboardInterrupt

    monkeypatch.setattr(run_cmd, "write_report", lambda folder, report, command, figures=True: (Path(folder) / "report.md").write_text("ok"))
    run_cmd._write_seed(tmp_path, 1, report=None)
    monkeypatch.setattr(run_cmd, "write_report", half_written)
    with pytest.raises(KeyboardInterrupt):
        run_cmd._write_seed(tmp_path, 2, report=None)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".seed-2.partial", "seed-1"]
    assert run_cmd._finished_on_disk(tmp_path, [1, 2, 3]) == [1]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["seed-1"]
    assert (tmp_path / "seed-1" / "report.md").read_text() == "ok"
