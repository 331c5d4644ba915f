"""Where ``simulate`` spends its time: cProfile of easy and conservative.

Run from the repository root::

    .venv/bin/python benchmarks/profile_core.py [--trace PATH] [--jobs N] [--top 10]

Uses the same workload choice as ``bench_core.py`` and prints, per policy, the
top functions by own time (tottime) and by cumulative time. Not part of the
test suite.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_core import POLICIES, load_workload, machine_size, run_simulate  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trace")
    ap.add_argument("--jobs", type=int)
    ap.add_argument("--lublin", action="store_true")
    ap.add_argument("--procs", type=int)
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("--policy", action="append", help="policy to profile (repeatable; default easy and conservative)")
    args = ap.parse_args(argv)
    workload, source = load_workload(args.trace, args.jobs, args.lublin)
    procs = machine_size(workload, args.procs)
    print(f"workload: {source}; {procs} processors")
    for policy in args.policy or POLICIES:
        prof = cProfile.Profile()
        prof.enable()
        run_simulate(workload, procs, policy)
        prof.disable()
        for key in ("tottime", "cumulative"):
            out = io.StringIO()
            stats = pstats.Stats(prof, stream=out).strip_dirs().sort_stats(key)
            print(f"\n=== {policy}: top {args.top} by {key} (total {stats.total_tt:.2f} s under cProfile)")
            stats.print_stats(args.top)
            text = out.getvalue()
            print(text[text.index("   ncalls"):].rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
