"""Single-item auctions a provider runs for one slot: first-price and second-price (Vickrey) sealed
bids, the English ascending clock and the Dutch descending clock.

Textbook mechanisms (Krishna, *Auction Theory*, 2nd ed., ch. 1-2; GridSim's auction package offers
the same four). Prices are in SU (the unit of :mod:`gridmarket.pricing`); a bid or a value is what a
bidder pays at most for the slot. The seller's ``reserve`` is the lowest price it accepts: the
bridge to the seeds' pricing is to set it to the slot's externality price plus its base cost
(Singh 2008, ch. 5: the slot's cost to the provider's queue).

Ties between equal highest bids go to the bidder listed first (a deterministic rule; shuffle the
bidders with a seeded generator for a random one). Every function returns an
:class:`AuctionResult`; no sale is ``winner=None``, ``price=None``.

Equivalences the tests check: the English clock with increment ``d`` ends within ``d`` of the
Vickrey price and with the same winner (private values, bidders stay in while the price is below
their value); the Dutch clock with decrement ``d`` ends at the first-price auction's winning bid
rounded down to the clock's grid, with the same winner (bidders stop the clock at their bid);
with independent private values from one distribution and equilibrium bids, all four raise the
same expected revenue (revenue equivalence; Krishna ch. 3).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from gridmarket.errors import InvalidInput

__all__ = [
    "ROUNDING",
    "AuctionResult",
    "dutch",
    "english",
    "first_price",
    "first_price_equilibrium_bid",
    "vickrey",
]


@dataclass(frozen=True, slots=True)
class AuctionResult:
    """Outcome of one single-item auction.

    Attributes
    ----------
    winner : int or None
        Index of the winning bidder in the input order; None when nothing is sold.
    price : float or None
        What the winner pays (SU).
    rounds : int
        Clock steps (English, Dutch) or 1 (sealed bids): the negotiation's length.
    messages : int
        Bids or clock announcements and replies exchanged.
    """

    winner: int | None
    price: float | None
    rounds: int = 1
    messages: int = 0

    @property
    def sold(self) -> bool:
        """Whether the item was sold."""
        return self.winner is not None


def _check(values: Sequence[float], reserve: float, what: str) -> list[float]:
    out = []
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
            raise InvalidInput(f"{what}[{i}] must be a finite number >= 0 (SU), got {v!r}")
        out.append(float(v))
    if isinstance(reserve, bool) or not isinstance(reserve, (int, float)) or not math.isfinite(reserve) or reserve < 0:
        raise InvalidInput(f"reserve must be a finite number >= 0 (SU), got {reserve!r}")
    return out


def _check_step(step: float, name: str) -> None:
    if isinstance(step, bool) or not isinstance(step, (int, float)) or not (math.isfinite(step) and step > 0):
        raise InvalidInput(f"{name} must be a finite number > 0 (SU), got {step!r}")


def _ranked(bids: list[float]) -> list[int]:
    """Bidder indices by bid, highest first; ties by index."""
    return sorted(range(len(bids)), key=lambda i: (-bids[i], i))


def first_price(bids: Sequence[float], reserve: float = 0.0) -> AuctionResult:
    """Sealed bids; the highest bid at or above ``reserve`` wins and pays its bid.

    >>> first_price([3.0, 7.0, 5.0], reserve=4.0)
    AuctionResult(winner=1, price=7.0, rounds=1, messages=3)
    >>> first_price([3.0, 2.0], reserve=4.0).sold
    False
    """
    b = _check(bids, reserve, "bids")
    order = [i for i in _ranked(b) if b[i] >= reserve]
    if not order:
        return AuctionResult(None, None, 1, len(b))
    return AuctionResult(order[0], b[order[0]], 1, len(b))


ROUNDING = 1e-9
"""SU a bid may fall short of its own reserve and still enter (:func:`vickrey` with ``reserves``): bidders'
values and reserves are computed in floating point (budget shares, externality prices)."""


def vickrey(bids: Sequence[float], reserve: float = 0.0, *, reserves: Sequence[float] | None = None) -> AuctionResult:
    """Sealed bids; the highest bid at or above ``reserve`` wins and pays the larger of the
    second-highest bid and the reserve (second-price sealed-bid, Vickrey 1961).

    With ``reserves`` (one per bidder, SU) each bidder has a reserve of its own, as when the item
    is a slot each bidder's job would use from a different start: bidder ``i`` enters only when its
    bid reaches ``max(reserve, reserves[i])`` (less :data:`ROUNDING`), and a bidder that cannot
    enter does not bid (``messages`` counts the bids made). The highest entering bid wins (ties to
    the bidder listed first) and pays the larger of its own reserve and the highest other entering
    bid: still truthful, since the price does not depend on the winner's bid (Krishna, ch. 2).

    >>> vickrey([3.0, 7.0, 5.0])
    AuctionResult(winner=1, price=5.0, rounds=1, messages=3)
    >>> vickrey([3.0, 7.0, 5.0], reserve=6.0).price
    6.0
    >>> vickrey([3.0, 7.0, 5.0], reserves=[1.0, 6.5, 5.5])  # bidder 0 pays no more than 3: out
    AuctionResult(winner=1, price=6.5, rounds=1, messages=2)
    """
    b = _check(bids, reserve, "bids")
    if reserves is None:
        order = [i for i in _ranked(b) if b[i] >= reserve]
        if not order:
            return AuctionResult(None, None, 1, len(b))
        second = b[order[1]] if len(order) > 1 else reserve
        return AuctionResult(order[0], max(second, reserve), 1, len(b))
    own = _check(reserves, reserve, "reserves")
    if len(own) != len(b):
        raise InvalidInput(f"reserves must give one reserve per bid: {len(own)} for {len(b)} bids")
    floor = [max(reserve, r) for r in own]
    order = [i for i in _ranked(b) if b[i] >= floor[i] - ROUNDING]
    if not order:
        return AuctionResult(None, None, 1, 0)
    second = b[order[1]] if len(order) > 1 else 0.0
    return AuctionResult(order[0], max(floor[order[0]], second), 1, len(order))


def english(values: Sequence[float], reserve: float = 0.0, increment: float = 1.0) -> AuctionResult:
    """Ascending clock from ``reserve`` in steps of ``increment``: a bidder stays in while the
    price is at most its value; the clock stops when at most one remains.

    At each price every active bidder answers (one message each); the price rises while two or
    more stay in. The last one in pays the first price at which it alone stayed: more than the
    second-highest value and at most that plus ``increment``. If the last ones all leave at the
    same step, their values lie within one step: the highest of them wins (ties: the first
    listed), as it would had the clock ticked finer, at the last price they all accepted, which
    is at most the second-highest value and more than that minus ``increment``. So the winner
    is Vickrey's (:func:`vickrey`, same tie rule) and the price is within one increment of
    Vickrey's. The clock's k-th price is ``reserve + k * increment`` in decimal arithmetic on
    the two numbers as written, so it stays on the grid (0.3, not 0.30000000000000004, for a
    0.1 step).

    >>> english([3.0, 7.0, 5.0], increment=1.0)
    AuctionResult(winner=1, price=6.0, rounds=7, messages=19)
    >>> english([3.0, 3.5], increment=1.0)  # both leave at 4: the higher value wins at 3
    AuctionResult(winner=1, price=3.0, rounds=5, messages=10)
    >>> english([0.3, 0.3, 0.5], increment=0.1).price
    0.4
    >>> english([3.0, 7.0, 5.0], reserve=8.0).sold
    False
    """
    v = _check(values, reserve, "values")
    _check_step(increment, "increment")
    active = [i for i in range(len(v)) if v[i] >= reserve]
    messages = len(v)
    rounds = 1
    if not active:
        return AuctionResult(None, None, rounds, messages)
    origin, step = Decimal(repr(float(reserve))), Decimal(repr(float(increment)))
    k = 0
    while len(active) > 1:
        nxt = float(origin + (k + 1) * step)
        staying = [i for i in active if v[i] >= nxt]
        rounds += 1
        messages += len(active)
        if not staying:
            best = min(active, key=lambda i: (-v[i], i))
            return AuctionResult(best, float(origin + k * step), rounds, messages)
        k, active = k + 1, staying
    return AuctionResult(active[0], float(origin + k * step), rounds, messages)


def dutch(bids: Sequence[float], reserve: float = 0.0, start: float | None = None,
          decrement: float = 1.0) -> AuctionResult:
    """Descending clock from ``start`` (default: the highest bid rounded up to the grid) in steps of
    ``decrement``, its last price the ``reserve``: the first bidder whose ``bids`` (its stop price)
    is at or above the clock claims the item at the clock's price.

    Strategically the same as :func:`first_price`: with the same bids, the winner is the same and
    the price is its bid rounded down to the clock's grid (``start - k * decrement``), or the
    reserve where the grid steps below it.

    >>> dutch([3.0, 7.0, 5.0], start=10.0, decrement=1.0)
    AuctionResult(winner=1, price=7.0, rounds=4, messages=4)
    >>> dutch([3.0, 7.0, 5.0], start=10.0, decrement=2.0).price
    6.0
    """
    b = _check(bids, reserve, "bids")
    _check_step(decrement, "decrement")
    if not b or max(b) < reserve:
        return AuctionResult(None, None, 1, 1)
    if start is None:
        start = reserve + math.ceil((max(b) - reserve) / decrement) * decrement
    elif not (isinstance(start, (int, float)) and math.isfinite(start) and start >= reserve):
        raise InvalidInput(f"start must be a finite number >= reserve ({reserve}), got {start!r}")
    order = _ranked(b)
    best = order[0]
    # the clock's k-th price is start - k * decrement, floored at the reserve (its last price);
    # the first at or below the best bid stops it
    k = max(0, math.ceil((start - b[best]) / decrement - 1e-12))
    price = max(start - k * decrement, reserve)
    return AuctionResult(best, float(price), k + 1, k + 1)


def first_price_equilibrium_bid(value: float, n: int, low: float = 0.0, high: float = 1.0) -> float:
    """Symmetric equilibrium bid of a first-price auction, ``n`` bidders with values i.i.d.
    uniform on ``[low, high]`` and no reserve: ``low + (n - 1) / n * (value - low)`` (Krishna ch. 2.3).

    >>> first_price_equilibrium_bid(0.8, 4)
    0.6000000000000001
    """
    if not isinstance(n, int) or n < 1:
        raise InvalidInput(f"n must be an int >= 1, got {n!r}")
    if not low <= value <= high:
        raise InvalidInput(f"value must be in [{low}, {high}], got {value!r}")
    return low + (n - 1) / n * (value - low)
