"""Zero-intelligence-plus (ZIP) traders in a continuous double auction (Cliff 1997).

D. Cliff, "Minimal-intelligence agents for bargaining behaviors in market-based environments",
HP Labs report HPL-97-91, 1997. Each trader holds one unit a trading day, a limit price ``limit``
(a buyer's value, a seller's cost; SU per unit) and a profit margin ``mu``; it shouts
``limit * (1 + mu)`` (sellers: ``mu >= 0``; buyers: ``-1 <= mu <= 0``). After every shout in the market
each trader moves its shout price toward a target near the last shout price ``q`` by Widrow-Hoff with
momentum (learning rate ``beta``, momentum ``gamma``), and only in the directions Cliff gives:

* a seller raises its margin when a shout is accepted at ``q >= its price``; it lowers it when a bid
  is accepted at ``q <= its price`` or an ask at ``q <= its price`` is not accepted (while it still
  holds its unit);
* a buyer mirrors it: raises its margin (bids lower) when a shout is accepted at ``q <= its price``;
  lowers it (bids higher) when an ask is accepted at ``q >= its price`` or a bid at ``q >= its price``
  is not accepted (while it still wants its unit).

Targets: raising ``tau = R q + A`` with ``R ~ U[1, 1.05]``, ``A ~ U[0, 0.05]``; lowering with
``R ~ U[0.95, 1]``, ``A ~ U[-0.05, 0]`` (Cliff's constants; ``A`` in the unit of prices, which Cliff
sets for prices of order 1, so prices here are scaled by the equilibrium's order of magnitude by the
caller if needed). ``beta ~ U[0.1, 0.5]``, ``gamma ~ U[0, 0.1]``, initial margins ``U[0.05, 0.35]``,
all from one seeded generator.

The market (:func:`trading_day`): in each step one trader still holding its unit (chosen at random)
shouts; a shout that crosses the best standing opposite quote trades at the standing quote's price
(the order book of :class:`gridmarket.auctions.double.OrderBook` with ``k = 0``); a trader that traded is
done for the day. A day ends after ``steps`` shouts or when no trade is possible. The same harness
runs Gjerstad-Dickhaut traders (:mod:`gridmarket.auctions.gd`), alone or mixed with ZIP ones: a trader
with a ``shout(book)`` method prices its shout from the book (its own standing shout withdrawn
first); a ZIP trader shouts its ``price``.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from gridmarket.auctions.double import Order, OrderBook, Trade
from gridmarket.errors import InvalidInput
from gridmarket.kernel import compiled_module

__all__ = ["ZIPTrader", "equilibrium", "reference_day_arrays", "trading_day", "zip_market_day", "zip_parameters",
           "zip_traders"]


@dataclass
class ZIPTrader:
    """One ZIP trader (module notes). ``side`` is ``"bid"`` (buyer) or ``"ask"`` (seller)."""

    name: str
    side: str
    limit: float
    mu: float
    beta: float
    gamma: float
    momentum: float = 0.0
    active: bool = True
    rng: np.random.Generator = field(repr=False, default=None)  # type: ignore[assignment]  # checked in __post_init__

    def __post_init__(self) -> None:
        if self.side not in ("bid", "ask"):
            raise InvalidInput(f"trader {self.name!r}: side must be 'bid' or 'ask', got {self.side!r}")
        if not (math.isfinite(self.limit) and self.limit > 0):
            raise InvalidInput(f"trader {self.name!r}: limit must be a finite number > 0, got {self.limit!r}")
        if not isinstance(self.rng, np.random.Generator):
            raise InvalidInput(f"trader {self.name!r}: rng must be a numpy.random.Generator, got {self.rng!r}")

    @property
    def price(self) -> float:
        """The trader's current shout price, SU/unit."""
        return self.limit * (1.0 + self.mu)

    def _move(self, q: float, raise_margin: bool) -> None:
        rng = self.rng
        if raise_margin == (self.side == "ask"):  # seller raising / buyer lowering: shout higher
            r, a = rng.uniform(1.0, 1.05), rng.uniform(0.0, 0.05)
        else:
            r, a = rng.uniform(0.95, 1.0), rng.uniform(-0.05, 0.0)
        target = r * q + a
        delta = self.beta * (target - self.price)
        self.momentum = self.gamma * self.momentum + (1.0 - self.gamma) * delta
        mu = (self.price + self.momentum) / self.limit - 1.0
        # a margin never crosses zero: a seller never asks below cost, a buyer never bids above value
        self.mu = max(mu, 0.0) if self.side == "ask" else min(max(mu, -1.0), 0.0)

    def observe(self, q: float, shout_side: str, accepted: bool) -> None:
        """Update the margin after a shout of ``shout_side`` at price ``q`` (accepted or not)."""
        p = self.price
        if self.side == "ask":
            if accepted and p <= q:
                self._move(q, raise_margin=True)
            elif self.active and p >= q and ((accepted and shout_side == "bid") or
                                            (not accepted and shout_side == "ask")):
                self._move(q, raise_margin=False)
        else:
            if accepted and p >= q:
                self._move(q, raise_margin=True)
            elif self.active and p <= q and ((accepted and shout_side == "ask") or
                                            (not accepted and shout_side == "bid")):
                self._move(q, raise_margin=False)


