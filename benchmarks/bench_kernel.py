"""Whole ``gridmarket simulate`` commands on a full trace, compiled kernel vs the pure-Python reference.

The goals: conservative whole command <= 1.5x fcfs; slots <= 1.5x conservative. Every command
runs in its own process (imports, trace reading, the loop and the CSV writing all count); best of
``--repeat`` runs. Rows are written to identical files under both kernels (checked here).

    python benchmarks/bench_kernel.py [--trace FILE] [--repeat 2] [--reference conservative,slots] [--accasim]
        [--before DIR]

Each command's CPU seconds (user + system of the child) are printed beside its wall time: on a loaded
machine they are the steadier figure. ``--before DIR`` runs the same commands in another checkout too
(its import tree first on ``PYTHONPATH`` when it has one, as ``bench_priced_replay.py`` does), in the
same rounds (each round runs every command in both checkouts), and prints this checkout's bests over
the other's.

With ``--accasim`` the same run also times AccaSim 1.1.3's EASY loop (its fastest layout, one node of
all the trace's processors; ``accasim_peer.py``, a child process) on the trace's jobs as we read them,
run times cut at the estimate, for the goal that our whole easy command be >= 10x faster than its loop.
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_priced_replay import checkout_env, checkout_source  # noqa: E402
from datafiles import given_or_registered  # noqa: E402

CTC = "traces/CTC-SP2-1996-3.1-cln.swf.gz"


def run(trace: str, policy: str, kernel: str, out: Path, root: Path = ROOT) -> tuple[float, float]:
    """Wall and CPU seconds (user + system of the command) of one ``simulate`` command run in ``root``."""
    env = {**checkout_env(root), "GRIDMARKET_KERNEL": kernel}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-P", "-m", "gridmarket.scenarios.commands.cli", "simulate", "--trace", trace, "--policy", policy,
                    "--out", str(out)], check=True, capture_output=True, env=env, cwd=root)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def run_accasim(trace: str) -> dict:
    """AccaSim's EASY loop on ``trace`` (one node layout), in a child process; its figures."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from accasim_peer import write_swf

    from gridmarket.workloads import read_swf

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the reader's dropped-jobs note; simulate drops the same jobs
        workload = read_swf(trace)
    procs = workload.max_procs
    with tempfile.TemporaryDirectory() as tmp:
        swf = Path(tmp) / "workload.swf"
        write_swf([j for j in workload.jobs if j.procs <= procs], swf)
        done = subprocess.run([sys.executable, str(Path(__file__).resolve().parent / "accasim_peer.py"), str(swf),
                               str(procs), "easy", "--layout=one-node"], capture_output=True, text=True,
                              check=True, cwd=tmp)
    line = next(x for x in done.stdout.splitlines() if x.startswith("ACCASIM_RESULT "))
    result = json.loads(line.split(" ", 1)[1])
    print(f"AccaSim       easy      {result['seconds']:7.2f} s (its loop only)", flush=True)
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", help=f"SWF trace (default: the registered {CTC}, from $GRIDMARKET_DATA or the cache)")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--policies", default="fcfs,easy,conservative,slots")
    ap.add_argument("--reference", default="conservative", help="policies also timed with the reference kernel")
    ap.add_argument("--accasim", action="store_true", help="also time AccaSim's EASY loop (one node layout)")
    ap.add_argument("--before", help="another checkout to time in the same rounds")
    args = ap.parse_args(argv)
    trace = str(given_or_registered(args.trace, CTC, needed_by="bench_kernel"))
    if args.before:
        return compare_checkouts(trace, args)
    best: dict[tuple[str, str], float] = {}
    accasim = run_accasim(trace) if args.accasim else None
    with tempfile.TemporaryDirectory() as tmp:
        for policy in args.policies.split(","):
            kernels = ["compiled"] + (["reference"] if policy in args.reference.split(",") else [])
            for kernel in kernels:
                out = Path(tmp) / f"{policy}-{kernel}.csv"
                runs = [run(trace, policy, kernel, out) for _ in range(args.repeat)]
                best[policy, kernel] = min(wall for wall, _ in runs)
                print(f"{policy:<13} {kernel:<9} {best[policy, kernel]:7.2f} s "
                      f"(CPU {min(cpu for _, cpu in runs):.2f} s)", flush=True)
            if len(kernels) == 2:
                same = filecmp.cmp(Path(tmp) / f"{policy}-compiled.csv", Path(tmp) / f"{policy}-reference.csv",
                                   shallow=False)
                print(f"{policy:<13} rows identical under both kernels: {same}", flush=True)
    c = {p: best[p, "compiled"] for p, k in best if k == "compiled"}
    if "conservative" in c and "fcfs" in c:
        print(f"conservative / fcfs: {c['conservative'] / c['fcfs']:.2f} (goal <= 1.5)")
    if "slots" in c and "conservative" in c:
        print(f"slots / conservative: {c['slots'] / c['conservative']:.2f} (goal <= 1.5)")
    if accasim is not None and "easy" in c:
        print(f"AccaSim {accasim['version']} EASY loop ({accasim['layout']}, {accasim['jobs']} jobs): "
              f"{accasim['seconds']:.2f} s; ours, whole easy command: {c['easy']:.2f} s; "
              f"ratio {accasim['seconds'] / c['easy']:.1f}x (goal >= 10)")
    if ("conservative", "reference") in best:
        print(f"conservative reference / compiled: {best['conservative', 'reference'] / c['conservative']:.1f}x")
    return 0


def compare_checkouts(trace: str, args) -> int:
    """Every (policy, kernel) command in ``args.before`` and here, interleaved round by round; bests and ratios."""
    trees = {"before": Path(args.before), "this checkout": ROOT}
    for name, root in trees.items():
        print(f"{name}: gridmarket from {checkout_source(root)}", flush=True)
    commands = [(policy, kernel) for policy in args.policies.split(",")
                for kernel in ["compiled"] + (["reference"] if policy in args.reference.split(",") else [])]
    runs: dict[tuple[str, str, str], list[tuple[float, float]]] = {}
    loads = []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.repeat):
            for policy, kernel in commands:
                outs = []
                for name, root in trees.items():
                    out = Path(tmp) / f"{name}-{policy}-{kernel}.csv".replace(" ", "-")
                    runs.setdefault((name, policy, kernel), []).append(run(trace, policy, kernel, out, root))
                    outs.append(out)
                if not filecmp.cmp(*outs, shallow=False):
                    print(f"{policy} {kernel}: rows differ between the checkouts", flush=True)
            loads.append(os.getloadavg()[0])
    print(f"load average {min(loads):.2f}-{max(loads):.2f}; {args.repeat} rounds")
    for policy, kernel in commands:
        for name in trees:
            r = runs[name, policy, kernel]
            print(f"{policy:<13} {kernel:<9} {name:<14} wall {', '.join(f'{w:.2f}' for w, _ in r)} s; "
                  f"CPU {', '.join(f'{c:.2f}' for _, c in r)} s")
        old, new = runs["before", policy, kernel], runs["this checkout", policy, kernel]
        print(f"{policy:<13} {kernel:<9} this / before: {min(w for w, _ in new) / min(w for w, _ in old):.3f} wall, "
              f"{min(c for _, c in new) / min(c for _, c in old):.3f} CPU (bests)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
