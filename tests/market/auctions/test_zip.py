"""ZIP traders in a continuous double auction: Cliff 1997's convergence, no trade at a loss."""

from collections import Counter
from dataclasses import fields

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from gridmarket.auctions.zip import ZIPTrader, equilibrium, trading_day, zip_traders

VALUES = list(np.linspace(3.0, 1.0, 11))  # Cliff's symmetric market: P0 = 2.0, six units trade
COSTS = list(np.linspace(1.0, 3.0, 11))


def _alpha(trades, p0):
    """Smith's alpha: RMS deviation of the day's trade prices from P0, in % of P0."""
    p = np.array([t.price for t in trades])
    return 100 * np.sqrt(np.mean((p - p0) ** 2)) / p0


def _efficiency(trades, traders):
    limit = {t.name: t.limit for t in traders}
    got = sum(limit[t.bid.split("@")[0]] - limit[t.ask.split("@")[0]] for t in trades)
    q, _, _ = equilibrium(VALUES, COSTS)
    best = sum(d - s for d, s in zip(sorted(VALUES, reverse=True)[:q], sorted(COSTS)[:q]))
    return got / best


def test_prices_converge_to_the_competitive_equilibrium_in_every_seed():
    """Cliff 1997: ZIP markets reach the equilibrium within a few days. Seeds 1-5, 10 days each: Smith's alpha
    of the last three days below 5 % and below day 1's, and at least 95 % of the possible surplus traded."""
    q, low, high = equilibrium(VALUES, COSTS)
    assert (q, low, high) == (6, 2.0, 2.0)
    for seed in range(1, 6):
        rng = np.random.default_rng(seed)
        traders = zip_traders(VALUES, COSTS, rng)
        days = [trading_day(traders, rng) for _ in range(10)]
        first, late = _alpha(days[0], 2.0), [_alpha(d, 2.0) for d in days[-3:]]
        assert max(late) < 5.0 and max(late) < first, (seed, first, late)
        assert _efficiency(days[-1], traders) >= 0.95, seed


@settings(max_examples=40, deadline=None)
@given(values=st.lists(st.floats(0.5, 3.0), min_size=1, max_size=8),
       costs=st.lists(st.floats(0.5, 3.0), min_size=1, max_size=8), seed=st.integers(0, 10**6))
def test_no_trader_trades_at_a_loss_or_twice_a_day(values, costs, seed):
    rng = np.random.default_rng(seed)
    traders = zip_traders(values, costs, rng)
    limit = {t.name: t.limit for t in traders}
    for _ in range(3):
        trades = trading_day(traders, rng, steps=200)
        names = [t.bid.split("@")[0] for t in trades] + [t.ask.split("@")[0] for t in trades]
        assert len(names) == len(set(names))  # one unit each a day
        for t in trades:
            assert limit[t.ask.split("@")[0]] - 1e-9 <= t.price <= limit[t.bid.split("@")[0]] + 1e-9


class _OneByOne(ZIPTrader):
    """A ZIP trader that trading_day runs through its trader-by-trader loop (not the array day)."""


def _day(values, costs, seed, days, one_by_one):
    rng = np.random.default_rng(seed)
    traders = zip_traders(values, costs, rng)
    if one_by_one:
        traders = [_OneByOne(**{f.name: getattr(t, f.name) for f in fields(ZIPTrader)}) for t in traders]
    out = []
    for _ in range(days):
        shouts: Counter[str] = Counter()
        trades = trading_day(traders, rng, steps=200, shouts=shouts)
        out.append(([(t.bid, t.ask, t.price) for t in trades], dict(shouts),
                    [(t.mu, t.momentum, t.active) for t in traders]))
    return out, rng.random()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.5, 5.0), min_size=1, max_size=25), st.lists(st.floats(0.5, 5.0), min_size=1, max_size=25),
       st.integers(0, 2**32 - 1), st.integers(1, 3))
def test_the_array_day_is_the_trader_by_trader_day_to_the_bit(values, costs, seed, days):
    # same trades (ids, prices), shout counts, margins, momenta and the generator's state after
    assert _day(values, costs, seed, days, False) == _day(values, costs, seed, days, True)
