"""VAR and combined brokers with empty vs replayed wait histories, over many seeds of one scenario.

Run from the repository root::

    .venv/bin/python benchmarks/bench_var_history.py [--scenario quickstart] [--seeds 30]

For each seed the scenario's ``var`` and ``combined`` interaction models run
twice on the same workload: ``parameters.wait_history = 0`` (the brokers'
QBETS bounds start empty, Singh ch. 6.1) and ``2000`` (each site's bounds
learn from 2000 replayed past jobs first). Prints the reservation success
rate, the mean extra cost over n·D of the met requests (ch. 6.3), the mean
wait of the users' jobs (s) and the allocation cost (SU), per model and
history, averaged over the seeds. Not part of the test suite.
"""

from __future__ import annotations

import argparse
from dataclasses import replace

import pandas as pd

from gridmarket.scenarios.experiment import run_model
from gridmarket.scenarios.registry import get_scenario


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", default="quickstart")
    parser.add_argument("--seeds", type=int, default=30, help="seeds 1..N (default 30)")
    args = parser.parse_args()
    rows = []
    base = get_scenario(args.scenario)
    for seed in range(1, args.seeds + 1):
        for history in (0, 2000):
            config = replace(base, seed=seed, parameters=replace(base.parameters, wait_history=history))
            for model in ("var", "combined"):
                s = run_model(config, model).summary
                rows.append({"seed": seed, "model": model, "history": history,
                             "success": s["reservation_success"], "extra_cost": s["reservation_cost"],
                             "mean_wait_s": s["mean_wait"], "allocation_SU": s["allocation_cost"]})
    frame = pd.DataFrame(rows)
    table = frame.groupby(["model", "history"])[["success", "extra_cost", "mean_wait_s", "allocation_SU"]].mean()
    print(f"{args.scenario}, seeds 1..{args.seeds}, means over seeds")
    print(table.round(3).to_string())
    wide = frame.pivot_table(index=["seed", "model"], columns="history", values="extra_cost")
    cheaper = (wide[2000] < wide[0]).groupby("model").sum()
    print("seeds where the warm history is cheaper:", cheaper.to_dict(), f"of {args.seeds}")


if __name__ == "__main__":
    main()
