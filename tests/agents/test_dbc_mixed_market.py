"""The ``dbc`` model over quoting, advertising and auctioning providers at once."""

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from gridmarket.agents.model import BrokerSpec, MarketModel, ProviderSpec
from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.valuation import Valuation
from gridmarket.workloads.workload import Workload
from tests.agents.markets import valued_jobs

H = 3600


def _watch(model):
    """Record, per job, the offers the desk saw (time, [(offer, start)]) and what it bought (site, start, SU)."""
    desk = model.broker.desk
    seen, bought = {}, {}
    offers, hold = desk.offers, desk.hold

    def watched_offers(job, now):
        seen[job.id] = (now, offers(job, now))
        return seen[job.id][1]

    def watched_hold(job, site, start, price, now):
        bought[job.id] = (site, start, price)
        hold(job, site, start, price, now)

    desk.offers, desk.hold = watched_offers, watched_hold
    return seen, bought


def test_one_broker_buys_a_quote_a_posted_slot_and_an_auction_by_hand():
    """Three idle 4-processor machines that quote, post and auction. Every 1-hour 4-processor job costs 4 SU at
    the base rate anywhere. Job 1 (at 0) ties everywhere: the first offer, q's quote at 0. Job 2 (at 10):
    q is held to 3,600 s, so the cheapest earliest is p's posted slot from 10 s. Job 3 (at 20): only a is
    free; the broker bids its value (its budget share: one job) in a's second-price auction and pays the reserve,
    4 SU. Job 4 (worth 3 SU) cannot pay any 4-SU offer: no bid, its home queue."""
    jobs = tuple(Job(i, t, 4, H, H, site="q") for i, t in ((1, 0), (2, 10), (3, 20), (4, 30)))
    vals = {1: Valuation(8.0, 3 * H, H), 2: Valuation(8.0, 3 * H, H), 3: Valuation(8.0, 3 * H, H),
            4: Valuation(3.0, 3 * H, H)}
    m = MarketModel([ProviderSpec("q", 4, "conservative"), ProviderSpec("p", 4, "conservative", sells="post"),
                     ProviderSpec("a", 4, "conservative", sells="auction")], Workload(jobs), route="site",
                    broker=BrokerSpec("dbc"), valuations=vals, rng=0)
    seen, bought = _watch(m)
    r = m.run()
    assert bought == {1: ("q", 0, 4.0), 2: ("p", 10, 4.0), 3: ("a", 20, 4.0)}
    assert [o.sells for o, _ in seen[2][1]] == ["quote", "post", "auction"]
    desk = m.broker.desk
    assert (desk.n_bids, desk.n_bids_won, desk.n_fallback) == (1, 1, 1) and r.messages["bid"] == 1
    rec = r.records.set_index("job_id")
    assert (rec.loc[4, "site"], rec.loc[4, "start"]) == ("q", 3600)  # the home queue, after job 1


def test_a_provider_that_sells_some_other_way_is_refused():
    with pytest.raises(InvalidInput, match="sells must be one of quote, post, auction, got 'barter'"):
        MarketModel([ProviderSpec("q", 4, sells="barter")], Workload((Job(1, 0, 1, 10, 10),)), rng=0)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(2, 25), gap=st.integers(0, 400),
       sells=st.tuples(*[st.sampled_from(["quote", "post", "auction"])] * 3))
def test_every_job_bought_within_its_value_by_its_deadline_and_bought_whenever_some_offer_could(seed, n, gap, sells):
    """Random mixed markets: each purchase costs at most the job's value (its budget) and ends by its deadline;
    a job goes to its home queue only when no offer it saw (auctions at their reserve, what a lone bidder
    pays) ended by the deadline within the value: DBC finds a plan whenever one exists (here, of one job)."""
    rng = np.random.default_rng(seed)
    jobs, vals = valued_jobs(rng, n, gap, "abc")
    m = MarketModel([ProviderSpec("a", 8, "conservative", sells=sells[0]), ProviderSpec("b", 8, "easy", sells=sells[1]),
                     ProviderSpec("c", 16, "easy", sells=sells[2])], Workload(tuple(jobs)), route="site",
                    broker=BrokerSpec("dbc"), valuations=vals, rng=seed)
    seen, bought = _watch(m)
    r = m.run()
    rec = r.records.set_index("job_id")
    assert sorted(rec.index) == list(range(1, n + 1))
    for job in jobs:
        v, run = vals[job.id], max(1, min(job.runtime, job.estimate))
        now, found = seen[job.id]
        could = [(o, s) for o, s in found if o.price <= v.value + 1e-9 and s + run <= v.deadline]
        if job.id in bought:
            site, start, price = bought[job.id]
            assert price <= v.value + 1e-9 and start + run <= v.deadline  # budget and deadline
            assert (rec.loc[job.id, "site"], rec.loc[job.id, "start"]) == (site, start)
            assert any(o.provider == site and s == start and o.price == price for o, s in found)
            # cost optimisation first: nothing it saw was cheaper and still in time
            assert price <= min(o.price for o, _ in could) + 1e-9
        else:
            assert not could, (job.id, could)
    event("sellers: " + "/".join(sorted(set(sells))))


