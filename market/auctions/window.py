"""A continuous double auction for processor-hours in a window: providers ask, brokers bid, ZIP or GD traders
shout, trades become reservations on the providers' plans.

The ``double`` interaction model runs one trading day of this market every cycle among ZIP traders,
``double-gd`` among Gjerstad-Dickhaut traders (:mod:`gridmarket.auctions.gd`). The
commodity is a slot of a provider's plan that starts within the coming ``window`` seconds, priced
per processor-hour (SU/ph), so jobs of every size trade in one book (as in the grid double auctions
of Kant & Grosu, 2005, and Tan & Gurd, 2007: buyers are jobs, sellers are resources, prices per unit
of computation). Each order is one job's slot (Cliff's unit-demand, unit-supply traders):

* buyers -- one ZIP buyer per job, its limit the job's value per processor-hour of its slot
  (:meth:`gridmarket.auctions.slot.SlotRequest.worth`: its valuation where it ends; the least over the providers that
  offer it a slot in the window, so any of them is worth the price);
* sellers -- each provider's supply curve: one ZIP seller per slot it offers in the window (the
  earliest start of each job that fits it), its limit that slot's reserve per processor-hour, the
  externality-priced quote of :func:`gridmarket.auctions.slot.reserve_price` (Singh ch. 5), cheapest first;
* strategy -- ``"zip"``: Cliff's ZIP traders, their learning parameters drawn from ``rng``;
  ``"gd"``: Gjerstad-Dickhaut traders remembering the last ``memory`` trades of the day, the price
  ceiling the day's largest limit (each day's traders start without history, as ZIP's start with
  fresh margins);
* trading -- :func:`gridmarket.auctions.zip.trading_day` on the order book of
  :class:`gridmarket.auctions.double.OrderBook` (each trade at the standing shout's price); ZIP
  traders run its day on arrays without trader objects (:func:`gridmarket.auctions.zip.zip_market_day`,
  the same trades and draws);
* settlement -- trades in the order they happened: the seller's provider sells the buyer's job its
  earliest slot in the current plan at the trade's unit price times the slot's processor-hours,
  provided the slot still starts in the window, the price covers its reserve and the job's value
  covers the price. Otherwise the trade is void (the seller's unit was a different job's slot, or an
  earlier sale took the capacity) and the job is left unsold. So every sale is individually rational
  for both sides, and budget-balanced: the buyer pays what the provider receives.

Times are integer seconds from simulation start; prices SU (per processor-hour where it says so).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import numpy as np

from gridmarket.auctions.gd import GDTrader
from gridmarket.auctions.slot import Sale, SlotRequest, _reserve
from gridmarket.auctions.zip import trading_day, zip_market_day
from gridmarket.errors import InvalidInput
from gridmarket.pricing import ProviderPlan

__all__ = ["WINDOW_STRATEGIES", "WindowResult", "trade_window"]

WINDOW_STRATEGIES = ("zip", "gd")
"""The traders' strategies a window's double auction runs (module notes)."""


@dataclass(frozen=True, slots=True)
class WindowResult:
    """Sales, unsold requests, trades voided at settlement, shouts by side (``bid``/``ask``)."""

    sales: tuple[Sale, ...]
    unsold: tuple[int, ...]
    void: int
    shouts: dict


def _offer(plan: ProviderPlan, r: SlotRequest, window: int) -> tuple[int, float] | None:
    """``(start, reserve SU)`` of ``r``'s earliest slot on ``plan`` if it starts in the window."""
    if r.procs > plan.procs:
        return None
    start = plan.pricer.base.earliest_start(r.procs, r.duration, after=plan.now)
    if start >= plan.now + window:
        return None
    cost = _reserve(plan, start, r.procs, r.duration)
    return (start, cost) if math.isfinite(cost) else None


