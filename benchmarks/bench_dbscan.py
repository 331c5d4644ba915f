"""DBSCAN of one wait prediction: ``gridmarket.prediction.dbscan`` against scikit-learn, same points, one run.

Run from the repository root::

    .venv/bin/python benchmarks/bench_dbscan.py [--calls N]

Replays 3,000 jobs of SDSC-SP2 (``$GRIDMARKET_DATA``, else the cache; a seeded Lublin
workload without it) under EASY, fits the queue-wait predictor on them, and
collects the point sets its predictions cluster (the ``n_similar`` = 64
scaled history jobs nearest to each target). Each set is then clustered by
both implementations; the script checks every label is equal and prints
microseconds per call. Not part of the test suite.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

from gridmarket.datasets import data_root

TRACE = data_root() / "traces" / "SDSC-SP2-1998-4.2-cln.swf.gz"  # $GRIDMARKET_DATA, else the cache


def _point_sets(n: int) -> list[np.ndarray]:
    from gridmarket.prediction import QueueWaitPredictor, queue_features
    from gridmarket.scheduling import EASYScheduler
    from gridmarket.simulation import MachineSimulation
    from gridmarket.workloads import lublin_workload, read_swf

    if TRACE.exists():
        w = read_swf(TRACE)
        procs = w.max_procs
    else:
        w, procs = lublin_workload(3000, procs=128, rng=np.random.default_rng(1)), 128
    jobs = [j for j in w.jobs if j.procs <= procs][:3000]
    sim = MachineSimulation(EASYScheduler(procs), jobs)
    predictor = QueueWaitPredictor()
    for job in jobs:
        sim.run_until(job.submit)
        f = queue_features(job.procs, job.estimate, sim.scheduler, job.submit)
        predictor.observe(f, 0)  # features only: the clustering does not read the waits
    X = predictor._x[: len(predictor)]
    scale = X.std(axis=0)
    scale[scale == 0] = 1.0
    Xs = X / scale
    rng = np.random.default_rng(1)
    sets = []
    for q in Xs[rng.integers(0, len(Xs), n)]:
        dist = np.abs(Xs - q).sum(axis=1)
        sets.append(Xs[np.argpartition(dist, predictor.n_similar - 1)[: predictor.n_similar]])
    return sets


def main(argv: list[str] | None = None) -> int:
    import sklearn
    from sklearn.cluster import DBSCAN

    from gridmarket.prediction.dbscan import dbscan_labels

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000, help="point sets clustered (default 1000)")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    sets = _point_sets(args.calls)
    eps, min_samples = 1.0, 4  # the predictor's defaults
    t0 = time.process_time()
    ours = [dbscan_labels(p, eps, min_samples) for p in sets]
    t_ours = time.process_time() - t0
    with sklearn.config_context(skip_parameter_validation=True, assume_finite=True):
        t0 = time.process_time()
        theirs = [DBSCAN(eps=eps, min_samples=min_samples, metric="manhattan").fit(p).labels_ for p in sets]
        t_sk = time.process_time() - t0
    equal = sum(np.array_equal(a, b) for a, b in zip(ours, theirs))
    clusters = np.mean([len(set(lab.tolist()) - {-1}) for lab in ours])
    print(f"{len(sets)} point sets of {len(sets[0])} x {sets[0].shape[1]}, {clusters:.1f} clusters on average")
    print(f"gridmarket.prediction.dbscan: {1e6 * t_ours / len(sets):.0f} us a call")
    print(f"sklearn.cluster.DBSCAN:   {1e6 * t_sk / len(sets):.0f} us a call ({t_sk / t_ours:.1f}x)")
    print(f"labels equal: {equal} of {len(sets)}")
    return 0 if equal == len(sets) else 1


if __name__ == "__main__":
    raise SystemExit(main())
