"""The single-machine simulator now against its code at an earlier commit, in one process.

Run from the repository root (with real data, ``gridmarket data fetch`` or ``GRIDMARKET_DATA``)::

    .venv/bin/python benchmarks/bench_simulation_change.py --before REV [--jobs 40000] [--repeat 5]

Loads ``market/simulation.py`` as it was at ``REV`` (``git show``) beside the current one, then
times ``simulate`` of both on the first ``--jobs`` jobs of CTC-SP2 under EASY and conservative
backfilling, alternating, and prints the best of ``--repeat`` runs and the ratio. Only the
simulator's own module differs between the two; the schedulers and the kernel are today's.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="git revision of the simulator to compare against")
    parser.add_argument("--jobs", type=int, default=40_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    from gridmarket import simulation as after
    from gridmarket.datasets import locate
    from gridmarket.errors import MarketError
    from gridmarket.workloads import read_swf

    try:
        trace = locate("traces/CTC-SP2-1996-3.1-cln.swf.gz")
    except MarketError as err:
        print(f"bench_simulation_change: {err}", file=sys.stderr)
        return 2
    source = subprocess.run(["git", "show", f"{args.before}:market/simulation.py"], cwd=ROOT, capture_output=True,
                            text=True, check=True).stdout
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "simulation_before.py"
        path.write_text(source)
        spec = importlib.util.spec_from_file_location("gridmarket.simulation_before", path)
        before = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(before)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        jobs = list(read_swf(trace).jobs)[: args.jobs]
    times: dict[tuple[str, str], list[float]] = {}
    cpus: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.repeat):
        for policy in ("easy", "conservative"):
            for label, module in (("before", before), ("after", after)):
                t, c = time.perf_counter(), time.process_time()
                module.simulate(jobs, procs=338, policy=policy)
                times.setdefault((label, policy), []).append(time.perf_counter() - t)
                cpus.setdefault((label, policy), []).append(time.process_time() - c)
    print(f"load average {os.getloadavg()[0]:.2f} at the end")
    for policy in ("easy", "conservative"):
        b, a = min(times[("before", policy)]), min(times[("after", policy)])
        cb, ca = min(cpus[("before", policy)]), min(cpus[("after", policy)])
        print(f"{policy}: {args.before} {b:.3f} s, now {a:.3f} s, now/{args.before} {a / b:.3f} "
              f"(best of {args.repeat}, {len(jobs):,} CTC-SP2 jobs); CPU {cb:.3f} s vs {ca:.3f} s, {ca / cb:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
