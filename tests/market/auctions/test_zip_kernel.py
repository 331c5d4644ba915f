"""The compiled ZIP day (``_czip.pyx``) against its numpy twin, and the markets' array day against the traders' day."""

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridmarket.auctions import zip as module
from gridmarket.auctions.zip import reference_day_arrays, trading_day, zip_market_day, zip_parameters, zip_traders

compiled = pytest.importorskip("gridmarket.auctions._czip", reason="the compiled kernel is not built here")

limits = st.lists(st.floats(0.5, 5.0), min_size=1, max_size=40)


def _run(day, values, costs, seed, steps, days):
    """Days of ``day`` on fresh ZIP parameters from ``seed``: trades, shouts, final arrays, the generator's next draw."""
    rng = np.random.default_rng(seed)
    n_bid = len(values)
    limit = np.array(values + costs, dtype=float)
    ask = (np.arange(len(limit)) >= n_bid).astype(np.uint8)
    size, beta, gamma = zip_parameters(len(limit), rng)
    mu = np.where(ask == 1, size, -size)
    out = []
    for _ in range(days):  # margins carry over from day to day, as a trader's do
        momentum = np.zeros(len(limit))
        active = np.ones(len(limit), dtype=np.uint8)
        trades, n_bid_shouts, n_ask_shouts = day(ask, limit, mu, beta, gamma, momentum, active, rng, rng, steps)
        out.append((trades, n_bid_shouts, n_ask_shouts, mu.tolist(), momentum.tolist(), active.tolist()))
    return out, rng.random()


@settings(max_examples=150, deadline=None)
@given(limits, limits, st.integers(0, 2**32 - 1), st.integers(1, 300), st.integers(1, 3))
def test_the_compiled_day_is_the_reference_day_to_the_bit(values, costs, seed, steps, days):
    # trades (indices, order steps, prices), shout counts, margins, momenta, flags and the generator after
    assert _run(compiled.day_arrays, values, costs, seed, steps, days) == _run(
        reference_day_arrays, values, costs, seed, steps, days)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([1.0, 2.0]), st.integers(1, 30), st.integers(1, 30), st.integers(0, 2**32 - 1))
def test_equal_limits_tie_the_same_way_in_both(level, n_buyers, n_sellers, seed):
    """Every limit equal: shouts often tie at one price, so time priority decides the trades."""
    values, costs = [level] * n_buyers, [level * 0.75] * n_sellers
    assert _run(compiled.day_arrays, values, costs, seed, 200, 2) == _run(
        reference_day_arrays, values, costs, seed, 200, 2)


def test_the_markets_run_the_compiled_day_by_default():
    from gridmarket import kernel

    if kernel.KERNEL == "compiled":
        assert module._day_arrays is compiled.day_arrays


@settings(max_examples=60, deadline=None)
@given(limits, limits, st.integers(0, 2**32 - 1))
def test_a_market_day_is_trading_day_on_fresh_zip_traders(values, costs, seed):
    rng = np.random.default_rng(seed)
    got, counts = zip_market_day(values, costs, rng, steps=300)
    after = rng.random()
    rng = np.random.default_rng(seed)
    traders = zip_traders(values, costs, rng)
    shouts: Counter[str] = Counter()
    want = [(int(t.bid.split("@")[0][1:]), int(t.ask.split("@")[0][1:]), t.price)
            for t in trading_day(traders, rng, steps=300, shouts=shouts)]
    assert (got, {s: counts[s] for s in counts if counts[s]}, after) == (want, dict(shouts), rng.random())


@given(st.integers(0, 30), st.integers(0, 2**32 - 1))
def test_parameters_are_the_per_trader_uniform_draws(n, seed):
    rng = np.random.default_rng(seed)
    size, beta, gamma = zip_parameters(n, rng)
    one = np.random.default_rng(seed)
    want = [(one.uniform(0.05, 0.35), one.uniform(0.1, 0.5), one.uniform(0.0, 0.1)) for _ in range(n)]
    assert list(zip(size.tolist(), beta.tolist(), gamma.tolist())) == want
    assert rng.random() == one.random()


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.integers(1, 2**32), st.integers(1, 50), st.just(2**31 + 1)), min_size=1, max_size=30),
       st.integers(0, 2**32 - 1), st.sampled_from([np.random.PCG64, np.random.MT19937, np.random.Philox]))
def test_the_kernel_draws_the_shouter_as_generator_integers_does(bounds, seed, bit_generator):
    # interleaved with odd numbers of doubles, so a buffered 32-bit half is left over in between
    ours, theirs = np.random.Generator(bit_generator(seed)), np.random.Generator(bit_generator(seed))
    for n in bounds:
        assert compiled.below(ours, n) == int(theirs.integers(n))
        assert ours.random(n % 3).tolist() == theirs.random(n % 3).tolist()
    assert ours.random(5).tolist() == theirs.random(5).tolist()  # the same state after
