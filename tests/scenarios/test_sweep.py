"""Sweeps: grid syntax, the folder's refuse/resume/force rules, Dask (a real loopback cluster), a kill mid-way."""

import contextlib
import io
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time

import pandas as pd
import psutil
import pytest

from gridmarket.errors import InvalidInput, MarketError
from gridmarket.scenarios import sweep
from gridmarket.scenarios.commands import compare as compare_cli
from gridmarket.scenarios.config import with_overrides
from gridmarket.scenarios.registry import get_scenario
from gridmarket.scenarios.sweep import MANIFEST, NoWorkers, parse_grid, read_points, run_dask, run_point, run_sweep
from gridmarket.scenarios.sweepstore import add_run, new_session, part_files, read_runs

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def quick():
    """The quickstart scenario cut to 30 jobs and best effort: a run takes well under a second."""
    return with_overrides(get_scenario("quickstart"), {"workload.n_jobs": 30, "models": ("best-effort",)})


def _runs(out) -> dict:
    """Run id -> document over the parts of the sweep in ``out``."""
    return read_runs(out / "parts")


def _rewrite(out, edit) -> None:
    """The sweep's runs as ``edit(run_id, document)`` makes them (None or no rows: the run was never stored)."""
    docs = _runs(out)
    for path in part_files(out / "parts"):
        path.unlink()
    session = new_session()
    for rid, doc in docs.items():
        doc = edit(rid, json.loads(json.dumps(doc)))
        if doc is not None and doc["rows"]:
            add_run(out / "parts", rid, doc, session)


def _recorder():
    seen = []
    return seen, lambda rid, status, n_done, n_total: seen.append((rid, status, n_done, n_total))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def _deadline(seconds: float):
    """Fail the test, rather than hang it, if the block runs longer than ``seconds`` (what pytest-timeout does)."""
    def fail(signum, frame):
        pytest.fail(f"still waiting after {seconds} s: a Dask wait without a bound", pytrace=False)

    previous = signal.signal(signal.SIGALRM, fail)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _loopback_cluster():
    return distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                                    dashboard_address=None)


def _lose_every_worker(client) -> None:
    """The cluster's workers closed for good (as when they die and are not restarted); returns once none is left."""
    client.cluster.scale(0)
    deadline = time.monotonic() + 15
    while client.scheduler_info()["workers"]:
        assert time.monotonic() < deadline, "the workers did not go"
        time.sleep(0.02)


@pytest.mark.parametrize(
    ("spec", "match"),
    [("alpha", "expected NAME=v1"), ("alpah=1", "did you mean 'alpha'"), ("seed=3..1", "empty range"),
     ("alpha=0,,1", "empty value"), ("seed=1..", r"'1\.\.' is not a range a\.\.b of integers"),
     ("seed=0.5..2", "not a range"), ("=1,2", "expected NAME=v1"), ("seed=", "expected NAME=v1"),
     ("models=mcmf", r"unknown parameter 'models' \(did you mean 'model'\?\)")],
)
def test_bad_grid_syntax_is_refused(spec, match):
    with pytest.raises(InvalidInput, match=match):
        parse_grid([spec])


def test_grid_parameter_given_twice_is_refused():
    assert parse_grid(["seed=1,2", "model=mcmf"]) == {"seed": [1, 2], "model": ["mcmf"]}
    with pytest.raises(InvalidInput, match="'seed' given twice"):
        parse_grid(["seed=1,2", "seed=3"])


