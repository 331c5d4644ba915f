"""The Penalty Scheduling Policy experiment: average wait per accuracy class per scenario.

Reproduces the shape of Table 3 of Rocchetti, Iturriaga & Nesmachnow (seed
``rocchetti-penalty-scheduling-policy.txt``, Sec. 6): the paper's default synthetic
workload (`gridmarket.workloads.behaviour.paper_workload`) under each user-behaviour
scenario of Table 2 (`gridmarket.workloads.behaviour.SCENARIOS`), run on one machine
under PSP (`gridmarket.scheduling.psp`), and each user's jobs averaged into the class of
the user's end-of-run accuracy (`gridmarket.scheduling.psp.class_waits`). This module
only composes those functions.

Run it as ``python -P -m gridmarket.scenarios.harnesses.psp --seed 1`` (``--help`` for options). Times are
seconds in the returned table; the command prints minutes, as the paper does.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from gridmarket.atomicfile import write_atomic
from gridmarket.errors import InvalidInput, MarketError
from gridmarket.scenarios.options import bounded, checked
from gridmarket.scheduling import LocalScheduler, policy_names, resolve_policy
from gridmarket.scheduling.psp import CLASSES, class_waits
from gridmarket.scheduling.slurm import SLURM_WEIGHTS, SlurmPSPScheduler
from gridmarket.simulation import simulate
from gridmarket.validation import check_fits_memory
from gridmarket.workloads.behaviour import PAPER_N_JOBS, PAPER_N_USERS, SCENARIOS, apply_behaviour, paper_workload

__all__ = ["CLUSTER_FING_PROCS", "DEFAULT_PROCS", "DEFAULT_WORKLOADS", "SlurmWithoutPSP", "class_wait_table", "main"]

DEFAULT_PROCS = 64
"""Machine size of the earlier reading (``rocchetti-psp-64``): on 64 processors the default workload offers
about 1.2-1.8x the machine's capacity and average waits are hundreds to thousands of minutes, the order of
Table 3. The paper's machine is :data:`CLUSTER_FING_PROCS`."""

CLUSTER_FING_PROCS = 1672
"""Cores of Cluster FING, the machine the paper's simulations model (Sec. 2.1: "an heterogeneous cluster of
computing resources with 1672 cores"; Sec. 2.3: "The hardware infrastructure used on the simulations is also
based on Cluster FING")."""


class SlurmWithoutPSP(SlurmPSPScheduler):
    """SLURM's multifactor priority and backfill pass with PSP's weight set to 0: the control of the SLURM
    reading (the same scheduler with the mechanism under test switched off; Rocchetti et al., Sec. 4)."""

    def __init__(self, procs: int, **kwargs) -> None:
        kwargs.setdefault("weights", replace(SLURM_WEIGHTS, psp=0.0))
        super().__init__(procs, **kwargs)

DEFAULT_WORKLOADS = 4
"""Workloads per scenario: the paper runs "four simulations ... considering different
workload patterns" for each scenario (Sec. 1; 24 = 6 x 4 runs, Sec. 6)."""


