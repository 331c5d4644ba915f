"""Why the machine simulation keeps its own heap: Mesa 3.5 events vs heapq on trace events.

Replays the arrival and end events of a real trace run (EASY on the chosen
trace) through (a) a bare ``heapq`` loop and (b) ``mesa.Model.schedule_event``
+ ``run_until``, each event calling a trivial bound method. Prints events/s.

Run from the repo root: ``.venv/bin/python benchmarks/bench_mesa_events.py [--trace PATH] [--jobs N]``
"""

from __future__ import annotations

import argparse
import heapq
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import mesa  # noqa: E402
from datafiles import given_or_registered  # noqa: E402

from gridmarket.simulation import simulate  # noqa: E402
from gridmarket.workloads import read_swf  # noqa: E402


class _Counter(mesa.Model):
    def __init__(self):
        super().__init__(rng=1)
        self._default_schedule.stop()  # pure discrete-event time, no 1.0 ticks
        self.n = 0

    def hit(self):
        self.n += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", help="SWF trace (default: the registered CTC-SP2, from $GRIDMARKET_DATA or the cache)")
    parser.add_argument("--jobs", type=int, default=None)
    args = parser.parse_args()
    trace = given_or_registered(args.trace, "traces/CTC-SP2-1996-3.1-cln.swf.gz", needed_by="bench_mesa_events")
    workload = read_swf(trace)
    jobs = workload.jobs[: args.jobs] if args.jobs else workload.jobs
    rec = simulate(jobs, procs=workload.max_procs, policy="easy").records
    times = sorted(rec["submit"].tolist() + rec["end"].tolist())
    n = len(times)

    counter = _Counter()
    t0 = time.perf_counter()
    heap = [(t, i, counter.hit) for i, t in enumerate(times)]
    heapq.heapify(heap)
    while heap:
        heapq.heappop(heap)[2]()
    bare = time.perf_counter() - t0

    model = _Counter()
    t0 = time.perf_counter()
    for t in times:
        model.schedule_event(model.hit, at=float(t))
    model.run_until(float(times[-1]) + 1)
    mesa_s = time.perf_counter() - t0
    assert model.n == n == counter.n

    print(f"trace {trace.name}: {len(rec)} jobs, {n} events")
    print(f"{'engine':<28}{'seconds':>10}{'events/s':>14}")
    print(f"{'heapq loop':<28}{bare:>10.3f}{n / bare:>14,.0f}")
    print(f"{'mesa schedule_event+run':<28}{mesa_s:>10.3f}{n / mesa_s:>14,.0f}")
    print(f"ratio mesa/heapq: {mesa_s / bare:.1f}x")


if __name__ == "__main__":
    main()
