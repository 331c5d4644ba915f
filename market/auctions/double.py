"""Double auctions for a divisible commodity (processor-hours in a window): a call market that
clears all orders at once at the crossing, and a continuous order book.

Many providers ask (sell ``quantity`` units at ``price`` or more per unit) and many brokers bid
(buy ``quantity`` units at ``price`` or less per unit). Prices are SU per unit.

* :func:`call_market` — the k-double auction (Satterthwaite & Williams 1989; Friedman & Rust,
  *The Double Auction Market*, 1993): bids sorted by price, highest first, asks lowest first (ties
  by arrival); units are matched while the marginal bid is at least the marginal ask; every trade is
  at one price ``p = a* + k (b* - a*)``, with ``b*`` and ``a*`` the last matched bid and ask.
* :class:`OrderBook` — the continuous double auction: an arriving order trades at once against the
  best standing orders on the other side while they cross, each trade at
  ``standing + k (incoming - standing)`` for a bid arriving (the mirror for an ask); ``k = 0`` is the
  usual "standing order's price" rule; what is left of it then stands in the book (price, then
  arrival priority).

Both are individually rational (no buyer pays above its bid, no seller gets below its ask) and
budget-balanced (buyers pay exactly what sellers receive): the tests check both on random books.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from gridmarket.errors import InvalidInput

__all__ = ["Order", "OrderBook", "Trade", "call_market"]


@dataclass(frozen=True, slots=True)
class Order:
    """A limit order: ``side`` ``"bid"`` (buy) or ``"ask"`` (sell), ``quantity`` units at ``price`` SU/unit."""

    id: str
    side: str
    price: float
    quantity: int

    def __post_init__(self) -> None:
        if self.side not in ("bid", "ask"):
            raise InvalidInput(f"order {self.id!r}: side must be 'bid' or 'ask', got {self.side!r}")
        p = self.price
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not math.isfinite(p) or p < 0:
            raise InvalidInput(f"order {self.id!r}: price must be a finite number >= 0 (SU/unit), got {p!r}")
        q = self.quantity
        if isinstance(q, bool) or not isinstance(q, int) or q < 1:
            raise InvalidInput(f"order {self.id!r}: quantity must be an int >= 1, got {q!r}")


@dataclass(frozen=True, slots=True)
class Trade:
    """``quantity`` units from seller ``ask`` to buyer ``bid`` at ``price`` SU/unit."""

    bid: str
    ask: str
    price: float
    quantity: int


def _check_k(k: float) -> float:
    if isinstance(k, bool) or not isinstance(k, (int, float)) or not 0.0 <= k <= 1.0:
        raise InvalidInput(f"k must be in [0, 1], got {k!r}")
    return float(k)


def call_market(orders: Iterable[Order], k: float = 0.5) -> list[Trade]:
    """Clear every order at once at one price (the k-double auction; module notes).

    Examples
    --------
    Bids 10, 8, 6, 3 and asks 2, 5, 7, 9 (one unit each): two units cross (10 >= 2, 8 >= 5,
    6 < 7); the marginal bid is 8 and the marginal ask 5, so with k = 0.5 both trades are at 6.5.

    >>> orders = [Order(f"b{p}", "bid", p, 1) for p in (10, 8, 6, 3)] + [
    ...     Order(f"a{p}", "ask", p, 1) for p in (2, 5, 7, 9)]
    >>> [(t.bid, t.ask, t.price) for t in call_market(orders)]
    [('b10', 'a2', 6.5), ('b8', 'a5', 6.5)]
    """
    k = _check_k(k)
    orders = list(orders)
    ids = [o.id for o in orders]
    if len(set(ids)) != len(ids):
        raise InvalidInput("order ids must be unique")
    bids = sorted((o for o in orders if o.side == "bid"), key=lambda o: -o.price)  # stable: arrival breaks ties
    asks = sorted((o for o in orders if o.side == "ask"), key=lambda o: o.price)
    fills: list[tuple[Order, Order, int]] = []
    i = j = 0
    left_b = bids[0].quantity if bids else 0
    left_a = asks[0].quantity if asks else 0
    while i < len(bids) and j < len(asks) and bids[i].price >= asks[j].price:
        q = min(left_b, left_a)
        fills.append((bids[i], asks[j], q))
        left_b -= q
        left_a -= q
        if not left_b:
            i += 1
            left_b = bids[i].quantity if i < len(bids) else 0
        if not left_a:
            j += 1
            left_a = asks[j].quantity if j < len(asks) else 0
    if not fills:
        return []
    b_star, a_star = fills[-1][0].price, fills[-1][1].price
    price = a_star + k * (b_star - a_star)
    return [Trade(b.id, a.id, price, q) for b, a, q in fills]


@dataclass
class OrderBook:
    """A continuous double auction's book (module notes). ``k`` splits each trade's surplus.

    Examples
    --------
    >>> book = OrderBook()
    >>> book.submit(Order("s1", "ask", 5.0, 2)), book.submit(Order("s2", "ask", 4.0, 1))
    ([], [])
    >>> [(t.ask, t.price, t.quantity) for t in book.submit(Order("b1", "bid", 6.0, 2))]
    [('s2', 4.0, 1), ('s1', 5.0, 1)]
    >>> book.best_ask(), book.best_bid()
    (5.0, None)
    """

    k: float = 0.0
    bids: list[list] = field(default_factory=list)  # [price, seq, id, quantity left], best first
    asks: list[list] = field(default_factory=list)
    _seq: int = field(default=0, init=False, repr=False)
    _ids: set = field(default_factory=set, init=False, repr=False)

    def __post_init__(self) -> None:
        self.k = _check_k(self.k)

    def best_bid(self) -> float | None:
        """Highest standing bid price, or None."""
        return self.bids[0][0] if self.bids else None

    def best_ask(self) -> float | None:
        """Lowest standing ask price, or None."""
        return self.asks[0][0] if self.asks else None

    def submit(self, order: Order) -> list[Trade]:
        """Match ``order`` against the book while it crosses; the rest stands. Returns the trades."""
        if order.id in self._ids:
            raise InvalidInput(f"order id {order.id!r} was already submitted")
        self._ids.add(order.id)
        left = order.quantity
        trades: list[Trade] = []
        other = self.asks if order.side == "bid" else self.bids
        crosses = (lambda p: order.price >= p) if order.side == "bid" else (lambda p: order.price <= p)
        while left and other and crosses(other[0][0]):
            standing = other[0]
            q = min(left, standing[3])
            price = standing[0] + self.k * (order.price - standing[0])
            bid_id, ask_id = (order.id, standing[2]) if order.side == "bid" else (standing[2], order.id)
            trades.append(Trade(bid_id, ask_id, price, q))
            left -= q
            standing[3] -= q
            if not standing[3]:
                other.pop(0)
        if left:
            self._seq += 1
            entry = [order.price, self._seq, order.id, left]
            own = self.bids if order.side == "bid" else self.asks
            key = (lambda e: (-e[0], e[1])) if order.side == "bid" else (lambda e: (e[0], e[1]))
            pos = 0
            while pos < len(own) and key(own[pos]) <= key(entry):
                pos += 1
            own.insert(pos, entry)
        return trades
