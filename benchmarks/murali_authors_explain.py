"""Murali & Vadhiyar at the authors' set-up: the measurements behind the failing directions, pooled over seeds.

Reads the ``report.csv`` of finished ``gridmarket run murali-xsede --size full --seed S --out DIR/seedS``
runs (no simulation) and prints, as mean [95 % interval] over the seeds (bootstrap percentile for amounts,
Student t for changes, :mod:`gridmarket.scenarios.intervals`):

* per strategy: mean response, electricity cost, energy, and the price paid per MWh (cost / energy),
  which splits a cost change into the energy used and the prices it was bought at;
* per system: the offered load, and the mean wait and number of jobs under BS and MCMF w_t = 25 %
  (sec. 5.6's account: Gordon's baseline jobs barely wait; Queenbee, Mason, Blacklight are loaded).

    .venv/bin/python -P benchmarks/murali_authors_explain.py out/murali-xsede-full/seed*
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

from gridmarket.scenarios.intervals import interval

STRATEGIES = ("bs", "mcmf-w100", "mcmf-w50", "mcmf-w25", "mcmf-w0", "twoprice-w25", "inst")
SYSTEMS = ("Blacklight", "Darter", "Gordon", "Trestles", "Mason", "Lonestar", "Queenbee", "Steele")


def _figures(folder: Path) -> dict[str, float]:
    with open(folder / "report.csv", newline="", encoding="utf-8") as f:
        return {r["metric"]: float(r["ours"]) for r in csv.DictReader(f) if r["kind"] == "figure"}


def _cell(values: list[float], digits: int = 1, *, low: float | None = 0.0) -> str:
    """Mean [95 % interval] of ``values``, an amount (lowest value ``low``) or a change (``low=None``)."""
    s = interval(values, low=low)
    return f"{s.mean:,.{digits}f} [{s.low:,.{digits}f}, {s.high:,.{digits}f}]"


def main(folders: list[str]) -> None:
    runs = [_figures(Path(f)) for f in folders]
    print(f"{len(runs)} seeds: {', '.join(Path(f).name for f in folders)}\n")
    print("| strategy | mean response (min) | response change vs BS (%) | cost (USD) | energy (MWh) | "
          "price paid (USD/MWh) | cost change vs BS (%) |")
    print("|---|---|---|---|---|---|---|")
    for s in STRATEGIES:
        if f"{s}: mean response" not in runs[0]:
            continue
        resp = [r[f"{s}: mean response"] for r in runs]
        cost = [r[f"{s}: electricity cost"] for r in runs]
        mwh = [r[f"{s}: energy"] for r in runs]
        d_resp = [100 * (r[f"{s}: mean response"] / r["bs: mean response"] - 1) for r in runs]
        d_cost = [100 * (r[f"{s}: electricity cost"] / r["bs: electricity cost"] - 1) for r in runs]
        print(f"| {s} | {_cell(resp)} | {_cell(d_resp, low=None)} | {_cell(cost, 0)} | {_cell(mwh)} | "
              f"{_cell([c / e for c, e in zip(cost, mwh)], 2)} | {_cell(d_cost, low=None)} |")
    print("\n| system | offered load (%) | BS: mean wait (min) | MCMF w_t = 25 %: mean wait (min) | "
          "BS: jobs | MCMF w_t = 25 %: jobs |")
    print("|---|---|---|---|---|---|")
    for name in SYSTEMS:
        print(f"| {name} | {_cell([r[f'offered load, {name}'] for r in runs])} | "
              f"{_cell([r[f'bs: mean wait on {name}'] for r in runs])} | "
              f"{_cell([r[f'mcmf-w25: mean wait on {name}'] for r in runs])} | "
              f"{_cell([r[f'bs: jobs run on {name}'] for r in runs], 0)} | "
              f"{_cell([r[f'mcmf-w25: jobs run on {name}'] for r in runs], 0)} |")
    print()
    # what the most loaded system adds to BS's mean (response = wait + run time; the waits are per system)
    for label in ("bs", "mcmf-w25"):
        def mean_wait(r, skip=(), label=label):  # this iteration's label
            jobs = {n: r[f"{label}: jobs run on {n}"] for n in SYSTEMS if n not in skip}
            return sum(jobs[n] * r[f"{label}: mean wait on {n}"] for n in jobs) / sum(jobs.values())
        print(f"{label}: mean wait {_cell([mean_wait(r) for r in runs])} min; without Queenbee's jobs "
              f"{_cell([mean_wait(r, ('Queenbee',)) for r in runs])} min")
    share = [100 * r["mcmf-w25: jobs run on Gordon"] / sum(r[f"mcmf-w25: jobs run on {n}"] for n in SYSTEMS)
             for r in runs]
    print(f"mcmf-w25: share of the jobs on Gordon {_cell(share)} %")


if __name__ == "__main__":
    main(sys.argv[1:])
