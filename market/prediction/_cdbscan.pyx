# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""Compiled DBSCAN labels for the queue-wait predictor: the twin of ``reference_dbscan_labels``.

scikit-learn's ``dbscan_inner`` walk (depth first from each unlabelled core
point in index order, a border point joining the first cluster that reaches
it) on Manhattan distances summed in coordinate order, as
``scipy.spatial.distance.cdist(..., "cityblock")`` sums them; a distance equal
to ``eps`` counts as within. ``tests/market/prediction/test_dbscan_kernel.py``
checks every label against the reference, which its own tests check against
scikit-learn.
"""

import numpy as np

from libc.math cimport fabs
from libc.stdlib cimport free, malloc


def dbscan_labels(points, double eps, Py_ssize_t min_samples):
    """Cluster labels (0, 1, ...; -1 for noise) of the rows of ``points`` (k, d), Manhattan metric."""
    array = np.asarray(points, dtype=np.float64)
    if len(array) == 0:
        return np.full(0, -1, dtype=np.intp)
    cdef double[:, ::1] P = np.ascontiguousarray(array.reshape(len(array), -1))
    cdef Py_ssize_t k = P.shape[0], d = P.shape[1], i, j, c, top, v, label = 0
    cdef double s
    out = np.full(k, -1, dtype=np.intp)
    cdef Py_ssize_t[::1] labels = out
    cdef char *near = <char *>malloc(k * k * sizeof(char))
    cdef char *core = <char *>malloc(k * sizeof(char))
    cdef Py_ssize_t *stack = <Py_ssize_t *>malloc((k * k + 1) * sizeof(Py_ssize_t))
    if near == NULL or core == NULL or stack == NULL:
        free(near)
        free(core)
        free(stack)
        raise MemoryError()
    try:
        for i in range(k):
            near[i * k + i] = 1
            for j in range(i + 1, k):
                s = 0.0
                for c in range(d):
                    s += fabs(P[i, c] - P[j, c])
                near[i * k + j] = near[j * k + i] = s <= eps
        for i in range(k):
            c = 0
            for j in range(k):
                c += near[i * k + j]
            core[i] = c >= min_samples
        for i in range(k):
            if labels[i] != -1 or not core[i]:
                continue
            top = 0
            v = i
            while True:
                if labels[v] == -1:
                    labels[v] = label
                    if core[v]:
                        for j in range(k):
                            if near[v * k + j] and labels[j] == -1:
                                stack[top] = j
                                top += 1
                if top == 0:
                    break
                top -= 1
                v = stack[top]
            label += 1
    finally:
        free(near)
        free(core)
        free(stack)
    return out


def manhattan_to_rows(double[:, ::1] X, double[:, ::1] F):
    """Manhattan distances (m, n) of each row of ``F`` (m, 8) to each row of ``X`` (n, 8).

    Each distance is summed in numpy's pairwise order for eight terms,
    ``((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7))``, so the result equals
    ``np.abs(X[None] - F[:, None]).sum(axis=2)`` bit for bit (the twin is
    ``market.prediction.dbscan.reference_manhattan_to_rows``; the tests compare them).
    """
    if X.shape[1] != 8 or F.shape[1] != 8:
        raise ValueError("manhattan_to_rows: eight features per row")
    cdef Py_ssize_t m = F.shape[0], n = X.shape[0], r, i
    out = np.empty((m, n), dtype=np.float64)
    cdef double[:, ::1] D = out
    cdef double f0, f1, f2, f3, f4, f5, f6, f7
    for r in range(m):
        f0 = F[r, 0]; f1 = F[r, 1]; f2 = F[r, 2]; f3 = F[r, 3]
        f4 = F[r, 4]; f5 = F[r, 5]; f6 = F[r, 6]; f7 = F[r, 7]
        for i in range(n):
            D[r, i] = ((fabs(X[i, 0] - f0) + fabs(X[i, 1] - f1)) + (fabs(X[i, 2] - f2) + fabs(X[i, 3] - f3))) + \
                      ((fabs(X[i, 4] - f4) + fabs(X[i, 5] - f5)) + (fabs(X[i, 6] - f6) + fabs(X[i, 7] - f7)))
    return out


cdef double _numpy_sum(double *a, Py_ssize_t n):
    """``np.sum`` of ``n <= 128`` contiguous doubles in numpy's own order (pairwise_sum: 8 accumulators)."""
    cdef double res, r0, r1, r2, r3, r4, r5, r6, r7
    cdef Py_ssize_t i
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[i]
        return res
    r0 = a[0]; r1 = a[1]; r2 = a[2]; r3 = a[3]; r4 = a[4]; r5 = a[5]; r6 = a[6]; r7 = a[7]
    i = 8
    while i < n - (n % 8):
        r0 += a[i]; r1 += a[i + 1]; r2 += a[i + 2]; r3 += a[i + 3]
        r4 += a[i + 4]; r5 += a[i + 5]; r6 += a[i + 6]; r7 += a[i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[i]
        i += 1
    return res


def closest_cluster(const double[::1] dist, const Py_ssize_t[::1] near, const Py_ssize_t[::1] labels):
    """``(members, mean distance)`` of the DBSCAN cluster nearest on average, or ``(None, inf)`` if all is noise.

    ``near`` indexes ``dist``; ``labels`` (0, 1, ...; -1 noise) label ``near``. Clusters are tried in
    label order and a later one wins only when strictly nearer; each mean is numpy's (``np.mean`` of
    the members' distances in ``near`` order, summed in its pairwise order), so the choice and the
    returned mean equal ``QueueWaitPredictor``'s reference loop bit for bit (tests compare them).
    """
    cdef Py_ssize_t k = near.shape[0], i, m, label, n_labels = 0, best_label = -1
    if labels.shape[0] != k or k > 128:
        raise ValueError("closest_cluster: one label per point, at most 128 points")
    cdef double values[128]
    cdef double mean, best_d = float("inf")
    for i in range(k):
        if labels[i] + 1 > n_labels:
            n_labels = labels[i] + 1
    for label in range(n_labels):
        m = 0
        for i in range(k):
            if labels[i] == label:
                values[m] = dist[near[i]]
                m += 1
        if m == 0:
            continue
        mean = _numpy_sum(values, m) / m
        if mean < best_d:
            best_d, best_label = mean, label
    if best_label < 0:
        return None, best_d
    members = np.empty(k, dtype=np.intp)
    cdef Py_ssize_t[::1] out = members
    m = 0
    for i in range(k):
        if labels[i] == best_label:
            out[m] = near[i]
            m += 1
    return members[:m], best_d
