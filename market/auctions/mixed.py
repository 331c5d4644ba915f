"""A continuous double auction for processor-hours with Gjerstad-Dickhaut and ZIP traders mixed, and its efficiency.

The ``auction-market`` experiment compares bidding strategies in one book, as Tesauro & Das
("High-performance bidding agents for the continuous double auction", ACM EC 2001) ran ZIP, GD and
other agents in one market. Each buyer wants one processor-hour and values it at ``values[i]`` SU; each seller
offers one at cost ``costs[i]`` SU (a provider's reserve per processor-hour). Traders shout in
:func:`gridmarket.auctions.zip.trading_day` (one random trader a step; trades at the standing shout's
price), day after day, each keeping what it learnt.

Every day is reported against the competitive equilibrium (:func:`gridmarket.auctions.zip.equilibrium`,
``P0`` the middle of its price interval): allocative efficiency (realised surplus over the largest
possible), Smith's alpha (RMS deviation of trade prices from ``P0``, % of ``P0``) and, per strategy,
the profit its traders made against the profit they would make trading at ``P0`` (an intramarginal
buyer ``v - P0``, seller ``P0 - c``; others 0). Prices in SU per processor-hour.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from gridmarket.auctions.gd import GDTrader
from gridmarket.auctions.zip import ZIPTrader, equilibrium, trading_day, zip_parameters
from gridmarket.errors import InvalidInput

__all__ = ["STRATEGIES", "DayReport", "mixed_market", "mixed_traders"]

STRATEGIES = ("gd", "zip")


@dataclass(frozen=True, slots=True)
class DayReport:
    """One trading day: ``n_trades``, ``efficiency`` (fraction), ``alpha`` (% of ``P0``), ``mean_price`` (SU/ph;
    NaN with no trade), and per strategy the profit made and the profit at the equilibrium (SU)."""

    day: int
    n_trades: int
    efficiency: float
    alpha: float
    mean_price: float
    profit_gd: float
    profit_zip: float
    equilibrium_profit_gd: float
    equilibrium_profit_zip: float

    @property
    def share_gd(self) -> float:
        """GD traders' profit over their equilibrium profit (NaN if that is 0)."""
        return self.profit_gd / self.equilibrium_profit_gd if self.equilibrium_profit_gd else math.nan

    @property
    def share_zip(self) -> float:
        """ZIP traders' profit over their equilibrium profit (NaN if that is 0)."""
        return self.profit_zip / self.equilibrium_profit_zip if self.equilibrium_profit_zip else math.nan


def _check_prices(name: str, prices: Sequence[float]) -> list[float]:
    out = []
    for i, p in enumerate(prices):
        if isinstance(p, bool) or not isinstance(p, (int, float, np.floating)) or not (math.isfinite(p) and p > 0):
            raise InvalidInput(f"{name}[{i}] must be a finite number > 0 (SU per processor-hour), got {p!r}")
        out.append(float(p))
    return out


def _strategies(strategies: Sequence[str] | None, n_buyers: int, n_sellers: int) -> list[str]:
    if strategies is None:  # alternate within each side, so both strategies hold intramarginal units
        return [STRATEGIES[i % 2] for i in range(n_buyers)] + [STRATEGIES[i % 2] for i in range(n_sellers)]
    strategies = list(strategies)
    if len(strategies) != n_buyers + n_sellers:
        raise InvalidInput(f"strategies must name one strategy per trader ({n_buyers} buyers, then {n_sellers} "
                           f"sellers), got {len(strategies)}")
    for i, s in enumerate(strategies):
        if s not in STRATEGIES:
            raise InvalidInput(f"strategies[{i}] must be one of {', '.join(STRATEGIES)}, got {s!r}")
    return strategies


