"""A null event loop: the same events as a simulation, no scheduling decisions.

This is a measuring stick for ``bench_core.py``, not product code. Given the
jobs of a workload and the end time each job had in a real simulation, it
replays the two events every job has -- its arrival at ``submit`` and its
completion at ``end`` -- through a plain :mod:`heapq` event loop in time order.
It keeps only the bookkeeping every simulator must keep (a waiting set, a
running set, free processors, the clock and the number of distinct event
times) and makes no decision: a job "starts" the moment it arrives, and its
completion is already known. Whatever a real simulator spends beyond this loop
is what its scheduling costs.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence


def null_event_loop(jobs: Sequence, ends: Mapping[int, int], procs: int) -> dict[str, int]:
    """Replay arrivals and completions of ``jobs`` in time order; decide nothing.

    The loop has the shape of :meth:`gridmarket.simulation.MachineSimulation.run_until`
    with the policy taken out: arrivals are read in order from ``jobs``,
    completions live in a :mod:`heapq` of ``(time, seq, job)``, and at each
    event time every completion is applied before every arrival. An arriving
    job "starts" at once and its completion is pushed at the end time it had
    in the real run -- no queue is ever scanned, no plan is ever made.

    Parameters
    ----------
    jobs : sequence of Job
        In submit order (anything with ``id``, ``submit`` and ``procs``).
    ends : mapping of int to int
        End time of every job (``start + min(runtime, estimate)``), by job id.
    procs : int
        Machine size; only counted, never checked.

    Returns
    -------
    dict
        ``events`` processed, distinct event ``times`` and the final ``clock``.

    Examples
    --------
    >>> from types import SimpleNamespace as J
    >>> null_event_loop([J(id=1, submit=0, procs=2), J(id=2, submit=5, procs=1)], {1: 10, 2: 7}, 4)
    {'events': 4, 'times': 4, 'clock': 10}
    """
    heap: list[tuple[int, int, object]] = []
    push, pop = heapq.heappush, heapq.heappop
    running: dict[int, object] = {}
    free = procs
    n = len(jobs)
    i = seq = events = times = 0
    t = clock = -1
    while True:
        t = heap[0][0] if heap else None
        if i < n and (t is None or jobs[i].submit < t):
            t = jobs[i].submit
        if t is None:
            break
        clock = t
        times += 1
        while heap and heap[0][0] == t:
            job = pop(heap)[2]
            del running[job.id]
            free += job.procs
            events += 1
        while i < n and jobs[i].submit == t:
            job = jobs[i]
            i += 1
            events += 1
            # no decision: the job runs at once; its end comes from the real run
            running[job.id] = job
            free -= job.procs
            seq += 1
            push(heap, (ends[job.id], seq, job))
    return {"events": events, "times": times, "clock": clock}
