"""Throughput of the single-machine simulator against its peer and its limit.

Run from the repository root::

    .venv/bin/python benchmarks/bench_core.py [--trace PATH] [--jobs N]

In one process run it

1. picks the workload: ``--trace PATH``; else the registered CTC-SP2 trace where
   data is found (``$GRIDMARKET_DATA``, else the cache ``gridmarket data fetch``
   fills: benchmarks/datafiles.py); else the registered trace found there with the
   most records; else a Lublin workload of 80,000 jobs on 256 processors;
2. reads it once (``gridmarket.workloads.swf.read_swf``), keeping the first ``--jobs``;
3. times ``gridmarket.simulation.simulate`` with the ``easy`` and ``conservative``
   policies (best of ``--repeat`` runs while they fit the time budget);
4. times AccaSim's EASY backfilling (the ``bench`` extra) on the very same jobs,
   in a child process (``accasim_peer.py``), when AccaSim can be imported;
5. times a null event loop (``null_loop.py``): the same arrivals and the
   completions of the easy run, with no scheduling decisions;
6. measures the peak memory ``simulate`` allocates (``tracemalloc``) at 1/4,
   1/2 and all of the jobs, to show it grows linearly.

It prints a table: engine, jobs, seconds, jobs/s, speed-up over AccaSim and
time relative to the null loop. It is not part of the test suite.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import re
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
import warnings
from dataclasses import replace
from functools import partial
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

from accasim_peer import available as accasim_available  # noqa: E402
from accasim_peer import write_swf  # noqa: E402
from null_loop import null_event_loop  # noqa: E402

from gridmarket.datasets import data_root, registry  # noqa: E402
from gridmarket.simulation import simulate  # noqa: E402
from gridmarket.workloads.workload import Workload  # noqa: E402

PREFERRED = "traces/CTC-SP2-1996-3.1-cln.swf.gz"
LUBLIN_JOBS, LUBLIN_PROCS, LUBLIN_SEED = 80_000, 256, 2024
POLICIES = ("easy", "conservative")


# --------------------------------------------------------------- workload
def find_trace(root: Path | None = None) -> Path | None:
    """CTC-SP2 if the data root holds it, else the registered trace there with the most records, else None."""
    root = data_root() if root is None else root
    found = [p for p in registry() if p.startswith("traces/") and (root / p).is_file()]
    if not found:
        return None
    return root / (PREFERRED if PREFERRED in found else max(found, key=lambda p: registry()[p].records))


def read_trace(path: Path) -> Workload:
    """Read an SWF trace (plain or gzip) with the project's reader."""
    from gridmarket.workloads.swf import read_swf

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # dropped jobs are reported from Workload.dropped
        return read_swf(path)


def load_workload(trace: str | None, n_jobs: int | None, lublin: bool = False) -> tuple[Workload, str]:
    """The benchmark workload and a description of where it came from."""
    path = None if lublin else Path(trace) if trace else find_trace()
    if path is not None:
        t0 = time.perf_counter()
        workload = read_trace(path)
        source = f"{path.name} (read in {time.perf_counter() - t0:.1f} s"
        if workload.n_dropped:
            source += f"; reader dropped {workload.n_dropped}: {dict(workload.dropped)}"
        source += ")"
    else:
        import numpy as np

        from gridmarket.workloads.lublin import lublin_workload

        n = n_jobs or LUBLIN_JOBS
        workload = lublin_workload(n, procs=LUBLIN_PROCS, rng=np.random.default_rng(LUBLIN_SEED))
        why = "--lublin" if lublin else "no trace found"
        source = f"Lublin model, {n} jobs, {LUBLIN_PROCS} procs, seed {LUBLIN_SEED} ({why})"
    if n_jobs is not None and n_jobs < len(workload):
        workload = replace(workload, jobs=workload.jobs[:n_jobs])
        source += f", first {n_jobs} jobs"
    return workload, source


def machine_size(workload: Workload, procs: int | None) -> int:
    if procs is not None:
        return procs
    if workload.max_procs is not None:
        return workload.max_procs
    return max(job.procs for job in workload.jobs)