def test_bad_grid_on_the_command_line_exits_2_before_creating_the_folder(tmp_path, capsys):
    out = tmp_path / "sw"
    assert compare_cli.main(["sweep", "quickstart", "--grid", "alpha=0,,1", "--out", str(out)]) == 2
    assert "gridmarket: error: bad grid 'alpha=0,,1': empty value" in capsys.readouterr().err
    assert not out.exists()
    assert compare_cli.main(["sweep", "quickstart", "--grid", "alpha=0,2", "--out", str(out)]) == 2
    assert "alpha must be in [0, 1], got 2" in capsys.readouterr().err  # values checked before any run
    assert not out.exists()


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"executor": "daks"}, r"unknown executor 'daks' \(did you mean 'dask'\?\)"),
     ({"scheduler": "tcp://127.0.0.1:1"}, "needs the dask executor"),
     ({"executor": "dask", "scheduler": "tcp://127.0.0.1:1", "workers": 2}, "brings its own workers"),
     ({"workers": 0}, "workers must be an int >= 1, got 0"),
     ({"resume": True, "force": True}, "exclude each other")],
)
def test_bad_executor_arguments_are_refused(tmp_path, quick, kwargs, match):
    with pytest.raises(InvalidInput, match=match):
        run_sweep(quick, {"seed": [1]}, tmp_path / "sw", **kwargs)
    assert not (tmp_path / "sw").exists()


def test_existing_folder_needs_resume_or_force_and_resume_needs_the_same_sweep(tmp_path, quick):
    out = tmp_path / "sw"
    grid = parse_grid(["w_t=0,100", "seed=1..2"])
    seen, progress = _recorder()
    table = run_sweep(quick, grid, out, progress=progress)
    assert len(table) == 4 and sorted(table["seed"]) == [1, 1, 2, 2]
    assert [(s, n, t) for _, s, n, t in seen] == [("done", n, 4) for n in (1, 2, 3, 4)]
    doc = json.loads((out / MANIFEST).read_text())
    assert doc["grid"] == {"w_t": [0, 100], "seed": [1, 2]} and doc["scenario"]["name"] == "quickstart"

    def damage(rid, doc):
        if rid == "quickstart-w_t0-seed2":
            return None  # as if killed before this run finished
        if rid == "quickstart-w_t100-seed2":
            doc["n_rows"] = 2  # stored with a row missing (by an edit, since no crash can do it)
        return doc

    _rewrite(out, damage)
    (out / "parts" / ".s1-host-1.0.parquet.abc.tmp").write_text("{")  # a kill's temporary
    with pytest.raises(InvalidInput, match=r"sw: folder exists with 3 finished runs of this sweep; pass --resume"):
        run_sweep(quick, grid, out)
    with pytest.raises(InvalidInput,
                       match=r"holds a different sweep \(grid.seed \[1, 2\] here, \[1, 2, 3\] asked\); choose another"):
        run_sweep(quick, parse_grid(["w_t=0,100", "seed=1..3"]), out, resume=True)
    with pytest.raises(InvalidInput, match=r"holds a different sweep \(scenario.workload.n_jobs 30 here, 31 asked\)"):
        run_sweep(with_overrides(quick, {"workload.n_jobs": 31}), grid, out, resume=True)

    seen.clear()
    again = run_sweep(quick, grid, out, resume=True, progress=progress)
    assert sorted((rid, s) for rid, s, _, _ in seen if s == "done") == [
        ("quickstart-w_t0-seed2", "done"), ("quickstart-w_t100-seed2", "done")]
    assert [n for *_, n, _ in seen] == [1, 2, 3, 4]
    assert not list((out / "parts").glob(".*.tmp"))
    pd.testing.assert_frame_equal(table.drop(columns="seconds"), again.drop(columns="seconds"))

    seen.clear()
    other = parse_grid(["seed=3"])
    fresh = run_sweep(quick, other, out, force=True, progress=progress)
    assert [rid for rid, *_ in seen] == ["quickstart-seed3"] and list(fresh["seed"]) == [3]
    assert list(_runs(out)) == ["quickstart-seed3"] and len(part_files(out / "parts")) == 1
    assert json.loads((out / MANIFEST).read_text())["grid"] == {"seed": [3]}


