"""``gridmarket/Bid-v0``: a learning broker bids for its users' jobs in the agent market's slot auctions.

Prices in SU (processor-hours at the base rate); times are integer seconds of the market's clock.

The market is a scenario's agent model (``auction-market`` by default: three providers running EASY
and conservative backfilling, valued Lublin jobs, workflows) for one slot-auction interaction model,
run by :class:`gridmarket.agents.MarketModel` exactly as ``gridmarket run``/``compare`` run it. Each
cycle the providers auction slots of their plans to the jobs the broker gathered
(:func:`gridmarket.auctions.slot.auction_round`: reserve = the slot's externality-priced cost, Singh 2008,
ch. 5; bidders follow the format's textbook rule, :mod:`gridmarket.auctions.bidding`). Here the broker's
desk stops at each cycle's trade and the agent says, for each job, what it reports as the job's value:
``factor x`` its valuation, which the format's rule turns into the bid (in a Vickrey auction the bid is
the report). Reporting every value truthfully (all factors 1) is the ``vickrey`` model itself, run for run
(``tests/rl/test_bid.py``).

The environment stands above the layers: it drives the agent model (:mod:`gridmarket.agents`) and reads
scenarios (:mod:`gridmarket.scenarios`), as the ``gridmarket`` command does.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import gymnasium as gym
import numpy as np
import pandas as pd
from gymnasium import spaces

from gridmarket.agents.desks.auction import SlotAuctionDesk
from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.pricing import BASE_RATE, SECONDS_PER_HOUR
from gridmarket.rl.episode import scenario_config, start_episode

if TYPE_CHECKING:
    from gridmarket.agents.model import MarketModel, RunResult

__all__ = ["BID_DESKS", "JOB_FEATURES", "BidEnv", "DutchBidDesk", "EnglishBidDesk", "FirstPriceBidDesk",
           "VickreyBidDesk"]

JOB_FEATURES = ("present", "procs", "estimate", "value", "slack")
"""What the observation says of each of the first ``max_jobs`` jobs of a trade (see :class:`BidEnv`)."""


class _Trade(Exception):  # noqa: N818 - not an error: the desk's pause, caught by the environment
    """Raised by a bidding desk at its trade: the market stops there until the environment trades."""

    def __init__(self, jobs: list[Job], now: int) -> None:
        super().__init__(f"trade of {len(jobs)} job(s) at {now}")
        self.jobs = jobs
        self.now = now


class _BidDesk(SlotAuctionDesk):
    """A slot-auction desk whose trades wait for :meth:`trade_with` (the environment's factors)."""

    mechanism_name = ""

    def __init__(self, broker) -> None:
        super().__init__(broker, self.mechanism_name)
        self.sales: list[tuple[Job, int, float]] = []  # (job, start s, price SU) of the trade under way

    def trade(self, jobs: list[Job], now: int) -> None:
        raise _Trade(jobs, now)

    def trade_with(self, jobs: list[Job], now: int, factors: dict[int, float]) -> list[tuple[Job, int, float]]:
        """Trade ``jobs`` at ``now``, each job's value reported as ``factors[id]`` times its valuation; the sales."""
        true = self.valuations
        reported = dict(true)
        for job in jobs:
            if job.id in factors:
                v = true[job.id]
                reported[job.id] = replace(v, value=v.value * factors[job.id])
        self.valuations, self.sales = reported, []
        try:
            super().trade(jobs, now)
        finally:
            self.valuations = true
        return self.sales

    def hold(self, job: Job, site: str, start: int, price: float, now: int) -> None:
        super().hold(job, site, start, price, now)
        self.sales.append((job, start, price))


class FirstPriceBidDesk(_BidDesk):
    """First-price sealed-bid slot auctions, the learning broker's reports."""

    name = "rl-first-price"
    mechanism_name = "first-price"


class VickreyBidDesk(_BidDesk):
    """Second-price sealed-bid slot auctions, the learning broker's reports."""

    name = "rl-vickrey"
    mechanism_name = "vickrey"


class EnglishBidDesk(_BidDesk):
    """Ascending-clock slot auctions, the learning broker's reports."""

    name = "rl-english"
    mechanism_name = "english"


class DutchBidDesk(_BidDesk):
    """Descending-clock slot auctions, the learning broker's reports."""

    name = "rl-dutch"
    mechanism_name = "dutch"


BID_DESKS = {d.mechanism_name: d for d in (FirstPriceBidDesk, VickreyBidDesk, EnglishBidDesk, DutchBidDesk)}
"""The learning broker's desk of each slot-auction format."""


def _realised(job: Job, start: int, valuations) -> float:
    """What a job sold a slot at ``start`` is worth when it ends there (0 if it is killed at its estimate)."""
    if job.runtime > job.estimate:
        return 0.0
    return valuations[job.id].utility(start + job.runtime)


class BidEnv(gym.Env):
    """The broker of a scenario's slot auctions, reporting its jobs' values (see the module).

    Parameters
    ----------
    scenario : str, path or ScenarioConfig
        A registered scenario's name (default ``auction-market``), a scenario TOML file, or a config.
    mechanism : {"vickrey", "first-price", "english", "dutch"}
        The slot-auction format.
    max_jobs : int
        Jobs of a trade the agent sees and prices; any further ones are reported truthfully.
    max_factor : float
        Highest factor of the action space (reports from 0 to ``max_factor`` times the valuation).
    time_scale : float
        Seconds ``s`` by which the observation scales a duration ``t`` to ``t / (t + s)``.

    Notes
    -----
    An episode is the scenario's whole run for one seed: ``reset(seed=s)`` builds the scenario with seed
    ``s`` (its workload, valuations, prices and the model's random stream, as ``gridmarket run --seed s``
    builds them); without a seed, one drawn from the environment's generator. A step is one cycle's trade.

    Action: ``max_factor``-bounded factors, one per listed job. Observation (float32 in [0, 1]): for each
    of the first ``max_jobs`` jobs of the trade, :data:`JOB_FEATURES`: 1 if there is a job, procs over the
    largest machine, estimate scaled, its value over its base-rate cost (``v / (1 + v)``), and the time to
    its deadline scaled; then the trade's job count ``n / (n + max_jobs)``.

    Reward: the users' surplus (Singh 2008's user utility less price), in SU: at each trade, each sold
    job's value where it ends (0 if killed at its estimate) less its price; at the last step, the rest of
    the run's users' surplus (jobs that won nothing and queued at home, workflows), so an episode's return
    is the run's ``users_surplus`` (:func:`gridmarket.scenarios.experiment.summary_row`).
    """

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(self, scenario: Any = "auction-market", *, mechanism: str = "vickrey", max_jobs: int = 16,
                 max_factor: float = 2.0, time_scale: float = 3600.0) -> None:
        config = scenario_config(scenario, "Bid")
        if mechanism not in BID_DESKS:
            raise InvalidInput(f"Bid: mechanism must be one of {', '.join(BID_DESKS)}, got {mechanism!r}")
        if isinstance(max_jobs, bool) or not isinstance(max_jobs, int) or max_jobs < 1:
            raise InvalidInput(f"Bid: max_jobs must be a positive int, got {max_jobs!r}")
        if not (isinstance(max_factor, (int, float)) and math.isfinite(max_factor) and max_factor > 0):
            raise InvalidInput(f"Bid: max_factor must be a finite number > 0, got {max_factor!r}")
        if not time_scale > 0:
            raise InvalidInput(f"Bid: time_scale must be > 0 s, got {time_scale!r}")
        self.config = config
        self.mechanism = mechanism
        self.max_jobs = max_jobs
        self.time_scale = float(time_scale)
        self._desk = f"{__name__}:{BID_DESKS[mechanism].__name__}"
        self._largest = max(p.procs for p in config.providers)
        self.action_space = spaces.Box(0.0, float(max_factor), shape=(max_jobs,), dtype=np.float32)
        self.observation_space = spaces.Box(0.0, 1.0, shape=(max_jobs * len(JOB_FEATURES) + 1,), dtype=np.float32)
        self.model: MarketModel | None = None
        self.result: RunResult | None = None
        self.summary: dict | None = None

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """Build the scenario's market for ``seed`` and run it to its first trade; the observation and info."""
        super().reset(seed=seed)
        self._episode = start_episode(self.config, self._desk, seed, self.np_random)
        self.run_config, self.model = self._episode.config, self._episode.model
        self.result = self.summary = None
        self._surplus = 0.0
        self._trade: _Trade | None = None
        if self._run():
            raise InvalidInput(f"Bid: scenario {self.config.name!r} trades no job: nothing to bid for")
        return self._observe(), self._info()

    def _run(self) -> bool:
        """Run the market to its next trade (False) or to its end (True: :attr:`result` and :attr:`summary` set)."""
        from gridmarket.scenarios.experiment import summary_row

        episode = self._episode
        result, pause = episode.run_to_pause(_Trade)
        if pause is not None:
            assert isinstance(pause, _Trade)
            self._trade = pause
            return False
        assert result is not None  # no pause: the run ended
        self._trade, self.result = None, result
        self.summary = summary_row(self.mechanism, result, sum(p.procs for p in episode.config.providers),
                                   len(episode.workload.jobs), episode.requests)
        return True

    def step(self, action) -> tuple[np.ndarray, float, bool, bool, dict]:
        """Trade with ``action``'s reported factors and run the market to its next trade: observation, reward, terminated, truncated, info."""
        trade = self._trade
        if trade is None or self.model is None:
            raise InvalidInput("Bid: step() after the episode ended; call reset()")
        chosen = self.factors_of(trade.jobs, action, "Bid")
        sales = self.trade(chosen)
        reward = sum(surplus for _, surplus in sales)
        self._surplus += reward
        done = self._run()
        if done:
            assert self.summary is not None  # set by _run at the end
            reward += self.summary["users_surplus"] - self._surplus
        return self._observe(), float(reward), done, False, self._info()

    def factors_of(self, jobs: list[Job], action, who: str) -> dict[int, float]:
        """Job id -> reported factor, from an action (one factor per listed job) for ``jobs``' first ``max_jobs``."""
        factors = np.asarray(action, dtype=np.float64).reshape(-1)
        if factors.shape != (self.max_jobs,) or not np.all(np.isfinite(factors)) or factors.min() < 0:
            raise InvalidInput(f"{who}: action must be {self.max_jobs} finite factors >= 0, got {action!r}")
        return {job.id: float(f) for job, f in zip(jobs[: self.max_jobs], factors, strict=False)}

    def trade(self, factors: dict[int, float]) -> list[tuple[Job, float]]:
        """Run the trade under way with ``factors`` (job id -> reported factor; others truthful); each sold job's surplus (SU).

        The market does not move on: :meth:`advance` does.
        """
        trade = self._trade
        if trade is None or self.model is None:
            raise InvalidInput("Bid: no trade under way")
        desk = self._desk_of(self.model)
        sales = desk.trade_with(trade.jobs, trade.now, factors)
        return [(job, _realised(job, start, desk.valuations) - price) for job, start, price in sales]

    def advance(self) -> bool:
        """After :meth:`trade`: run the market to its next trade (False) or to its end (True)."""
        return self._run()

    @property
    def pending(self) -> tuple[list[Job], int] | None:
        """The jobs of the trade under way and its time (s), or None when the episode has ended."""
        return None if self._trade is None else (self._trade.jobs, self._trade.now)

    @staticmethod
    def _desk_of(model: MarketModel) -> _BidDesk:
        desk = model.broker.desk if model.broker is not None else None
        if not isinstance(desk, _BidDesk):
            raise InvalidInput(f"Bid: the market's broker has no bidding desk ({desk!r})")
        return desk

    def _observe(self) -> np.ndarray:
        trade = self._trade
        return self.observe([] if trade is None else trade.jobs)

    def observe(self, jobs: list[Job]) -> np.ndarray:
        """The observation (class notes) of ``jobs`` of the trade under way: all of them, or one broker's."""
        obs = np.zeros(self.observation_space.shape[0], dtype=np.float32)  # type: ignore[index]  # a Box's shape
        trade = self._trade
        if trade is None:
            return obs
        scale = self.time_scale
        assert self.model is not None  # a trade: set by reset
        valuations = self._desk_of(self.model).valuations
        k = 0
        for job in jobs[: self.max_jobs]:
            v = valuations[job.id]
            ratio = v.value / (job.procs * job.estimate * BASE_RATE / SECONDS_PER_HOUR)
            slack = max(0, v.deadline - trade.now)
            obs[k:k + 5] = (1.0, job.procs / self._largest, job.estimate / (job.estimate + scale),
                            ratio / (1.0 + ratio), slack / (slack + scale))
            k += 5
        n = len(jobs)
        obs[-1] = n / (n + self.max_jobs)
        return obs

    def _info(self) -> dict:
        trade = self._trade
        if trade is None:
            return {"time": None, "jobs": [], "summary": self.summary}
        return {"time": trade.now, "jobs": [job.id for job in trade.jobs]}

    def records(self) -> pd.DataFrame:
        """The finished run's per-job records (as ``gridmarket run`` writes them, without its model and seed columns)."""
        if self.result is None:
            raise InvalidInput("Bid: the episode has not ended")
        return self.result.records