# ---------------------------------------------------------------- timing
def best_time(fn, repeat: int, budget: float):
    """Run ``fn`` up to ``repeat`` times (fewer once ``budget`` seconds are spent).

    Returns the best wall time, all times and the last result.
    """
    times, result = [], None
    spent = 0.0
    for _ in range(max(1, repeat)):
        result = None
        gc.collect()
        t0 = time.perf_counter()
        result = fn()
        dt = time.perf_counter() - t0
        times.append(dt)
        spent += dt
        if spent + dt > budget:
            break
    return min(times), times, result


def run_simulate(workload: Workload, procs: int, policy: str):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the "dropped too-big jobs" warning, reported separately
        return simulate(workload, procs=procs, policy=policy)


def run_loop_only(jobs: list, procs: int, policy: str):
    """Only the event loop and the policy: ``simulate`` without its records and summary."""
    from gridmarket.scheduling import make_scheduler
    from gridmarket.simulation import MachineSimulation

    sim = MachineSimulation(make_scheduler(policy, procs), jobs)
    sim.run_until(None)
    return sim


def run_accasim(jobs, procs: int, timeout: float, policy: str = "easy", starts: bool = False) -> dict:
    """AccaSim ``policy`` (easy or fcfs) on ``jobs`` in a child process; its figures, or an ``error``."""
    with tempfile.TemporaryDirectory(prefix="bench-accasim-") as tmp:
        swf = Path(tmp) / "workload.swf"
        write_swf(jobs, swf)
        cmd = [sys.executable, str(HERE / "accasim_peer.py"), str(swf), str(procs), policy]
        if starts:
            cmd.append("--starts")
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=tmp)
        except subprocess.TimeoutExpired:
            return {"error": f"did not finish within {timeout:.0f} s"}
    for line in proc.stdout.splitlines():
        if line.startswith("ACCASIM_RESULT "):
            return json.loads(line[len("ACCASIM_RESULT ") :])
    tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
    return {"error": f"exit {proc.returncode}: " + " | ".join(tail)}


# ---------------------------------------------------------------- memory
def peak_memory(workload: Workload, procs: int, policy: str, n: int, loop_only: bool = False) -> int:
    """Peak bytes ``simulate`` (or only its event loop) allocates on the first ``n`` jobs (tracemalloc)."""
    part = replace(workload, jobs=workload.jobs[:n])
    jobs = [j for j in part.jobs if j.procs <= procs]
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        result = run_loop_only(jobs, procs, policy) if loop_only else run_simulate(part, procs, policy)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    del result
    return peak


# ----------------------------------------------------------------- report
def machine_info() -> str:
    cpu = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"^model name\s*:\s*(.+)$", f.read(), re.M)
            cpu = m.group(1).strip() if m else cpu
    except OSError:
        pass
    return (
        f"{os.cpu_count()} cores, {cpu}, Python {platform.python_version()} "
        f"({platform.python_implementation()}), {platform.system()} {platform.release()}"
    )


