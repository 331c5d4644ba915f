# cython: language_level=3, boundscheck=False, wraparound=False, initializedcheck=False, cdivision=True
"""Compiled queue-wait clustering: the twins of ``reference_dbscan_labels`` and ``reference_cluster_waits``.

``dbscan_labels`` is scikit-learn's ``dbscan_inner`` walk (depth first from each
unlabelled core point in index order, a border point joining the first cluster
that reaches it) on Manhattan distances summed in coordinate order, as
``scipy.spatial.distance.cdist(..., "cityblock")`` sums them; a distance equal
to ``eps`` counts as within. ``cluster_waits`` runs the predictor's whole
cluster branch for many rows in one loop: distances to the history, the nearest
rows by a heap, that walk over them, the nearest cluster and its weighted wait,
every sum in the reference's (numpy's) order.
``tests/market/prediction/test_dbscan_kernel.py`` checks both against the
references, which their own tests check against scikit-learn.
"""

import numpy as np

from libc.math cimport INFINITY, fabs
from libc.stdlib cimport free, malloc


def dbscan_labels(points, double eps, Py_ssize_t min_samples):
    """Cluster labels (0, 1, ...; -1 for noise) of the rows of ``points`` (k, d), Manhattan metric."""
    array = np.asarray(points, dtype=np.float64)
    if len(array) == 0:
        return np.full(0, -1, dtype=np.intp)
    array = np.ascontiguousarray(array.reshape(len(array), -1))
    cdef double[:, ::1] P = array
    cdef Py_ssize_t k = P.shape[0], d = P.shape[1]
    out = np.full(k, -1, dtype=np.intp)
    cdef Py_ssize_t[::1] labels = out
    cdef char *adj = <char *>malloc(k * k * sizeof(char))
    cdef char *core = <char *>malloc(k * sizeof(char))
    cdef Py_ssize_t *stack = <Py_ssize_t *>malloc((k * k + 1) * sizeof(Py_ssize_t))
    try:
        if adj == NULL or core == NULL or stack == NULL:
            raise MemoryError()
        _labels(&P[0, 0], k, d, eps, min_samples, adj, core, stack, &labels[0])
    finally:
        free(adj)
        free(core)
        free(stack)
    return out


cdef double _numpy_sum(double *a, Py_ssize_t n) noexcept nogil:
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


cdef inline bint _before(double da, Py_ssize_t ia, double db, Py_ssize_t ib) noexcept nogil:
    """(da, ia) < (db, ib): nearer first, ties to the lower history index."""
    return da < db or (da == db and ia < ib)


cdef void _sift_down(double *hd, Py_ssize_t *hi, Py_ssize_t size, Py_ssize_t pos) noexcept nogil:
    """Restore the max-heap (by ``_before``) below ``pos``."""
    cdef Py_ssize_t child
    cdef double d = hd[pos]
    cdef Py_ssize_t i = hi[pos]
    while True:
        child = 2 * pos + 1
        if child >= size:
            break
        if child + 1 < size and _before(hd[child], hi[child], hd[child + 1], hi[child + 1]):
            child += 1
        if not _before(d, i, hd[child], hi[child]):
            break
        hd[pos] = hd[child]
        hi[pos] = hi[child]
        pos = child
    hd[pos] = d
    hi[pos] = i


cdef Py_ssize_t _labels(const double *P, Py_ssize_t k, Py_ssize_t d, double eps, Py_ssize_t min_samples,
                        char *adj, char *core, Py_ssize_t *stack, Py_ssize_t *labels) noexcept nogil:
    """DBSCAN labels of the ``k`` points ``P`` (k x d, row-major) into ``labels``; returns the number of clusters.

    scikit-learn's ``dbscan_inner`` walk: depth first from each unlabelled core point in index order,
    a border point joining the first cluster that reaches it. A distance is summed in coordinate
    order, as ``scipy.spatial.distance.cdist(..., "cityblock")`` sums it; one equal to ``eps`` is within.
    ``adj`` (k x k), ``core`` (k) and ``stack`` (k x k + 1) are scratch.
    """
    cdef Py_ssize_t i, j, c, top, v, label = 0
    cdef double s
    cdef const double *q
    for i in range(k):
        labels[i] = -1
        adj[i * k + i] = 1
        q = P + i * d
        for j in range(i + 1, k):
            s = 0.0
            for c in range(d):
                s += fabs(q[c] - P[j * d + c])
            adj[i * k + j] = adj[j * k + i] = s <= eps
    for i in range(k):
        c = 0
        for j in range(k):
            c += adj[i * k + j]
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
                        if adj[v * k + j] and labels[j] == -1:
                            stack[top] = j
                            top += 1
            if top == 0:
                break
            top -= 1
            v = stack[top]
        label += 1
    return label


