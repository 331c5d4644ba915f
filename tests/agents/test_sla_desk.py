"""Service-level agreements as an interaction model (``sla``, issue 17): signed, run, settled with penalties."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from agents.model import BrokerSpec, MarketModel, ProviderSpec
from agents.trading import SLA_COLUMNS, sla_penalty
from market.job import Job
from market.valuation import Valuation, draw_valuations
from market.workloads.workload import Workload

H = 3600


@pytest.fixture(scope="module")
def hand():
    # one idle 4-processor machine. Job 1 (4 procs, 1 h) asks at 10 s with its deadline 3 h away: the
    # provider signs [10, 3610) at the base rate, 4 SU. Job 2 (4 procs, 1 h, deadline 1.5 h away) can start
    # no later than 1,820 s, but job 1's reservation holds the machine until 3,610 s: no SLA, it queues.
    # Job 3 (2 procs, 2 h estimate, runs 1 h; worth 5 SU) could jump job 2 at 3,610 s only by paying
    # job 2's delay (4 procs x 2 h = 8 SU more): over its value, so it signs 7,210 s, after job 2, for 4 SU.
    jobs = (Job(1, 10, 4, H, H, site="a"), Job(2, 20, 4, H, H, site="a"), Job(3, 30, 2, H, 2 * H, site="a"))
    vals = {1: Valuation(8.0, 10 + 3 * H, 3 * H), 2: Valuation(6.0, 20 + H + 1800, H + 1800),
            3: Valuation(5.0, 30 + 6 * H, 6 * H)}
    m = MarketModel([ProviderSpec("a", 4, "conservative")], Workload(jobs), route="site", broker=BrokerSpec("sla"),
                    valuations=vals, rng=0)
    return m, m.run()


def test_the_provider_signs_only_windows_its_plan_can_honour_by_hand(hand):
    m, r = hand
    slas = r.slas.set_index("job_id")
    assert list(r.slas.columns) == list(SLA_COLUMNS) and list(slas.index) == [1, 3]
    assert (slas.loc[1, "earliest"], slas.loc[1, "latest"], slas.loc[1, "signed_start"]) == (10, 10 + 2 * H, 10)
    assert (slas.loc[3, "signed_start"], slas.loc[3, "price"]) == (7210, 4.0)
    rec = r.records.set_index("job_id")
    assert (rec.loc[1, "start"], rec.loc[1, "end"], rec.loc[1, "cost"]) == (10, 3610, 4.0)
    assert (rec.loc[2, "start"], rec.loc[3, "start"], rec.loc[3, "end"]) == (3610, 7210, 10810)
    assert not slas["violated"].any() and slas["penalty"].sum() == 0.0
    assert r.messages["sla"] == 2 and r.messages["reserve"] == 2 and m.broker.desk.n_fallback == 1


def test_settlement_charges_a_late_start_and_a_job_that_never_ran_by_hand(hand):
    m, r = hand
    records = r.records.copy()
    one = records.index[records["job_id"] == 1][0]
    records.loc[one, ["start", "end"]] = [10 + 2 * H + 90, 10 + 3 * H + 90]  # 90 s after its latest start
    records = records[records["job_id"] != 3]  # job 3 never ran
    paid, slas = m.broker.desk.settle(records)
    slas = slas.set_index("job_id")
    rate = sla_penalty(Valuation(8.0, 10 + 3 * H, 3 * H)).rate_per_hour  # 8 SU over a 3 h grace: 2.67 SU/h
    assert slas.loc[1, "late"] == 90 and slas.loc[1, "penalty"] == pytest.approx(rate * 90 / H)
    assert paid.set_index("job_id").loc[1, "cost"] == pytest.approx(4.0 - rate * 90 / H)
    assert (slas.loc[3, "payment"], slas.loc[3, "penalty"], slas.loc[3, "violated"]) == (-5.0, 5.0, True)
    assert slas["violated"].sum() == 2


def test_penalties_repay_the_value_the_user_loses():
    p = sla_penalty(Valuation(12.0, 7200, 2 * H))
    assert (p.rate_per_hour, p.cap, p.violation) == (6.0, 12.0, 12.0)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(2, 25), gap=st.integers(0, 400),
       factor=st.sampled_from([1.0, 1.0, 1.5, 2.0]))
def test_every_signed_sla_starts_in_its_window_unless_the_run_counts_a_violation(seed, n, gap, factor):
    """Random markets: every job runs once; a contract started in its window ends by the deadline; the rest
    are violations, paid for by the penalty schedule; a provider that does not overbook violates none."""
    rng = np.random.default_rng(seed)
    jobs, t = [], 0
    for i in range(1, n + 1):
        t += int(rng.integers(0, gap + 1))
        runtime = int(rng.integers(60, 4000))
        jobs.append(Job(i, t, int(rng.integers(1, 9)), runtime, runtime + int(rng.integers(0, 3000)), user=i % 3,
                        site="ab"[i % 2]))
    vals = draw_valuations(((j.id, j.submit, j.procs * j.estimate / H, min(j.runtime, j.estimate)) for j in jobs),
                           rng=rng)
    m = MarketModel([ProviderSpec("a", 8, "conservative", overbooking=factor),
                     ProviderSpec("b", 8, "easy", overbooking=factor)], Workload(tuple(jobs)),
                    route="site", broker=BrokerSpec("sla"), valuations=vals, rng=seed)
    r = m.run()
    slas, rec, desk = r.slas, r.records.set_index("job_id"), m.broker.desk
    assert sorted(rec.index) == list(range(1, n + 1))  # every job ran once: under its SLA or in its home queue
    assert len(slas) == desk.n_won and desk.n_won + desk.n_fallback == n
    for row in slas.itertuples(index=False):
        v = vals[row.job_id]
        assert row.price <= v.value + 1e-9  # never signed above the job's value
        terms = sla_penalty(v)
        if row.job_id in desk.broken:  # never ran there: the provider pays the violation penalty
            assert pd.isna(row.start) and row.violated and row.payment == -terms.violation
            continue
        in_window = row.earliest <= row.start <= row.latest
        assert row.start >= row.signed_start and rec.loc[row.job_id, "start"] == row.start
        assert row.violated == (not in_window) and row.late == max(0, row.start - row.latest)
        assert row.penalty == pytest.approx(terms.lateness_penalty(int(row.late)))
        assert rec.loc[row.job_id, "cost"] == pytest.approx(row.payment) == pytest.approx(row.price - row.penalty)
        if in_window:  # an on-time start ends by the job's deadline: the contract kept the user's value
            assert row.end <= v.deadline
    if factor == 1.0:  # signed only what the plan can honour
        assert desk.n_overbooked == 0 and not slas["violated"].any()
    event(f"violations at {factor}: {'some' if slas['violated'].any() else 'none'}")


# ------------------------------------------------------------------ overbooking: violations happen and are paid
def _overbooked_market(factor):
    # one 4-processor machine. Job 1 (4 procs, estimate 2 h, runs 1 h; worth 10 SU) signs [10, 7210) for 8 SU.
    # Job 2 (4 procs, 1 h; worth 6 SU, deadline 20 + 1.5 h, grace 3 h) must start by 1,820 s: the plan refuses
    # it (job 1's reservation holds the machine to 7,210 s), but a provider overbooking by 2 has 4 more
    # processors in its book and signs it at 20 s for 4 SU. The machine holds 7,210 s for it and looks again
    # every 60 s; job 1 ends at 3,610 s and at the next look (3,620 s) job 2 starts, 1,800 s late: 2 SU/h
    # (6 SU over a 3 h grace) x 0.5 h = 1 SU back. Job 3 (4 procs, estimate 2 h, runs 1 h; worth 9 SU,
    # deadline 30 + 1.2 h, grace 600 s) signs on the book at 30 s for 8 SU; the machine's earliest start
    # (10,810 s, after job 2's held start) would end it past deadline + grace: broken, the provider pays 9 SU
    # and the job queues at home, starting when job 2 ends (7,220 s) at the base rate, 4 SU.
    jobs = (Job(1, 10, 4, H, 2 * H, site="a"), Job(2, 20, 4, H, H, site="a"), Job(3, 30, 4, H, 2 * H, site="a"))
    vals = {1: Valuation(10.0, 10 + 3 * H, 3 * H), 2: Valuation(6.0, 20 + H + 1800, 3 * H),
            3: Valuation(9.0, 30 + H + 720, 600)}
    m = MarketModel([ProviderSpec("a", 4, "conservative", overbooking=factor)], Workload(jobs), route="site",
                    broker=BrokerSpec("sla", cycle=60), valuations=vals, rng=0)
    return m, m.run()


def test_an_overbooking_provider_starts_a_contract_late_and_breaks_another_by_hand():
    m, r = _overbooked_market(2.0)
    slas, rec = r.slas.set_index("job_id"), r.records.set_index("job_id")
    assert list(slas.index) == [1, 2, 3]
    assert list(slas["signed_start"]) == [10, 20, 30] and list(slas["price"]) == [8.0, 4.0, 8.0]
    assert (rec.loc[2, "start"], slas.loc[2, "start"], slas.loc[2, "late"]) == (3620, 3620, 1800)
    assert (slas.loc[2, "penalty"], slas.loc[2, "payment"], rec.loc[2, "cost"]) == (1.0, 3.0, 3.0)
    assert pd.isna(slas.loc[3, "start"]) and (slas.loc[3, "penalty"], slas.loc[3, "payment"]) == (9.0, -9.0)
    assert (rec.loc[3, "start"], rec.loc[3, "cost"]) == (7220, 4.0 - 9.0)  # its home queue's charge, less 9 SU
    assert list(slas["violated"]) == [False, True, True]
    desk = m.broker.desk
    assert (desk.n_overbooked, desk.n_rebooked, desk.n_broken, desk.n_won, desk.n_fallback) == (2, 1, 1, 3, 0)
    assert r.messages["sla"] == 3 + 2  # three contracts offered; a later start and a breach told
    assert r.records["cost"].sum() == pytest.approx(8.0 + 3.0 - 5.0)


def test_the_same_market_without_overbooking_signs_only_what_it_can_honour():
    m, r = _overbooked_market(1.0)
    assert list(r.slas["job_id"]) == [1] and not r.slas["violated"].any()
    rec = r.records.set_index("job_id")
    assert (rec.loc[2, "start"], rec.loc[3, "start"]) == (3610, 7210)  # queued at home; job 1 ended early
    assert m.broker.desk.n_overbooked == 0 and m.broker.desk.n_fallback == 2


def test_a_waiting_overbooked_contract_counts_as_submitted_in_the_running_summary():
    from viz.summary import running_summary

    jobs = (Job(1, 10, 4, H, 2 * H, site="a"), Job(2, 20, 4, H, H, site="a"))
    vals = {1: Valuation(10.0, 10 + 3 * H, 3 * H), 2: Valuation(6.0, 20 + H + 1800, 3 * H)}
    m = MarketModel([ProviderSpec("a", 4, "conservative", overbooking=2.0)], Workload(jobs), route="site",
                    broker=BrokerSpec("sla", cycle=60), valuations=vals, rng=0)
    m.run_until(1000)  # job 2 signed at 20 s on the book, the machine busy with job 1 until it ends at 3,610 s
    assert m.broker.desk.waiting == {2} and running_summary(m, 1000)["submitted"] == 2
    m.run()
    assert m.broker.desk.waiting == set()
