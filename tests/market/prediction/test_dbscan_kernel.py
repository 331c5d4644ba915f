"""The compiled DBSCAN labels (``_cdbscan.pyx``) against the pure-Python reference (itself checked against sklearn)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridmarket.prediction import dbscan as module
from gridmarket.prediction.dbscan import reference_dbscan_labels

compiled = pytest.importorskip("gridmarket.prediction._cdbscan", reason="the compiled kernel is not built here")


@given(st.integers(0, 40), st.integers(1, 4), st.sampled_from([0.5, 1.0, 2.0, 3.0]), st.integers(1, 6),
       st.integers(0, 2**32 - 1), st.booleans())
@settings(max_examples=400, deadline=None)
def test_same_labels_as_the_reference(k, d, eps, min_samples, seed, on_grid):
    rng = np.random.default_rng(seed)
    # on a half-integer grid many distances equal eps exactly: the tie rule is exercised
    points = rng.integers(0, 8, size=(k, d)) / 2.0 if on_grid else rng.normal(scale=2.0, size=(k, d))
    want = reference_dbscan_labels(points, eps, min_samples)
    got = compiled.dbscan_labels(points, eps, min_samples)
    assert got.dtype == want.dtype and got.tolist() == want.tolist()


def test_the_predictor_uses_the_compiled_labels_by_default():
    from gridmarket import kernel

    if kernel.KERNEL == "compiled":
        assert module.dbscan_labels is compiled.dbscan_labels


def _clustered_history(seed, n=400, m=50):
    rng = np.random.default_rng(seed)
    centres = rng.integers(0, 5, size=(6, 8)).astype(float)  # groups of similar jobs: clusters to choose from
    X = centres[rng.integers(0, 6, size=n)] + rng.normal(0, 0.05, size=(n, 8))
    y = rng.exponential(3000.0, size=n)
    queries = centres[rng.integers(0, 6, size=m)] + rng.normal(0, 0.3, size=(m, 8))
    return X, y, queries


def test_the_predictor_predicts_the_same_with_the_reference_loop(monkeypatch):
    from gridmarket.prediction import queue_wait
    from gridmarket.prediction.queue_wait import QueueWaitPredictor

    X, y, queries = _clustered_history(7)

    def predictions():
        p = QueueWaitPredictor(history=300)
        for x, w in zip(X, y):
            p.observe(x, w)
        return p.predict_many(queries), p.n_cluster

    fast, n_fast = predictions()
    monkeypatch.setattr(queue_wait, "cluster_waits", module.reference_cluster_waits)
    slow, n_slow = predictions()
    assert n_fast == n_slow > 0 and np.array_equal(fast, slow)


@given(st.integers(1, 300), st.integers(1, 40), st.sampled_from([1, 4, 16, 64, 128]), st.integers(1, 6),
       st.sampled_from([0.5, 1.0, 2.0]), st.integers(0, 2**32 - 1), st.sampled_from(["grid", "normal", "clusters", "spread"]))
@settings(max_examples=150, deadline=None)
def test_compiled_cluster_waits_equal_the_reference(n, m, n_similar, min_samples, eps, seed, kind):
    # grid points make equal distances (the nearest-rows tie rule, eps ties); clusters make close clusters;
    # with min_samples 1 every point is core, so "spread" rows reach the weighted mean too
    rng = np.random.default_rng(seed)
    if kind == "grid":
        X = rng.integers(0, 4, size=(n, 8)) / 2.0
        F = rng.integers(0, 4, size=(m, 8)) / 2.0
    elif kind == "normal":
        X, F = rng.normal(size=(n, 8)), rng.normal(size=(m, 8))
    elif kind == "spread":  # features of very different sizes: a sum in another order differs in the last bits
        scale = rng.choice([1.0, 1e3, 1e7], size=8)
        X, F = rng.normal(size=(n, 8)) * scale, rng.normal(size=(m, 8)) * scale
    else:
        X, y, F = _clustered_history(seed % 1000, n, m)
    y = rng.exponential(3000.0, size=n)
    close = 1e12 if kind == "spread" else 3.0
    want = module.reference_cluster_waits(X, y, F, n_similar, eps, min_samples, close)
    got = compiled.cluster_waits(X, y, F, n_similar, eps, min_samples, close)
    assert np.array_equal(got, want, equal_nan=True)
    if (kind == "clusters" and n >= 64 and n_similar >= 16 and min_samples <= 4) or (kind == "spread" and min_samples == 1):
        assert not np.isnan(got).all()  # the cluster branch ran


def test_nearest_rows_are_nearest_first_with_ties_to_the_lower_index():
    dist = np.array([2.0, 0.5, 2.0, 0.5, 1.0, 2.0])
    assert module.nearest_rows(dist, 4).tolist() == [1, 3, 4, 0]
    # the compiled heap makes the same choice: one cluster of the rows {1, 3, 4, 0} at k = 4
    X = np.zeros((6, 8))
    X[:, 0] = dist
    waits = np.array([10.0, 20.0, 30.0, 40.0, 50.0, 60.0])
    row = np.zeros((1, 8))
    want = module.reference_cluster_waits(X, waits, row, 4, 2.0, 2, 3.0)
    assert np.array_equal(compiled.cluster_waits(X, waits, row, 4, 2.0, 2, 3.0), want)
    weights = 1 / (1 + np.array([0.5, 0.5, 1.0, 2.0]))
    assert want[0] == pytest.approx((weights * [20, 40, 50, 10]).sum() / weights.sum())


def test_predictions_do_not_depend_on_the_cpus_simd_path(tmp_path):
    # np.argpartition's order differs with AVX2 on and off (numpy 2.5); the predictor's must not
    import subprocess
    import sys

    script = (
        "import numpy as np, sys\n"
        "sys.path.insert(0, 'tests/market/prediction')\n"
        "from test_dbscan_kernel import _clustered_history\n"
        "from gridmarket.prediction.queue_wait import QueueWaitPredictor\n"
        "X, y, q = _clustered_history(11, 2500, 200)\n"
        "X[:, :2] = np.round(X[:, :2])  # many equal distances\n"
        "p = QueueWaitPredictor()\n"
        "for x, w in zip(X, y):\n"
        "    p.observe(x, w)\n"
        "sys.stdout.write(p.predict_many(q).tobytes().hex())\n"
    )
    outputs = set()
    for disabled in ("", "X86_V3"):
        env = {**__import__("os").environ, "NPY_DISABLE_CPU_FEATURES": disabled}
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)
        outputs.add(done.stdout)
    assert len(outputs) == 1


def test_last_by_cluster_describes_the_last_call_even_before_any_history():
    from gridmarket.prediction.queue_wait import QueueWaitPredictor

    X, y, queries = _clustered_history(5)
    queries = np.vstack([queries, queries[:5] + 50.0])  # far from every cluster: the ridge answers these
    p = QueueWaitPredictor(history=300)
    assert p.predict_many(queries[:3]).tolist() == [0.0] * 3 and p.last_by_cluster.tolist() == [False] * 3
    for x, w in zip(X, y):
        p.observe(x, w)
    waits = p.predict_many(queries)
    first = p.last_by_cluster.copy()
    assert len(first) == len(queries) and first.sum() == p.n_cluster > 0 and not first.all()
    again = p.predict_many(queries[::-1])  # answered from the memo: the same answers and branches, reversed
    assert again.tolist() == waits[::-1].tolist() and p.last_by_cluster.tolist() == first[::-1].tolist()
    assert p.n_cluster == 2 * first.sum()
