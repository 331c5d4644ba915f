"""Run AccaSim's EASY backfilling on a workload, for ``bench_core.py``.

AccaSim (PyPI ``accasim``, the ``bench`` extra) is the peer simulator. It is
run in a child process (``python benchmarks/accasim_peer.py SWF PROCS``) so
that its global state -- it seeds the global :mod:`random`, patches
:mod:`logging` and starts threads -- and its memory stay out of the process
that measures ours. The child prints one JSON line with its figures.

Setup used (see ``RESULTS.md``):

* system: one node of ``PROCS`` cores (``--layout=one-node``, the default and
  AccaSim's fastest layout), or ``PROCS`` nodes of one core each
  (``--layout=nodes``, 4-5x slower); AccaSim maps each SWF processor to a
  one-core node request, which FirstFit packs on the one node;
* dispatcher: ``EASYBackfilling(FirstFit())`` -- AccaSim 1.1.3's EASY
  backfilling (its FIFO order is built in) with the First-Fit allocator;
* outputs (schedule, statistics, pretty print, benchmark) off, results folder
  in a temporary directory, log level WARNING.

AccaSim 1.1.3 still does ``from collections import Mapping`` (gone since
Python 3.10); :func:`_patch_collections` restores that alias before import.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path


def _patch_collections() -> None:
    import collections
    import collections.abc

    for name in ("Mapping", "MutableMapping", "Sequence", "Iterable", "Callable"):
        if not hasattr(collections, name):
            setattr(collections, name, getattr(collections.abc, name))


def available() -> str | None:
    """AccaSim's version if it can be imported here, else None."""
    try:
        from importlib.metadata import version

        _patch_collections()
        import accasim.base.simulator_class  # noqa: F401

        return version("accasim")
    except Exception:  # noqa: BLE001 - any failure means "not available"
        return None


def write_swf(jobs: Sequence, path: Path, *, kill_at_estimate: bool = True) -> None:
    """Write ``jobs`` as an 18-field SWF file AccaSim's default reader parses.

    AccaSim runs every job for its full SWF run time, even past its requested
    time; our simulator kills a job at its estimate. With ``kill_at_estimate``
    (the default) the run time written is ``min(runtime, estimate)``, so both
    simulators see the same job durations.
    """
    with open(path, "w") as out:
        out.write("; gridmarket benchmark workload\n")
        for job in jobs:
            run = min(job.runtime, job.estimate) if kill_at_estimate else job.runtime
            user = getattr(job, "user", -1)
            group = getattr(job, "group", -1)
            out.write(
                f"{job.id} {job.submit} -1 {run} {job.procs} -1 -1 {job.procs} {job.estimate} -1 1 "
                f"{user} {group} -1 -1 -1 -1 -1\n"
            )


def run(swf: str, procs: int, policy: str = "easy", record_starts: bool = False, layout: str = "one-node") -> dict:
    """Simulate ``swf`` with AccaSim's EASY backfilling (or FIFO); return its figures.

    ``layout``: ``one-node`` (default, AccaSim's fastest: one node of ``procs``
    cores, every job's one-core node requests packed on it) or ``nodes``
    (``procs`` nodes of one core each, 4-5x slower in AccaSim).

    With ``record_starts`` the result also maps each job id to its start time
    (recorded at completion, outside the timed figure's hot path only by a
    dictionary store per job).
    """
    _patch_collections()
    from accasim.base.allocator_class import FirstFit
    from accasim.base.scheduler_class import EASYBackfilling, FirstInFirstOut
    from accasim.base.simulator_class import Simulator

    with tempfile.TemporaryDirectory(prefix="accasim-") as tmp:
        sys_config = os.path.join(tmp, "system.json")
        with open(sys_config, "w") as f:
            if layout == "one-node":
                json.dump({"groups": {"cpu": {"core": procs}}, "resources": {"cpu": 1}}, f)
            elif layout == "nodes":
                json.dump({"groups": {"cpu": {"core": 1}}, "resources": {"cpu": procs}}, f)
            else:
                raise ValueError(f"layout must be one-node or nodes, got {layout!r}")
        dispatcher = EASYBackfilling(FirstFit()) if policy == "easy" else FirstInFirstOut(FirstFit())
        sim = Simulator(
            swf,
            sys_config,
            dispatcher,
            RESULTS_FOLDER_PATH=os.path.join(tmp, "results"),
            scheduling_output=False,
            pprint_output=False,
            benchmark_output=False,
            statistics_output=False,
            show_statistics=False,
            LOG_LEVEL="WARNING",
        )
        wtimes = sim.mapper.wtimes
        starts: dict[str, int] = {}
        if record_starts:
            finish = sim.mapper.finish_event

            def finish_and_record(event, _finish=finish):
                starts[event.id] = event.start_time
                _finish(event)

            sim.mapper.finish_event = finish_and_record
        t0 = time.perf_counter()
        sim.start_simulation()
        seconds = time.perf_counter() - t0
    return {
        "policy": policy,
        "layout": layout,
        "starts": starts,
        "version": available(),
        "jobs": sim.loaded_jobs,
        "dispatched": sim.dispatched_jobs,
        "rejected": sim.rejected_jobs,
        "seconds": seconds,
        "mean_wait": sum(wtimes) / len(wtimes) if wtimes else None,
        "maxrss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    }


if __name__ == "__main__":
    layout = next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--layout=")), "one-node")
    positional = [a for a in sys.argv[1:] if not a.startswith("--")]
    result = run(positional[0], int(positional[1]), *(positional[2:3] or ["easy"]),
                 record_starts="--starts" in sys.argv, layout=layout)
    sys.stdout.flush()
    print("ACCASIM_RESULT " + json.dumps(result))
