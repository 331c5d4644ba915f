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
from dataclasses import dataclass, field

import numpy as np

from gridmarket.auctions.double import Order, OrderBook, Trade
from gridmarket.errors import InvalidInput

__all__ = ["ZIPTrader", "equilibrium", "trading_day", "zip_traders"]


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


def zip_traders(values: list[float], costs: list[float], rng: np.random.Generator) -> list[ZIPTrader]:
    """Buyers with ``values`` and sellers with ``costs``, their ZIP parameters drawn from ``rng``."""
    traders = []
    for i, v in enumerate(values):
        traders.append(ZIPTrader(f"b{i}", "bid", float(v), -rng.uniform(0.05, 0.35), rng.uniform(0.1, 0.5),
                                 rng.uniform(0.0, 0.1), rng=rng))
    for i, c in enumerate(costs):
        traders.append(ZIPTrader(f"s{i}", "ask", float(c), rng.uniform(0.05, 0.35), rng.uniform(0.1, 0.5),
                                 rng.uniform(0.0, 0.1), rng=rng))
    return traders


def trading_day(traders: list, rng: np.random.Generator, steps: int = 500) -> list[Trade]:
    """One trading day of a continuous double auction among ``traders`` (module notes); what they learnt carries over.

    ``traders`` are :class:`ZIPTrader` or :class:`~gridmarket.auctions.gd.GDTrader` (or any trader with
    ``name``, ``side``, ``limit``, ``active``, ``observe(q, shout_side, accepted)`` and either a
    ``price`` or a ``shout(book)``), in any mix; names must be unique and contain no ``"@"``.
    """
    for t in traders:
        t.active = True
        if isinstance(t, ZIPTrader):
            t.momentum = 0.0
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
