"""Our DBSCAN labels against scikit-learn's, label for label (numbering and border points included)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.cluster import DBSCAN

from gridmarket.prediction.dbscan import dbscan_labels


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 70), st.integers(1, 8), st.floats(0.2, 3.0),
       st.integers(1, 8), st.booleans())
def test_labels_equal_scikit_learn(seed, k, dim, eps, min_samples, grid):
    rng = np.random.default_rng(seed)
    points = rng.normal(size=(k, dim)) * rng.uniform(0.2, 2.0)
    if grid:  # coarse coordinates: duplicate points and distances exactly at eps
        points = np.round(points * 2) / 2
        eps = round(eps * 2) / 2 or 0.5
    expected = DBSCAN(eps=eps, min_samples=min_samples, metric="manhattan").fit(points).labels_
    assert dbscan_labels(points, eps, min_samples).tolist() == expected.tolist()


def test_border_point_between_two_clusters_joins_the_first_numbered():
    # min_samples 4 within 1.0: only 0.8 and 2.8 are core; 1.8 is within 1.0 of both, so it is a
    # border point of either cluster, and joins cluster 0 (discovered first, from the lower index)
    points = np.array([[0.0], [0.4], [0.8], [1.8], [2.8], [3.2], [3.6]])
    expected = DBSCAN(eps=1.0, min_samples=4, metric="manhattan").fit(points).labels_
    assert dbscan_labels(points, 1.0, 4).tolist() == expected.tolist() == [0, 0, 0, 0, 1, 1, 1]


def test_no_core_point_is_all_noise_and_empty_input_is_empty():
    assert dbscan_labels(np.array([[0.0], [5.0], [10.0]]), 1.0, 2).tolist() == [-1, -1, -1]
    assert dbscan_labels(np.empty((0, 3)), 1.0, 2).tolist() == []