# ------------------------------------------------------------------ dbc-cycle: a cycle's jobs planned together
def _two_bidders(method):
    # one idle 4-processor machine that auctions. Jobs 1 (worth 6 SU, deadline 7,205 s) and 2 (worth 9 SU,
    # deadline 7,210 s), 4 processors for 1 h, arrive at 5 and 10 s. Per job (dbc) each bids alone and pays the
    # reserve, 4 SU: job 1 [5, 3605), job 2 [3605, 7205). Per cycle (dbc-cycle, 60 s) both bid at 60 s for the
    # slot [60, 3660): job 2 bids 9, job 1 6; job 2 wins and pays the second price, 6 SU. Job 1 (its turn came
    # first, earlier deadline) re-plans: the next slot would end at 7,260 s, after its deadline: its home queue.
    jobs = (Job(1, 5, 4, H, H, site="a"), Job(2, 10, 4, H, H, site="a"))
    vals = {1: Valuation(6.0, 7205, H), 2: Valuation(9.0, 7210, H)}
    m = MarketModel([ProviderSpec("a", 4, "conservative", sells="auction")], Workload(jobs), route="site",
                    broker=BrokerSpec(method, cycle=60), valuations=vals, rng=0)
    seen, bought = _watch(m)
    return m, m.run(), bought


def test_a_cycle_s_jobs_compete_in_one_auction_and_the_highest_bid_pays_the_second_by_hand():
    m, r, bought = _two_bidders("dbc-cycle")
    desk, rec = m.broker.desk, r.records.set_index("job_id")
    assert bought == {2: ("a", 60, 6.0)}
    assert (desk.n_bids, desk.n_bids_won, desk.n_contested, desk.n_fallback) == (2, 1, 1, 1)
    assert (rec.loc[1, "start"], rec.loc[1, "cost"]) == (3660, 4.0)  # home queue at the base rate
    m1, r1, bought1 = _two_bidders("dbc")
    assert bought1 == {1: ("a", 5, 4.0), 2: ("a", 3605, 4.0)} and m1.broker.desk.n_bids == 2


def test_a_cycle_is_planned_earliest_deadline_first_so_both_jobs_make_their_deadlines_by_hand():
    # one idle 4-processor machine that quotes. Job 1 (deadline 4 h away) arrives at 5 s, job 2 (deadline 3,760 s)
    # at 10 s, 4 processors for 1 h each. Per job (dbc) job 1 takes [5, 3605) and job 2's only start, 3,605 s,
    # ends after its deadline: its home queue. Per cycle the tighter deadline goes first: job 2 [60, 3660),
    # job 1 [3660, 7260), both in time, 4 SU each.
    jobs = (Job(1, 5, 4, H, H, site="q"), Job(2, 10, 4, H, H, site="q"))
    vals = {1: Valuation(8.0, 5 + 4 * H, H), 2: Valuation(8.0, 3760, H)}
    bought = {}
    for method in ("dbc", "dbc-cycle"):
        m = MarketModel([ProviderSpec("q", 4, "conservative")], Workload(jobs), route="site",
                        broker=BrokerSpec(method, cycle=60), valuations=vals, rng=0)
        bought[method] = _watch(m)[1]
        m.run()
    assert bought["dbc"] == {1: ("q", 5, 4.0)}
    assert bought["dbc-cycle"] == {2: ("q", 60, 4.0), 1: ("q", 3660, 4.0)}


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10**6), n=st.integers(2, 25), gap=st.integers(0, 200),
       sells=st.tuples(*[st.sampled_from(["quote", "post", "auction"])] * 3))
def test_a_cycle_broker_never_pays_over_a_job_s_value_and_every_purchase_ends_by_its_deadline(seed, n, gap, sells):
    """Random mixed markets under dbc-cycle: every job runs once; a job is bought no earlier than its cycle, for
    at most its value (its budget), in a slot that ends by its deadline; no auction sells below its reserve."""
    rng = np.random.default_rng(seed)
    jobs, vals = valued_jobs(rng, n, gap, "abc")
    m = MarketModel([ProviderSpec("a", 8, "conservative", sells=sells[0]), ProviderSpec("b", 8, "easy", sells=sells[1]),
                     ProviderSpec("c", 16, "easy", sells=sells[2])], Workload(tuple(jobs)), route="site",
                    broker=BrokerSpec("dbc-cycle", cycle=60), valuations=vals, rng=seed)
    seen, bought = _watch(m)
    r = m.run()
    rec = r.records.set_index("job_id")
    assert sorted(rec.index) == list(range(1, n + 1))
    by_id = {j.id: j for j in jobs}
    for job_id, (site, start, price) in bought.items():
        job, v = by_id[job_id], vals[job_id]
        cycle_at = -(-job.submit // 60) * 60
        assert price <= v.value + 1e-9 and start + max(1, min(job.runtime, job.estimate)) <= v.deadline
        assert start >= cycle_at and (rec.loc[job_id, "site"], rec.loc[job_id, "start"]) == (site, start)
        now, found = seen[job_id]
        reserve = min(o.price for o, s in found if o.provider == site and s == start)
        assert price >= reserve - 1e-9
    desk = m.broker.desk
    assert desk.n_won == len(bought) and desk.n_won + desk.n_fallback == n
    event(f"contested auctions: {'some' if desk.n_contested else 'none'}")
