"""Jann et al. 1997 model: hyper-Erlang fitting, the CTC table re-derived from the log, generation."""

import datetime as dt
import warnings

import numpy as np
import pytest

from gridmarket.errors import InvalidInput
from gridmarket.workloads.jann97 import JANN97_CTC, HyperErlang, fit_hyper_erlang, fit_jann97, jann97_workload


@pytest.mark.parametrize(
    "dist",
    [HyperErlang(1, 0.9, 0.01, 0.0001), HyperErlang(3, 0.6, 0.05, 0.001), HyperErlang(7, 0.3, 2.0, 0.5),
     HyperErlang(1, 0.5, 0.2, 0.2)],
)
def test_fit_recovers_a_hyper_erlang_from_its_own_moments(dist):
    fit = fit_hyper_erlang(*dist.moments())
    assert fit.order <= dist.order
    assert fit.moments() == pytest.approx(dist.moments(), rel=1e-9)


def test_fit_uses_the_fewest_stages_and_falls_back_on_two_moments():
    assert fit_hyper_erlang(10.0, 200.0, 6000.0) == HyperErlang(1, 1.0, 0.1, 0.1)
    low_cv = fit_hyper_erlang(10.0, 100.0001, 1000.1)  # cv^2 = 1e-6: more stages than allowed
    assert low_cv.p == 1.0 and low_cv.moments()[0] == pytest.approx(10.0)
    with pytest.raises(InvalidInput, match="m2 >= m1"):
        fit_hyper_erlang(10.0, 50.0, 1000.0)


def test_sampling_matches_the_moments():
    h = HyperErlang(3, 0.6, 0.05, 0.001)
    x = h.sample(400_000, rng=np.random.default_rng(0))
    assert x.mean() == pytest.approx(h.moments()[0], rel=0.02)


def test_same_seed_same_workload_and_keyword_only_rng():
    a = jann97_workload(500, rng=np.random.default_rng(3))
    assert a.jobs == jann97_workload(500, rng=np.random.default_rng(3)).jobs
    assert a.jobs != jann97_workload(500, rng=np.random.default_rng(4)).jobs
    with pytest.raises(TypeError):
        jann97_workload(500, np.random.default_rng(3))


def test_generated_workload_has_the_ctc_shape():
    w = jann97_workload(20_000, rng=np.random.default_rng(5), procs=320)
    sizes = np.array([j.procs for j in w.jobs])
    runtimes = np.array([j.runtime for j in w.jobs])
    assert [j.submit for j in w.jobs] == sorted(j.submit for j in w.jobs)
    assert sizes.max() <= 320 and runtimes.max() <= 18 * 3600 and runtimes.min() >= 1
    # Liu et al. 2012 sec. 3.1 / Table 1 for their Jann workload: mean parallelism 10.5, 40.8 % serial
    assert 9.5 < sizes.mean() < 11.5 and 0.38 < (sizes == 1).mean() < 0.45
    assert 9000 < runtimes.mean() < 12500  # they report 11267.0 s


def test_bad_arguments_are_rejected():
    with pytest.raises(InvalidInput, match="n_jobs must be an int >= 1"):
        jann97_workload(0, rng=np.random.default_rng(0))
    with pytest.raises(InvalidInput, match="procs must be an int >= 1"):
        jann97_workload(5, rng=np.random.default_rng(0), procs=0)


@pytest.mark.slow
@pytest.mark.data("traces/CTC-SP2-1996-3.1-cln.swf.gz")
def test_the_ctc_table_is_the_fit_of_the_ctc_log(data_dir):
    from gridmarket.workloads import read_swf

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        log = read_swf(data_dir / "traces" / "CTC-SP2-1996-3.1-cln.swf.gz")
    start = int(log.header["UnixStartTime"])
    cut = int(dt.datetime(1996, 9, 12, 4, 0, tzinfo=dt.UTC).timestamp()) - start  # 00:00 EDT
    jobs = [j for j in log.jobs if j.submit < cut]
    assert len(jobs) == 17534
    refit = fit_jann97(jobs)
    assert [(r.lo, r.hi, r.sizes) for r in refit] == [(r.lo, r.hi, r.sizes) for r in JANN97_CTC]
    for new, old in zip(refit, JANN97_CTC):
        for a, b in ((new.interarrival, old.interarrival), (new.runtime, old.runtime)):
            assert a.order == b.order
            assert (a.p, a.rate1, a.rate2) == pytest.approx((b.p, b.rate1, b.rate2), rel=1e-9)
