"""Auctions: hand-checked examples, properties, and revenue equivalence over seeds."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from gridmarket.auctions import (
    Order,
    OrderBook,
    call_market,
    dutch,
    english,
    first_price,
    first_price_equilibrium_bid,
    vickrey,
)
from gridmarket.errors import InvalidInput

prices = st.floats(0, 100, allow_nan=False).map(lambda x: round(x, 2))


# ------------------------------------------------------------------ hand-checked
def test_sealed_bids_by_hand():
    # bids 3, 7, 5: first price -> bidder 1 pays 7; Vickrey -> pays 5; with reserve 6 Vickrey pays 6
    assert (first_price([3, 7, 5]).winner, first_price([3, 7, 5]).price) == (1, 7.0)
    assert (vickrey([3, 7, 5]).winner, vickrey([3, 7, 5]).price) == (1, 5.0)
    assert vickrey([3, 7, 5], reserve=6).price == 6.0
    assert vickrey([9], reserve=2).price == 2.0  # alone: pays the reserve
    assert first_price([4, 4]).winner == 0  # ties to the first listed
    assert not vickrey([1, 2], reserve=3).sold


def test_clock_auctions_by_hand():
    # English from 0 by 1 on values 3, 7, 5: bidder 2 leaves when the price reaches 6
    r = english([3, 7, 5], increment=1)
    assert (r.winner, r.price) == (1, 6.0)
    assert english([5, 5], increment=1).price == 5.0  # both leave at 6 together: the first wins at 5
    # Dutch from 10 down by 2 on stop prices 3, 7, 5: 10, 8, 6 -> bidder 1 stops the clock at 6
    r = dutch([3, 7, 5], start=10, decrement=2)
    assert (r.winner, r.price, r.rounds) == (1, 6.0, 3)
    assert dutch([3.5], reserve=3.0, start=5.0, decrement=2.0).price == 3.0  # 5, then 3 <= 3.5
    assert dutch([3.5], reserve=3.0, start=5.0, decrement=3.0).price == 3.0  # 5, then 2: the clock stops at the reserve
    assert not dutch([2.5], reserve=3.0, start=5.0).sold
    assert first_price_equilibrium_bid(0.5, 2) == 0.25


def test_double_auction_book_by_hand():
    orders = [Order(f"b{p}", "bid", p, 1) for p in (10, 8, 6, 3)] + [Order(f"a{p}", "ask", p, 1) for p in (2, 5, 7, 9)]
    assert [(t.bid, t.ask, t.price) for t in call_market(orders, k=0.0)] == [("b10", "a2", 5.0), ("b8", "a5", 5.0)]
    assert {t.price for t in call_market(orders, k=1.0)} == {8.0}
    # quantities: a 3-unit bid at 6 against asks 2 x 4 and 2 x 5 takes 2 at 4 and 1 at 5
    trades = call_market([Order("b", "bid", 6, 3), Order("s4", "ask", 4, 2), Order("s5", "ask", 5, 2)], k=0.0)
    assert [(t.ask, t.quantity, t.price) for t in trades] == [("s4", 2, 5.0), ("s5", 1, 5.0)]


def test_bad_input_is_one_clear_error():
    with pytest.raises(InvalidInput, match=r"bids\[1\] must be a finite number >= 0"):
        first_price([1.0, -2.0])
    with pytest.raises(InvalidInput, match="increment must be a finite number > 0"):
        english([1.0], increment=0)
    with pytest.raises(InvalidInput, match="side must be 'bid' or 'ask'"):
        Order("x", "buy", 1.0, 1)
    with pytest.raises(InvalidInput, match="quantity must be an int >= 1"):
        Order("x", "bid", 1.0, 0)
    with pytest.raises(InvalidInput, match="k must be in"):
        call_market([], k=2)
    book = OrderBook()
    book.submit(Order("x", "bid", 1.0, 1))
    with pytest.raises(InvalidInput, match="already submitted"):
        book.submit(Order("x", "ask", 1.0, 1))


# ------------------------------------------------------------------ properties
def _utility(result, me, value):
    return value - result.price if result.winner == me else 0.0


@settings(max_examples=300, deadline=None)
@given(value=prices, others=st.lists(prices, max_size=5), reserve=prices, deviation=prices, pos=st.integers(0, 5))
def test_vickrey_truthful_bidding_is_weakly_dominant(value, others, reserve, deviation, pos):
    pos = min(pos, len(others))

    def bids(mine):
        return others[:pos] + [mine] + others[pos:]

    assert _utility(vickrey(bids(value), reserve), pos, value) >= _utility(vickrey(bids(deviation), reserve), pos, value)


@settings(max_examples=300, deadline=None)
@given(values=st.lists(prices, min_size=1, max_size=6), reserve=prices, inc=st.sampled_from([0.1, 0.5, 1.0, 2.5]),
       close=st.booleans())
def test_english_clock_gives_the_vickrey_winner_within_one_increment_of_its_price(values, reserve, inc, close):
    if close and len(values) > 1:  # top two values inside one clock step: the case a clock cannot separate
        values = [max(0.0, max(values) - inc / 3), *values]  # listed first, so list order cannot pick the winner
    v, e = vickrey(values, reserve), english(values, reserve, inc)
    assert v.winner == e.winner
    if v.sold:
        assert abs(e.price - v.price) < inc + 1e-9
        assert e.price <= values[e.winner]  # never pays above its value
        steps = (e.price - reserve) / inc
        assert abs(steps - round(steps)) < 1e-9  # on the clock's grid


def test_english_clock_prices_stay_on_the_increment_grid():
    # three steps of 0.1 added as floats make 0.30000000000000004, above the two 0.3 values
    assert english([0.3, 0.3, 0.5], increment=0.1).price == 0.4
    assert english([0.3, 0.3, 0.25], increment=0.1).price == 0.3  # both 0.3 leave at 0.4 together


def test_english_clock_top_two_in_one_step_goes_to_the_higher_value():
    assert english([3.0, 3.5], increment=1.0).winner == 1
    assert english([3.5, 3.0], increment=1.0).winner == 0


@settings(max_examples=200, deadline=None)
@given(bids=st.lists(prices, min_size=1, max_size=6), dec=st.sampled_from([0.25, 1.0, 3.0]))
def test_dutch_clock_is_first_price_rounded_down_to_its_grid(bids, dec):
    f, d = first_price(bids), dutch(bids, start=200.0, decrement=dec)
    assert f.winner == d.winner
    assert f.price - dec < d.price <= f.price + 1e-9
    on_grid = math.isclose((200.0 - d.price) / dec, round((200.0 - d.price) / dec), abs_tol=1e-9)
    assert on_grid or d.price == 0.0  # a grid price, or the reserve (0) where the grid steps below it


orders = st.lists(st.tuples(st.sampled_from(["bid", "ask"]), prices, st.integers(1, 5)), max_size=25)


def _units(orders_, side):
    units = [o.price for o in orders_ if o.side == side for _ in range(o.quantity)]
    return sorted(units, reverse=side == "bid")


@settings(max_examples=300, deadline=None)
@given(raw=orders, k=st.floats(0, 1))
def test_call_market_is_individually_rational_balanced_and_trades_the_efficient_quantity(raw, k):
    book = [Order(f"o{i}", side, p, q) for i, (side, p, q) in enumerate(raw)]
    by_id = {o.id: o for o in book}
    trades = call_market(book, k)
    for t in trades:
        assert by_id[t.ask].price - 1e-9 <= t.price <= by_id[t.bid].price + 1e-9
    filled = {}
    for t in trades:
        filled[t.bid] = filled.get(t.bid, 0) + t.quantity
        filled[t.ask] = filled.get(t.ask, 0) + t.quantity
    assert all(filled[i] <= by_id[i].quantity for i in filled)
    bought = sum(t.quantity for t in trades)  # budget balance is structural: a Trade has one price for both sides
    # efficient quantity: the largest q with the q-th best bid unit >= the q-th best ask unit
    bid_units, ask_units = _units(book, "bid"), _units(book, "ask")
    q = 0
    while q < min(len(bid_units), len(ask_units)) and bid_units[q] >= ask_units[q]:
        q += 1
    assert bought == q
    assert len({t.price for t in trades}) <= 1  # one clearing price


@settings(max_examples=300, deadline=None)
@given(raw=orders, k=st.floats(0, 1))
def test_order_book_never_leaves_a_cross_and_trades_within_each_limit(raw, k):
    book = OrderBook(k=k)
    placed, traded = {}, {}
    for i, (side, p, q) in enumerate(raw):
        order = Order(f"o{i}", side, p, q)
        placed[order.id] = order
        for t in book.submit(order):
            assert placed[t.ask].price - 1e-9 <= t.price <= placed[t.bid].price + 1e-9
            traded[t.bid] = traded.get(t.bid, 0) + t.quantity
            traded[t.ask] = traded.get(t.ask, 0) + t.quantity
        if book.best_bid() is not None and book.best_ask() is not None:
            assert book.best_bid() < book.best_ask()
    standing = {e[2]: e[3] for e in book.bids + book.asks}
    for oid, order in placed.items():  # every unit either traded or still stands
        assert traded.get(oid, 0) + standing.get(oid, 0) == order.quantity


# ------------------------------------------------------------------ revenue equivalence
def test_revenue_equivalence_over_seeds():
    """Four bidders, values i.i.d. U[0, 1], no reserve: every format's expected revenue is (n - 1) / (n + 1)
    = 0.6 (Krishna ch. 3). Over 10 seeds x 400 auctions (the same values for every format): each format's
    mean revenue has 0.6 in its 95 % t-interval; first-price (equilibrium bids) against Vickrey, paired by
    seed, has 0 in its interval; the clocks differ from their sealed-bid twins by less than one clock step
    (English 0 to +1e-3 above Vickrey, Dutch 0 to -1e-3 below first-price: the grid, not a mechanism gap)."""
    n, seeds, per_seed = 4, range(1, 11), 400
    means = {"first-price": [], "vickrey": [], "english": [], "dutch": []}
    for seed in seeds:
        values = np.random.default_rng(seed).uniform(0, 1, (per_seed, n))
        rev = {k: [] for k in means}
        for v in values.tolist():
            eq = [first_price_equilibrium_bid(x, n) for x in v]
            rev["first-price"].append(first_price(eq).price)
            rev["vickrey"].append(vickrey(v).price)
            rev["english"].append(english(v, increment=1e-3).price)
            rev["dutch"].append(dutch(eq, start=1.0, decrement=1e-3).price)
        for k in means:
            means[k].append(float(np.mean(rev[k])))
    t = stats.t.ppf(0.975, len(seeds) - 1)

    def interval(xs):
        xs = np.asarray(xs)
        half = t * xs.std(ddof=1) / math.sqrt(len(xs))
        return xs.mean() - half, xs.mean() + half

    for k, xs in means.items():
        lo, hi = interval(xs)
        assert lo <= 0.6 <= hi, (k, lo, hi)
    lo, hi = interval(np.asarray(means["first-price"]) - np.asarray(means["vickrey"]))
    assert lo <= 0.0 <= hi, (lo, hi)
    english_gap = np.asarray(means["english"]) - np.asarray(means["vickrey"])
    dutch_gap = np.asarray(means["dutch"]) - np.asarray(means["first-price"])
    assert ((english_gap >= 0) & (english_gap < 1e-3)).all() and ((dutch_gap > -1e-3) & (dutch_gap <= 1e-12)).all()


# ------------------------------------------------------------------ a provider's slot, reserve from its queue
def _fig21():
    from gridmarket.job import Job
    from gridmarket.pricing import ProviderState, RunningJob
    from gridmarket.reservation import Reservation

    h = 3600
    return ProviderState(0, 5, running=(RunningJob(1, 1, 0, 2 * h), RunningJob(2, 3, 0, 3 * h)),
                         queue=(Job(3, 0, 2, 2 * h, 2 * h), Job(4, 0, 2, 3 * h, 3 * h)),
                         reservations=(Reservation("R", 5 * h, 2, 3 * h),))


def test_slot_auction_reserve_is_the_quote_of_fig21():
    from gridmarket.auctions.slot import auction_slot, reserve_price
    from gridmarket.pricing import ExternalityPricer

    pricer, h = ExternalityPricer(_fig21()), 3600
    assert reserve_price(pricer, 2 * h, 2, 3 * h) == 12.0  # base 6 processor-hours + f = 6 SU (thesis Fig. 21)
    r = auction_slot(pricer, 2 * h, 2, 3 * h, [10.0, 15.0, 13.0])
    assert (r.winner, r.price) == (1, 13.0)
    assert (auction_slot(pricer, 2 * h, 2, 3 * h, [10.0, 15.0], mechanism="vickrey").price) == 12.0  # the reserve
    assert not auction_slot(pricer, 2 * h, 2, 3 * h, [10.0, 11.0]).sold
    assert not auction_slot(pricer, 0, 5, h, [1e9]).sold  # running jobs hold the machine at 0: not auctioned
    with pytest.raises(InvalidInput, match="unknown slot auction 'sealed'"):
        auction_slot(pricer, 2 * h, 2, 3 * h, [1.0], mechanism="sealed")


@settings(max_examples=100, deadline=None)
@given(bids=st.lists(prices, min_size=1, max_size=5), hour=st.integers(0, 9), procs=st.integers(1, 5),
       hours=st.integers(1, 4), mechanism=st.sampled_from(["first-price", "vickrey", "english", "dutch"]))
def test_no_slot_is_sold_below_its_cost_to_the_queue(bids, hour, procs, hours, mechanism):
    from gridmarket.auctions.slot import auction_slot, reserve_price
    from gridmarket.pricing import ExternalityPricer

    pricer, h = ExternalityPricer(_fig21()), 3600
    reserve = reserve_price(pricer, hour * h, procs, hours * h)
    r = auction_slot(pricer, hour * h, procs, hours * h, bids, mechanism=mechanism, step=0.5)
    if r.sold:
        assert r.price >= reserve - 1e-9 and bids[r.winner] >= r.price - 1e-9
    else:
        assert math.isinf(reserve) or max(bids) < reserve


# ---- second price with a reserve per bidder (a slot each bidder's job would use from its own start)
@pytest.mark.parametrize(("bids", "reserves", "winner", "price", "n_bids"), [
    ([3.0, 7.0, 5.0], [1.0, 6.5, 5.5], 1, 6.5, 2),  # bidder 2 cannot reach its reserve: out; 1 pays its own reserve
    ([3.0, 7.0, 6.0], [1.0, 2.0, 5.5], 1, 6.0, 3),  # the second bid above the winner's reserve sets the price
    ([5.0, 5.0], [1.0, 1.0], 0, 5.0, 2),  # a tie goes to the bidder listed first
    ([2.0, 1.0], [3.0, 4.0], None, None, 0),  # nobody reaches a reserve: no sale, no bid made
    ([4.0 - 1e-12], [4.0], 0, 4.0, 1),  # a bid short of its reserve by rounding only enters
])
def test_vickrey_with_a_reserve_per_bidder(bids, reserves, winner, price, n_bids):
    result = vickrey(bids, reserves=reserves)
    assert (result.winner, result.price, result.messages) == (winner, price, n_bids)


def test_vickrey_with_reserves_charges_the_winner_its_critical_bid():
    # the price is the least bid with which the winner would still win: truthful bidding (Krishna ch. 2)
    bids, reserves = [6.0, 9.0, 7.5, 2.0], [5.0, 3.0, 8.0, 1.0]
    result = vickrey(bids, reserves=reserves)
    assert (result.winner, result.price) == (1, 6.0)  # bidder 2 cannot enter (7.5 < 8.0): 6.0 is the next bid
    assert vickrey([6.0, 6.0 + 1e-6, 7.5, 2.0], reserves=reserves).winner == 1
    assert vickrey([6.0, 6.0 - 1e-6, 7.5, 2.0], reserves=reserves).winner == 0


def test_vickrey_reserves_must_match_the_bids():
    with pytest.raises(InvalidInput, match="one reserve per bid: 1 for 2 bids"):
        vickrey([1.0, 2.0], reserves=[1.0])
    with pytest.raises(InvalidInput, match=r"reserves\[0\] must be a finite number >= 0"):
        vickrey([1.0], reserves=[-1.0])