def test_design_points_run_only_those_points_and_the_table_is_written_as_parquet_too(tmp_path, quick, capsys):
    """--points design.csv besides full grids; sweep.parquet beside sweep.csv."""
    design = tmp_path / "design.csv"
    design.write_text("w_t,seed\n0,1\n100,2\n50,1\n")
    points = read_points(design)
    assert points == [{"w_t": 0, "seed": 1}, {"w_t": 100, "seed": 2}, {"w_t": 50, "seed": 1}]
    out = tmp_path / "sw"
    table = run_sweep(quick, None, out, points=points)
    assert sorted(zip(table["grid.w_t"], table["grid.seed"])) == [(0, 1), (50, 1), (100, 2)]
    pd.testing.assert_frame_equal(pd.read_parquet(out / "sweep.parquet"), pd.read_csv(out / "sweep.csv"),
                                  check_dtype=False)
    assert (out / "sweep.png").read_bytes()[:4] == b"\x89PNG"
    means = pd.read_csv(out / "means.csv")  # one row per design point (w_t, the seed apart) and metric
    assert set(means["grid.w_t"]) == {0, 50, 100} and set(means["n"]) == {1}
    assert "## time" in (out / "means.md").read_text()
    assert json.loads((out / MANIFEST).read_text())["points"] == points
    with pytest.raises(InvalidInput, match=r"holds a different sweep \(grid None here"):
        run_sweep(quick, parse_grid(["seed=1"]), out, resume=True)
    with pytest.raises(InvalidInput, match="not both"):
        run_sweep(quick, parse_grid(["seed=1"]), tmp_path / "x", points=points)
    args = ["sweep", "quickstart", "--points", str(design), "--grid", "seed=1", "--out", str(tmp_path / "y")]
    assert compare_cli.main(args) == 2
    assert "--points and --grid exclude each other" in capsys.readouterr().err
    assert not (tmp_path / "y").exists()


def test_sweep_plot_shows_the_mean_over_seeds_with_its_interval_inside_the_metric_s_range(tmp_path):
    from gridmarket.plots import metric_by_model
    from gridmarket.scenarios.intervals import bootstrap95
    from gridmarket.scenarios.pointtable import point_table

    table = pd.DataFrame({"grid.alpha": [0, 0, 0, 1, 1, 1], "grid.seed": [1, 2, 3] * 2, "seed": [1, 2, 3] * 2,
                          "model": ["greedy"] * 6, "mean_wait": [1.0, 2.0, 3.0, 5.0, 5.0, 8.0],
                          "mean_response": [2.0] * 6})
    fig = metric_by_model(point_table(table), tmp_path / "s.png", "qs")
    assert fig.get_suptitle() == "qs: mean over 3 seed(s), 95 % interval: bootstrap percentile"
    wait = fig.axes[0]
    assert [t.get_text() for t in wait.get_yticklabels()] == ["greedy | alpha=0", "greedy | alpha=1"]
    assert [round(p.get_width(), 6) for p in wait.patches] == [2.0, 6.0]
    (bars,) = [c for c in wait.containers if hasattr(c, "lines")]  # the error bars
    segments = bars.lines[2][0].get_segments()
    m, lo, hi = bootstrap95([1.0, 2.0, 3.0])  # a wait's interval: within the seeds' values, never below 0
    assert segments[0][0][0] == pytest.approx(lo) and segments[0][1][0] == pytest.approx(hi)
    assert 1.0 <= lo < 2.0 < hi <= 3.0


@pytest.mark.parametrize(
    ("text", "match"),
    [("", "no header and no points"), ("w_t,seed\n", "a header but no design point"),
     ("w_t,,seed\n1,2,3\n", "line 1: every column needs a distinct name"),
     ("w_t,seed\n0,1\n0\n", r"line 3: 1 values for 2 columns \(w_t, seed\)"),
     ("w_t,seed\n0, \n", "line 2: empty value"), ("w_t,seed\n0,1\n\n0,1\n", "line 4: the same point as line 2")],
)
def test_bad_design_files_are_refused_naming_the_line(tmp_path, text, match):
    design = tmp_path / "design.csv"
    design.write_text(text)
    with pytest.raises(InvalidInput, match=match):
        read_points(design)
    with pytest.raises(InvalidInput, match="missing.csv: cannot read design points: No such file"):
        read_points(tmp_path / "missing.csv")