_MU, _BETA, _GAMMA = (0.05, 0.35), (0.1, 0.5), (0.0, 0.1)  # Cliff 1997's initial ranges (module notes)


def zip_parameters(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``n`` traders' initial margin sizes ``|mu| ~ U[0.05, 0.35]``, ``beta ~ U[0.1, 0.5]``, ``gamma ~ U[0, 0.1]``.

    Drawn trader by trader, each trader's three in that order, as ``n`` rounds of three
    ``rng.uniform`` calls draw them (``low + (high - low) u``, one ``random`` call for all).
    """
    u = rng.random(3 * n)
    return (_MU[0] + (_MU[1] - _MU[0]) * u[0::3], _BETA[0] + (_BETA[1] - _BETA[0]) * u[1::3],
            _GAMMA[0] + (_GAMMA[1] - _GAMMA[0]) * u[2::3])


def zip_traders(values: list[float], costs: list[float], rng: np.random.Generator) -> list[ZIPTrader]:
    """Buyers with ``values`` and sellers with ``costs``, their ZIP parameters drawn from ``rng`` (:func:`zip_parameters`)."""
    size, beta, gamma = zip_parameters(len(values) + len(costs), rng)
    sides = [("bid", f"b{i}", v) for i, v in enumerate(values)] + [("ask", f"s{i}", c) for i, c in enumerate(costs)]
    return [ZIPTrader(name, side, float(limit), float(-size[k] if side == "bid" else size[k]), float(beta[k]),
                      float(gamma[k]), rng=rng) for k, (side, name, limit) in enumerate(sides)]


def zip_market_day(values: list[float], costs: list[float], rng: np.random.Generator,
                   steps: int = 500) -> tuple[list[tuple[int, int, float]], dict[str, int]]:
    """One trading day among fresh ZIP traders: the day of :func:`trading_day` on :func:`zip_traders`.

    The same draws, trades and shouts, without the trader objects: ``([(buyer index, seller
    index, price SU/unit)], {"bid": shouts, "ask": shouts})``, trades in the order they happened.
    """
    n_bid = len(values)
    n = n_bid + len(costs)
    limit = np.array([*values, *costs], dtype=float)
    if n_bid == 0 or n == n_bid or not np.isfinite(limit).all() or (limit <= 0).any():
        raise InvalidInput("zip_market_day: values and costs must be non-empty lists of finite numbers > 0")
    size, beta, gamma = zip_parameters(n, rng)
    ask = np.arange(n) >= n_bid
    mu = np.where(ask, size, -size)
    momentum = np.zeros(n)
    active = np.ones(n, dtype=np.uint8)
    trades, n_bid_shouts, n_ask_shouts = _day_arrays(ask.astype(np.uint8), limit, mu, beta, gamma, momentum, active,
                                                     rng, rng, steps)
    return [(b, s - n_bid, price) for b, _, s, _, price in trades], {"bid": n_bid_shouts, "ask": n_ask_shouts}


def trading_day(traders: list, rng: np.random.Generator, steps: int = 500,
                shouts: Counter[str] | None = None) -> list[Trade]:
    """One trading day of a continuous double auction among ``traders`` (module notes); what they learnt carries over.

    ``traders`` are :class:`ZIPTrader` or :class:`~gridmarket.auctions.gd.GDTrader` (or any trader with
    ``name``, ``side``, ``limit``, ``active``, ``observe(q, shout_side, accepted)`` and either a
    ``price`` or a ``shout(book)``), in any mix; names must be unique and contain no ``"@"``.
    ``shouts``, if given, counts the day's shouts by side (``"bid"``, ``"ask"``).

    A day of ZIP traders sharing one generator runs on arrays (:func:`_zip_day`): the same
    trades, margins and draws as the trader-by-trader loop here, which every other mix runs.
    """
    for t in traders:
        t.active = True
        if isinstance(t, ZIPTrader):
            t.momentum = 0.0
    if traders and all(type(t) is ZIPTrader for t in traders) and len({id(t.rng) for t in traders}) == 1:
        return _zip_day(traders, rng, steps, shouts)
    book = OrderBook(k=0.0)
    by_name = {t.name: t for t in traders}
    trades: list[Trade] = []
    for step in range(steps):
        active = [t for t in traders if t.active]
        buyers = [t for t in active if t.side == "bid"]
        sellers = [t for t in active if t.side == "ask"]
        if not buyers or not sellers or max(b.limit for b in buyers) < min(s.limit for s in sellers):
            break
        trader = active[int(rng.integers(len(active)))]
        # a trader's new shout replaces its standing one
        for side in (book.bids, book.asks):
            side[:] = [e for e in side if not e[2].startswith(trader.name + "@")]
        q = trader.shout(book) if hasattr(trader, "shout") else trader.price
        if shouts is not None:
            shouts[trader.side] += 1
        done = book.submit(Order(f"{trader.name}@{step}", trader.side, q, 1))
        for trade in done:
            trades.append(trade)
            for oid in (trade.bid, trade.ask):
                by_name[oid.split("@")[0]].active = False
            for side in (book.bids, book.asks):  # the counterparty's other standing shouts are void
                side[:] = [e for e in side if by_name[e[2].split("@")[0]].active]
        price = done[0].price if done else q
        for t in traders:
            t.observe(price, trader.side, bool(done))
    return trades


def _zip_day(traders: list[ZIPTrader], rng: np.random.Generator, steps: int,
             shouts: Counter[str] | None) -> list[Trade]:
    """:func:`trading_day` for ZIP traders drawing from one generator, on arrays (:func:`reference_day_arrays`)."""
    n = len(traders)
    names = [t.name for t in traders]
    ask = np.array([t.side == "ask" for t in traders], dtype=np.uint8)
    limit = np.array([t.limit for t in traders], dtype=float)
    mu = np.array([t.mu for t in traders], dtype=float)
    beta = np.array([t.beta for t in traders], dtype=float)
    gamma = np.array([t.gamma for t in traders], dtype=float)
    momentum = np.zeros(n)
    active = np.ones(n, dtype=np.uint8)
    done, n_bid, n_ask = _day_arrays(ask, limit, mu, beta, gamma, momentum, active, rng, traders[0].rng, steps)
    if shouts is not None:
        for side, count in (("bid", n_bid), ("ask", n_ask)):
            if count:  # a side that never shouted gets no key, as with the loop's increments
                shouts[side] += count
    for k, t in enumerate(traders):
        t.mu, t.momentum, t.active = float(mu[k]), float(momentum[k]), bool(active[k])
    return [Trade(f"{names[b]}@{b_step}", f"{names[s]}@{s_step}", price, 1) for b, b_step, s, s_step, price in done]


def reference_day_arrays(ask: np.ndarray, limit: np.ndarray, mu: np.ndarray, beta: np.ndarray, gamma: np.ndarray,
                         momentum: np.ndarray, active: np.ndarray, rng: np.random.Generator,
                         draw: np.random.Generator, steps: int) -> tuple[list[tuple[int, int, int, int, float]], int, int]:
    """A ZIP trading day on arrays (the pure-Python twin of ``_czip.day_arrays``); ``mu``, ``momentum``, ``active`` change.

    Trader ``k`` is a seller where ``ask[k]`` (uint8), with limit, margin, learning rate and
    momentum coefficient ``limit[k]``, ``mu[k]``, ``beta[k]``, ``gamma[k]``; ``momentum`` starts
    at zero and ``active`` (uint8) at one. The same day as :func:`trading_day`'s trader-by-trader
    loop, to the bit: the shouter is drawn by the same ``rng.integers`` call; a shout trades against
    the best standing opposite shout (price, then arrival; :class:`~gridmarket.auctions.double.OrderBook`
    with ``k = 0`` and unit orders) at its price; every trader then applies
    :meth:`ZIPTrader.observe`'s rule, the movers' ``(R, A)`` pairs drawn from ``draw`` in the
    traders' order as ``low + (high - low) u`` from one ``random`` call, which is how
    ``Generator.uniform`` draws them.

    Returns ``(trades, bid shouts, ask shouts)``, each trade ``(buyer, the step of its order,
    seller, the step of its order, price)`` in the order they happened.
    """
    n = len(limit)
    is_ask = ask.astype(bool)
    is_bid = ~is_ask
    live_mask = active.astype(bool)
    standing = np.full(n, np.nan)  # each trader's standing shout, SU/unit (NaN: none)
    arrival = np.zeros(n, dtype=np.int64)  # its place in the book's time priority
    arrival_step = np.zeros(n, dtype=np.int64)  # the step it was shouted at (its order's id)
    seq = 0
    n_bid = n_ask = 0
    trades: list[tuple[int, int, int, int, float]] = []
    for step in range(steps):
        live = np.flatnonzero(live_mask)
        live_bid, live_ask = live_mask & is_bid, live_mask & is_ask
        if not live_bid.any() or not live_ask.any() or limit[live_bid].max() < limit[live_ask].min():
            break
        i = int(live[int(rng.integers(len(live)))])
        standing[i] = np.nan
        q = float(limit[i] * (1.0 + mu[i]))
        side_ask = bool(is_ask[i])
        if side_ask:
            n_ask += 1
        else:
            n_bid += 1
        other = np.flatnonzero(~np.isnan(standing) & (is_bid if side_ask else is_ask))
        done = False
        if other.size:
            prices = standing[other]
            best = prices.max() if side_ask else prices.min()
            if (q <= best) if side_ask else (q >= best):
                tied = other[prices == best]
                j = int(tied[np.argmin(arrival[tied])])
                price = float(best)
                if side_ask:
                    trades.append((j, int(arrival_step[j]), i, step, price))
                else:
                    trades.append((i, step, j, int(arrival_step[j]), price))
                live_mask[i] = live_mask[j] = False
                standing[j] = np.nan
                done = True
        if not done:
            seq += 1
            standing[i], arrival[i] = q, seq
            arrival_step[i] = step
            price = q
        p = limit * (1.0 + mu)
        if side_ask:  # a shout of an ask
            lower_ask = (p >= price) & (not done)
            lower_bid = (p <= price) & done
        else:
            lower_ask = (p >= price) & done
            lower_bid = (p <= price) & (not done)
        # a trade raises the margin of every trader whose price it matched or beat, active or not
        up = np.where(is_ask, p <= price, p >= price) if done else np.zeros(n, dtype=bool)
        down = ~up & live_mask & np.where(is_ask, lower_ask, lower_bid)
        movers = np.flatnonzero(up | down)
        if not movers.size:
            continue
        higher = up[movers] == is_ask[movers]  # seller raising / buyer lowering its margin: shout higher
        u = draw.random(2 * movers.size)
        r_low = np.where(higher, 1.0, 0.95)
        r_high = np.where(higher, 1.05, 1.0)
        a_low = np.where(higher, 0.0, -0.05)
        a_high = np.where(higher, 0.05, 0.0)
        target = (r_low + (r_high - r_low) * u[0::2]) * price + (a_low + (a_high - a_low) * u[1::2])
        pm = p[movers]
        delta = beta[movers] * (target - pm)
        m = gamma[movers] * momentum[movers] + (1.0 - gamma[movers]) * delta
        momentum[movers] = m
        new = (pm + m) / limit[movers] - 1.0
        mu[movers] = np.where(is_ask[movers], np.maximum(new, 0.0), np.minimum(np.maximum(new, -1.0), 0.0))
    active[:] = live_mask
    return trades, n_bid, n_ask


_compiled = compiled_module("gridmarket.auctions._czip")
#: The ZIP day the markets run: the Cython twin (``_czip.pyx``: one pass over the traders a step, no
#: array temporaries) unless ``GRIDMARKET_KERNEL=reference`` or it was not built.
_day_arrays = reference_day_arrays if _compiled is None else _compiled.day_arrays


def equilibrium(values: list[float], costs: list[float]) -> tuple[int, float, float]:
    """Competitive equilibrium of unit demand and supply: the quantity and the price interval.

    >>> equilibrium([10, 8, 6, 3], [2, 5, 7, 9])
    (2, 6.0, 7.0)
    """
    d, s = sorted(values, reverse=True), sorted(costs)
    q = 0
    while q < min(len(d), len(s)) and d[q] >= s[q]:
        q += 1
    if q == 0:
        return 0, math.nan, math.nan
    # prices that clear q units: at most the q-th value and the (q+1)-th cost, at least the q-th cost
    # and the (q+1)-th value
    low = max(s[q - 1], d[q] if q < len(d) else -math.inf)
    high = min(d[q - 1], s[q] if q < len(s) else math.inf)
    return q, float(low), float(high)
