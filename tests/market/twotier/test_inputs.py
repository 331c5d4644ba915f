"""Bad input to the two-tier simulation: clear ``InvalidInput`` errors naming the culprit."""

import numpy as np
import pytest

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.twotier import JobTraits, simulate_twotier
from gridmarket.twotier.progress import check_usage

JOBS = [Job(1, 0, 2, 10, 10), Job(2, 0, 1, 10, 10)]


def sim(**kw):
    kw.setdefault("procs", 2)
    kw.setdefault("rng", np.random.default_rng(0))
    return simulate_twotier(JOBS, **kw)


@pytest.mark.parametrize(
    "usage, match",
    [
        ({2: 1.5}, r"job 2: usage\[0\] must be in \[0, 1\], got 1.5"),
        ({1: [0.5, -0.1]}, r"job 1: usage\[1\] must be in \[0, 1\], got -0.1"),
        ({1: [0.5]}, r"job 1: usage has 1 values for 2 processes"),
        ({1: "high"}, r"job 1: usage must be a number"),
        ({2: float("nan")}, r"job 2: usage\[0\] must be in \[0, 1\]"),
        ("half", r"usage must be 'paper', 'full' or a mapping"),
    ],
)
def test_usage_outside_zero_one_or_malformed_is_rejected_naming_the_job(usage, match):
    with pytest.raises(InvalidInput, match=match):
        sim(usage=usage)


@pytest.mark.parametrize("cost, match", [(-5, r"migration_cost must be >= 0 s, got -5"),
                                         (2.5, r"migration_cost must be an int"),
                                         (True, r"migration_cost must be an int")])
def test_negative_or_fractional_migration_cost_is_rejected(cost, match):
    with pytest.raises(InvalidInput, match=match):
        sim(policy="measy", migration_cost=cost)


def test_unknown_policy_model_and_missing_rng_are_rejected():
    with pytest.raises(InvalidInput, match=r"unknown two-tier policy 'geasy' \(did you mean 'reasy'\?\); known: keasy, measy, reasy$"):
        sim(policy="geasy")
    with pytest.raises(InvalidInput, match="bg_model must be one of"):
        sim(bg_model="sum")
    with pytest.raises(InvalidInput, match="rng must be a numpy.random.Generator"):
        sim(rng=42)
    with pytest.raises(InvalidInput, match="no machine size"):
        simulate_twotier(JOBS, rng=np.random.default_rng(0))


def test_given_traits_are_validated_naming_the_job():
    with pytest.raises(InvalidInput, match=r"job 2: traits.beta must be in \[0, 1\], got 1.5"):
        sim(traits={2: JobTraits((1.0,), (1.0,), 1.5, 0.0)})
    with pytest.raises(InvalidInput, match=r"job 1: usage\[0\] must be in \[0, 1\], got 2.0"):
        sim(traits={1: JobTraits((2.0, 0.5), (0.5, 0.5), 0.5, 0.0)})


def test_unknown_usage_in_the_mapping_hides_it_from_the_scheduler():
    r = sim(usage={1: None, 2: 0.7}).records.set_index("job_id")
    assert r.loc[2, "usage_mean"] == 0.7
    assert 0.4 <= r.loc[1, "usage_mean"] <= 1.0  # drawn as the paper's model


def test_jobs_wider_than_the_machine_are_dropped_with_a_warning():
    with pytest.warns(UserWarning, match="dropped 1 job"):
        res = simulate_twotier(JOBS + [Job(3, 5, 9, 10, 10)], procs=2, rng=np.random.default_rng(0))
    assert len(res.records) == 2 and res.summary["dropped"] == 1


def test_check_usage_accepts_numbers_sequences_and_none():
    assert check_usage(1, 1, 3) == (1.0, 1.0, 1.0)
    assert check_usage(1, np.array([0.2, 0.3]), 2) == (0.2, 0.3)
    assert check_usage(1, None, 2) is None
