"""The ``dbc`` model over quoting, advertising and auctioning providers at once (issue 17)."""

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from agents.model import BrokerSpec, MarketModel, ProviderSpec
from market.errors import InvalidInput
from market.job import Job
from market.valuation import Valuation, draw_valuations
from market.workloads.workload import Workload

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
    jobs, t = [], 0
    for i in range(1, n + 1):
        t += int(rng.integers(0, gap + 1))
        runtime = int(rng.integers(60, 4000))
        jobs.append(Job(i, t, int(rng.integers(1, 9)), runtime, runtime + int(rng.integers(0, 3000)), user=i % 3,
                        site="abc"[i % 3]))
    vals = draw_valuations(((j.id, j.submit, j.procs * j.estimate / H, min(j.runtime, j.estimate)) for j in jobs),
                           rng=rng)
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