def cluster_waits(const double[:, ::1] X, const double[::1] y, const double[:, ::1] F, Py_ssize_t n_similar,
                  double eps, Py_ssize_t min_samples, double close):
    """The twin of ``gridmarket.prediction.dbscan.reference_cluster_waits`` (same bits; the tests compare them).

    Per row of ``F`` (m, 8): its Manhattan distances to the rows of ``X`` (n, 8) in numpy's pairwise
    order, the ``n_similar`` nearest history rows (nearest first, ties to the lower index; a heap of
    that size), DBSCAN over them, the cluster nearest on average, and if that mean is at most
    ``close`` the cluster's wait mean weighted by ``1 / (1 + distance)``; NaN where no cluster is that
    close (the predictor's ridge answers those rows).
    """
    if X.shape[1] != 8 or F.shape[1] != 8:
        raise ValueError("cluster_waits: eight features per row")
    cdef Py_ssize_t n = X.shape[0], m = F.shape[0], r, i, j, size, label, n_labels, best_label, cnt
    if y.shape[0] != n:
        raise ValueError("cluster_waits: one wait per history row")
    cdef Py_ssize_t k = min(n_similar, n)
    out = np.full(m, np.nan)
    cdef double[::1] result = out
    if k < min_samples or k < 1 or k > 128:
        if k > 128:
            raise ValueError("cluster_waits: at most 128 similar rows")
        return out
    cdef double *dist = <double *>malloc(n * sizeof(double))
    cdef double *hd = <double *>malloc(k * sizeof(double))
    cdef Py_ssize_t *near = <Py_ssize_t *>malloc(k * sizeof(Py_ssize_t))
    cdef char *adj = <char *>malloc(k * k * sizeof(char))
    cdef char *core = <char *>malloc(k * sizeof(char))
    cdef Py_ssize_t *stack = <Py_ssize_t *>malloc((k * k + 1) * sizeof(Py_ssize_t))
    cdef Py_ssize_t *labels = <Py_ssize_t *>malloc(k * sizeof(Py_ssize_t))
    cdef double values[128]
    cdef double P[128 * 8]
    cdef double f0, f1, f2, f3, f4, f5, f6, f7, mean, best_d, td
    cdef Py_ssize_t ti
    try:
        if (dist == NULL or hd == NULL or near == NULL or adj == NULL or core == NULL or stack == NULL
                or labels == NULL):
            raise MemoryError()
        with nogil:
            for r in range(m):
                f0 = F[r, 0]; f1 = F[r, 1]; f2 = F[r, 2]; f3 = F[r, 3]
                f4 = F[r, 4]; f5 = F[r, 5]; f6 = F[r, 6]; f7 = F[r, 7]
                for i in range(n):
                    dist[i] = ((fabs(X[i, 0] - f0) + fabs(X[i, 1] - f1)) + (fabs(X[i, 2] - f2) + fabs(X[i, 3] - f3))) + \
                              ((fabs(X[i, 4] - f4) + fabs(X[i, 5] - f5)) + (fabs(X[i, 6] - f6) + fabs(X[i, 7] - f7)))
                # the k nearest: a max-heap of the best k so far; a later row enters only if strictly before the top
                for i in range(k):
                    hd[i] = dist[i]
                    near[i] = i
                i = k // 2
                while i > 0:
                    i -= 1
                    _sift_down(hd, near, k, i)
                for i in range(k, n):
                    if dist[i] < hd[0]:
                        hd[0] = dist[i]
                        near[0] = i
                        _sift_down(hd, near, k, 0)
                # heap sort: nearest first
                size = k
                while size > 1:
                    size -= 1
                    td = hd[0]; ti = near[0]
                    hd[0] = hd[size]; near[0] = near[size]
                    hd[size] = td; near[size] = ti
                    _sift_down(hd, near, size, 0)
                for i in range(k):
                    for j in range(8):
                        P[i * 8 + j] = X[near[i], j]
                n_labels = _labels(P, k, 8, eps, min_samples, adj, core, stack, labels)
                best_label = -1
                best_d = INFINITY
                for label in range(n_labels):
                    cnt = 0
                    for i in range(k):
                        if labels[i] == label:
                            values[cnt] = dist[near[i]]
                            cnt += 1
                    if cnt == 0:
                        continue
                    mean = _numpy_sum(values, cnt) / cnt
                    if mean < best_d:
                        best_d, best_label = mean, label
                if best_label < 0 or not best_d <= close:
                    continue
                # weights 1 / (1 + d) and their products with the waits, each summed in numpy's order
                cnt = 0
                for i in range(k):
                    if labels[i] == best_label:
                        values[cnt] = 1.0 / (1.0 + dist[near[i]])
                        cnt += 1
                td = _numpy_sum(values, cnt)
                cnt = 0
                for i in range(k):
                    if labels[i] == best_label:
                        values[cnt] = values[cnt] * y[near[i]]
                        cnt += 1
                result[r] = _numpy_sum(values, cnt) / td
    finally:
        free(dist)
        free(hd)
        free(near)
        free(adj)
        free(core)
        free(stack)
        free(labels)
    return out