def fmt_table(rows: list[list[str]], header: list[str]) -> str:
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]

    def line(r: list[str]) -> str:
        cells = (str(c).rjust(w) if i else str(c).ljust(w) for i, (c, w) in enumerate(zip(r, widths)))
        return "| " + " | ".join(cells) + " |"

    sep = "|" + "|".join(("-" * (w + 1) + ":") if i else ("-" * (w + 2)) for i, w in enumerate(widths)) + "|"
    return "\n".join([line(header), sep] + [line(r) for r in rows])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trace", help="SWF trace (.swf or .swf.gz); default: CTC-SP2, else the largest trace, else Lublin")
    ap.add_argument("--jobs", type=int, help="use only the first N jobs")
    ap.add_argument("--lublin", action="store_true", help=f"use a Lublin workload ({LUBLIN_JOBS} jobs unless --jobs)")
    ap.add_argument("--procs", type=int, help="machine size (default: the trace's MaxProcs)")
    ap.add_argument("--repeat", type=int, default=3, help="best of N timed runs per engine (default 3)")
    ap.add_argument("--budget", type=float, default=60.0, help="stop repeating an engine after this many seconds")
    ap.add_argument("--accasim-jobs", type=int, help="run AccaSim on only the first N jobs (it is slow)")
    ap.add_argument("--accasim-timeout", type=float, default=3600.0, help="give up on AccaSim after this many seconds")
    ap.add_argument("--no-accasim", action="store_true", help="skip AccaSim")
    ap.add_argument("--check-jobs", type=int, default=5000,
                    help="compare start times with AccaSim's FIFO and EASY on the first N jobs (0: skip)")
    ap.add_argument("--no-memory", action="store_true", help="skip the memory measurement")
    args = ap.parse_args(argv)

    print(f"machine : {machine_info()}")
    print(f"command : {' '.join([Path(sys.executable).name, *sys.argv])}")
    print("load    : {:.2f} {:.2f} {:.2f} (1/5/15 min load average at start; > 0 means other work shares the cores)".format(*os.getloadavg()))
    workload, source = load_workload(args.trace, args.jobs, args.lublin)
    procs = machine_size(workload, args.procs)
    jobs = [j for j in workload.jobs if j.procs <= procs]
    print(f"workload: {source}")
    print(f"          {len(workload)} jobs, {len(jobs)} fit a machine of {procs} processors")
    sys.stdout.flush()

    rows: list[dict] = []
    # ---- ours
    records = None
    for policy in POLICIES:
        best, times, result = best_time(partial(run_simulate, workload, procs, policy), args.repeat, args.budget)
        n = len(result.records)
        rows.append({"engine": f"gridmarket {policy}", "jobs": n, "seconds": best, "runs": times,
                     "wait": float(result.records["wait"].mean())})
        print(f"  {policy:<12} {n} jobs  best {best:.3f} s of {', '.join(f'{t:.3f}' for t in times)}"
              f"  mean wait {result.records['wait'].mean():.0f} s")
        sys.stdout.flush()
        if policy == "easy":
            records = result.records
        del result

    # ---- the same without building records and summary (diagnostic)
    for policy in POLICIES:
        best, times, _ = best_time(partial(run_loop_only, jobs, procs, policy), args.repeat, args.budget)
        rows.append({"engine": f"gridmarket {policy}, event loop only", "jobs": len(jobs), "seconds": best, "runs": times})
        print(f"  {policy:<12} loop only  best {best:.3f} s of {', '.join(f'{t:.3f}' for t in times)}")
        sys.stdout.flush()

    # ---- null loop on the easy run's events
    ends = dict(zip(records["job_id"].tolist(), records["end"].tolist()))
    null_best, null_times, info = best_time(lambda: null_event_loop(jobs, ends, procs), max(args.repeat, 5), args.budget)
    rows.append({"engine": "null event loop", "jobs": len(jobs), "seconds": null_best, "runs": null_times})
    print(f"  null loop    {len(jobs)} jobs  best {null_best:.3f} s  ({info['events']} events at {info['times']} times)")
    sys.stdout.flush()

    # ---- AccaSim
    acc = None
    if args.no_accasim:
        print("  AccaSim      skipped (--no-accasim)")
    else:
        version = accasim_available()
        if version is None:
            print("  AccaSim      skipped: not importable (pip install -e '.[bench]')")
        else:
            acc_jobs = jobs[: args.accasim_jobs] if args.accasim_jobs else jobs
            print(f"  AccaSim {version} EASYBackfilling+FirstFit on {len(acc_jobs)} jobs ...")
            sys.stdout.flush()
            acc = run_accasim(acc_jobs, procs, args.accasim_timeout)
            if "error" in acc:
                print(f"  AccaSim      failed: {acc['error']}")
                acc = None
            else:
                print(f"  AccaSim      {acc['jobs']} jobs  {acc['seconds']:.1f} s  mean wait {acc['mean_wait']:.0f} s"
                      f"  rejected {acc['rejected']}  maxrss {acc['maxrss_kib'] / 1024:.0f} MiB")
                rows.append({"engine": f"AccaSim {version} EASY", "jobs": acc["jobs"], "seconds": acc["seconds"],
                             "runs": [acc["seconds"]], "wait": acc["mean_wait"]})
                if len(acc_jobs) < len(jobs):  # like for like: ours on the same prefix
                    part = replace(workload, jobs=tuple(acc_jobs))
                    for policy in POLICIES:
                        best, times, res = best_time(partial(run_simulate, part, procs, policy), args.repeat, args.budget)
                        rows.append({"engine": f"gridmarket {policy} (AccaSim's jobs)", "jobs": len(acc_jobs),
                                     "seconds": best, "runs": times, "wait": float(res.records["wait"].mean())})
    acc_rate = acc["jobs"] / acc["seconds"] if acc else None

    # ---- same setup? FIFO schedules must match exactly; EASY differs by AccaSim's rules
    if acc is not None and args.check_jobs:
        part = replace(workload, jobs=tuple(jobs[: args.check_jobs]))
        print(f"\nstart times against AccaSim on the first {len(part)} jobs:")
        for ours, theirs in (("fcfs", "fcfs"), ("easy", "easy")):
            rec = run_simulate(part, procs, ours).records
            other = run_accasim(part.jobs, procs, args.accasim_timeout, theirs, starts=True)
            if "error" in other:
                print(f"  {ours}: AccaSim failed: {other['error']}")
                continue
            mine = dict(zip(rec["job_id"].tolist(), rec["start"].tolist()))
            diff = [j for j in mine if other["starts"].get(str(j)) != mine[j]]
            later = [other["starts"][str(j)] - mine[j] for j in diff if str(j) in other["starts"]]
            print(f"  {ours:<5} identical start for {len(mine) - len(diff)} of {len(mine)} jobs"
                  + (f"; AccaSim starts {sum(d > 0 for d in later)} later (up to {max(later):,} s) and "
                     f"{sum(d < 0 for d in later)} earlier" if later else "")
                  + f"; mean wait ours {rec['wait'].mean():,.0f} s, AccaSim {other['mean_wait']:,.0f} s")

    # ---- table
    header = ["engine", "jobs", "seconds", "jobs/s", "x AccaSim", "x null", "mean wait s"]
    table = []
    for r in rows:
        rate = r["jobs"] / r["seconds"]
        vs_acc = f"{rate / acc_rate:.1f}" if acc_rate else "n/a"
        vs_null = f"{r['seconds'] / null_best:.1f}" if r["jobs"] == len(jobs) else "n/a"
        wait = f"{r['wait']:,.0f}" if r.get("wait") is not None else "-"
        table.append([r["engine"], f"{r['jobs']:,}", f"{r['seconds']:.3f}", f"{rate:,.0f}", vs_acc, vs_null, wait])
    print()
    print(fmt_table(table, header))
    print("x AccaSim: jobs/s over AccaSim's jobs/s (goal >= 10); x null: seconds over the null loop's (goal <= 3);")
    print("mean wait: a sanity check that the engines simulate comparable schedules")

    # ---- memory
    if not args.no_memory:
        print()
        sizes = sorted({max(1, len(workload) // 4), max(1, len(workload) // 2), len(workload)})
        mem_rows = []
        for policy in POLICIES:
            for loop_only in (False, True):
                peaks = [(n, peak_memory(workload, procs, policy, n, loop_only)) for n in sizes]
                n0, p0 = peaks[0]
                what = "event loop only" if loop_only else "simulate()"
                for n, p in peaks:
                    mem_rows.append([policy, what, f"{n:,}", f"{p / 2**20:.1f}", f"{p / n:,.0f}",
                                     f"{(p / p0) / (n / n0):.2f}"])
        print(fmt_table(mem_rows, ["policy", "measured", "jobs", "peak MiB", "bytes/job", "growth vs linear"]))
        print("peak: bytes allocated during the call (tracemalloc), input jobs excluded; "
              "growth vs linear = (peak/peak at smallest size) / (jobs/jobs at smallest size), 1.00 = linear")
    print(f"process maxrss {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
    print("load at end: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