def test_folder_that_is_no_sweep_is_refused_unless_force(tmp_path, quick):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(InvalidInput, match="folder exists and holds no sweep .no sweep.json.; pass --force"):
        run_sweep(quick, {"seed": [1]}, tmp_path, resume=True)
    with pytest.raises(InvalidInput, match="exists and is not a folder"):
        run_sweep(quick, {"seed": [1]}, tmp_path / "notes.txt")
    run_sweep(quick, {"seed": [1]}, tmp_path, force=True)
    assert (tmp_path / "notes.txt").read_text() == "mine"  # --force deletes only the sweep's own files


def test_dask_runs_give_the_serial_summaries(tmp_path):
    """A loopback LocalCluster started here (--scheduler) and one started by the sweep: same rows as serial."""
    config = with_overrides(get_scenario("quickstart"), {"workload.n_jobs": 30})
    grid = parse_grid(["seed=1..2", "model=best-effort,mcmf"])
    serial = run_sweep(config, grid, tmp_path / "serial").drop(columns="seconds")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        seen, progress = _recorder()
        on_dask = run_sweep(config, grid, tmp_path / "dask", executor="dask", scheduler=cluster.scheduler_address,
                            progress=progress)
    pd.testing.assert_frame_equal(serial, on_dask.drop(columns="seconds"))
    assert sorted(s for _, s, _, _ in seen) == ["done"] * 4 and [n for *_, n, _ in seen] == [1, 2, 3, 4]
    assert set(_runs(tmp_path / "dask")) == set(_runs(tmp_path / "serial"))  # stored by the workers
    assert len(part_files(tmp_path / "dask" / "parts")) <= 2  # a part per worker process, not a file per run

    before = {p.pid for p in psutil.Process().children(recursive=True)}
    own = run_sweep(config, {"seed": [2], "model": ["best-effort"]}, tmp_path / "own", executor="dask", workers=2)
    own = own.drop(columns="seconds")
    pd.testing.assert_frame_equal(own, serial.loc[[2], list(own.columns)].reset_index(drop=True))
    deadline = time.monotonic() + 10
    while {p.pid for p in psutil.Process().children(recursive=True)} - before and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not {p.pid for p in psutil.Process().children(recursive=True)} - before  # the cluster was closed


@pytest.mark.parametrize("on_disk", [True, False], ids=["result-on-disk", "result-only-on-the-worker"])
def test_run_finished_on_a_worker_that_is_gone_before_its_result_is_fetched_never_hangs(tmp_path, quick, on_disk):
    """The hang of the reverted fix (9b1a5e6), reached in a controlled state: no race between kill and fetch.

    Run b has finished on the only worker, which holds its result; the client has not fetched it (the
    consumer of run_dask is busy with run a); then the worker is closed for good. Its file written by the
    run's process, b is taken from disk; without one, the sweep gives up after no_worker_seconds.
    """
    tasks = [(name, (quick, {"seed": seed}, str(tmp_path), name, "s1")) for name, seed in (("a", 1), ("b", 2))]
    recover = (lambda name: sweep._recovered((name, str(tmp_path)))) if on_disk else None
    with _deadline(20), _loopback_cluster() as cluster, distributed.Client(cluster) as client:
        runs = run_dask(client, run_point, tasks, no_worker_seconds=1, recover=recover)
        first, _ = next(runs)
        (other,) = {"a", "b"} - {first}
        while other not in read_runs(tmp_path) or sum(map(len, client.has_what().values())) < 2:
            time.sleep(0.01)  # the other run finished and its result is held by the worker, not fetched
        _lose_every_worker(client)
        # never hangs: _deadline fails the test after 20 s (how fast it gives up is not asserted here; a speed
        # is a benchmark's to measure, not a test's on a shared machine)
        if on_disk:
            assert list(runs) == [(other, (read_runs(tmp_path)[other], True))]
        else:
            with pytest.raises(NoWorkers, match=r"^the Dask LocalCluster started for this command has had no worker "
                                                r"for 1 s \(.*\); 1 of 2 runs not finished$"):
                list(runs)