def class_wait_table(
    *,
    seed: int = 1,
    scenarios: Sequence[str] = tuple(SCENARIOS),
    procs: int = DEFAULT_PROCS,
    n_workloads: int = DEFAULT_WORKLOADS,
    n_jobs: int = PAPER_N_JOBS,
    n_users: int = PAPER_N_USERS,
    policy: str | type[LocalScheduler] = "psp",
    by: str = "user",
    max_estimate: int | None = None,
) -> pd.DataFrame:
    """Average wait (seconds) of each accuracy class under each scenario: Table 3's shape.

    Parameters
    ----------
    seed : int
        Root of every random stream: ``SeedSequence(seed)`` spawns one child per
        workload, and each of those one child for the workload and one per
        scenario, so adding a scenario never changes the others.
    scenarios : sequence of str
        Tags of Table 2 (rows of the table, in this order).
    procs : int
        Machine size.
    n_workloads : int
        Workloads per scenario; a class's wait is the mean over the workloads in
        which the class has users.
    n_jobs, n_users : int
        Size of each workload (paper: 1000 jobs, 20 users).
    policy : str or scheduler class
        Local policy; ``"easy"`` gives the baseline without penalties.
    by : {"user", "job"}
        How waits are averaged within a class (see `class_waits`).
    max_estimate : int, optional
        The queue's longest request, seconds: longer estimates are cut to it
        (`gridmarket.workloads.behaviour.with_accuracies`). None: no cap.

    Returns
    -------
    pandas.DataFrame
        Rows by scenario, columns classes 1..5; NaN where no user ended in the
        class. ``attrs`` hold ``seed, procs, n_workloads, policy, max_estimate, unit`` and a
        readable ``run_id``.

    Raises
    ------
    InvalidInput
        Unknown scenario or policy, or a count < 1.

    Examples
    --------
    >>> t = class_wait_table(seed=1, scenarios=["CF"], n_workloads=1, n_jobs=300, procs=32)
    >>> list(t.index), list(t.columns), t.attrs["run_id"]
    (['CF'], [1, 2, 3, 4, 5], 'rocchetti-psp-CF-p32-w1-seed1')
    """
    unknown = [s for s in scenarios if s not in SCENARIOS]
    if unknown or not scenarios:
        raise InvalidInput(f"unknown scenario(s) {unknown}; known: {', '.join(SCENARIOS)}")
    resolve_policy(policy)
    counts = (("procs", procs), ("n_workloads", n_workloads), ("n_jobs", n_jobs), ("n_users", n_users))
    for name, value in counts:
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise InvalidInput(f"{name} must be an int >= 1, got {value!r}")
    per_workload = []
    for child in np.random.SeedSequence(seed).spawn(n_workloads):
        workload_seed, *scenario_seeds = child.spawn(1 + len(SCENARIOS))
        workload = paper_workload(n_jobs, n_users=n_users, rng=np.random.default_rng(workload_seed))
        streams = dict(zip(SCENARIOS, scenario_seeds))
        rows = {}
        for name in scenarios:
            jobs = apply_behaviour(workload, name, n_users=None, max_estimate=max_estimate,
                                   rng=np.random.default_rng(streams[name]))
            records = simulate(jobs, procs=procs, policy=policy).records
            rows[name] = class_waits(records, by=by)
        per_workload.append(pd.DataFrame(rows).T)
    table = pd.concat(per_workload).groupby(level=0, sort=False).mean().reindex(list(scenarios))
    table = table.reindex(columns=list(CLASSES))
    table.index.name, table.columns.name = "scenario", "class"
    name = policy if isinstance(policy, str) else policy.__name__
    tag = name if len(scenarios) == len(SCENARIOS) else f"{name}-{'-'.join(scenarios)}"
    cap = "" if max_estimate is None else f"-cap{max_estimate}"
    table.attrs.update(
        seed=seed, procs=procs, n_workloads=n_workloads, policy=name, max_estimate=max_estimate, unit="seconds",
        run_id=f"rocchetti-{tag}-p{procs}{cap}-w{n_workloads}-seed{seed}",
    )
    return table


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -P -m gridmarket.scenarios.harnesses.psp",
        description="Average wait per accuracy class per user-behaviour scenario "
        "(Rocchetti et al., Table 3), printed in minutes.",
    )
    parser.add_argument("--seed", type=bounded("seed"), default=1, help="root seed (default 1)")
    parser.add_argument("--scenarios", nargs="+", default=list(SCENARIOS), choices=list(SCENARIOS),
                        help="Table 2 scenarios (default: all six)")
    parser.add_argument("--procs", type=bounded("processors"), default=DEFAULT_PROCS,
                        help=f"machine size (default {DEFAULT_PROCS})")
    parser.add_argument("--workloads", type=bounded("runs"), default=DEFAULT_WORKLOADS,
                        help=f"workloads per scenario, averaged (default {DEFAULT_WORKLOADS})")
    parser.add_argument("--jobs", type=bounded("jobs", low=1), default=PAPER_N_JOBS,
                        help=f"jobs per workload (default {PAPER_N_JOBS})")
    parser.add_argument("--users", type=bounded("users"), default=PAPER_N_USERS, help=f"users (default {PAPER_N_USERS})")
    parser.add_argument("--policy", default="psp", type=checked(resolve_policy),
                        help=f"local policy: {', '.join(policy_names())} or a plug-in 'package.module:Name' "
                        "(default psp)")
    parser.add_argument("--by", default="user", choices=("user", "job"),
                        help="average per user then per class (paper), or over the class's jobs")
    parser.add_argument("--out", help="also write the table (seconds) to this CSV file")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Print the per-class wait table (minutes); return the exit status."""
    args = _parser().parse_args(argv)
    try:
        check_fits_memory("--jobs", args.jobs)
        table = class_wait_table(
            seed=args.seed, scenarios=args.scenarios, procs=args.procs, n_workloads=args.workloads,
            n_jobs=args.jobs, n_users=args.users, policy=args.policy, by=args.by,
        )
        if args.out:
            out = Path(args.out)
            out.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(out, table.to_csv())
    except (MarketError, OSError) as err:
        print(f"psp: error: {err}", file=sys.stderr)
        return 2
    a = table.attrs
    print(f"{a['run_id']}: average wait (minutes) per accuracy class, {a['policy']} on {a['procs']} "
          f"processors, mean of {a['n_workloads']} workload(s), seed {a['seed']}")
    print((table / 60).round(1).to_string(na_rep="-"))
    if args.out:
        print(f"\nwrote the table (seconds) to {args.out}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
