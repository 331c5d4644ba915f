"""Hostile numbers at the command line and in documents: refused in one line (exit 2) before any work.

Each case is one the review found: values past int64 (tracebacks from the compiled kernels), values
just below it (a process killed by a segmentation fault, a quote priced 0 SU), requests too large
for memory (a billion jobs, a 10**12-seed range), and messages that named the wrong thing.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import gridmarket.validation as validation
from gridmarket.limits import BYTES_PER_JOB, SECONDS_LIMIT
from gridmarket.scenarios.commands.cli import main

ROOT = Path(__file__).resolve().parents[2]
STATE = ROOT / "docs" / "examples" / "state.json"
CLI = [sys.executable, "-m", "gridmarket.scenarios.commands.cli"]
INT64_MAX = 2**63 - 1


def _run(argv, capsys):
    try:
        status = main(argv)
    except SystemExit as exc:  # argparse's usage error
        status = exc.code
    out, err = capsys.readouterr()
    return status, out, err


def _one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if "error:" in line]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def _state(tmp_path, **queued) -> str:
    path = tmp_path / "state.json"
    path.write_text(json.dumps({"now": 100, "procs": 5,
                                "running": [{"id": 1, "procs": 2, "start": 0, "end": 300}],
                                "queued": [{"id": 2, "submit": 50, "procs": 2, "estimate": 200, **queued}]}))
    return str(path)


@pytest.mark.parametrize("command", ["quote", "advertise"])
@pytest.mark.parametrize("estimate", [INT64_MAX, 2**63])
def test_a_queued_estimate_near_int64_is_refused_not_a_crash(tmp_path, command, estimate):
    # INT64_MAX killed the process (SIGSEGV in the compiled kernel); 2**63 gave an OverflowError traceback
    extra = ["--procs", "2", "--duration", "100"] if command == "quote" else []
    done = subprocess.run([*CLI, command, "--state", _state(tmp_path, estimate=estimate), *extra],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 2, (done.returncode, done.stderr[-300:])
    assert "state.json: queued[0].estimate must be an int in [1, 3155760000] s" in _one_error_line(done.stderr)


@pytest.mark.parametrize("argv, message", [
    (["quote", "--procs", "2", "--duration", str(2**63)], "argument --duration: must be an int in [1, 3155760000] s"),
    (["quote", "--procs", "2", "--duration", str(INT64_MAX)], "argument --duration: must be an int in [1, 3155760000]"),
    (["quote", "--procs", "2", "--duration", "100", "--start", str(2**63)], "argument --start: must be an int in [0,"),
    (["quote", "--procs", str(2**63), "--duration", "100"], "argument --procs: must be an int in [1, 16777216]"),
    (["quote", "--procs", "2", "--duration", "100", "--unit-cost", "nan"], "argument --unit-cost: must be a number"),
    (["quote", "--procs", "2", "--duration", "100", "--unit-cost", "1e300"], "argument --unit-cost: must be a number"),
    (["advertise", "--until", str(2**63)], "argument --until: must be an int in [0, 3155760000] s"),
])
def test_quote_and_advertise_options_past_their_bounds_exit_2(capsys, argv, message):
    status, out, err = _run([argv[0], "--state", str(STATE), *argv[1:]], capsys)
    assert status == 2 and out == "" and message in _one_error_line(err)


def _price(capsys, state, duration):
    status, out, err = _run(["quote", "--state", state, "--procs", "1", "--duration", str(duration),
                             "--start", "100"], capsys)
    assert status == 0, err
    return json.loads(out)[0]["price"]


def test_a_slot_as_long_as_the_bound_is_priced_as_a_short_one(tmp_path, capsys):
    # one free processor, a queued 1-processor job planned on it: a slot there delays it until the running job
    # ends at 400 (300 s x 1 processor = 1/12 SU), however long the slot. At INT64_MAX s the kernel's end time
    # wrapped around and the quote said 0 SU; it is refused now, and the longest accepted slot is priced right.
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"now": 100, "procs": 2, "running": [{"id": 1, "procs": 1, "start": 0, "end": 400}],
                                "queued": [{"id": 2, "submit": 100, "procs": 1, "estimate": 400}]}))
    assert _price(capsys, str(path), 400) == pytest.approx(300 / 3600)
    assert _price(capsys, str(path), SECONDS_LIMIT) == pytest.approx(300 / 3600)
    status, out, err = _run(["quote", "--state", str(path), "--procs", "1", "--duration", str(INT64_MAX),
                             "--start", "100"], capsys)
    assert status == 2 and out == ""


@pytest.mark.parametrize("argv, message", [
    (["simulate", "--jobs", "1000000000"], "argument --jobs: must be an int in [1, 100000000] jobs"),
    (["simulate", "--procs", str(2**63)], "argument --procs: must be an int in [1, 16777216] processors"),
    (["simulate", "--seed", str(2**64)], "argument --seed: must be an int in [0, 9223372036854775807]"),
    (["simulate", "--load-factor", "inf"], "argument --load-factor: must be a number in [0.001, 1000.0] x, got inf"),
    (["compare", "--seed", str(2**63)], "argument --seed: must be an int in [0, 9223372036854775807]"),
    (["sweep", "quickstart", "--grid", "seed=1..1000000000000"],
     "bad grid 'seed=1..1000000000000': the number of values must be an int in [1, 100000] runs"),
    (["sweep", "quickstart", "--grid", "seed=1..1000", "--grid", "alpha=0..1000"],
     "grid of 1000 seed x 1001 alpha: the number of runs must be an int in [1, 100000] runs"),
    (["run", "singh-pricing", "--seeds", "1..1000000000000"],
     "--seeds 1..1000000000000: the number of seeds must be an int in [1, 100000] runs"),
    (["run", "singh-pricing", "--seeds", f"1,{2**63}"], "--seeds: a seed must be an int in [0, 9223372036854775807]"),
    (["clear", "--costs", str(ROOT / "docs/examples/costs.json"), "--maxq", str(2**63)], "argument --maxq: must be"),
    (["viz", "--port", "70000"], "argument --port: must be an int in [0, 65535] (a TCP port), got 70000"),
    (["viz", "--timeout", "nan"], "argument --timeout: must be a number in [0.001, 86400.0] s, got nan"),
])
def test_huge_requests_are_refused_before_any_work(capsys, tmp_path, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)  # nothing may be written, here or anywhere
    status, out, err = _run(argv, capsys)
    assert status == 2 and message in _one_error_line(err)
    assert list(tmp_path.iterdir()) == []


def test_generated_jobs_that_would_not_fit_in_memory_are_refused_naming_the_limit(capsys, monkeypatch):
    monkeypatch.setattr(validation, "physical_memory", lambda: 1000 * BYTES_PER_JOB)
    status, out, err = _run(["simulate", "--jobs", "1001"], capsys)
    assert status == 2 and out == ""
    assert "--jobs: 1001 jobs need about" in _one_error_line(err) and "room for at most 1000 jobs" in err


SCENARIO = """name = "tiny"
seed = 3
models = ["best-effort"]
[[providers]]
name = "a"
procs = 16
[workload]
source = "lublin"
n_jobs = 20
procs = 16
{workload}
[parameters]
{parameters}
"""


@pytest.mark.parametrize("workload, parameters, message", [
    ("", "cycle_seconds = 9223372036854775000", "parameters.cycle_seconds must be an int in [1, 3155760000] s"),
    ("", "reservation_lead = 9223372036854775000", "parameters.reservation_lead must be an int in [0, 3155760000]"),
    ("", "wait_history = 1000000000000", "parameters.wait_history must be an int in [0, 100000000] jobs"),
    ("", "population = 1000000000000", "parameters.population must be an int in [2, 100000] individuals"),
    ("n_workflows = 1", "", None),
    ("n_workflows = 1\nworkflow_procs = inf", "",
     "workload.workflow_procs must be a number in [1, 8388608] processors, got inf"),
    ("n_workflows = 1\nworkflow_runtime = 1e300", "", "workload.workflow_runtime must be a number in [1, 1577880000.0]"),
    ("load_factor = 1e-300", "", "workload.load_factor must be a number in [0.001, 1000.0] x"),
    ("", "reservation_fraction = 1.0",
     "parameters.reservation_fraction = 1.0: all 20 jobs became advance-reservation requests"),
])
def test_scenario_fields_past_their_bounds_are_refused_naming_the_field(tmp_path, capsys, workload, parameters,
                                                                       message):
    path = tmp_path / "t.toml"
    path.write_text(SCENARIO.format(workload=workload, parameters=parameters))
    status, out, err = _run(["compare", "--scenario", str(path), "--out", str(tmp_path / "out")], capsys)
    if message is None:  # the case that runs, beside the ones refused
        assert status == 0, err
        return
    assert status == 2 and message in _one_error_line(err)
    assert "mean_procs" not in err and "no job records" not in err
    assert not (tmp_path / "out").exists()


def test_scenario_jobs_that_would_not_fit_in_memory_are_refused(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(validation, "physical_memory", lambda: 1000 * BYTES_PER_JOB)
    path = tmp_path / "t.toml"
    path.write_text(SCENARIO.format(workload="", parameters="").replace("n_jobs = 20", "n_jobs = 5000"))
    status, out, err = _run(["compare", "--scenario", str(path), "--out", str(tmp_path / "out")], capsys)
    assert status == 2 and "workload.n_jobs: 5000 jobs need about" in _one_error_line(err)


def test_a_trace_runtime_just_below_int64_is_refused_not_a_negative_utilisation(tmp_path, capsys):
    trace = tmp_path / "big.swf"
    trace.write_text(f"; MaxProcs: 4\n1 0 0 {2**61} 4 -1 -1 4 {2**61} -1 1 1 1 -1 -1 -1 -1 -1\n"
                     "2 10 0 100 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1\n")
    status, out, err = _run(["simulate", "--trace", str(trace)], capsys)
    assert status == 2 and out == ""
    assert f"big.swf line 2: field 'run time' is {2**61}, above the limit of 3155760000 s" in _one_error_line(err)


def test_costs_past_the_bound_name_the_file_and_the_entry(tmp_path, capsys):
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"jobs": ["a", "b"], "systems": ["X"], "cost": [[1e18], [1]], "capacity": {"X": 1}}))
    status, out, err = _run(["clear", "--costs", str(path)], capsys)
    assert status == 2 and "c.json: cost[0][0] must be a number in [0.0, 1000000000.0]" in _one_error_line(err)


@pytest.mark.parametrize("argv", [
    ["quote", "--state", str(STATE), "--procs", "2", "--duration", "3600"],
    ["simulate", "--jobs", "50"],
])
def test_a_full_disk_on_standard_output_names_it(argv):
    with open("/dev/full", "w") as full:
        done = subprocess.run([*CLI, *argv], stdout=full, stderr=subprocess.PIPE, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 2
    assert _one_error_line(done.stderr) == "gridmarket: error: [Errno 28] No space left on device: 'standard output'"


def test_a_full_cache_disk_names_the_cache_file_not_the_source(tmp_path, monkeypatch):
    import errno

    from gridmarket import datasets

    def full(source, out):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setenv("GRIDMARKET_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(datasets.shutil, "copyfile", full)
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    name = next(p for p in datasets.registry() if p not in datasets.samples())
    with pytest.raises(OSError) as err:
        datasets.fetch([name], mirror=str(mirror))
    assert err.value.errno == errno.ENOSPC and err.value.filename == str(datasets.cache_dir() / name)


def test_the_compiled_kernel_prices_a_state_at_the_bounds_as_the_pure_python_reference(tmp_path):
    # the reference computes in Python ints (no overflow): equal answers mean the int64 kernel did not wrap
    now = SECONDS_LIMIT - 100_000
    path = tmp_path / "edge.json"
    path.write_text(json.dumps({
        "now": now, "procs": 2**24, "running": [{"id": 1, "procs": 2**23, "start": 0, "end": SECONDS_LIMIT}],
        "queued": [{"id": 2 + i, "submit": i, "procs": 2**24 - i, "estimate": SECONDS_LIMIT - i} for i in range(3)],
        "reservations": [{"start": SECONDS_LIMIT - 50_000, "procs": 2**22, "duration": SECONDS_LIMIT}]}))
    answers = {}
    for kernel in ("compiled", "reference"):
        env = {**os.environ, "GRIDMARKET_KERNEL": kernel}
        for command, extra in (("quote", ["--procs", str(2**23), "--duration", str(SECONDS_LIMIT)]), ("advertise", [])):
            done = subprocess.run([*CLI, command, "--state", str(path), *extra], capture_output=True, text=True,
                                  cwd=ROOT, env=env, timeout=300)
            assert done.returncode == 0, done.stderr
            answers[kernel, command] = json.loads(done.stdout)
    assert answers["compiled", "quote"] == answers["reference", "quote"]
    assert answers["compiled", "advertise"] == answers["reference", "advertise"]
    assert max(q["price"] for q in answers["compiled", "quote"]) > 4e13  # prices of ~1e17 processor-seconds
