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
with its extensions built in place), in the same rounds. A checkout with an import tree
(``tools/import_tree.py``, ``.import/``) runs from it, first on ``PYTHONPATH``, so each command
imports its own checkout's sources (printed at the start). It is not part of the test suite.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from datafiles import given_or_registered  # noqa: E402

CTC = "traces/CTC-SP2-1996-3.1-cln.swf.gz"
GOAL = 2.0


def checkout_env(root: Path) -> dict[str, str]:
    """The environment of a command in ``root``: its import tree first on PYTHONPATH, when it has one."""
    env = dict(os.environ)
    tree = root / ".import"
    if tree.is_dir():
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(tree), env.get("PYTHONPATH", "")) if p)
    return env


def checkout_source(root: Path) -> str:
    """Where ``import gridmarket`` finds the package for commands run in ``root``."""
    cmd = [sys.executable, "-P", "-c", "import gridmarket; print(gridmarket.__file__)"]
    return subprocess.run(cmd, cwd=root, env=checkout_env(root), check=True, capture_output=True, text=True).stdout.strip()


def _run(root: Path, trace: str, policy: str, fraction: float) -> tuple[float, float]:
    """Wall and CPU seconds (user + system of the command) of one command."""
    cmd = [sys.executable, "-P", "-m", "gridmarket.scenarios.harnesses.pricing_replay", "--trace", trace, "--policy", policy,
           "--fraction", str(fraction)]
    env = checkout_env(root)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=root, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


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
    for name, root in trees.items():
        print(f"{name}: gridmarket from {checkout_source(root)}")
    times: dict[tuple[str, float], list[float]] = {(name, f): [] for name in trees for f in (0.0, 0.1)}
    cpus: dict[tuple[str, float], list[float]] = {(name, f): [] for name in trees for f in (0.0, 0.1)}
    loads = []
    for _ in range(args.repeat):
        for name, root in trees.items():
            for fraction in (0.0, 0.1):
                wall, cpu = _run(root, trace, args.policy, fraction)
                times[name, fraction].append(wall)
                cpus[name, fraction].append(cpu)
        loads.append(os.getloadavg()[0])
    print(f"trace {Path(trace).name}, policy {args.policy}, load average {min(loads):.2f}-{max(loads):.2f}")
    for name in trees:
        plain, priced = times[name, 0.0], times[name, 0.1]
        print(f"{name}:")
        print(f"  plain  (--fraction 0):   {', '.join(f'{t:.2f}' for t in plain)} s; best {min(plain):.2f} s")
        print(f"  priced (--fraction 0.1): {', '.join(f'{t:.2f}' for t in priced)} s; best {min(priced):.2f} s")
        ratio = min(priced) / min(plain)
        print(f"  priced / plain = {ratio:.2f} (goal <= {GOAL:g}: {'met' if ratio <= GOAL else 'not met'})")
        print(f"  CPU s (user + system; less sensitive to other work on the machine): plain "
              f"{', '.join(f'{c:.2f}' for c in cpus[name, 0.0])}, best {min(cpus[name, 0.0]):.2f}; priced "
              f"{', '.join(f'{c:.2f}' for c in cpus[name, 0.1])}, best {min(cpus[name, 0.1]):.2f}")
    if len(trees) == 2:
        (old, _), (new, _) = trees.items()
        for fraction, label in ((0.0, "plain"), (0.1, "priced")):
            print(f"{label}: {new} / {old} = {min(times[new, fraction]) / min(times[old, fraction]):.3f} wall, "
                  f"{min(cpus[new, fraction]) / min(cpus[old, fraction]):.3f} CPU (bests)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