def trade_window(plans: dict[str, ProviderPlan], requests: list[SlotRequest], *, window: int,
                 rng: np.random.Generator, steps: int = 500, strategy: str = "zip", memory: int = 5) -> WindowResult:
    """One trading day for the slots of ``plans`` starting in the next ``window`` s (module notes).

    The plans take the sales (:meth:`~gridmarket.pricing.ProviderPlan.reserve`, id ``"auction-<id>"``).
    ``strategy`` (``"zip"`` or ``"gd"``) is every trader's; ZIP parameters and the order of shouts
    come from ``rng``; ``memory`` is the GD traders' (trades); ``steps`` caps the day's shouts.

    Examples
    --------
    One idle 8-processor machine and two 4-processor one-hour jobs worth 12 SU (3 SU/ph) by
    their deadlines: the provider offers both slots now at its reserve, the base rate (1 SU/ph,
    nothing queued), and both trade between 1 and 3 SU/ph.

    >>> from gridmarket.pricing import ProviderState
    >>> from gridmarket.valuation import Valuation
    >>> plan = ProviderPlan(ProviderState(0, 8), "easy")
    >>> reqs = [SlotRequest(k, 4, 3600, Valuation(12.0, 10**6, 10)) for k in (1, 2)]
    >>> r = trade_window({"a": plan}, reqs, window=600, rng=np.random.default_rng(0))
    >>> sorted(s.request for s in r.sales), all(4.0 <= s.price <= 12.0 for s in r.sales), r.void
    ([1, 2], True, 0)
    """
    if isinstance(window, bool) or not isinstance(window, int) or window < 1:
        raise InvalidInput(f"window must be an int >= 1 s, got {window!r}")
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise InvalidInput(f"steps must be an int >= 1, got {steps!r}")
    if strategy not in WINDOW_STRATEGIES:
        raise InvalidInput(f"strategy must be one of {', '.join(WINDOW_STRATEGIES)}, got {strategy!r}")
    ids = [r.id for r in requests]
    if len(set(ids)) != len(ids):
        raise InvalidInput("requests: ids must be unique")
    # ---- the day's traders: buyers with their value per processor-hour, sellers' supply curves
    buyers: list[SlotRequest] = []
    values: list[float] = []
    seller_of: list[str] = []
    costs: list[float] = []
    offers = {name: [_offer(plan, r, window) for r in requests] for name, plan in plans.items()}
    for name in plans:
        units = sorted(o[1] / r.hours for r, o in zip(requests, offers[name]) if o is not None)
        costs += units
        seller_of += [name] * len(units)
    for k, r in enumerate(requests):
        worth = [r.worth(o[0]) / r.hours for name in plans if (o := offers[name][k]) is not None]
        if worth and min(worth) > 0:
            buyers.append(r)
            values.append(min(worth))
    shouts: Counter[str] = Counter()
    if not buyers or not costs:
        return WindowResult((), tuple(ids), 0, dict(shouts))
    if strategy == "zip":
        trades, counts = zip_market_day(values, costs, rng, steps)
        shouts.update(counts)
    else:
        ceiling = max(values + costs)
        traders = ([GDTrader(f"b{i}", "bid", float(v), ceiling, memory) for i, v in enumerate(values)]
                   + [GDTrader(f"s{i}", "ask", float(c), ceiling, memory) for i, c in enumerate(costs)])
        trades = [(int(t.bid.split("@")[0][1:]), int(t.ask.split("@")[0][1:]), t.price)
                  for t in trading_day(traders, rng, steps, shouts)]
    # ---- settlement, in the order the trades happened
    sales: list[Sale] = []
    void = 0
    for b, s, unit_price in trades:
        r = buyers[b]
        name = seller_of[s]
        plan = plans[name]
        o = _offer(plan, r, window)
        price = unit_price * r.hours
        if o is None or o[1] > price + 1e-9 or r.worth(o[0]) < price - 1e-9:
            void += 1
            continue
        plan.reserve(o[0], r.procs, r.duration, reservation_id=f"auction-{r.id}")
        sales.append(Sale(r.id, name, o[0], price, o[1]))
    won = {s.request for s in sales}
    return WindowResult(tuple(sales), tuple(i for i in ids if i not in won), void,
                        {"bid": shouts["bid"], "ask": shouts["ask"]})
