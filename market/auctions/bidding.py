"""Textbook bidding rules for the four single-item auctions, and one auction among bidders who each
want their own slot, priced per processor-hour with a reserve of their own.

Rules (V. Krishna, *Auction Theory*, 2nd ed., 2010):

* ``vickrey`` and ``english`` -- truthful: bid (or stay in the ascending clock up to) one's value;
  weakly dominant in private-value second-price and English auctions (ch. 2.1).
* ``first-price`` and ``dutch`` -- the symmetric equilibrium bid shaded below value. With ``n``
  bidders whose values are independent and uniform on ``[r, v_max]`` and the reserve at the bottom
  of the support, the equilibrium is ``b(v) = r + (n - 1) / n * (v - r)`` (ch. 2.3, 2.5; the Dutch
  clock is strategically the first-price auction, so the stop price is that bid). Each bidder uses its
  own reserve as ``r`` and the number of bidders in the auction as ``n``: the textbook rule applied
  to a market whose values are not exactly uniform (an approximation, said here once).

:func:`auction_per_unit` -- the auction a provider runs when the bidders' slots differ (a job of
``n`` processors for ``D`` seconds each): bids and reserves are per processor-hour (SU/ph), each
bidder has its own reserve (its slot's cost to the provider over its processor-hours), a bidder whose
value is below its reserve does not bid, and the winner pays at least its own reserve. Personal
reserves keep Vickrey truthful: the winner pays ``max(second-highest eligible bid, own reserve)``,
the least it could have bid and still won.

Prices in SU per processor-hour; clock steps in the same unit.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from gridmarket.auctions.single import AuctionResult, dutch, english, first_price, first_price_equilibrium_bid, vickrey
from gridmarket.errors import InvalidInput

__all__ = ["BIDDING_RULES", "auction_per_unit", "bid"]

BIDDING_RULES = {
    "first-price": "symmetric equilibrium r + (n - 1)/n (v - r)",
    "vickrey": "truthful (bid the value)",
    "english": "truthful (stay in up to the value)",
    "dutch": "symmetric equilibrium stop price r + (n - 1)/n (v - r)",
}
"""The bidding rule of each auction format (module notes)."""


def _finite(where: str, x) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) or x < 0:
        raise InvalidInput(f"{where} must be a finite number >= 0 (SU), got {x!r}")
    return float(x)


def bid(mechanism: str, value: float, reserve: float, n_bidders: int) -> float | None:
    """What a bidder with ``value`` facing ``reserve`` among ``n_bidders`` bids (None: it does not bid).

    The sealed bid (first-price, Vickrey), the drop-out price (English) or the stop price (Dutch).

    >>> bid("vickrey", 3.0, 1.0, 4), bid("first-price", 3.0, 1.0, 4), bid("dutch", 3.0, 1.0, 1)
    (3.0, 2.5, 1.0)
    >>> bid("english", 0.5, 1.0, 2) is None
    True
    """
    if mechanism not in BIDDING_RULES:
        raise InvalidInput(f"mechanism: unknown auction {mechanism!r}; known: {', '.join(BIDDING_RULES)}")
    value, reserve = _finite("value", value), _finite("reserve", reserve)
    if isinstance(n_bidders, bool) or not isinstance(n_bidders, int) or n_bidders < 1:
        raise InvalidInput(f"n_bidders must be an int >= 1, got {n_bidders!r}")
    if value < reserve:
        return None
    if mechanism in ("vickrey", "english"):
        return value
    return first_price_equilibrium_bid(value, n_bidders, low=reserve, high=value)


def auction_per_unit(values: Sequence[float], reserves: Sequence[float], *, mechanism: str,
                     step: float = 0.05, opening: float | None = None) -> AuctionResult:
    """One auction among bidders each valuing its own slot (module notes); returns the winner and its unit price.

    Parameters
    ----------
    values, reserves : sequence of float
        Each bidder's value and reserve, SU per processor-hour.
    mechanism : str
        ``first-price``, ``vickrey``, ``english`` or ``dutch``; bidders follow :data:`BIDDING_RULES`.
    step : float
        The clocks' increment/decrement (SU/ph).
    opening : float, optional
        The Dutch clock's opening price (default: the highest stop price rounded up to the grid);
        raised to the lowest eligible reserve if below it.

    Returns
    -------
    AuctionResult
        ``winner`` indexes ``values``; ``price`` is per processor-hour and at least the winner's
        reserve and at most its value; ``messages`` counts the bids or clock replies of the bidders
        who bid.

    Examples
    --------
    Values 3, 2.5, 1.2 SU/ph with reserves 1, 1, 1.5 (the third bidder's slot costs more than it is
    worth: it does not bid). Vickrey: bidder 0 pays the second value 2.5; first price: it bids and
    pays 1 + (2 - 1)/2 (3 - 1) = 2.

    >>> auction_per_unit([3.0, 2.5, 1.2], [1.0, 1.0, 1.5], mechanism="vickrey")
    AuctionResult(winner=0, price=2.5, rounds=1, messages=2)
    >>> auction_per_unit([3.0, 2.5, 1.2], [1.0, 1.0, 1.5], mechanism="first-price").price
    2.0
    >>> auction_per_unit([3.0], [2.0], mechanism="english", step=0.5).price  # alone: the reserve
    2.0
    """
    if len(values) != len(reserves):
        raise InvalidInput(f"values and reserves differ in length ({len(values)} vs {len(reserves)})")
    v = [_finite(f"values[{i}]", x) for i, x in enumerate(values)]
    r = [_finite(f"reserves[{i}]", x) for i, x in enumerate(reserves)]
    if mechanism not in BIDDING_RULES:
        raise InvalidInput(f"mechanism: unknown auction {mechanism!r}; known: {', '.join(BIDDING_RULES)}")
    if isinstance(step, bool) or not isinstance(step, (int, float)) or not (math.isfinite(step) and step > 0):
        raise InvalidInput(f"step must be a finite number > 0 (SU/ph), got {step!r}")
    eligible = [i for i in range(len(v)) if v[i] >= r[i]]
    if not eligible:
        return AuctionResult(None, None, 1, 0)
    n = len(eligible)
    bids: list[float] = [bid(mechanism, v[i], r[i], n) for i in eligible]  # type: ignore[misc]  # value >= reserve: a bid
    floor = min(r[i] for i in eligible)  # every eligible bid is at or above it
    if mechanism == "first-price":
        res = first_price(bids, floor)
    elif mechanism == "vickrey":
        res = vickrey(bids, floor)
    elif mechanism == "english":
        res = english(bids, floor, increment=step)
    else:
        start = None if opening is None else max(float(opening), floor)
        res = dutch(bids, floor, start=start, decrement=step)
    if res.winner is None or res.price is None:  # not sold: cannot happen with eligible bids; kept for the clock's edge cases
        return AuctionResult(None, None, res.rounds, res.messages)
    w = eligible[res.winner]
    price = max(res.price, r[w])
    return AuctionResult(w, min(price, bids[res.winner]), res.rounds, res.messages)  # never above its own bid
