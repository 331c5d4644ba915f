"""Whole-command cost of the priced replay against the plain replay (the goal: <= 2x).

Run from the repository root::

    .venv/bin/python benchmarks/bench_priced_replay.py [--trace PATH] [--policy conservative] [--repeat 3]
        [--before DIR]

It runs ``python -P -m gridmarket.scenarios.harnesses.pricing_replay --trace PATH --fraction 0`` (plain)
and ``... --fraction 0.1`` (10 % of the jobs reserve at the form-18 start eq. 20
picks, every candidate priced by Fig. 22), each ``--repeat`` times, interleaved
so both see the same load, and prints each command's wall times (imports,
reading the trace, the replay, the summary: the whole command), the best of
each and the ratio of the bests beside the goal. ``--before DIR`` runs the same
two commands in another checkout too (e.g. ``git archive <commit> | tar -x -C DIR``
with its extensions built in place), in the same rounds. It is not part of the test suite.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from datafiles import given_or_registered  # noqa: E402

CTC = "traces/CTC-SP2-1996-3.1-cln.swf.gz"
GOAL = 2.0


def _run(root: Path, trace: str, policy: str, fraction: float) -> float:
    cmd = [sys.executable, "-P", "-m", "gridmarket.scenarios.harnesses.pricing_replay", "--trace", trace, "--policy", policy,
           "--fraction", str(fraction)]
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=root, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", help=f"SWF trace (default: the registered {CTC}, from $GRIDMARKET_DATA or the cache)")
    parser.add_argument("--policy", default="conservative", help="the provider's policy (default conservative)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each command (default 3)")
    parser.add_argument("--before", help="another checkout to time in the same rounds")
    args = parser.parse_args(argv)
    trace = str(given_or_registered(args.trace, CTC, needed_by="bench_priced_replay"))
    trees = {"this checkout": ROOT}
    if args.before:
        trees = {f"before ({args.before})": Path(args.before), **trees}
    times: dict[tuple[str, float], list[float]] = {(name, f): [] for name in trees for f in (0.0, 0.1)}
    loads = []
    for _ in range(args.repeat):
        for name, root in trees.items():
            for fraction in (0.0, 0.1):
                times[name, fraction].append(_run(root, trace, args.policy, fraction))
        loads.append(os.getloadavg()[0])
    print(f"trace {Path(trace).name}, policy {args.policy}, load average {min(loads):.2f}-{max(loads):.2f}")
    for name in trees:
        plain, priced = times[name, 0.0], times[name, 0.1]
        print(f"{name}:")
        print(f"  plain  (--fraction 0):   {', '.join(f'{t:.2f}' for t in plain)} s; best {min(plain):.2f} s")
        print(f"  priced (--fraction 0.1): {', '.join(f'{t:.2f}' for t in priced)} s; best {min(priced):.2f} s")
        ratio = min(priced) / min(plain)
        print(f"  priced / plain = {ratio:.2f} (goal <= {GOAL:g}: {'met' if ratio <= GOAL else 'not met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
