"""Several learning brokers bidding at once in one slot-auction market (a PettingZoo ``ParallelEnv``).

Prices in SU; times are integer seconds of the market's clock.

The market of :class:`gridmarket.rl.bid.BidEnv` (a scenario's agent model, ``auction-market`` by
default, run by its slot-auction desk), with the users split among ``n_brokers`` brokers: broker ``i``
acts for the users whose id is ``i`` modulo ``n_brokers``. At each cycle's trade every broker reports a
factor of its own jobs' valuations, and the providers auction their slots to all the cycle's jobs at
once (:func:`gridmarket.auctions.slot.auction_round`), so the brokers' jobs bid against each other for
the same slots. All reporting truthfully is the scenario's single-broker model (the ``vickrey`` model of
``auction-market``: ``tests/rl/test_parallel.py``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from gridmarket.errors import InvalidInput
from gridmarket.rl.bid import BidEnv
from gridmarket.valuation import realised_values

__all__ = ["MarketParallelEnv"]


class MarketParallelEnv(ParallelEnv):
    """``n_brokers`` brokers reporting their users' jobs' values in one slot-auction market (see the module).

    Parameters
    ----------
    scenario : str, path or ScenarioConfig
        As :class:`~gridmarket.rl.bid.BidEnv` (default ``auction-market``).
    n_brokers : int
        Brokers (agents ``broker_0`` ...); broker ``i`` has the users ``u`` with ``u % n_brokers == i``.
    mechanism, max_jobs, max_factor, time_scale
        As :class:`~gridmarket.rl.bid.BidEnv`; each broker sees and prices the first ``max_jobs`` of its
        own jobs of a trade (its observation and action spaces are ``BidEnv``'s).

    Notes
    -----
    A step is one trade, in which every broker acts (a broker with no job in it acts too, and its
    action is ignored). Rewards: each broker's users' surplus (SU), the value of each of its sold jobs
    where it ends less its price at the trade, and at the last step the rest of its users' jobs' surplus
    (those that queued at home), so a broker's return is its users' jobs' value less what they paid.
    Every broker's episode ends at the same step, the market's last trade.
    """

    metadata: dict[str, Any] = {"name": "gridmarket_market_v0", "render_modes": []}

    def __init__(self, scenario: Any = "auction-market", *, n_brokers: int = 2, mechanism: str = "vickrey",
                 max_jobs: int = 16, max_factor: float = 2.0, time_scale: float = 3600.0) -> None:
        if isinstance(n_brokers, bool) or not isinstance(n_brokers, int) or n_brokers < 1:
            raise InvalidInput(f"market: n_brokers must be a positive int, got {n_brokers!r}")
        self.bid = BidEnv(scenario, mechanism=mechanism, max_jobs=max_jobs, max_factor=max_factor,
                          time_scale=time_scale)
        self.n_brokers = n_brokers
        self.possible_agents = [f"broker_{i}" for i in range(n_brokers)]
        self.agents: list[str] = []
        self.render_mode = None

    def observation_space(self, agent: str) -> spaces.Space:
        """Every broker's: :class:`~gridmarket.rl.bid.BidEnv`'s (one object for all)."""
        return self.bid.observation_space

    def action_space(self, agent: str) -> spaces.Space:
        """Every broker's: :class:`~gridmarket.rl.bid.BidEnv`'s (one object for all)."""
        return self.bid.action_space

    def _mine(self, jobs: Iterable, i: int) -> list:
        return [job for job in jobs if job.user % self.n_brokers == i]

    def _observations(self) -> dict[str, np.ndarray]:
        pending = self.bid.pending
        jobs = [] if pending is None else pending[0]
        return {a: self.bid.observe(self._mine(jobs, i)) for i, a in enumerate(self.possible_agents)}

    def _infos(self) -> dict[str, dict]:
        pending = self.bid.pending
        jobs = [] if pending is None else pending[0]
        return {a: {"jobs": [j.id for j in self._mine(jobs, i)]} for i, a in enumerate(self.possible_agents)}

    def reset(self, seed: int | None = None, options: dict | None = None):
        """Build the market for ``seed`` and run it to its first trade; each broker's observation and info."""
        self.bid.reset(seed=seed)
        self.agents = list(self.possible_agents)
        self._surplus = dict.fromkeys(self.possible_agents, 0.0)
        return self._observations(), self._infos()

    def step(self, actions: dict):
        """Trade with every broker's reported factors and run to the next trade: observations, rewards, terminations, truncations, infos."""
        pending = self.bid.pending
        if pending is None or not self.agents:
            raise InvalidInput("market: step() after the episode ended; call reset()")
        jobs = pending[0]
        factors: dict[int, float] = {}
        for i, agent in enumerate(self.possible_agents):
            if agent not in actions:
                raise InvalidInput(f"market: no action for {agent!r}")
            factors.update(self.bid.factors_of(self._mine(jobs, i), actions[agent], agent))
        rewards = dict.fromkeys(self.possible_agents, 0.0)
        for job, surplus in self.bid.trade(factors):
            rewards[self.possible_agents[job.user % self.n_brokers]] += surplus
        for agent, r in rewards.items():
            self._surplus[agent] += r
        done = self.bid.advance()
        if done:
            for agent, total in self._final_surplus().items():
                rewards[agent] += total - self._surplus[agent]
        observations, infos = self._observations(), self._infos()
        terminations = dict.fromkeys(self.possible_agents, done)
        truncations = dict.fromkeys(self.possible_agents, False)
        if done:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def _final_surplus(self) -> dict[str, float]:
        """Each broker's users' jobs' realised value less what they paid, from the finished run's records."""
        records = self.bid.records()
        jobs = records[records["kind"] == "job"]
        done = jobs[jobs["outcome"] == "completed"]
        model = self.bid.model
        assert model is not None and model.broker is not None  # the run ended
        value = realised_values(dict(zip(done["job_id"].tolist(), done["end"].tolist())), model.broker.valuations)
        totals = dict.fromkeys(self.possible_agents, 0.0)
        for job_id, user, cost in zip(jobs["job_id"].tolist(), jobs["user"].tolist(), jobs["cost"].tolist()):
            totals[self.possible_agents[user % self.n_brokers]] += value.get(job_id, 0.0) - cost
        return totals
