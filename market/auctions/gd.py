"""Gjerstad-Dickhaut (GD) traders in a continuous double auction (Gjerstad & Dickhaut 1998).

S. Gjerstad, J. Dickhaut, "Price formation in double auctions", Games and Economic Behavior 22
(1998) 1-29. A trader holds one unit a trading day and a limit price ``limit`` (a buyer's value, a
seller's cost; SU per unit). It keeps the public history of shouts over the last ``memory`` trades
and forms from it a belief that a shout at price ``x`` will be accepted:

* a seller's belief that an ask ``a`` is taken,
  ``p(a) = (TA(a) + B(a)) / (TA(a) + B(a) + RA(a))``, with ``TA(a)`` the accepted asks at prices
  ``>= a``, ``B(a)`` the bids (accepted or not) at ``>= a`` and ``RA(a)`` the rejected asks at ``<= a``;
* a buyer's belief that a bid ``b`` is taken,
  ``q(b) = (TB(b) + A(b)) / (TB(b) + A(b) + RB(b))``, with ``TB(b)`` the accepted bids at ``<= b``,
  ``A(b)`` the asks at ``<= b`` and ``RB(b)`` the rejected bids at ``>= b``.

These frequencies are defined at the prices observed; between them the belief is interpolated, and
the trader shouts the price that maximises its expected surplus, ``(a - cost) p(a)`` or
``(value - b) q(b)``. The paper's market has prices in ``[0, M]`` and a spread-reduction rule (a new
ask below the outstanding ask, a new bid above the outstanding bid); the book here does not enforce
the rule, so GD traders keep to it themselves.

Details that are ours, not the paper's:

* Anchors: an ask at or below the outstanding bid is taken at once (``p = 1`` there; with no bid
  standing, ``p(0) = 1``) and no ask at the ceiling is (``p(M) = 0``); a bid at or above the
  outstanding ask is taken (``q = 1``; with no ask standing, ``q(M) = 1``) and a bid of 0 is not
  (``q(0) = 0``). Observed prices outside the anchors are dropped in their favour.

* Interpolation: the paper fits cubic splines between the observed prices. We use the PCHIP of
  :class:`scipy.interpolate.PchipInterpolator` (Fritsch-Carlson monotone piecewise cubic Hermite
  interpolation, slopes by Fritsch & Butland's harmonic mean): the frequencies are monotone (``p``
  non-increasing, ``q`` non-decreasing) and PCHIP keeps the belief monotone and within ``[0, 1]``,
  which an unconstrained cubic spline does not. Its coefficients are computed here by scipy's
  formulas (building the scipy object each shout was most of a market's run time); the tests check
  that the belief equals scipy's interpolant. The maximum of the surplus, a quartic on each piece,
  is found exactly: among the ends of the range, the knots and the real roots of its derivative on
  each piece (a cubic; the eigenvalues of its companion matrix).
* The history: "the last ``memory`` trades" is every shout after the ``memory + 1``-th most recent
  trade, so each remembered trade comes with the shouts that led to it, plus those since the last
  trade; ``memory = 5`` by default. A trade at price ``p`` is remembered as an accepted ask and an
  accepted bid at ``p`` (the standing shout it took, recorded as rejected when it was shouted, is
  marked accepted; the taking shout is recorded at the trade price). A shout replaced before it was
  taken stays rejected.
* ``M`` (``max_price``) is a public price ceiling of the market; :func:`gd_traders` takes the largest
  limit by default.
* A trader that cannot improve the outstanding quote (a seller whose cost is above the outstanding
  ask) maximises over ``[cost, M]`` instead; its shout then stands behind the better one.
* Ties between prices of equal expected surplus go to the lowest price. Observed prices within
  ``1e-50`` SU of each other or of an anchor share its knot (only so the cubics stay finite).

GD traders are deterministic given the history; the market's randomness (who shouts when) is in
:func:`gridmarket.auctions.zip.trading_day`, which runs them alone or mixed with ZIP traders.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from gridmarket.auctions.double import OrderBook
from gridmarket.errors import InvalidInput

__all__ = ["GDTrader", "Shout", "buyer_belief", "gd_traders", "seller_belief"]


@dataclass(frozen=True, slots=True)
class Shout:
    """A shout in the public history: ``side`` ``"bid"`` or ``"ask"`` at ``price`` SU/unit, ``accepted`` or not."""

    price: float
    side: str
    accepted: bool

    def __post_init__(self) -> None:
        if self.side not in ("bid", "ask"):
            raise InvalidInput(f"shout: side must be 'bid' or 'ask', got {self.side!r}")
        p = self.price
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not math.isfinite(p) or p < 0:
            raise InvalidInput(f"shout: price must be a finite number >= 0 (SU/unit), got {p!r}")


# observed prices closer than this (SU) share one knot, so the cubics' coefficients (~ 1/gap^3) and their
# squares stay finite. Only prices near 0 can be this close; anything coarser changes a market's path (the
# traders' shouts sit at knots and at roots a few ulps from them), so it is no larger than needed
_KNOT_GAP = 1e-50

# a remembered shout is a (price, kind) pair; kinds:
_REJECTED_ASK, _ACCEPTED_ASK, _REJECTED_BID, _ACCEPTED_BID = 0, 1, 2, 3


def _kind(side: str, accepted: bool) -> int:
    return (0 if side == "ask" else 2) + int(accepted)


def _frequencies(price: np.ndarray, kind: np.ndarray, x: np.ndarray, seller: bool) -> np.ndarray:
    """GD's frequencies at ``x`` from the shouts' ``price`` and ``kind`` arrays; NaN where no shout counts."""
    if seller:  # up: TA + B, the accepted asks and all bids at >= x; down: RA, the rejected asks at <= x
        up_p, down_p = np.sort(price[kind != _REJECTED_ASK]), np.sort(price[kind == _REJECTED_ASK])
        up = len(up_p) - np.searchsorted(up_p, x, "left")
        down = np.searchsorted(down_p, x, "right")
    else:  # up: TB + A, the accepted bids and all asks at <= x; down: RB, the rejected bids at >= x
        up_p, down_p = np.sort(price[kind != _REJECTED_BID]), np.sort(price[kind == _REJECTED_BID])
        up = np.searchsorted(up_p, x, "right")
        down = len(down_p) - np.searchsorted(down_p, x, "left")
    total = up + down
    return np.where(total > 0, up / np.maximum(total, 1), np.nan)


def _as_history(shouts: Iterable[Shout]) -> tuple[np.ndarray, np.ndarray]:
    shouts = list(shouts)
    return (np.array([s.price for s in shouts], dtype=float),
            np.array([_kind(s.side, s.accepted) for s in shouts], dtype=int))


def seller_belief(shouts: Sequence[Shout], prices: Sequence[float]) -> np.ndarray:
    """GD's seller belief ``p(a) = (TA + B) / (TA + B + RA)`` at each of ``prices`` (module notes); NaN where no shout counts.

    Examples
    --------
    Asks 1.9, 2.2, 2.4 and bids 1.6, 1.8, 2.1 rejected; an ask at 2.0 taken by a bid (a trade at 2.0).
    At 1.9: TA = 1 (2.0), B = 2 (2.0, 2.1), RA = 1 (1.9): p = 3/4; at 2.1: TA = 0, B = 1, RA = 1: p = 1/2.

    >>> h = [Shout(p, "ask", False) for p in (1.9, 2.2, 2.4)] + [Shout(p, "bid", False) for p in (1.6, 1.8, 2.1)]
    >>> h += [Shout(2.0, "ask", True), Shout(2.0, "bid", True)]
    >>> seller_belief(h, [1.6, 1.8, 1.9, 2.0, 2.1, 2.2, 2.4]).tolist()
    [1.0, 1.0, 0.75, 0.75, 0.5, 0.0, 0.0]
    """
    return _frequencies(*_as_history(shouts), np.asarray(prices, dtype=float), seller=True)


def buyer_belief(shouts: Sequence[Shout], prices: Sequence[float]) -> np.ndarray:
    """GD's buyer belief ``q(b) = (TB + A) / (TB + A + RB)`` at each of ``prices`` (module notes); NaN where no shout counts.

    Examples
    --------
    The history of :func:`seller_belief`. At 1.9: TB = 0, A = 1 (1.9), RB = 1 (2.1): q = 1/2; at
    2.0: TB = 1, A = 2, RB = 1: q = 3/4; at 1.5: TB = A = 0, RB = 3: q = 0.

    >>> h = [Shout(p, "ask", False) for p in (1.9, 2.2, 2.4)] + [Shout(p, "bid", False) for p in (1.6, 1.8, 2.1)]
    >>> h += [Shout(2.0, "ask", True), Shout(2.0, "bid", True)]
    >>> buyer_belief(h, [1.5, 1.6, 1.8, 1.9, 2.0, 2.1, 2.2, 2.4]).tolist()
    [0.0, 0.0, 0.0, 0.5, 0.75, 0.75, 1.0, 1.0]
    """
    return _frequencies(*_as_history(shouts), np.asarray(prices, dtype=float), seller=False)


def _pchip(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Coefficients (4 x pieces, highest power first, in ``t = x - x_k``) of the PCHIP through ``(x, y)``.

    The interpolant of :class:`scipy.interpolate.PchipInterpolator`, by its formulas: slopes at the
    knots by Fritsch & Butland's weighted harmonic mean of the secants (0 where they change sign or
    one is 0), the ends by the one-sided three-point formula limited to keep the shape. Built here
    because constructing the scipy object costs ~0.5 ms a shout, most of a market's run time; the
    tests check it equals scipy's.
    """
    h = np.diff(x)
    m = np.diff(y) / h
    if len(h) == 1:
        d = np.array([m[0], m[0]])
    else:
        d = np.zeros(len(x))
        w1, w2 = 2.0 * h[1:] + h[:-1], h[1:] + 2.0 * h[:-1]
        sm = np.sign(m)
        flat = (sm[1:] != sm[:-1]) | (m[1:] == 0) | (m[:-1] == 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            whmean = (w1 / m[:-1] + w2 / m[1:]) / (w1 + w2)
            d[1:-1] = np.where(flat, 0.0, 1.0 / whmean)
        for end, (h0, h1, m0, m1) in ((0, (h[0], h[1], m[0], m[1])), (-1, (h[-1], h[-2], m[-1], m[-2]))):
            e = ((2.0 * h0 + h1) * m0 - h0 * m1) / (h0 + h1)
            if np.sign(e) != np.sign(m0):
                e = 0.0
            elif np.sign(m0) != np.sign(m1) and abs(e) > 3.0 * abs(m0):
                e = 3.0 * m0
            d[end] = e
    c = np.empty((4, len(h)))
    with np.errstate(over="ignore", invalid="ignore"):
        c[0] = (d[:-1] + d[1:] - 2.0 * m) / h**2
        c[1] = (3.0 * m - 2.0 * d[:-1] - d[1:]) / h
    c[2] = d[:-1]
    c[3] = y[:-1]
    # a piece too narrow for its cubic terms (knots ~1e-177 apart: 1/h**2 overflows, and inf * 0 at its
    # own knot would give NaN) is the secant there, which is as monotone as the data; a piece too narrow
    # even for its secant (knots a subnormal apart: the slope overflows) is a step, flat until its end
    wide = np.isfinite(c).all(axis=0)
    if not wide.all():
        c[0, ~wide], c[1, ~wide], c[2, ~wide] = 0.0, 0.0, np.where(np.isfinite(m), m, 0.0)[~wide]
    return c


def _evaluate(c: np.ndarray, x: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The piecewise cubic ``c`` on knots ``x`` at the points ``at`` (within ``[x[0], x[-1]]``)."""
    k = np.clip(np.searchsorted(x, at, "right") - 1, 0, len(x) - 2)
    t = at - x[k]
    return ((c[0, k] * t + c[1, k]) * t + c[2, k]) * t + c[3, k]


def _best_price(knots: np.ndarray, belief: np.ndarray, limit: float, sign: float, lo: float, hi: float) -> float:
    """The price in ``[lo, hi]`` maximising ``sign * (x - limit) * belief(x)`` (belief PCHIP-interpolated)."""
    if hi <= lo:
        return lo
    c_all = _pchip(knots, belief)
    # only the pieces that meet [lo, hi]
    first = max(int(np.searchsorted(knots, lo, "right")) - 1, 0)
    last = min(int(np.searchsorted(knots, hi, "left")), len(knots) - 1)
    c, x0 = c_all[:, first:last], knots[first:last]
    # on piece k, t = x - x_k: surplus S_k(t) = (sign (t + x_k - limit)) P_k(t), a quartic; its stationary
    # points are the real roots of the cubic S_k'(t) = e3 t^3 + e2 t^2 + e1 t + e0, solved by its degree
    # (flat PCHIP pieces have e3 = e2 = 0); true cubics for all pieces at once from their companion matrices
    d = sign * (x0 - limit)
    e3 = 4.0 * sign * c[0]
    e2 = 3.0 * (sign * c[1] + d * c[0])
    e1 = 2.0 * (sign * c[2] + d * c[1])
    e0 = sign * c[3] + d * c[2]
    tiny = 1e-12 * (np.abs(e3) + np.abs(e2) + np.abs(e1) + np.abs(e0))
    roots = []
    cubic = np.abs(e3) > tiny
    if cubic.any():
        comp = np.zeros((int(cubic.sum()), 3, 3))
        comp[:, 0, :] = -np.stack((e2[cubic], e1[cubic], e0[cubic]), axis=1) / e3[cubic, None]
        comp[:, 1, 0] = comp[:, 2, 1] = 1.0
        eig = np.linalg.eigvals(comp)
        real = np.abs(eig.imag) <= 1e-9 * (1.0 + np.abs(eig.real))
        roots.append((eig.real + x0[cubic, None])[real])
    quad = ~cubic & (np.abs(e2) > tiny)
    if quad.any():
        disc = e1[quad] ** 2 - 4.0 * e2[quad] * e0[quad]
        ok = disc >= 0
        sq = np.sqrt(np.where(ok, disc, 0.0))
        for r in ((-e1[quad] + sq) / (2.0 * e2[quad]), (-e1[quad] - sq) / (2.0 * e2[quad])):
            roots.append((r + x0[quad])[ok])
    lin = ~cubic & ~quad & (np.abs(e1) > tiny)
    if lin.any():
        roots.append(-e0[lin] / e1[lin] + x0[lin])
    candidates = np.concatenate([[lo, hi], knots[first:last + 1], *roots])
    candidates = np.unique(candidates[(candidates >= lo) & (candidates <= hi)])
    values = sign * (candidates - limit) * _evaluate(c_all, knots, candidates)
    return float(candidates[int(np.argmax(values))])  # the first maximum: the lowest price


@dataclass
class GDTrader:
    """One GD trader (module notes). ``side`` is ``"bid"`` (buyer) or ``"ask"`` (seller); prices in SU/unit.

    ``max_price`` is the market's price ceiling ``M``; ``memory`` the number of trades remembered.

    Examples
    --------
    With no history and no standing quotes a seller's belief is the line from ``p(0) = 1`` to
    ``p(M) = 0``; with cost 1 and ``M = 3`` it asks ``argmax (a - 1)(1 - a/3) = 2``:

    >>> GDTrader("s0", "ask", 1.0, max_price=3.0).shout(OrderBook())
    2.0
    """

    name: str
    side: str
    limit: float
    max_price: float
    memory: int = 5
    active: bool = True
    # the remembered shouts, oldest first, as parallel lists; _trade_ends[i] is the length of the history up to
    # and including the i-th remembered trade
    _prices: list[float] = field(default_factory=list, init=False, repr=False)
    _kinds: list[int] = field(default_factory=list, init=False, repr=False)
    _trade_ends: list[int] = field(default_factory=list, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.side not in ("bid", "ask"):
            raise InvalidInput(f"trader {self.name!r}: side must be 'bid' or 'ask', got {self.side!r}")
        if not (math.isfinite(self.limit) and self.limit > 0):
            raise InvalidInput(f"trader {self.name!r}: limit must be a finite number > 0, got {self.limit!r}")
        if not (math.isfinite(self.max_price) and self.max_price >= self.limit):
            raise InvalidInput(f"trader {self.name!r}: max_price must be a finite number >= its limit "
                               f"{self.limit!r}, got {self.max_price!r}")
        m = self.memory
        if isinstance(m, bool) or not isinstance(m, int) or m < 1:
            raise InvalidInput(f"trader {self.name!r}: memory must be an int >= 1 trades, got {m!r}")

    @property
    def history(self) -> list[Shout]:
        """The remembered shouts, oldest first (module notes)."""
        sides = ("ask", "ask", "bid", "bid")
        return [Shout(p, sides[k], bool(k % 2)) for p, k in zip(self._prices, self._kinds)]

    def belief(self, book: OrderBook) -> tuple[np.ndarray, np.ndarray]:
        """The belief's knots: prices (increasing, SU/unit) and the probability that a shout there is taken.

        Between knots the trader interpolates them by PCHIP (module notes).
        """
        m = self.max_price
        bid, ask = book.best_bid(), book.best_ask()
        price, kind = np.array(self._prices, dtype=float), np.array(self._kinds, dtype=int)
        prices = np.unique(price)
        eps = _KNOT_GAP
        low = min(bid, m) if self.side == "ask" and bid is not None else 0.0
        high = min(ask, m) if self.side == "bid" and ask is not None else m
        inner = prices[(prices > low + eps) & (prices < high - eps)]
        inner = inner[np.diff(inner, prepend=-np.inf) > eps]  # one knot for prices closer than eps
        if self.side == "ask":
            p = _frequencies(price, kind, inner, seller=True)
            return np.concatenate(([low], inner, [m])), np.concatenate(([1.0], p, [0.0]))
        q = _frequencies(price, kind, inner, seller=False)
        return np.concatenate(([0.0], inner, [high])), np.concatenate(([0.0], q, [1.0]))

    def belief_at(self, book: OrderBook, prices: Sequence[float]) -> np.ndarray:
        """The interpolated belief (PCHIP through :meth:`belief`'s knots) at ``prices`` within ``[0, M]`` (SU/unit)."""
        x = np.asarray(prices, dtype=float)
        if x.size and (x.min() < 0 or x.max() > self.max_price):
            raise InvalidInput(f"prices must lie in [0, max_price = {self.max_price!r}]")
        knots, belief = self.belief(book)
        if knots[0] >= knots[-1]:
            return np.full(x.shape, belief[-1] if self.side == "ask" else belief[0])
        out = _evaluate(_pchip(knots, belief), knots, np.clip(x, knots[0], knots[-1]))
        # outside the anchors the belief is the anchor's: certain below an outstanding bid / above an ask
        return np.where(x < knots[0], belief[0], np.where(x > knots[-1], belief[-1], out))

    def shout(self, book: OrderBook) -> float:
        """The price (SU/unit) maximising expected surplus under the belief, within the spread-reduction rule."""
        knots, belief = self.belief(book)
        bid, ask = book.best_bid(), book.best_ask()
        if knots[0] >= knots[-1]:  # a bid standing at the ceiling, or an ask at 0: take it
            return max(self.limit, knots[0]) if self.side == "ask" else min(self.limit, knots[-1])
        if self.side == "ask":
            lo = max(self.limit, knots[0])
            hi = ask if ask is not None and lo < ask < self.max_price else self.max_price
            return _best_price(knots, belief, self.limit, 1.0, lo, hi)
        hi = min(self.limit, knots[-1])
        lo = bid if bid is not None and 0.0 < bid < hi else 0.0
        return _best_price(knots, belief, self.limit, -1.0, lo, hi)

    def observe(self, q: float, shout_side: str, accepted: bool) -> None:
        """Remember a shout of ``shout_side`` at ``q`` (SU/unit); when ``accepted``, ``q`` is the trade price."""
        if shout_side not in ("bid", "ask"):
            raise InvalidInput(f"trader {self.name!r}: shout_side must be 'bid' or 'ask', got {shout_side!r}")
        if not (isinstance(q, (int, float)) and math.isfinite(q) and q >= 0):
            raise InvalidInput(f"trader {self.name!r}: shout price q must be a finite number >= 0, got {q!r}")
        prices, kinds = self._prices, self._kinds
        if not accepted:
            prices.append(q)
            kinds.append(_kind(shout_side, False))
            return
        other = "ask" if shout_side == "bid" else "bid"
        rejected = _kind(other, False)
        for i in range(len(prices) - 1, -1, -1):  # the standing shout that was taken, if still remembered
            if kinds[i] == rejected and prices[i] == q:
                kinds[i] = _kind(other, True)
                break
        else:
            prices.append(q)
            kinds.append(_kind(other, True))
        prices.append(q)
        kinds.append(_kind(shout_side, True))
        self._trade_ends.append(len(prices))
        if len(self._trade_ends) > self.memory:  # forget the oldest trade and the shouts that led to it
            cut = self._trade_ends.pop(0)
            del prices[:cut], kinds[:cut]
            self._trade_ends = [end - cut for end in self._trade_ends]


def gd_traders(values: Sequence[float], costs: Sequence[float], *, max_price: float | None = None,
               memory: int = 5) -> list[GDTrader]:
    """Buyers ``b<i>`` with ``values`` and sellers ``s<i>`` with ``costs`` (SU/unit), GD traders with ceiling ``max_price``.

    ``max_price`` defaults to the largest limit (module notes). Deterministic: no generator needed.
    """
    limits = [float(v) for v in values] + [float(c) for c in costs]
    if max_price is None:
        max_price = max(limits) if limits else 0.0
    traders = [GDTrader(f"b{i}", "bid", float(v), max_price, memory) for i, v in enumerate(values)]
    traders += [GDTrader(f"s{i}", "ask", float(c), max_price, memory) for i, c in enumerate(costs)]
    return traders
