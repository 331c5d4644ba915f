"""VAR (Singh 2008, ch. 6.1, Figure 33), its outcome on a simulated queue, and the combined scheme (Figure 45)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.provisioning.var import (
    CombinedOutcome,
    StartFeed,
    VarOutcome,
    WaitPredictor,
    combine_var_and_reservation,
    plan_var,
    run_var,
    summarize_reservations,
    time_class,
)
from gridmarket.scheduling import make_scheduler
from gridmarket.simulation import MachineSimulation

H = 3600


# ----------------------------------------------------------------------------- predictor
@given(st.lists(st.integers(0, 5000), min_size=1, max_size=200), st.integers(0, 6000))
@settings(max_examples=150, deadline=None)
def test_probability_is_the_largest_quantile_whose_bound_meets_the_deadline(waits, deadline):
    p = WaitPredictor(min_history=1)
    for w in waits:
        p.observe(8, 600, w)
    prob = p.probability(8, 600, deadline)
    assert 0 <= prob < 1
    # two independent computations agree: the Beta quantile and the binomial order-statistic bound
    if prob > 1e-6:
        assert p.wait_bound(8, 600, prob * (1 - 1e-9)) <= deadline
    if prob < 1 - 1e-6:
        assert p.wait_bound(8, 600, min(prob + 1e-6, 1 - 1e-12)) > deadline or prob == 0


def test_probability_grows_with_the_deadline_and_is_zero_below_every_wait():
    p = WaitPredictor(min_history=1)
    for w in range(100, 10_100, 100):
        p.observe(4, 600, w)
    probs = [p.probability(4, 600, d) for d in range(0, 12_000, 500)]
    assert probs[0] == 0.0 and all(a <= b for a, b in zip(probs, probs[1:]))
    assert probs[-1] == pytest.approx(0.05 ** (1 / 100))


def test_classes_fall_back_to_size_then_to_all_jobs():
    p = WaitPredictor(min_history=3)
    for _ in range(3):
        p.observe(64, 4 * H, 10_000)  # big, long jobs wait long
        p.observe(1, 600, 0)  # small jobs start at once
    assert p.probability(64, 4 * H, 5000) == 0.0
    assert p.probability(1, 600, 5000) > 0.3
    # a 64-processor, 10-minute job has no class of its own: its size class answers
    assert p.probability(64, 600, 5000) == 0.0
    # an unseen size borrows the pooled history: half the waits were 0
    assert 0 < p.probability(16, 600, 5000) < p.probability(1, 600, 5000)
    assert time_class(600) == 0 and time_class(900) == 1 and time_class(H) == 3


def test_predictor_rejects_bad_parameters():
    with pytest.raises(InvalidInput, match="confidence"):
        WaitPredictor(confidence=1.0)
    with pytest.raises(InvalidInput, match="min_history"):
        WaitPredictor(min_history=0)
    with pytest.raises(InvalidInput, match="negative"):
        WaitPredictor().observe(1, 60, -1)


# ----------------------------------------------------------------------------- Figure 33
def test_figure_33_trades_time_to_start_against_a_longer_request():
    # jobs asking for more than 2 h waited 3 h; shorter ones waited 30 min. A 1-hour reservation 4 h away:
    # submitting now asks for 5 h (class of 4-8 h: waits 3 h, fits in 4 h); submitting at 2 h asks 3 h
    # (2-4 h class: waits 3 h, does not fit in 2 h); after 3 h the request is under 2 h (waits 30 min).
    p = WaitPredictor(min_history=1, confidence=0.5)
    for _ in range(40):
        p.observe(32, 5 * H, 3 * H)
        p.observe(32, 3 * H, 3 * H)
        p.observe(32, int(1.9 * H), 1800)
    v = plan_var(p, procs=32, duration=H, start=4 * H, now=0)
    assert v.submit == 0 and v.runtime == 5 * H and v.probability > 0.9
    # the 2-4 h window is the worst; from 3 h 30 s on the request falls in the 1-2 h class
    assert p.probability(32, 3 * H, 2 * H) == 0.0
    v_late = plan_var(p, procs=32, duration=H, start=4 * H, now=2 * H)
    assert v_late.submit == 3 * H + 30 and v_late.runtime == H + (H - 30)


def test_figure_33_best_submission_can_fall_strictly_inside_the_lead_window():
    # a 32-node, 1-hour reservation 240 minutes away, asked now (t = 0). Requests of 4-8 h waited 5 h (more
    # than the lead: probability 0); requests of 2-4 h waited 130 min. Submitting at t asks 60 + 240 - t
    # minutes, which falls in the 2-4 h class only for t > 60 min, where every observed wait fits the
    # remaining 240 - t >= 130 minutes: the best time is the first 30 s step past 60 min, not 0 nor the end
    p = WaitPredictor(min_history=1)
    for _ in range(60):
        p.observe(32, 5 * H, 5 * H)
        p.observe(32, 3 * H, 130 * 60)
    v = plan_var(p, procs=32, duration=H, start=4 * H, now=0)
    assert 0 < v.submit < 4 * H
    assert v.submit == H + 30 and v.runtime == H + (4 * H - v.submit)
    assert v.probability == pytest.approx(0.05 ** (1 / 60)) and p.probability(32, 5 * H, 4 * H) == 0.0


class _CurvePredictor:
    """Fig. 36's curves as a predictor: probability by submission minute, peaked where the thesis says."""

    def __init__(self, start, peak_minute, peak):
        self.start, self.peak_minute, self.peak = start, peak_minute, peak

    def probability(self, procs, estimate, deadline):
        minute = (self.start - deadline) / 60  # when the job would be submitted
        return self.peak * (1 - abs(minute - self.peak_minute) / 240)


