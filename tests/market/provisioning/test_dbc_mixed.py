"""A DBC broker buying from quoting, posting and auctioning providers at once, against enumeration."""

import itertools

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from gridmarket.auctions.single import vickrey
from gridmarket.errors import InvalidInput
from gridmarket.provisioning.dbc import DBCOffer, dbc_buy


def second_price(rivals):
    """A provider's sealed second-price auction (gridmarket.auctions.single.vickrey) against a rival's fixed bid per
    offer; the broker bids its cap, listed first (ties to it)."""
    def run(i, offer, jobs, cap):
        result = vickrey([cap, rivals[i]], reserve=offer.price)
        return result.price if result.winner == 0 else None
    return run


def test_the_broker_bids_only_the_budget_share_that_keeps_the_rest_secure_by_hand():
    """Two jobs of 100 s by 100 s on 10 SU. Two quotes at 5 SU and two auctions with reserve 1 SU, one job each.
    The cheapest plan is both auctions (2 SU). Bidding for auction 2 the broker keeps 5 SU to secure the other
    job at a quote, so it bids at most 5: the rival's 8 wins. It re-plans: auction 3 and a quote, bids 5 again
    and wins at the rival's 3; the last job takes a quote at 5: 8 SU for both. Bidding all it could spare at
    reserve prices (9 SU) it would have won auction 2 at 8 SU and then afforded nothing for the second job."""
    offers = [DBCOffer("q1", "quote", 5.0), DBCOffer("q2", "quote", 5.0), DBCOffer("a", "auction", 1.0),
              DBCOffer("b", "auction", 1.0)]
    buy = dbc_buy(offers, 2, job_time=100, deadline=100, budget=10.0, strategy="cost",
                  auction=second_price({2: 8.0, 3: 3.0}))
    assert buy.bids == ((2, 1, 5.0, None), (3, 1, 5.0, 3.0))
    assert buy.bought == ((3, 1, 3.0), (0, 1, 5.0)) and buy.spent == 8.0 and buy.n_jobs == 2 and buy.makespan == 100


def test_a_posted_slot_holds_only_the_jobs_that_fit_before_its_end():
    """A posted slot 2 jobs wide from 0 to 250 s holds 4 jobs of 100 s (two rounds); the fifth needs the quote."""
    offers = [DBCOffer("p", "post", 1.0, width=2, until=250), DBCOffer("q", "quote", 4.0, ready=50)]
    buy = dbc_buy(offers, 5, job_time=100, deadline=400, budget=100.0, auction=second_price({}))
    assert sorted(buy.bought) == [(0, 4, 1.0), (1, 1, 4.0)] and buy.spent == 8.0


def test_bad_input_and_auctions_that_break_the_rules_are_refused():
    offers = [DBCOffer("a", "auction", 2.0)]
    with pytest.raises(InvalidInput, match="sells must be one of quote, post, auction"):
        DBCOffer("x", "barter", 1.0)
    with pytest.raises(InvalidInput, match="until must be None or an int >= ready"):
        DBCOffer("x", "post", 1.0, ready=10, until=5)
    with pytest.raises(InvalidInput, match=r"charged 11.0 SU a job; it must lie in \[reserve 2.0, cap 10.0\]"):
        dbc_buy(offers, 1, job_time=10, deadline=10, budget=10.0, auction=lambda i, o, k, cap: cap + 1)
    with pytest.raises(InvalidInput, match="must lie in"):
        dbc_buy(offers, 1, job_time=10, deadline=10, budget=10.0, auction=lambda i, o, k, cap: 1.0)
    with pytest.raises(InvalidInput, match="auction must be a callable"):
        dbc_buy(offers, 1, job_time=10, deadline=10, budget=10.0, auction=None)
    with pytest.raises(InvalidInput, match="job_time must be an int >= 1 s"):
        dbc_buy(offers, 1, job_time=0, deadline=10, budget=10.0, auction=second_price({0: 0.0}))


# ------------------------------------------------------------------ properties against enumeration
offer_lists = st.lists(
    st.tuples(st.sampled_from(["quote", "post", "auction"]), st.integers(0, 6).map(float), st.integers(0, 60),
              st.integers(1, 2), st.one_of(st.none(), st.integers(0, 200)), st.integers(0, 12).map(float)),
    min_size=1, max_size=4)


def _offers(raw):
    offers, rivals = [], {}
    for i, (sells, price, ready, width, span, rival) in enumerate(raw):
        until = None if sells != "post" or span is None else ready + span  # only a posted slot ends
        offers.append(DBCOffer(f"p{i}", sells, price, ready, width, until))
        rivals[i] = rival
    return offers, rivals


def _feasible(offers, prices, n, job_time, deadline, budget):
    """Is there an assignment of ``n`` jobs over ``offers`` (``prices`` SU a job; None: not usable) that ends
    by the deadline within the budget? Plain enumeration of the job counts."""
    rs = [o.resource(str(i), job_time) for i, o in enumerate(offers)]
    for counts in itertools.product(range(n + 1), repeat=len(offers)):
        if sum(counts) != n or any(k and prices[i] is None for i, k in enumerate(counts)):
            continue
        if all(k <= r.capacity(deadline) for r, k in zip(rs, counts)) and \
                sum(k * prices[i] for i, k in enumerate(counts) if k) <= budget + 1e-9:
            return True
    return False


@settings(max_examples=300, deadline=None)
@given(raw=offer_lists, n=st.integers(0, 4), job_time=st.integers(1, 60), deadline=st.integers(0, 250),
       budget=st.integers(0, 30).map(float), strategy=st.sampled_from(["cost", "time", "cost-time"]))
def test_never_over_budget_every_job_by_its_deadline_and_all_placed_when_a_secure_plan_exists(
        raw, n, job_time, deadline, budget, strategy):
    offers, rivals = _offers(raw)
    buy = dbc_buy(offers, n, job_time=job_time, deadline=deadline, budget=budget, strategy=strategy,
                  auction=second_price(rivals))
    clearing = [o.price if o.sells != "auction" else max(o.price, rivals[i]) for i, o in enumerate(offers)]
    # never over budget; the spend is what was bought at the prices paid: the quote, the post, the auction's clearing
    assert buy.spent <= budget + 1e-9 and buy.spent == pytest.approx(sum(k * p for _, k, p in buy.bought))
    assert len({i for i, _, _ in buy.bought}) == len(buy.bought) and buy.n_jobs <= n
    for i, k, price in buy.bought:
        assert price == clearing[i]
        assert k <= offers[i].resource("x", job_time).capacity(deadline)  # every job ends by the deadline
    assert buy.makespan <= deadline
    for i, _, cap, price in buy.bids:  # an auction bid never exceeds the remaining budget share
        assert offers[i].price <= cap <= budget + 1e-9 and (price is None) == (cap < clearing[i])
    secure = _feasible(offers, [p if o.sells != "auction" else None for o, p in zip(offers, clearing)], n,
                       job_time, deadline, budget)
    anyhow = _feasible(offers, clearing, n, job_time, deadline, budget)
    if secure:  # quotes and posts alone can do it: every job is placed, whatever the auctions do
        assert buy.n_jobs == n
    if not anyhow:  # not even at the auctions' clearing prices: nobody could place them all
        assert buy.n_jobs < n or n == 0
    if n == 1:  # one job: placed exactly when some offer takes it in time within budget at its clearing price
        assert (buy.n_jobs == 1) == anyhow
    event("all placed" if buy.n_jobs == n else "some left")
    event(f"auctions won: {sum(p is not None for *_, p in buy.bids)}, lost: {sum(p is None for *_, p in buy.bids)}")
