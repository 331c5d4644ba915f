"""How a sweep's wall time falls with workers: the local process pool and a Dask LocalCluster.

Run from the repository root on a quiet machine::

    .venv/bin/python benchmarks/bench_sweep_scaling.py --workers 1,2 --seeds 8 [--repeat 2]

Each cell is one ``gridmarket sweep`` process (start-up and the cluster's start included) over
``auction-market`` with ``--grid seed=1..S --grid model=best-effort,dbc --grid workload.n_jobs=J``
(2 S runs, about 6 s each at the default 20,000 jobs), once per executor (``local``: a process pool of W processes; ``dask``: a loopback
``LocalCluster`` of W single-threaded worker processes, the cluster recipe's form) and worker
count W. Prints a Markdown table of wall seconds (best of ``--repeat``), the speed-up over one
worker of the same executor and the parallel efficiency (speed-up / W), and checks that every
cell's ``sweep.csv`` holds the same rows but for the ``seconds`` column. With ``--figure PATH``
also draws the speed-up against W beside the ideal line.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]


def run_cell(executor: str, workers: int, seeds: int, jobs: int, out: Path) -> float:
    """Wall seconds of one ``gridmarket sweep`` process."""
    cmd = [sys.executable, "-m", "gridmarket.scenarios.commands.cli", "sweep", "auction-market",
           "--grid", f"seed=1..{seeds}", "--grid", "model=best-effort,dbc", "--grid", f"workload.n_jobs={jobs}",
           "--executor", executor, "--workers", str(workers), "--out", str(out)]
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env={**os.environ, "PYTHONHASHSEED": "0"})
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", default="1,2", help="worker counts, e.g. 1,2,4")
    parser.add_argument("--seeds", type=int, default=8, help="seeds per model (runs = 2 x seeds)")
    parser.add_argument("--jobs", type=int, default=20000, help="jobs per run (about 6 s a run at 20,000)")
    parser.add_argument("--executors", default="local,dask")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--figure", type=Path, help="write the speed-up figure here (PNG)")
    args = parser.parse_args(argv)
    counts = [int(w) for w in args.workers.split(",")]
    if counts[0] != 1:
        parser.error("--workers must start at 1 (the speed-up is over one worker)")
    executors = args.executors.split(",")
    best: dict[tuple[str, int], float] = {}
    tables: dict[tuple[str, int], pd.DataFrame] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.repeat):
            for executor in executors:  # alternate, so a change of load hits every cell alike
                for w in counts:
                    out = Path(tmp) / f"{executor}-{w}"
                    shutil.rmtree(out, ignore_errors=True)
                    seconds = run_cell(executor, w, args.seeds, args.jobs, out)
                    best[executor, w] = min(seconds, best.get((executor, w), float("inf")))
                    tables[executor, w] = pd.read_csv(out / "sweep.csv").drop(columns="seconds")
                    print(f"{executor} x {w}: {seconds:.2f} s", file=sys.stderr)
    first = next(iter(tables.values()))
    for key, table in tables.items():
        pd.testing.assert_frame_equal(table, first, obj=f"sweep.csv of {key}")
    print(f"{2 * args.seeds} runs (auction-market, {args.jobs} jobs, seeds 1..{args.seeds}, models best-effort and dbc); "
          f"load average before the last cell {os.getloadavg()[0]:.2f}; every cell's rows equal\n")
    print("| executor | workers | wall s | speed-up | efficiency |")
    print("|---|---:|---:|---:|---:|")
    for executor in executors:
        one = best[executor, 1]
        for w in counts:
            speedup = one / best[executor, w]
            print(f"| {executor} | {w} | {best[executor, w]:.2f} | {speedup:.2f} | {speedup / w:.2f} |")
    if args.figure is not None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(4.5, 3.2), layout="constrained")
        ax.plot(counts, counts, color="0.6", linestyle="--", label="ideal")
        for executor in executors:
            one = best[executor, 1]
            ax.plot(counts, [one / best[executor, w] for w in counts], marker="o", label=executor)
        ax.set_xlabel("workers (processes)")
        ax.set_ylabel("speed-up over one worker")
        ax.set_xticks(counts)
        ax.legend()
        fig.savefig(args.figure, dpi=120)
    return 0


if __name__ == "__main__":
    sys.exit(main())
