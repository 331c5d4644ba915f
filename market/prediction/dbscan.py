"""DBSCAN on the few dozen points of one wait prediction, labelled exactly as scikit-learn labels them.

Ester, Kriegel, Sander & Xu 1996: a point with at least ``min_samples``
points (itself included) within ``eps`` is a *core* point; core points
within ``eps`` of each other share a cluster; a non-core point within
``eps`` of a core point is a *border* point of that core point's cluster;
every other point is noise (label -1).

The queue-wait predictor (Murali & Vadhiyar sec. 3.1, ``queue_wait``) runs
DBSCAN once per prediction on the 64 history jobs nearest to the target.
``sklearn.cluster.DBSCAN`` costs about 1.3 ms a call there, mostly per-call
set-up (estimator, neighbour index); prediction, mostly that, was 60 % of a
metascheduling run (``murali-xsede`` small); this does the same on a 64 x 64 distance matrix in about
0.2 ms (``benchmarks/bench_dbscan.py``, figures in ``benchmarks/RESULTS.md``). The labels are
scikit-learn's, numbering included: clusters are numbered in the order of
their lowest-index core point (the order ``dbscan_inner`` discovers them),
and a border point within ``eps`` of several clusters joins the one
numbered first. Distances are Manhattan (the predictor's metric); a
distance equal to ``eps`` counts as within. The tests compare every label
with scikit-learn's on random point sets.

:func:`cluster_waits` is the predictor's whole cluster branch for many targets
(distances, the nearest history rows in a machine-independent order, DBSCAN,
the nearest cluster's weighted wait); its compiled twin runs it without a
Python call per target.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial.distance import cdist

from gridmarket.kernel import compiled_module

__all__ = [
    "cluster_waits",
    "dbscan_labels",
    "nearest_rows",
    "reference_closest_cluster",
    "reference_cluster_waits",
    "reference_dbscan_labels",
    "reference_manhattan_to_rows",
]


def reference_dbscan_labels(points: np.ndarray, eps: float, min_samples: int) -> np.ndarray:
    """Cluster labels (0, 1, ...; -1 for noise) of the rows of ``points`` (k, d), Manhattan metric.

    O(k^2 d) for the distances and O(k^3 log k) for the clusters' transitive
    closure (a few boolean-valued 64 x 64 products): meant for small k.

    Examples
    --------
    Two groups of three points and one far point; a core point needs 3
    points within 1.0:

    >>> p = np.array([[0.0], [0.5], [1.0], [10.0], [10.5], [11.0], [30.0]])
    >>> reference_dbscan_labels(p, 1.0, 3).tolist()
    [0, 0, 0, 1, 1, 1, -1]

    Only the middle points are core at ``min_samples`` 3 below; the ends are
    border points of their clusters:

    >>> reference_dbscan_labels(np.array([[0.0], [1.0], [2.0], [3.0]]), 1.0, 3).tolist()
    [0, 0, 0, 0]
    """
    points = np.asarray(points, dtype=float)
    k = len(points)
    labels = np.full(k, -1, dtype=np.intp)
    if k == 0:
        return labels
    near = cdist(points, points, "cityblock") <= eps
    core = np.flatnonzero(np.count_nonzero(near, axis=1) >= min_samples)
    if core.size == 0:
        return labels
    # which core points reach which through chains of core points: square the adjacency until it stops growing
    reach = near[np.ix_(core, core)].astype(np.float64)
    while True:
        wider = (reach @ reach > 0).astype(np.float64)
        if np.array_equal(wider, reach):
            break
        reach = wider
    name = core[reach.argmax(axis=1)]  # each core point's cluster, named by its lowest-index core point
    # every point joins the first-discovered cluster among the core points within eps (its own, if core)
    joined = np.where(near[:, core], name[None, :], k).min(axis=1)
    member = joined < k
    labels[member] = np.unique(joined[member], return_inverse=True)[1]
    return labels


_compiled = compiled_module("gridmarket.prediction._cdbscan")
#: The labels the predictor uses: the Cython twin (``_cdbscan.pyx``: scikit-learn's walk over a k x k
#: neighbour table, ~20x faster at k = 64) unless ``GRIDMARKET_KERNEL=reference`` or it was not built.
dbscan_labels = reference_dbscan_labels if _compiled is None else _compiled.dbscan_labels


def reference_manhattan_to_rows(X: np.ndarray, F: np.ndarray) -> np.ndarray:
    """Manhattan distances (m, n) of each row of ``F`` (m, d) to each row of ``X`` (n, d)."""
    return np.abs(X[None, :, :] - F[:, None, :]).sum(axis=2)


def reference_closest_cluster(dist: np.ndarray, near: np.ndarray, labels: np.ndarray):
    """``(members, mean distance)`` of the cluster nearest to the target on average; ``(None, inf)`` if none.

    ``near`` indexes ``dist`` (the target's distances to the history); ``labels`` are the DBSCAN labels of
    ``near`` (-1 noise). Clusters are tried in label order; a later one wins only when strictly nearer.
    ``members`` are the cluster's entries of ``near``, in ``near``'s order.
    """
    best, best_d = None, np.inf
    for label in sorted(set(labels.tolist()) - {-1}):
        members = near[labels == label]
        mean_d = dist[members].mean()
        if mean_d < best_d:
            best, best_d = members, mean_d
    return best, best_d


def nearest_rows(dist: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` smallest entries of ``dist``, nearest first, ties to the lower index.

    The order is fixed by the values alone, so the clusters DBSCAN numbers over these rows are the same
    on every machine (``np.argpartition``'s order depends on the CPU's SIMD path: numpy 2.5 on this
    project's AVX2 VM and with AVX2 disabled give different orders, and murali-nordugrid's medium run
    different figures).

    >>> nearest_rows(np.array([3.0, 1.0, 2.0, 1.0]), 3).tolist()
    [1, 3, 2]
    """
    return np.lexsort((np.arange(len(dist)), dist))[:k]


def reference_cluster_waits(X: np.ndarray, y: np.ndarray, F: np.ndarray, n_similar: int, eps: float,
                            min_samples: int, close: float) -> np.ndarray:
    """Per row of ``F``: the wait of the nearest DBSCAN cluster among its ``n_similar`` nearest history rows.

    ``X`` (n, d) holds the history's scaled features and ``y`` (n,) their waits (s); ``F`` (m, d) the
    targets' scaled features. For each target: Manhattan distances to the history
    (:func:`reference_manhattan_to_rows`), the ``n_similar`` nearest rows (:func:`nearest_rows`),
    their DBSCAN labels, the cluster nearest on average (:func:`reference_closest_cluster`) and, if
    that mean distance is at most ``close``, the cluster's waits averaged with weights ``1 / (1 + d)``
    (Murali & Vadhiyar sec. 3.1, "very similar" jobs). NaN where there is no such cluster: the
    predictor's ridge answers those rows. The weighted sums are numpy's ``sum`` (pairwise order).

    >>> X = np.array([[0.0] * 8, [0.1] + [0.0] * 7, [0.2] + [0.0] * 7, [9.0] * 8])
    >>> w = reference_cluster_waits(X, np.array([100.0, 200.0, 300.0, 5.0]), np.zeros((2, 8)) + [[0.0], [8.0]],
    ...                             4, 1.0, 2, 3.0)
    >>> round(float(w[0]), 1), bool(np.isnan(w[1]))
    (193.9, True)
    """
    n = len(X)
    k = min(n_similar, n)
    out = np.full(len(F), np.nan)
    if k < min_samples:
        return out
    for r, dist in enumerate(reference_manhattan_to_rows(X, F)):
        near = nearest_rows(dist, k)
        labels = reference_dbscan_labels(X[near], eps, min_samples)
        best, best_d = reference_closest_cluster(dist, near, labels)
        if best is not None and best_d <= close:
            weights = 1.0 / (1.0 + dist[best])
            out[r] = (weights * y[best]).sum() / weights.sum()
    return out


def cluster_waits(X: np.ndarray, y: np.ndarray, F: np.ndarray, n_similar: int, eps: float, min_samples: int,
                  close: float) -> np.ndarray:
    """:func:`reference_cluster_waits` by one compiled loop over the rows where it applies (same bits).

    The compiled loop takes eight features, float64 C-contiguous arrays and ``n_similar`` <= 128.
    """
    if (_compiled is not None and X.ndim == F.ndim == 2 and X.shape[1] == F.shape[1] == 8 and n_similar <= 128
            and X.dtype == F.dtype == y.dtype == np.float64 and X.flags.c_contiguous and F.flags.c_contiguous
            and y.flags.c_contiguous):
        return _compiled.cluster_waits(X, y, F, n_similar, eps, min_samples, close)
    return reference_cluster_waits(X, y, F, n_similar, eps, min_samples, close)