def test_figure_36_thesis_examples_submission_time_and_padded_runtime():
    # ch. 6.2, Fig. 36: 32 nodes, 1 h, 240 minutes ahead: "the probability is maximum (0.772) at 110 minutes
    # ... submit a task ... 110 minutes from now with a duration of (60 + (240 - 110)) = 190 minutes"; for 4 h
    # the maximum is at time 0 (0.747), "a duration of (240 + (240 - 0)) = 480 minutes"
    one = plan_var(_CurvePredictor(4 * H, 110, 0.772), procs=32, duration=H, start=4 * H, now=0)
    assert (one.submit, one.runtime, one.probability) == (110 * 60, 190 * 60, pytest.approx(0.772))
    four = plan_var(_CurvePredictor(4 * H, 0, 0.747), procs=32, duration=4 * H, start=4 * H, now=0)
    assert (four.submit, four.runtime, four.probability) == (0, 480 * 60, pytest.approx(0.747))


def test_no_history_submits_now_with_probability_zero():
    v = plan_var(WaitPredictor(), procs=4, duration=600, start=1000, now=100)
    assert (v.submit, v.runtime, v.probability) == (100, 1500, 0.0)
    with pytest.raises(InvalidInput, match="before now"):
        plan_var(WaitPredictor(), procs=4, duration=600, start=10, now=100)


# ----------------------------------------------------------------------------- execution
def _busy_machine(until):
    """4 processors held by a background job over [0, until)."""
    return MachineSimulation(make_scheduler("conservative", 4), [Job(1, 0, 4, until, until)])


def _optimist():
    p = WaitPredictor(min_history=1)
    for _ in range(30):
        p.observe(2, 2100, 0)
    return p


def test_var_job_starting_before_the_reservation_idles_until_it():
    sim = _busy_machine(1000)
    out = run_var(sim, _optimist(), procs=2, duration=600, start=1500, job_id=99)
    assert (out.submit, out.job_start, out.success) == (0, 1000, True)
    assert sim.jobs[-1].estimate == 600 + 1500  # D + (S − T1)
    assert out.extra_cost == pytest.approx(2 * 500 / H)
    assert out.allocation_cost == pytest.approx(2 * (1500 + 600 - 1000) / H)
    assert out.normalized_cost == pytest.approx(500 / 600)  # eq. 22 bound: (S − T1)/D = 2.5


