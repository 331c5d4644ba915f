"""The compiled DBSCAN labels (``_cdbscan.pyx``) against the pure-Python reference (itself checked against sklearn)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from market.prediction import dbscan as module
from market.prediction.dbscan import reference_dbscan_labels

compiled = pytest.importorskip("market.prediction._cdbscan", reason="the compiled kernel is not built here")


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
    from market import kernel

    if kernel.KERNEL == "compiled":
        assert module.dbscan_labels is compiled.dbscan_labels


@given(st.integers(0, 70), st.integers(0, 300), st.integers(0, 2**32 - 1), st.booleans())
@settings(max_examples=200, deadline=None)
def test_compiled_distances_equal_numpys_bit_for_bit(m, n, seed, spread):
    # the predictor's distances: numpy sums the eight terms pairwise; a sequential sum differs in the last bits
    rng = np.random.default_rng(seed)
    scale = rng.choice([1.0, 1e3, 1e7], size=8) if spread else np.ones(8)
    X = rng.normal(size=(n, 8)) * scale
    F = rng.normal(size=(m, 8)) * scale
    want = module.reference_manhattan_to_rows(X, F)
    got = compiled.manhattan_to_rows(X, F)
    assert got.shape == want.shape == (m, n)
    assert np.array_equal(got, want)


def test_distances_of_other_widths_take_the_reference():
    X, F = np.arange(6.0).reshape(2, 3), np.ones((1, 3))
    assert module.manhattan_to_rows(X, F).tolist() == [[2.0, 9.0]]
    with pytest.raises(ValueError, match="eight features"):
        compiled.manhattan_to_rows(X, F)


@given(st.integers(1, 128), st.integers(0, 6), st.integers(0, 2**32 - 1), st.booleans())
@settings(max_examples=300, deadline=None)
def test_compiled_cluster_choice_equals_the_reference(k, n_labels, seed, ties):
    # the cluster nearest on average, and its mean distance to the last bit (numpy sums pairwise from 8 terms)
    rng = np.random.default_rng(seed)
    dist = rng.integers(0, 4, size=300) / 2.0 if ties else rng.exponential(3.0, size=300) * 10.0 ** rng.integers(-3, 4)
    near = rng.permutation(300)[:k].astype(np.intp)
    labels = rng.integers(-1, n_labels, size=k).astype(np.intp) if n_labels else np.full(k, -1, np.intp)
    want, want_d = module.reference_closest_cluster(dist, near, labels)
    got, got_d = compiled.closest_cluster(dist, near, labels)
    assert got_d == want_d
    assert (got is None and want is None) or got.tolist() == want.tolist()


def test_the_predictor_predicts_the_same_with_either_cluster_choice(monkeypatch):
    from market.prediction import queue_wait
    from market.prediction.queue_wait import QueueWaitPredictor

    rng = np.random.default_rng(7)
    centres = rng.integers(0, 5, size=(6, 8)).astype(float)  # groups of similar jobs: clusters to choose from
    X = centres[rng.integers(0, 6, size=400)] + rng.normal(0, 0.05, size=(400, 8))
    y = rng.exponential(3000.0, size=400)
    queries = centres[rng.integers(0, 6, size=50)] + rng.normal(0, 0.3, size=(50, 8))

    def predictions():
        p = QueueWaitPredictor(history=300)
        for x, w in zip(X, y):
            p.observe(x, w)
        return p.predict_many(queries), p.n_cluster

    fast, n_fast = predictions()
    monkeypatch.setattr(queue_wait, "closest_cluster", module.reference_closest_cluster)
    slow, n_slow = predictions()
    assert n_fast == n_slow > 0 and np.array_equal(fast, slow)