def test_sweep_whose_own_cluster_has_no_worker_stops_in_one_line_and_resumes(tmp_path, monkeypatch, capsys):
    """No worker from the first run on: the CLI's one line, exit status 2, the finished runs kept for --resume."""
    out = tmp_path / "sw"
    args = ["sweep", "quickstart", "--grid", "seed=1..4", "--grid", "workload.n_jobs=30", "--grid",
            "model=best-effort", "--out", str(out)]
    assert compare_cli.main(args) == 0
    whole = pd.read_csv(out / "sweep.csv").drop(columns="seconds")
    _rewrite(out, lambda rid, doc: doc if "seed1" in rid or "seed3" in rid else None)  # lost with the workers
    kept = _runs(out)
    capsys.readouterr()

    own_cluster = sweep._dask_client

    @contextlib.contextmanager
    def without_workers(*args):
        with own_cluster(*args) as client:
            _lose_every_worker(client)
            yield client

    monkeypatch.setattr(sweep, "_dask_client", without_workers)
    monkeypatch.setattr(sweep, "NO_WORKER_SECONDS", 1.0)
    with _deadline(20):  # never hangs (no wall-clock bound is asserted beyond that)
        rc = compare_cli.main(args + ["--executor", "dask", "--workers", "1", "--resume"])
    assert rc == 2  # a MarketError: one line, exit status 2
    err = capsys.readouterr().err.splitlines()
    assert [line for line in err if "skipped" not in line] == [
        "gridmarket: error: the Dask LocalCluster started for this command has had no worker for 1 s (its worker "
        "processes died or were killed, e.g. short of memory, and were not restarted); 2 of 2 runs not finished; "
        f"2 of 4 runs finished and are kept in {(out / 'parts').resolve()}; repeat the command with --resume to run "
        "the rest"]
    assert _runs(out) == kept

    monkeypatch.undo()
    assert compare_cli.main(args + ["--resume"]) == 0
    err = capsys.readouterr().err
    assert sum("skipped" in line for line in err.splitlines()) == 2 and sum(
        "done" in line for line in err.splitlines()) == 2
    pd.testing.assert_frame_equal(pd.read_csv(out / "sweep.csv").drop(columns="seconds"), whole)


def test_external_scheduler_without_workers_warns_and_runs_when_a_worker_joins(tmp_path, quick, caplog):
    # an in-process scheduler and (later) thread worker, reached over loopback TCP as a remote one would be
    with _deadline(20), distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp", host="127.0.0.1",
                                                 dashboard_address=None) as cluster:
        def add_a_worker_after_two_warnings():
            deadline = time.monotonic() + 10
            while sum("no worker connected" in r.getMessage() for r in caplog.records) < 2:
                if time.monotonic() > deadline:  # no warning: join anyway, so that the assertions say it
                    break
                time.sleep(0.02)
            cluster.scale(1)

        helper = threading.Thread(target=add_a_worker_after_two_warnings, daemon=True)
        helper.start()
        with caplog.at_level(logging.WARNING, logger="gridmarket.scenarios.sweep"):
            table = run_sweep(quick, {"seed": [1, 2]}, tmp_path / "sw", executor="dask",
                              scheduler=cluster.scheduler_address, no_worker_seconds=0.5)
        helper.join(timeout=10)
    messages = [r.getMessage() for r in caplog.records if r.name == "gridmarket.scenarios.sweep"]
    assert messages[0] == (f"the Dask scheduler at {cluster.scheduler_address} has no workers yet; runs start "
                           "when workers join")
    assert len(messages) >= 3
    for message in messages[1:]:
        assert message.startswith("no worker connected to the Dask scheduler for ")
        assert message.endswith(" s; 2 of 2 runs waiting (they start when workers join; Ctrl-C stops and keeps the "
                                "finished runs)")
    assert list(table["seed"]) == [1, 2]


