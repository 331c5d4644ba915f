"""Feitelson 1996 model: sizes, runtimes, repeated runs, determinism."""

import numpy as np
import pytest

from gridmarket.errors import InvalidInput
from gridmarket.workloads.feitelson96 import Feitelson96Params, feitelson96_size_distribution, feitelson96_workload


def test_size_distribution_is_harmonic_1_5_with_powers_of_two_doubled():
    p = feitelson96_size_distribution(64)
    n = np.arange(1, 65)
    ratio = p * n**1.5 / p[0]
    pow2 = {2, 4, 8, 16, 32, 64}
    assert all(ratio[k - 1] == pytest.approx(2.0 if k in pow2 else 1.0) for k in n)
    assert p.sum() == pytest.approx(1.0)


def test_same_seed_same_workload_and_keyword_only_rng():
    a = feitelson96_workload(400, rng=np.random.default_rng(1))
    assert a.jobs == feitelson96_workload(400, rng=np.random.default_rng(1)).jobs
    assert a.jobs != feitelson96_workload(400, rng=np.random.default_rng(2)).jobs
    with pytest.raises(TypeError):
        feitelson96_workload(400, np.random.default_rng(1))


def test_runs_of_one_job_repeat_its_size_and_runtime_back_to_back():
    w = feitelson96_workload(3000, rng=np.random.default_rng(7))
    by_job = {}
    for j in w.jobs:
        by_job.setdefault(j.user, []).append(j)
    repeated = [runs for runs in by_job.values() if len(runs) > 1]
    assert repeated  # Zipf(2.5): about half of all jobs run more than once
    for runs in repeated:
        assert len({(r.procs, r.runtime) for r in runs}) == 1
        submits = sorted(r.submit for r in runs)
        assert all(b - a in (runs[0].runtime - 1, runs[0].runtime, runs[0].runtime + 1)
                   for a, b in zip(submits, submits[1:]))


def test_runtime_mean_is_calibrated_and_larger_jobs_run_longer():
    w = feitelson96_workload(30_000, rng=np.random.default_rng(3))
    size = np.array([j.procs for j in w.jobs])
    rt = np.array([j.runtime for j in w.jobs], dtype=float)
    # the long branch's mean is solved for 2606.6 s (Liu et al. 2012 sec. 3.1); repeats add noise
    assert 1800 < rt.mean() < 3600
    assert rt.std() / rt.mean() > 1  # coefficient of variation above 1
    assert rt[size >= 32].mean() > rt[size == 1].mean()


def test_bad_parameters_are_rejected():
    with pytest.raises(InvalidInput, match="invalid zipf_exponent"):
        Feitelson96Params(zipf_exponent=1.0)
    with pytest.raises(InvalidInput, match="n_jobs must be an int >= 1"):
        feitelson96_workload(0, rng=np.random.default_rng(0))
    with pytest.raises(InvalidInput, match="below what the short branch alone gives"):
        feitelson96_workload(10, rng=np.random.default_rng(0), params=Feitelson96Params(mean_runtime=10.0))


def test_liu2012_sizes_have_the_papers_mean_parallelism_and_serial_share():
    from gridmarket.workloads.feitelson96 import FEITELSON96_LIU2012

    p = feitelson96_size_distribution(320, FEITELSON96_LIU2012)
    n = np.arange(1, 321)
    assert p.sum() == pytest.approx(1.0) and p[0] == pytest.approx(0.16)
    assert p @ n == pytest.approx(23.4, abs=1e-6)  # Liu et al. 2012 sec. 3.1
    # sizes 2..320 keep a harmonic shape (order solved from sizes 3 and 5) with powers of two doubled
    order = np.log(p[2] / p[4]) / np.log(5 / 3)
    assert 1.0 < order < 1.5
    boost = np.where((n & (n - 1)) == 0, 2.0, 1.0)
    shape = p[1:] * n[1:] ** order / boost[1:]
    assert np.allclose(shape, shape[0], rtol=1e-9)
    w = feitelson96_workload(50_000, rng=np.random.default_rng(2), params=FEITELSON96_LIU2012)
    sizes = np.array([j.procs for j in w.jobs])
    assert 21.0 < sizes.mean() < 26.0 and (sizes == 1).mean() < 0.18
    with pytest.raises(InvalidInput, match="mean_size 23.4 is out of reach on 8 processors"):
        feitelson96_size_distribution(8, FEITELSON96_LIU2012)