def test_var_job_still_queued_at_the_reservation_start_is_a_failure():
    sim = _busy_machine(2000)
    out = run_var(sim, _optimist(), procs=2, duration=600, start=1500, job_id=99)
    assert out.job_start is None and not out.success and out.allocation_cost == 0.0
    assert sim.now <= 1500


def test_feed_observes_every_background_start_but_not_the_var_job():
    jobs = [Job(i, 100 * i, 1 + i % 4, 300, 300) for i in range(1, 30)]
    sim = MachineSimulation(make_scheduler("easy", 4), jobs)
    predictor = WaitPredictor()
    feed = StartFeed(sim, predictor)
    sim.run_until(1500)
    feed.update()
    assert predictor.n_observed == len(sim.start)
    run_var(sim, predictor, procs=1, duration=100, start=sim.now + 600, job_id=1000, feed=feed)
    started = [j for j in sim.start if j != 1000]
    assert predictor.n_observed == len(started)


# ----------------------------------------------------------------------------- Figure 45
@pytest.mark.parametrize("price, var_start, used, extra", [
    (0.0, 3 * H, "reservation", 0.0),  # free reservation: VAR not even submitted
    (20.0, int(3.5 * H), "var", 16.0 + 2.0),  # idle 32 x 0.5 h + penalty 10 % of 20
    (20.0, 3 * H, "reservation", 20.0),  # idle 32 SU + 2 > 20: cancel VAR
    (20.0, None, "reservation", 20.0),  # VAR did not start by S
    (20.0, 5 * H, "reservation", 20.0),  # VAR started too late
    (math.inf, int(3.5 * H), "var", 16.0),  # no reservation possible: VAR alone, no penalty
    (math.inf, None, None, 0.0),  # both failed
])
def test_figure_45_decisions(price, var_start, used, extra):
    out = combine_var_and_reservation(procs=32, duration=H, start=4 * H, price=price, penalty_factor=0.1,
                                      var_start=var_start)
    assert out.used == used and out.extra_cost == pytest.approx(extra)
    assert out.success == (used is not None)
    assert out.var_submitted == (price != 0)
    assert out.normalized_cost == pytest.approx(extra / 32)


@given(st.floats(0, 100), st.one_of(st.none(), st.integers(0, 5 * H)), st.floats(0, 1))
@settings(max_examples=200, deadline=None)
def test_combined_never_costs_more_than_the_reservation_and_succeeds_when_either_does(price, var_start, p):
    out = combine_var_and_reservation(procs=8, duration=H, start=4 * H, price=price, penalty_factor=p,
                                      var_start=var_start)
    assert out.success and out.extra_cost <= price + 1e-9


def test_combined_rejects_bad_penalty_and_price():
    with pytest.raises(InvalidInput, match="penalty_factor"):
        combine_var_and_reservation(procs=1, duration=1, start=1, price=1.0, penalty_factor=2, var_start=None)
    with pytest.raises(InvalidInput, match="price"):
        combine_var_and_reservation(procs=1, duration=1, start=1, price=-1.0, penalty_factor=0.1, var_start=None)


def test_summary_reports_success_rate_and_mean_normalised_cost_of_successes():
    outs = [VarOutcome(2, 600, 1500, 0, 1000, 0.9), VarOutcome(2, 600, 1500, 0, None, 0.9),
            CombinedOutcome("reservation", 1.0, 2.0, True)]
    s = summarize_reservations(outs)
    assert s["n"] == 3 and s["success_rate"] == pytest.approx(2 / 3)
    assert s["mean_normalized_cost"] == pytest.approx((500 / 600 + 0.5) / 2)
    assert math.isnan(summarize_reservations([])["success_rate"])
    assert np.isnan(summarize_reservations([VarOutcome(1, 1, 1, 0, None, 0.0)])["mean_normalized_cost"])

