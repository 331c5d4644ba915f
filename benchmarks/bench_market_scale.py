"""How each interaction model's whole command grows with providers and jobs: a grid-scale matrix.

Run from the repository root::

    .venv/bin/python benchmarks/bench_market_scale.py --providers 3,12,48 --jobs 1500,15000 \\
        --models best-effort,greedy,vickrey,double,dbc,sla --timeout 600 [--out out/market-scale]

Each cell is one ``gridmarket compare`` process (start-up included) on a scenario written to
``--out``: N providers of 64 processors whose policies cycle easy, conservative, slots (prices
synthetic), Lublin jobs sized for 64 processors with Tsafrir estimates, 20 users (``--users``; user
``u`` at home on provider ``u mod N``; ``--users providers`` gives one per provider), 4 workflows of 8
tasks, the offered load scaled with N (``load_factor`` = 2.5 N, so every provider sees the same
load whatever N -- if users are spread over all N), the job markets trading every minute as in
``auction-market``. Prints a Markdown table of wall seconds, the child's user CPU seconds and peak
resident MB per cell (``> T`` when a cell ran past ``--timeout``
and was stopped), then the growth exponent of wall time in jobs and in providers per model (least
squares of log time on log size over the finished cells, start-up not subtracted).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
POLICIES = ("easy", "conservative", "slots")


def scenario_toml(providers: int, jobs: int, users: int = 20) -> str:
    """The scenario of one cell, as TOML (times s, prices per MWh, power W per busy processor).

    User ``u``'s home provider is ``u mod providers``: with fewer users than providers, only
    ``users`` providers receive the best-effort jobs (and the jobs no market places).
    """
    lines = [f'name = "scale-{providers}x{jobs}"', "seed = 1", ""]
    for i in range(providers):
        lines += ["[[providers]]", f'name = "p{i:03d}"', "procs = 64", f'policy = "{POLICIES[i % 3]}"',
                  'prices = "synthetic"', f"price_per_mwh = {40.0 + 5.0 * (i % 4)}",
                  f"watts_per_proc = {15.0 + 5.0 * (i % 3)}", ""]
    lines += ["[workload]", 'source = "lublin"', f"n_jobs = {jobs}", "procs = 64", 'estimates = "tsafrir"',
              f"load_factor = {2.5 * providers}", f"n_users = {users}", "n_workflows = 4", "workflow_tasks = 8",
              "workflow_runtime = 1800.0", "workflow_procs = 4.0", "",
              "[parameters]", "alpha = 0.5", "reservation_fraction = 0.0", "cycle_seconds = 60",
              "population = 20", "generations = 5", "wait_history = 0", ""]
    return "\n".join(lines)


def run_cell(folder: Path, providers: int, jobs: int, model: str, timeout: float,
             users: int = 20) -> tuple[float | None, float, float]:
    """(wall seconds or None past ``timeout``, user CPU seconds, peak resident MB) of one ``compare`` process."""
    folder.mkdir(parents=True, exist_ok=True)
    scenario = folder / f"scale-{providers}x{jobs}-u{users}.toml"
    scenario.write_text(scenario_toml(providers, jobs, users))
    out = folder / f"out-{providers}x{jobs}-u{users}-{model}"
    command = [sys.executable, "-m", "gridmarket.scenarios.commands.cli", "compare", "--scenario", str(scenario),
               "--models", model, "--out", str(out), "--force"]
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    while True:  # os.wait4 gives this child's own peak memory (RUSAGE_CHILDREN would be the largest so far)
        pid, status, usage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() - start > timeout:
            child.kill()
            os.wait4(child.pid, 0)
            return None, float("nan"), float("nan")
        time.sleep(0.05)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"bench_market_scale: {model} at {providers}x{jobs} failed: {child.stderr.read()[-400:]}")
    return wall, usage.ru_utime, usage.ru_maxrss / 1024.0


def exponent(sizes: list[float], walls: list[float]) -> float | None:
    """Slope of log wall on log size (None with fewer than two distinct sizes)."""
    if len(set(sizes)) < 2:
        return None
    return float(np.polyfit(np.log(sizes), np.log(walls), 1)[0])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--providers", default="3,12,48")
    parser.add_argument("--jobs", default="1500,15000")
    parser.add_argument("--models", default="best-effort,greedy,vickrey,double,dbc,sla")
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--users", default="20",
                        help="users (each at home on user mod N), or 'providers': one user per provider")
    parser.add_argument("--out", type=Path, default=ROOT / "out" / "market-scale")
    args = parser.parse_args()
    providers = [int(x) for x in args.providers.split(",")]
    jobs = [int(x) for x in args.jobs.split(",")]
    models = args.models.split(",")
    cells: dict[tuple[int, int, str], tuple[float | None, float, float]] = {}
    for n in providers:
        for j in jobs:
            for model in models:
                cells[n, j, model] = run_cell(args.out, n, j, model, args.timeout,
                                              n if args.users == "providers" else int(args.users))
                wall, cpu, peak = cells[n, j, model]
                shown = f"> {args.timeout:.0f}" if wall is None else f"{wall:.1f}"
                print(f"  {n} x {j} {model}: {shown} s, {cpu:.1f} s CPU, {peak:.0f} MB", file=sys.stderr, flush=True)
    print("| providers × jobs | " + " | ".join(models) + " |")
    print("|---|" + "---:|" * len(models))
    for n in providers:
        for j in jobs:
            row = []
            for model in models:
                wall, cpu, peak = cells[n, j, model]
                row.append(f"> {args.timeout:.0f} s" if wall is None else f"{wall:.1f} s ({cpu:.1f} CPU), {peak:.0f} MB")
            print(f"| {n} × {j:,} | " + " | ".join(row) + " |")
    print()
    print("| model | exponent in jobs (at each provider count) | exponent in providers (at each job count) |")
    print("|---|---|---|")
    for model in models:
        in_jobs = []
        for n in providers:
            done = [(j, cells[n, j, model][0]) for j in jobs if cells[n, j, model][0] is not None]
            e = exponent([float(j) for j, _ in done], [w for _, w in done])
            in_jobs.append(f"{n}: {'–' if e is None else f'{e:.2f}'}")
        in_providers = []
        for j in jobs:
            done = [(n, cells[n, j, model][0]) for n in providers if cells[n, j, model][0] is not None]
            e = exponent([float(n) for n, _ in done], [w for _, w in done])
            in_providers.append(f"{j:,}: {'–' if e is None else f'{e:.2f}'}")
        print(f"| {model} | {', '.join(in_jobs)} | {', '.join(in_providers)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
