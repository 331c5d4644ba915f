"""Service-level agreements as an interaction model (``sla``): signed, run, settled with penalties."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from gridmarket.agents.model import BrokerSpec, MarketModel, ProviderSpec
from gridmarket.agents.trading import SLA_COLUMNS, sla_penalty
from gridmarket.job import Job
from gridmarket.valuation import Valuation
from gridmarket.workloads.workload import Workload
from tests.agents.markets import valued_jobs

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
    jobs, vals = valued_jobs(rng, n, gap, "ab")
    m = MarketModel([ProviderSpec("a", 8, "conservative", overbooking=factor),
                     ProviderSpec("b", 8, "easy", overbooking=factor)], Workload(tuple(jobs)),
                    route="site", broker=BrokerSpec("sla"), valuations=vals, rng=seed)
    r = m.run()
    _check_settled_market(m, r, vals, n)
    if factor == 1.0:  # signed only what the plan can honour
        assert m.broker.desk.book.n_overbooked == 0 and not r.slas["violated"].any()
    event(f"violations at {factor}: {'some' if r.slas['violated'].any() else 'none'}")
    event(f"re-offered at {factor}: {'some' if m.broker.desk.book.n_reoffered else 'none'}")


def _check_settled_market(m, r, vals, n):
    """Every job ran once; every contract is paid for by the penalty schedule; a broken contract never ran and
    its job's re-offered contract (one its provider's plan could honour) or home queue ran it."""
    slas, rec, desk = r.slas, r.records.set_index("job_id"), m.broker.desk
    assert sorted(rec.index) == sorted(vals) and len(vals) == n  # every job ran once: under its SLA or at home
    assert desk.n_won + desk.n_fallback == n
    assert int(slas["broken"].sum()) == desk.book.n_broken and set(slas.loc[slas["broken"], "job_id"]) == desk.book.broken
    current = slas[~slas["broken"]]
    assert current["job_id"].is_unique and len(current) == desk.n_won - (desk.book.n_broken - desk.book.n_reoffered)
    broken_paid = slas[slas["broken"]].groupby("job_id")["payment"].sum()
    for row in slas.itertuples(index=False):
        v = vals[row.job_id]
        assert row.price <= v.value + 1e-9  # never signed above the job's value
        terms = sla_penalty(v)
        if row.broken:  # never ran there: the provider pays the violation penalty
            assert pd.isna(row.start) and row.violated and row.payment == -terms.violation
            continue
        in_window = row.earliest <= row.start <= row.latest
        assert row.start >= row.signed_start and rec.loc[row.job_id, "start"] == row.start
        assert row.violated == (not in_window) and row.late == max(0, row.start - row.latest)
        assert row.penalty == pytest.approx(terms.lateness_penalty(int(row.late)))
        assert row.overrun == max(0, row.end - row.start - row.duration)  # run past the contract, to the estimate
        assert row.overrun_charge == pytest.approx(row.overrun * rec.loc[row.job_id, "procs"] / H)  # base rate
        if not desk.predicts:
            assert row.duration == rec.loc[row.job_id, "estimate"] and row.overrun == 0
        paid = row.payment + row.overrun_charge + broken_paid.get(row.job_id, 0.0)
        assert rec.loc[row.job_id, "cost"] == pytest.approx(paid)
        assert row.payment == pytest.approx(row.price - row.penalty)
        if in_window and not desk.predicts:  # an on-time start ends by the job's deadline: the user keeps the value
            assert row.end <= v.deadline
        if row.job_id in desk.book.broken and not desk.predicts:  # re-offered: a start the new plan could honour
            assert in_window


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
    assert (desk.book.n_overbooked, desk.book.n_rebooked, desk.book.n_broken, desk.n_won, desk.n_fallback) == (2, 1, 1, 3, 0)
    assert r.messages["sla"] == 3 + 2  # three contracts offered; a later start and a breach told
    assert r.records["cost"].sum() == pytest.approx(8.0 + 3.0 - 5.0)


def test_the_same_market_without_overbooking_signs_only_what_it_can_honour():
    m, r = _overbooked_market(1.0)
    assert list(r.slas["job_id"]) == [1] and not r.slas["violated"].any()
    rec = r.records.set_index("job_id")
    assert (rec.loc[2, "start"], rec.loc[3, "start"]) == (3610, 7210)  # queued at home; job 1 ended early
    assert m.broker.desk.book.n_overbooked == 0 and m.broker.desk.n_fallback == 2


def test_a_waiting_overbooked_contract_counts_as_submitted_in_the_running_summary():
    from gridmarket.viz.summary import running_summary

    jobs = (Job(1, 10, 4, H, 2 * H, site="a"), Job(2, 20, 4, H, H, site="a"))
    vals = {1: Valuation(10.0, 10 + 3 * H, 3 * H), 2: Valuation(6.0, 20 + H + 1800, 3 * H)}
    m = MarketModel([ProviderSpec("a", 4, "conservative", overbooking=2.0)], Workload(jobs), route="site",
                    broker=BrokerSpec("sla", cycle=60), valuations=vals, rng=0)
    m.run_until(1000)  # job 2 signed at 20 s on the book, the machine busy with job 1 until it ends at 3,610 s
    assert m.broker.desk.book.waiting == {2} and running_summary(m, 1000)["submitted"] == 2
    m.run()
    assert m.broker.desk.book.waiting == set()


# ------------------------------------------------------------------ broken contracts re-offered
def test_a_contract_its_provider_cannot_run_in_time_is_re_offered_to_another_provider_by_hand():
    # two 4-processor machines. Job 0 signs b for [5, 1000) (home first on a tie), job 1 signs a for [10, 7210).
    # Job 2 (4 procs, 1 h; worth 6 SU, deadline 5,420 s, grace 600 s: on time if it starts by 1,820 s, worth
    # something if by 2,419 s) is offered 4 SU by both: a, overbooking by 2, at 20 s on its book, b at 1,000 s; the
    # broker signs the earlier, a's. At 20 s a's machine could start it only at 7,210 s, after its value is gone:
    # the broker re-enters the market at once and b signs [1,000, 4,600) on its plan; a broke its contract and
    # pays the violation penalty, 6 SU. (Without the re-offer a would look again every minute, break the contract
    # at 2,380 s and the job would wait in a's queue until 7,210 s.)
    jobs = (Job(0, 5, 4, 995, 995, site="b"), Job(1, 10, 4, 2 * H, 2 * H, site="a"), Job(2, 20, 4, H, H, site="a"))
    vals = {0: Valuation(8.0, 5 + 2 * H, H), 1: Valuation(20.0, 10 + 3 * H, H), 2: Valuation(6.0, 5420, 600)}
    m = MarketModel([ProviderSpec("a", 4, "conservative", overbooking=2.0), ProviderSpec("b", 4, "conservative")],
                    Workload(jobs), route="site", broker=BrokerSpec("sla", cycle=60), valuations=vals, rng=0)
    r = m.run()
    desk, rec = m.broker.desk, r.records.set_index("job_id")
    two = r.slas[r.slas["job_id"] == 2].reset_index(drop=True)
    assert list(two["provider"]) == ["a", "b"] and list(two["broken"]) == [True, False]
    assert list(two["signed_start"]) == [20, 1000] and list(two["price"]) == [4.0, 4.0]
    assert (two.loc[0, "payment"], two.loc[1, "payment"], two.loc[1, "violated"]) == (-6.0, 4.0, False)
    assert (rec.loc[2, "site"], rec.loc[2, "start"], rec.loc[2, "end"], rec.loc[2, "cost"]) == ("b", 1000, 4600, -2.0)
    assert (desk.book.n_overbooked, desk.book.n_broken, desk.book.n_reoffered, desk.n_fallback) == (1, 1, 1, 0)
    assert desk.book.broken == {2} and desk.book.waiting == set()
    assert ("sla-penalty" in {k for _, _, k in m.providers["a"].price_log})  # the viz shows what a paid back
    _check_settled_market(m, r, vals, 3)


# ------------------------------------------------------------------ runtime overruns
def _overrun_market():
    # one idle 4-processor machine, the broker contracting for predicted run times (sla-predict). Job 1 (user 0,
    # estimate 1 h, runs 600 s) has no history: contract [0, 3600) for its estimate, 4 SU; it ends at 600 s.
    # Job 2 (user 0, estimate 1 h, runs 1,800 s) is predicted from job 1: 600 s, contract [1000, 1600) for
    # 0.667 SU. Job 3 (user 1, no history: its estimate, 600 s; worth 6 SU by 2,600 s, grace 1 h) signs
    # [1600, 2200) for 0.667 SU. At 1,600 s job 2 still runs: the provider lets it run to 2,800 s and moves job
    # 3's contract off the machine; job 3 starts at 2,800 s, 800 s after its latest start: 6 SU/h x 800 s =
    # 1.333 SU back. Job 2's user pays its contract and 1,200 s x 4 processors at the base rate (1.333 SU).
    jobs = (Job(1, 0, 4, 600, H, user=0, site="a"), Job(2, 1000, 4, 1800, H, user=0, site="a"),
            Job(3, 1100, 4, 600, 600, user=1, site="a"))
    vals = {1: Valuation(10.0, 2 * H, H), 2: Valuation(10.0, 1000 + 2 * H, H), 3: Valuation(6.0, 2600, H)}
    m = MarketModel([ProviderSpec("a", 4, "conservative")], Workload(jobs), route="site",
                    broker=BrokerSpec("sla-predict", cycle=60), valuations=vals, rng=0)
    return m, m.run(), vals


def test_a_job_running_past_its_contract_makes_the_next_contract_late_and_both_are_settled_by_hand():
    m, r, vals = _overrun_market()
    desk, rec, slas = m.broker.desk, r.records.set_index("job_id"), r.slas.set_index("job_id")
    assert list(slas["duration"]) == [H, 600, 600] and list(slas["signed_start"]) == [0, 1000, 1600]
    assert (rec.loc[2, "start"], rec.loc[2, "end"], slas.loc[2, "overrun"]) == (1000, 2800, 1200)
    assert slas.loc[2, "overrun_charge"] == pytest.approx(4 * 1200 / H) and not slas.loc[2, "violated"]
    assert rec.loc[2, "cost"] == pytest.approx(4 * 600 / H + 4 * 1200 / H)  # its contract, then the overrun
    assert (rec.loc[3, "start"], slas.loc[3, "start"], slas.loc[3, "late"]) == (2800, 2800, 800)
    assert slas.loc[3, "violated"] and slas.loc[3, "penalty"] == pytest.approx(6.0 * 800 / H)
    assert rec.loc[3, "cost"] == pytest.approx(4 * 600 / H - 6.0 * 800 / H)
    assert (desk.book.n_overruns, desk.book.n_displaced, desk.book.n_rebooked, desk.book.n_broken) == (1, 1, 1, 0)
    assert desk.book.overruns == {2: 1200} and desk.book.n_overbooked == 0
    _check_settled_market(m, r, vals, 3)
    _check_capacity(r.records, {"a": 4})


def test_the_estimate_contracting_broker_sees_no_overrun_on_the_same_jobs():
    m, r, vals = _overrun_market()
    plain = MarketModel([ProviderSpec("a", 4, "conservative")],
                        Workload((Job(1, 0, 4, 600, H, user=0, site="a"), Job(2, 1000, 4, 1800, H, user=0, site="a"),
                                  Job(3, 1100, 4, 600, 600, user=1, site="a"))),
                        route="site", broker=BrokerSpec("sla", cycle=60), valuations=vals, rng=0)
    p = plain.run()
    assert plain.broker.desk.book.n_overruns == 0 and not p.slas["violated"].any() and p.slas["overrun"].sum() == 0


def _check_capacity(records, procs):
    """No machine ever runs more processors than it has (an overrun is given processors, never shared)."""
    for site, n in procs.items():
        rows = records[records["site"] == site]
        events = sorted([(int(e), -int(p)) for e, p in zip(rows["end"], rows["procs"])]
                        + [(int(s), int(p)) for s, p in zip(rows["start"], rows["procs"])])
        busy = 0
        for _, d in events:
            busy += d
            assert busy <= n, f"{site} runs {busy} processors of {n}"


def _predicted_sla_market(seed, n, gap):
    """``n`` random jobs (inter-arrivals up to ``gap`` s) on two 8-processor sites under sla-predict; (model, values)."""
    rng = np.random.default_rng(seed)
    jobs, vals = valued_jobs(rng, n, gap, "ab")
    model = MarketModel([ProviderSpec("a", 8, "conservative"), ProviderSpec("b", 8, "easy")], Workload(tuple(jobs)),
                        route="site", broker=BrokerSpec("sla-predict"), valuations=vals, rng=seed)
    return model, vals


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(2, 25), gap=st.integers(0, 400))
def test_predicted_contracts_overrun_and_every_violation_without_overbooking_follows_an_overrun(seed, n, gap):
    """Random markets under sla-predict (no overbooking): every job runs once, no machine holds more than its
    processors, overruns are charged at the base rate, and contracts are violated only when overruns moved them."""
    m, vals = _predicted_sla_market(seed, n, gap)
    r = m.run()
    desk = m.broker.desk
    _check_settled_market(m, r, vals, n)
    _check_capacity(r.records, {"a": 8, "b": 8})
    assert desk.book.n_overbooked == 0 and len(desk.book.overruns) == desk.book.n_overruns
    violated = r.slas[r.slas["violated"]]
    assert len(violated) == 0 or desk.book.n_displaced > 0  # only an overrun moves a contract off its start
    assert int((r.slas["overrun"] > 0).sum()) == desk.book.n_overruns
    event(f"overruns: {'some' if desk.book.n_overruns else 'none'}; violations: {'some' if len(violated) else 'none'}")


def test_the_viz_table_shows_sla_violations_and_penalties_as_they_happen():
    """The running summary (viz) counts each late start and breach when it happens and nets the penalties
    out of what providers were paid: the overbooked market by hand. Job 3's value runs out for a start after
    1,349 s; looking every minute from 30 s, the provider breaks it at 1,290 s (9 SU); job 2 starts 1,800 s
    late at 3,620 s (1 SU)."""
    from gridmarket.viz.summary import SUMMARY_FIELDS, running_summary

    m, _ = _overbooked_market(2.0)
    seen = {t: running_summary(m, t) for t in (1289, 1290, 3619, 3620)}
    assert [(seen[t]["sla_violations"], seen[t]["sla_penalties"]) for t in seen] == [(0, 0), (1, 9.0), (1, 9.0),
                                                                                      (2, 10.0)]
    # paid when a contract's job starts on it: job 1's 8 SU and (at 3,620 s) job 2's 4 SU; 10 SU paid back
    assert (seen[3619]["slots_paid"], seen[3620]["slots_paid"]) == (8.0 - 9.0, 8.0 + 4.0 - 10.0)
    assert {"sla_violations", "sla_penalties"} <= set(SUMMARY_FIELDS)


def test_a_desk_that_gathers_jobs_a_cycle_then_signs_slas_runs_both_inherited_parts(hand):
    """Mixing the cycle of :class:`TradingDesk` with :class:`SLADesk`'s contracts: each base keeps its own private
    step (they once shared the name ``_run`` with different arguments, a TypeError at the first cycle)."""
    from gridmarket.agents.trading import SLADesk, TradingDesk

    class CycledSLADesk(SLADesk):
        take = TradingDesk.take  # gather a cycle's jobs, then trade them together

    _, per_job = hand
    jobs = (Job(1, 10, 4, H, H, site="a"), Job(2, 20, 4, H, H, site="a"), Job(3, 30, 2, H, 2 * H, site="a"))
    vals = {1: Valuation(8.0, 10 + 3 * H, 3 * H), 2: Valuation(6.0, 20 + H + 1800, H + 1800),
            3: Valuation(5.0, 30 + 6 * H, 6 * H)}
    m = MarketModel([ProviderSpec("a", 4, "conservative")], Workload(jobs), route="site",
                    broker=BrokerSpec(CycledSLADesk, cycle=60), valuations=vals, rng=0)
    r = m.run()
    # the three jobs trade together at 60 s, in arrival order: the hand case's contracts, each 50, 40 and 30 s later
    slas = r.slas.set_index("job_id")
    assert list(slas.index) == [1, 3] and slas.loc[1, "signed_start"] == 60 and m.broker.desk.n_fallback == 1
    assert slas.loc[3, "price"] == per_job.slas.set_index("job_id").loc[3, "price"]


def test_a_market_with_no_contract_settles_to_an_empty_typed_table():
    """seed 251598, two jobs, no gap: sla-predict signs nothing; the table's flags must still be boolean masks."""
    m, vals = _predicted_sla_market(251598, 2, 0)
    r = m.run()
    assert r.slas.empty and r.slas["broken"].dtype == bool and r.slas["violated"].dtype == bool
    _check_settled_market(m, r, vals, 2)
