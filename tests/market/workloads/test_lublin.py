"""Lublin-Feitelson 2003 model: reproducibility, parameters, distribution sanity, C oracle."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from gridmarket.errors import InvalidInput
from gridmarket.workloads import DroppedJobsWarning, lublin_workload, read_swf
from gridmarket.workloads.lublin import (
    LUBLIN99_BATCH,
    LUBLIN99_INTERACTIVE,
    LUBLIN99_MAX_RUNTIME,
    LUBLIN99_WHOLE,
    _bucket_weights,
    _gamma_cdf,
    _generate,
    _Sizes,
)


@pytest.fixture(scope="module")
def columns():
    """20,000 jobs on the reference 128-processor machine, with their classes."""
    submit, nodes, runtime, kind, capped = _generate(20000, 128, np.random.default_rng(11))
    return {
        "submit": np.array(submit),
        "nodes": np.array(nodes),
        "runtime": np.array(runtime),
        "kind": np.array(kind),
        "capped": capped,
    }


def test_same_seed_gives_identical_jobs():
    a = lublin_workload(500, procs=64, rng=np.random.default_rng(3))
    b = lublin_workload(500, procs=64, rng=np.random.default_rng(3))
    assert a == b


def test_different_seeds_give_different_jobs():
    a = lublin_workload(500, rng=np.random.default_rng(3))
    b = lublin_workload(500, rng=np.random.default_rng(4))
    assert a.jobs != b.jobs


def test_workload_shape_ids_sizes_and_exact_estimates():
    w = lublin_workload(2000, procs=256, rng=np.random.default_rng(0))
    assert len(w) == 2000 and w.max_procs == 256 and w.name == "lublin99-256"
    assert [j.id for j in w.jobs] == list(range(1, 2001))
    assert all(1 <= j.procs <= 256 for j in w.jobs)
    assert all(1 <= j.runtime <= LUBLIN99_MAX_RUNTIME for j in w.jobs)
    assert all(j.estimate == j.runtime for j in w.jobs)
    submits = [j.submit for j in w.jobs]
    assert submits == sorted(submits) and submits[0] >= 0
    h = w.header
    assert int(h["gridmarket.n_batch"]) + int(h["gridmarket.n_interactive"]) == 2000
    assert w.n_dropped == 0


def test_estimates_exact_is_the_default():
    rng_a, rng_b = np.random.default_rng(1), np.random.default_rng(1)
    assert lublin_workload(50, rng=rng_a) == lublin_workload(50, rng=rng_b, estimates="exact")


def test_tsafrir_estimates_are_at_least_the_runtime_and_at_most_48_hours():
    w = lublin_workload(3000, rng=np.random.default_rng(2), estimates="tsafrir")
    assert all(j.runtime <= j.estimate <= 48 * 3600 for j in w.jobs)
    assert len({j.estimate for j in w.jobs}) < 200  # a few modal values, not one per job


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_jobs": 0}, r"n_jobs must be an int >= 1"),
        ({"n_jobs": 2.0}, r"n_jobs must be an int >= 1"),
        ({"procs": 0}, r"procs must be an int >= 1"),
        ({"rng": 7}, r"rng must be a numpy.random.Generator"),
        ({"estimates": "guess"}, r"estimates must be None, 'exact' or 'tsafrir'"),
    ],
)
def test_invalid_arguments_raise(kwargs, message):
    args = {"n_jobs": 10, "procs": 64, "rng": np.random.default_rng(0)} | kwargs
    n_jobs = args.pop("n_jobs")
    with pytest.raises(InvalidInput, match=message):
        lublin_workload(n_jobs, **args)


# ----------------------------------------------------------------------------------------------
# Parameters and machine size
# ----------------------------------------------------------------------------------------------


def test_reference_parameters_are_those_of_m_lublin99_c():
    assert (LUBLIN99_BATCH.serial_prob, LUBLIN99_BATCH.pow2_prob) == (0.2927, 0.6686)
    assert (LUBLIN99_BATCH.a2, LUBLIN99_BATCH.b2, LUBLIN99_BATCH.pa) == (639.1, 0.0156, -0.003)
    assert (LUBLIN99_INTERACTIVE.uhi, LUBLIN99_INTERACTIVE.uprob) == (5.5, 0.705)
    assert (LUBLIN99_INTERACTIVE.aarr, LUBLIN99_INTERACTIVE.arar) == (6.5510, 0.9797)
    assert (LUBLIN99_WHOLE.serial_prob, LUBLIN99_WHOLE.a2) == (0.244, 312.0)
    assert LUBLIN99_MAX_RUNTIME == 162754  # the C code's "; MaxRuntime:" header


def test_size_parameters_are_unchanged_on_128_processors_and_shifted_elsewhere():
    ref = _Sizes.for_machine(LUBLIN99_BATCH, 128)
    assert (ref.ulow, ref.umed, ref.uhi) == (1.2, 5.0, 7.0)
    big = _Sizes.for_machine(LUBLIN99_BATCH, 1024)
    assert (big.ulow, big.umed, big.uhi) == (1.2, 8.0, 10.0)
    tiny = _Sizes.for_machine(LUBLIN99_INTERACTIVE, 2)
    assert tiny.ulow <= tiny.umed <= tiny.uhi


@pytest.mark.parametrize("procs", [1, 3, 100, 1000])
def test_sizes_never_exceed_the_machine(procs):
    w = lublin_workload(1500, procs=procs, rng=np.random.default_rng(procs))
    assert max(j.procs for j in w.jobs) <= procs
    if procs == 1:
        assert all(j.procs == 1 for j in w.jobs)


# ----------------------------------------------------------------------------------------------
# Distributions
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("kind", "params"), [(0, LUBLIN99_INTERACTIVE), (1, LUBLIN99_BATCH)])
def test_serial_fraction_matches_serial_prob(columns, kind, params):
    mine = columns["kind"] == kind
    serial = (columns["nodes"][mine] == 1).mean()
    se = math.sqrt(params.serial_prob * (1 - params.serial_prob) / mine.sum())
    assert abs(serial - params.serial_prob) < 4 * se


@pytest.mark.parametrize(("kind", "params"), [(0, LUBLIN99_INTERACTIVE), (1, LUBLIN99_BATCH)])
def test_parallel_jobs_are_mostly_powers_of_two(columns, kind, params):
    sizes = columns["nodes"][(columns["kind"] == kind) & (columns["nodes"] > 1)]
    pow2 = ((sizes & (sizes - 1)) == 0).mean()
    # rounded draws are powers of two; some unrounded ones land on one too
    assert pow2 >= params.pow2_prob / (1 - params.serial_prob) - 0.02


@pytest.mark.parametrize(
    ("kind", "params", "tolerance"),
    [(0, LUBLIN99_INTERACTIVE, 0.2), (1, LUBLIN99_BATCH, 0.3)],
)
def test_mean_log_runtime_of_serial_jobs_matches_the_hyper_gamma(columns, kind, params, tolerance):
    mine = (columns["kind"] == kind) & (columns["nodes"] == 1)
    p = params.pa * 1 + params.pb
    expected = p * params.a1 * params.b1 + (1 - p) * params.a2 * params.b2
    # truncating exp(draw) to whole seconds lowers the mean log a little for short jobs
    assert abs(np.log(columns["runtime"][mine]).mean() - expected) < tolerance


def test_bigger_jobs_run_longer(columns):
    """pa < 0: the long gamma gets more weight as the size grows."""
    batch = columns["kind"] == 1
    log_runtime = np.log(columns["runtime"])
    small = log_runtime[batch & (columns["nodes"] == 1)].mean()
    large = log_runtime[batch & (columns["nodes"] >= 32)].mean()
    # p falls from 0.70 (1 node) to 0.60 (32 nodes) and 0.31 (128): about +0.4 to +1.8 in ln
    assert large > small + 0.3


def test_arrivals_follow_the_daily_cycle(columns):
    hour = (columns["submit"] % 86400) // 3600
    day = np.isin(hour, range(10, 16)).sum()
    night = np.isin(hour, range(0, 6)).sum()
    assert day > 3 * night


def test_most_jobs_are_interactive_with_the_reference_arrival_parameters(columns):
    assert 0.6 < (columns["kind"] == 0).mean() < 0.95


def test_bucket_weights_have_mean_one_and_an_afternoon_peak():
    for params in (LUBLIN99_BATCH, LUBLIN99_INTERACTIVE, LUBLIN99_WHOLE):
        weights = _bucket_weights(params)
        assert len(weights) == 48 and math.isclose(sum(weights) / 48, 1.0)
        peak_hour = weights.index(max(weights)) / 2
        assert 11 <= peak_hour <= 16
        assert min(weights) < 0.5 * max(weights)


@pytest.mark.parametrize("x", [0.5, 5.0, 10.5, 30.5, 58.5, 120.0])
@pytest.mark.parametrize(("alpha", "beta"), [(6.1271, 5.274), (8.9186, 3.668), (0.7, 2.0)])
def test_gamma_cdf_agrees_with_scipy(x, alpha, beta):
    special = pytest.importorskip("scipy.special")
    assert math.isclose(_gamma_cdf(x, alpha, beta), special.gammainc(alpha, x / beta), abs_tol=1e-9)


# ----------------------------------------------------------------------------------------------
# Oracle: a log generated by the reference C program
# ----------------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.data("traces/lublin_256.swf")
def test_whole_sample_model_agrees_with_a_log_generated_by_the_c_code(data_dir):
    """``lublin_256.swf`` (PWA generator, typeless parameters, 256 nodes) versus our port."""
    stats = pytest.importorskip("scipy.stats")
    path = data_dir / "traces" / "lublin_256.swf"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DroppedJobsWarning)
        ref = read_swf(path, rebase=False)
    ours = lublin_workload(10000, procs=256, rng=np.random.default_rng(0), job_types=False)

    def column(w, name):
        return np.array([getattr(j, name) for j in w.jobs])

    for name in ("procs", "runtime"):
        assert stats.ks_2samp(column(ours, name), column(ref, name)).pvalue > 0.01, name
    gaps = stats.ks_2samp(np.diff(column(ours, "submit")), np.diff(column(ref, "submit")))
    assert gaps.pvalue > 0.01
    assert abs((column(ours, "procs") == 1).mean() - (column(ref, "procs") == 1).mean()) < 0.02
