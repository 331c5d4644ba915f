"""Cost of EASY what-if pricing: form-19 quotes on states of a replayed trace.

Run from the repository root::

    .venv/bin/python benchmarks/bench_easy_forecast.py [--trace PATH] [--jobs N] [--states K]

Replays the first ``--jobs`` jobs of the trace (default the registered CTC-SP2,
from ``$GRIDMARKET_DATA`` or the cache) under EASY, takes ``--states`` provider states at
evenly spaced submissions, and on each asks form 19 (Singh 2008, ch. 5.2)
for a 32-processor x 1 h and a 64-processor x 4 h slot from one hour ahead:
every candidate that does not fit beside the plan is priced by running EASY
forward from the state with the slot (Fig. 22 under aggressive backfilling,
``gridmarket.pricing.forecast``). Prints CPU seconds and a checksum of the prices,
so two code versions can be compared on the same states::

    PYTHONPATH=/path/to/other/checkout .venv/bin/python benchmarks/bench_easy_forecast.py

Not part of the test suite.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from datafiles import given_or_registered  # noqa: E402

CTC = "traces/CTC-SP2-1996-3.1-cln.swf.gz"


def main(argv: list[str] | None = None) -> int:
    from gridmarket.pricing.externality import ExternalityPricer
    from gridmarket.pricing.quotes import quote_earliest
    from gridmarket.pricing.state import state_from_scheduler
    from gridmarket.scheduling import EASYScheduler
    from gridmarket.simulation import MachineSimulation
    from gridmarket.workloads import read_swf

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", help=f"SWF trace (default: the registered {CTC}, from $GRIDMARKET_DATA or the cache)")
    parser.add_argument("--jobs", type=int, default=20000, help="jobs replayed (default 20000)")
    parser.add_argument("--states", type=int, default=30, help="provider states priced (default 30)")
    args = parser.parse_args(argv)
    trace = given_or_registered(args.trace, CTC, needed_by="bench_easy_forecast")
    warnings.simplefilter("ignore")
    workload = read_swf(trace)
    procs = workload.max_procs
    jobs = [j for j in workload.jobs if j.procs <= procs][: args.jobs]
    sim = MachineSimulation(EASYScheduler(procs), jobs)
    first = len(jobs) // 10
    states = []
    for k in range(args.states):
        sim.run_until(jobs[first + k * (len(jobs) - first - 1) // args.states].submit)
        states.append(state_from_scheduler(sim.scheduler, sim.now))
    t0 = time.process_time()
    quotes, total = 0, 0.0
    for state in states:
        pricer = ExternalityPricer(state, policy="easy")
        for n, d in ((32, 3600), (64, 4 * 3600)):
            found = quote_earliest(pricer, state.now + 3600, n, d)
            quotes += len(found)
            total += sum(q.fixed_cost for q in found)
    cpu = time.process_time() - t0
    queue = sum(len(s.queue) for s in states) / len(states)
    print(f"{trace.name}: {len(states)} states, mean queue {queue:.0f} jobs, {quotes} quotes")
    print(f"cpu {cpu:.2f} s ({1000 * cpu / quotes:.1f} ms a quote); price checksum {total:.3f} SU")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