def test_dask_close_that_times_out_is_logged_and_does_not_hide_the_error(caplog):
    class Stuck:
        def close(self, timeout):
            assert timeout == sweep._CLOSE_SECONDS
            raise TimeoutError

    with (caplog.at_level(logging.WARNING, logger="gridmarket.scenarios.sweep"),
          pytest.raises(NoWorkers, match="^gone$"), sweep._closed_within(Stuck(), "the Dask LocalCluster")):
        raise NoWorkers("gone")
    assert [r.getMessage() for r in caplog.records] == [
        "the Dask LocalCluster did not close within 30 s; left to end with this process"]
    assert issubclass(NoWorkers, MarketError)


def test_unreachable_scheduler_is_a_clear_error_within_seconds(tmp_path, capsys):
    address = f"tcp://127.0.0.1:{_free_port()}"
    out = tmp_path / "sw"
    with _deadline(60):  # never hangs; the 5 s connect timeout is the message's to state, not a timing to assert
        rc = compare_cli.main(["sweep", "quickstart", "--grid", "seed=1..2", "--executor", "dask",
                               "--scheduler", address, "--out", str(out)])
    assert rc == 2
    err = capsys.readouterr().err
    assert f"gridmarket: error: cannot reach the Dask scheduler at '{address}' within 5 s" in err
    assert not out.exists()  # nothing to refuse or resume afterwards
    with pytest.raises(InvalidInput, match="cannot reach the Dask scheduler at 'nonsense'"):
        run_sweep(get_scenario("quickstart"), {"seed": [1]}, out, executor="dask", scheduler="nonsense")