def mixed_traders(values: Sequence[float], costs: Sequence[float], strategies: Sequence[str] | None = None, *,
                  rng: np.random.Generator, memory: int = 5, max_price: float | None = None) -> list:
    """Buyers ``<strategy>-b<i>`` with ``values`` then sellers ``<strategy>-s<i>`` with ``costs`` (SU per processor-hour).

    ``strategies`` names ``"gd"`` or ``"zip"`` for each, buyers first (default: alternating, GD first on
    each side). ZIP parameters are drawn from ``rng`` in the order of :func:`gridmarket.auctions.zip.zip_traders`;
    GD traders take ``memory`` and the price ceiling ``max_price`` (default: the largest limit).
    """
    values, costs = _check_prices("values", values), _check_prices("costs", costs)
    if not isinstance(rng, np.random.Generator):
        raise InvalidInput(f"rng must be a numpy.random.Generator, got {rng!r}")
    kinds = _strategies(strategies, len(values), len(costs))
    if max_price is None:
        max_price = max(values + costs, default=1.0)
    traders: list[GDTrader | ZIPTrader] = []
    sides = [("bid", f"b{i}", v) for i, v in enumerate(values)] + [("ask", f"s{i}", c) for i, c in enumerate(costs)]
    for kind, (side, name, limit) in zip(kinds, sides):
        if kind == "gd":
            traders.append(GDTrader(f"gd-{name}", side, limit, max_price, memory))
        else:
            size, beta, gamma = zip_parameters(1, rng)
            mu = float(-size[0] if side == "bid" else size[0])
            traders.append(ZIPTrader(f"zip-{name}", side, limit, mu, float(beta[0]), float(gamma[0]), rng=rng))
    return traders


def mixed_market(values: Sequence[float], costs: Sequence[float], strategies: Sequence[str] | None = None, *,
                 rng: np.random.Generator, days: int = 10, steps: int = 500, memory: int = 5,
                 max_price: float | None = None) -> list[DayReport]:
    """Trade ``days`` days of ``steps`` shouts among :func:`mixed_traders` and report each (module notes).

    Examples
    --------
    Cliff's symmetric market (``P0 = 2`` SU/ph; six units trade) with GD and ZIP traders alternating:

    >>> values, costs = list(np.linspace(3.0, 1.0, 11)), list(np.linspace(1.0, 3.0, 11))
    >>> days = mixed_market(values, costs, rng=np.random.default_rng(1), days=3)
    >>> [d.day for d in days], all(0.0 <= d.efficiency <= 1.0 for d in days)
    ([1, 2, 3], True)
    >>> days[0].equilibrium_profit_gd + days[0].equilibrium_profit_zip  # the whole equilibrium surplus, SU
    6.0
    """
    for name, value in (("days", days), ("steps", steps)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InvalidInput(f"{name} must be an int >= 1, got {value!r}")
    traders = mixed_traders(values, costs, strategies, rng=rng, memory=memory, max_price=max_price)
    q, low, high = equilibrium([t.limit for t in traders if t.side == "bid"],
                               [t.limit for t in traders if t.side == "ask"])
    p0 = (low + high) / 2 if q else math.nan
    by_name = {t.name: t for t in traders}
    kind = {t.name: t.name.split("-")[0] for t in traders}
    eq_profit = {"gd": 0.0, "zip": 0.0}
    if q:
        buyers = sorted((t for t in traders if t.side == "bid"), key=lambda t: -t.limit)[:q]
        sellers = sorted((t for t in traders if t.side == "ask"), key=lambda t: t.limit)[:q]
        for t in buyers:
            eq_profit[kind[t.name]] += t.limit - p0
        for t in sellers:
            eq_profit[kind[t.name]] += p0 - t.limit
    best = eq_profit["gd"] + eq_profit["zip"]
    reports = []
    for day in range(1, days + 1):
        trades = trading_day(traders, rng, steps)
        profit = {"gd": 0.0, "zip": 0.0}
        for t in trades:
            buyer, seller = t.bid.split("@")[0], t.ask.split("@")[0]
            profit[kind[buyer]] += by_name[buyer].limit - t.price
            profit[kind[seller]] += t.price - by_name[seller].limit
        prices = np.array([t.price for t in trades])
        realised = profit["gd"] + profit["zip"]
        reports.append(DayReport(
            day=day,
            n_trades=len(trades),
            efficiency=realised / best if best > 0 else math.nan,
            alpha=float(100 * np.sqrt(np.mean((prices - p0) ** 2)) / p0) if len(trades) and q else math.nan,
            mean_price=float(prices.mean()) if len(trades) else math.nan,
            profit_gd=profit["gd"], profit_zip=profit["zip"],
            equilibrium_profit_gd=eq_profit["gd"], equilibrium_profit_zip=eq_profit["zip"],
        ))
    return reports
