"""Whole ``gridmarket simulate`` commands on a full trace, compiled kernel vs the pure-Python reference.

Issue 18's goals: conservative whole command <= 1.5x fcfs; slots <= 1.5x conservative. Every command
runs in its own process (imports, trace reading, the loop and the CSV writing all count); best of
``--repeat`` runs. Rows are written to identical files under both kernels (checked here).

    python benchmarks/bench_kernel.py [--trace FILE] [--repeat 2] [--reference conservative,slots]
"""

from __future__ import annotations

import argparse
import filecmp
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CTC = ROOT.parent / "shared" / "data" / "traces" / "CTC-SP2-1996-3.1-cln.swf.gz"


def run(trace: str, policy: str, kernel: str, out: Path) -> float:
    env = {**os.environ, "GRIDMARKET_KERNEL": kernel}
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "scenarios.cli", "simulate", "--trace", trace, "--policy", policy,
                    "--out", str(out)], check=True, capture_output=True, env=env, cwd=ROOT)
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", default=str(CTC))
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--policies", default="fcfs,easy,conservative,slots")
    ap.add_argument("--reference", default="conservative", help="policies also timed with the reference kernel")
    args = ap.parse_args(argv)
    best: dict[tuple[str, str], float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for policy in args.policies.split(","):
            kernels = ["compiled"] + (["reference"] if policy in args.reference.split(",") else [])
            for kernel in kernels:
                out = Path(tmp) / f"{policy}-{kernel}.csv"
                best[policy, kernel] = min(run(args.trace, policy, kernel, out) for _ in range(args.repeat))
                print(f"{policy:<13} {kernel:<9} {best[policy, kernel]:7.2f} s", flush=True)
            if len(kernels) == 2:
                same = filecmp.cmp(Path(tmp) / f"{policy}-compiled.csv", Path(tmp) / f"{policy}-reference.csv",
                                   shallow=False)
                print(f"{policy:<13} rows identical under both kernels: {same}", flush=True)
    c = {p: best[p, "compiled"] for p, k in best if k == "compiled"}
    if "conservative" in c and "fcfs" in c:
        print(f"conservative / fcfs: {c['conservative'] / c['fcfs']:.2f} (goal <= 1.5)")
    if "slots" in c and "conservative" in c:
        print(f"slots / conservative: {c['slots'] / c['conservative']:.2f} (goal <= 1.5)")
    if ("conservative", "reference") in best:
        print(f"conservative reference / compiled: {best['conservative', 'reference'] / c['conservative']:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