def test_dask_not_installed_says_what_to_install(tmp_path, quick, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed raises ImportError
    with pytest.raises(InvalidInput, match=r'pip install "gridmarket\[dask\]"'):
        run_sweep(quick, {"seed": [1]}, tmp_path / "sw", executor="dask", workers=1)


def test_sweep_killed_mid_way_leaves_whole_files_and_resumes(tmp_path, capsys):
    out = tmp_path / "killed"
    args = ["sweep", "quickstart", "--grid", "seed=1..6", "--grid", "model=mcmf", "--grid", "workload.n_jobs=60",
            "--out", str(out)]
    proc = subprocess.Popen([sys.executable, "-m", "gridmarket.scenarios.commands.compare", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not list(out.glob("parts/*.parquet")):
            assert proc.poll() is None, proc.communicate()[1].decode()
            assert time.monotonic() < deadline, "no run finished within 60 s"
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    proc.stdout.close()
    proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL

    finished = _runs(out)
    assert 1 <= len(finished) < 6, "the kill came after the sweep ended: make the runs longer"
    for doc in finished.values():  # no partial run passes for a finished one
        assert len(doc["rows"]) == 1 and doc["rows"][0]["jobs"] == 60
    assert not (out / "sweep.csv").exists()

    assert compare_cli.main(args) == 2
    assert "pass --resume to continue it or --force to start over" in capsys.readouterr().err
    assert compare_cli.main(args + ["--resume"]) == 0
    err = capsys.readouterr().err
    skipped = sorted(line.split()[1].removesuffix(":") for line in err.splitlines() if "skipped" in line)
    assert skipped == sorted(finished)
    assert sum("done" in line for line in err.splitlines()) == 6 - len(finished)
    assert {rid: doc for rid, doc in _runs(out).items() if rid in finished} == finished
    assert not list(out.glob("parts/.*"))
    table = pd.read_csv(out / "sweep.csv")
    assert list(table["seed"]) == [1, 2, 3, 4, 5, 6] and set(table["model"]) == {"mcmf"}


def test_readme_sweep_commands_parse_and_the_jobqueue_snippet_compiles():
    import argparse
    import re
    import shlex
    from pathlib import Path

    text = (Path(__file__).parents[2] / "README.md").read_text()
    section = text[text.index("## Sweeps and running on a cluster"):]
    section = section[:section.index("\n## ", 1)]
    parser = argparse.ArgumentParser()
    compare_cli.add_subcommands(parser.add_subparsers(dest="command", required=True))
    lines = [line for line in section.splitlines() if line.startswith("gridmarket sweep ")]
    assert len(lines) >= 4
    for line in lines:
        args = parser.parse_args(shlex.split(line, comments=True)[1:])
        parse_grid(args.grid or [])
        assert args.grid or args.points
    (snippet,) = re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)
    compile(snippet, "README.md", "exec")
    assert "SLURMCluster" in snippet and "scheduler_address" in snippet


def test_a_providers_key_sweeps_every_providers_setting(tmp_path, quick):
    """``providers.<key>`` sets that key on every provider: the same rows as providers written so by hand."""
    from dataclasses import replace

    grid = parse_grid(["providers.policy=fcfs,conservative", "workload.load_factor=4"])
    table = run_sweep(quick, grid, tmp_path / "grid").set_index("grid.providers.policy")
    for policy in ("fcfs", "conservative"):
        by_hand = replace(with_overrides(quick, {"workload.load_factor": 4}),
                          providers=tuple(replace(p, policy=policy) for p in quick.providers))
        want = run_sweep(by_hand, {"seed": [1]}, tmp_path / policy).iloc[0]
        assert table.loc[policy, "mean_wait"] == want["mean_wait"]
    assert table.loc["fcfs", "mean_wait"] != table.loc["conservative", "mean_wait"]
    with pytest.raises(InvalidInput, match=r"did you mean 'providers.overbooking'"):
        parse_grid(["providers.overbookin=1,2"])
    with pytest.raises(InvalidInput, match=r"provider 'north': overbooking must be in \[1, inf\]"):
        with_overrides(quick, {"providers.overbooking": 0.5})


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_sweep_on_a_terminal_shows_one_progress_bar_and_in_a_log_a_line_per_run(tmp_path, monkeypatch):
    args = ["sweep", "quickstart", "--grid", "seed=1..2", "--grid", "workload.n_jobs=30", "--grid", "model=best-effort"]
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert compare_cli.main(args + ["--out", str(tmp_path / "tty")]) == 0
    shown = terminal.getvalue()
    assert "sweep quickstart" in shown and "2/2" in shown and "[1/2]" not in shown
    log = io.StringIO()
    monkeypatch.setattr(sys, "stderr", log)
    assert compare_cli.main(args + ["--out", str(tmp_path / "log")]) == 0
    assert [line.split()[0] for line in log.getvalue().splitlines() if line.endswith(": done")] == ["[1/2]", "[2/2]"]


def test_a_sweep_over_alpha_reaches_the_moga_broker_s_choice(tmp_path):
    """alpha=0 weighs makespan only, alpha=1 cost only (Singh 2008, eq. 15): on quickstart's seed 1 MOGA then
    picks different plans. (Greedy picks the same quotes at both: its earliest quote is also its cheapest.)"""
    table = run_sweep(get_scenario("quickstart"), parse_grid(["alpha=0,1", "model=moga", "seed=1"]), tmp_path / "a")
    by = table.set_index("grid.alpha")
    assert by.loc[0, "allocation_cost"] > by.loc[1, "allocation_cost"]  # cost weighs only at alpha = 1
    assert by.loc[0, "workflow_makespan"] < by.loc[1, "workflow_makespan"]  # time weighs only at alpha = 0
