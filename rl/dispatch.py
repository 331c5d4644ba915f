"""``gridmarket/Dispatch-v0``: a learning metascheduler picks the system of each grid job of a cycle.

Times are integer seconds of the market's clock; electricity costs in the prices' currency.

The market is a scenario's agent model (``quickstart`` by default) with the grid metascheduler of
Murali & Vadhiyar (sec. 3): every ``cycle_seconds`` it predicts, for each pending job and each system
that can run it, the response time (the system's queue-wait predictor's wait plus the estimate) and the
electricity cost of running then (eq. 7), and clears the cycle (MCMF on eq. 6's combined cost with
weight ``w_t`` in the ``mcmf`` model). Here the clearing is the agent's: the metascheduler stops at each
cycle with its predictions (:class:`gridmarket.clearing.CycleCosts`), the agent names a system (or
none: the job waits for the next cycle) for each job, and the metascheduler dispatches them as it
dispatches a clearing method's assignment. Choosing what MCMF chooses is the ``mcmf`` model itself,
run for run (``tests/rl/test_dispatch.py``).

The environment stands above the layers: it drives the agent model and reads scenarios, as the
``gridmarket`` command does.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

import gymnasium as gym
import numpy as np
import pandas as pd
from gymnasium import spaces

from gridmarket.clearing import ClearingResult, CycleCosts, check_result
from gridmarket.errors import InvalidInput
from gridmarket.rl.episode import scenario_config, start_episode

if TYPE_CHECKING:
    from gridmarket.agents.model import MarketModel, RunResult

__all__ = ["DispatchEnv", "agent_clearing"]

_CHOSEN: ContextVar[ClearingResult | None] = ContextVar("gridmarket_rl_dispatch_chosen", default=None)


class _Cycle(Exception):  # noqa: N818 - not an error: the metascheduler's pause, caught by the environment
    """Raised by :func:`agent_clearing` when no assignment is chosen yet: the market stops at the cycle."""

    def __init__(self, costs: CycleCosts) -> None:
        super().__init__(f"cycle of {len(costs.jobs)} job(s)")
        self.costs = costs


def agent_clearing(costs: CycleCosts) -> ClearingResult:
    """The clearing method of the learning metascheduler: the agent's assignment, else a pause at the cycle.

    A plug-in of the clearing seam (``"gridmarket.rl.dispatch:agent_clearing"``): the environment runs the
    cycle again with the agent's assignment in hand once it has it.
    """
    chosen = _CHOSEN.get()
    if chosen is None:
        raise _Cycle(costs)
    return chosen


class DispatchEnv(gym.Env):
    """The grid metascheduler of a scenario, the system of each job chosen by the agent (see the module).

    Parameters
    ----------
    scenario : str, path or ScenarioConfig
        A registered scenario's name (default ``quickstart``), a scenario TOML file, or a config. Its
        parameters give the cycle, ``maxq`` (jobs a system may receive a cycle), ``w_t`` and ``f_g``.
    w_t : float, optional
        Murali's weight of response time against electricity cost, percent (eq. 6); default the
        scenario's. It weighs the reward (below).
    max_jobs : int
        Jobs of a cycle the agent sees and places; any further ones wait for the next cycle.
    time_scale : float
        Seconds ``s`` by which the observation scales a duration ``t`` to ``t / (t + s)``.

    Notes
    -----
    An episode is the scenario's run for one seed (``reset(seed=s)``: the scenario with seed ``s``, as
    ``gridmarket run --seed s`` builds it; without a seed, one drawn from the environment's generator). A
    step is one cycle.

    Action (MultiDiscrete, one entry per listed job): the index of a system (the scenario's providers in
    order) or ``n_systems``, to hold the job for the next cycle. A system that cannot run the job, or a
    job past a system's ``maxq`` this cycle (in job order), is held too; ``info["action_mask"]`` marks
    the systems that can run each job.

    Observation (float32 in [0, 1]): for each of the first ``max_jobs`` jobs, 1 if there is a job, then
    for each system the predicted wait (the system's queue-wait predictor) and response scaled by
    ``time_scale``, the predicted electricity cost scaled by the cycle's largest (eq. 5's nadir), and 1
    if the system can run the job; then each system's electricity price now over the largest.

    Reward: minus ``w_t / 100`` times the response time (hours) plus ``(100 - w_t) / 100`` times the
    electricity cost (currency) of each job dispatched, predicted when it is dispatched; at the last
    step, the realised figures replace the predicted ones, so an episode's return is minus that sum over
    the jobs the metascheduler placed, as they ran (their ``response`` and ``electricity_cost``).
    """

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(self, scenario: Any = "quickstart", *, w_t: float | None = None, max_jobs: int = 32,
                 time_scale: float = 3600.0) -> None:
        from gridmarket.scenarios.config import with_overrides

        config = scenario_config(scenario, "Dispatch")
        if w_t is not None:
            if isinstance(w_t, bool) or not isinstance(w_t, (int, float)) or not 0 <= w_t <= 100:
                raise InvalidInput(f"Dispatch: w_t must be in [0, 100] percent, got {w_t!r}")
            config = with_overrides(config, {"w_t": float(w_t)})
        if isinstance(max_jobs, bool) or not isinstance(max_jobs, int) or max_jobs < 1:
            raise InvalidInput(f"Dispatch: max_jobs must be a positive int, got {max_jobs!r}")
        if not time_scale > 0:
            raise InvalidInput(f"Dispatch: time_scale must be > 0 s, got {time_scale!r}")
        self.config = config
        self.w_t = float(config.parameters.w_t)
        self.max_jobs = max_jobs
        self.time_scale = float(time_scale)
        self.systems = [p.name for p in config.providers]
        n = len(self.systems)
        self.action_space = spaces.MultiDiscrete([n + 1] * max_jobs)
        self.observation_space = spaces.Box(0.0, 1.0, shape=(max_jobs * (1 + 4 * n) + n,), dtype=np.float32)
        self.model: MarketModel | None = None
        self.result: RunResult | None = None
        self.records: pd.DataFrame | None = None

    # ------------------------------------------------------------------ episode
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """Build the scenario's market for ``seed`` and run it to its first cycle with jobs; the observation and info."""
        super().reset(seed=seed)
        self._episode = start_episode(self.config, f"{__name__}:agent_clearing", seed, self.np_random)
        self.run_config, self.model = self._episode.config, self._episode.model
        self.result = self.records = None
        self._predicted = 0.0
        if self._run():
            raise InvalidInput(f"Dispatch: scenario {self.config.name!r} sends no job to the metascheduler")
        return self._observe(), self._info()

    def _run(self) -> bool:
        """Run the market to its next cycle with jobs (False) or to its end (True: :attr:`records` set)."""
        result, pause = self._episode.run_to_pause(_Cycle)
        if pause is not None:
            assert isinstance(pause, _Cycle)
            self._costs: CycleCosts | None = pause.costs
            self._now = int(self._episode.model.time)
            return False
        assert result is not None  # no pause: the run ended
        self._costs, self.result = None, result
        self.records = result.records
        return True

    def step(self, action) -> tuple[np.ndarray, float, bool, bool, dict]:
        """Dispatch the cycle by ``action`` and run the market to its next cycle: observation, reward, terminated, truncated, info."""
        costs, model = self._costs, self.model
        if costs is None or model is None or model.metascheduler is None:
            raise InvalidInput("Dispatch: step() after the episode ended; call reset()")
        picks = np.asarray(action).reshape(-1)
        if picks.shape != (self.max_jobs,) or not self.action_space.contains(picks.astype(np.int64)):
            raise InvalidInput(f"Dispatch: action must be {self.max_jobs} system indices in "
                               f"0..{len(self.systems)}, got {action!r}")
        assignment: dict = {}
        taken = [0] * len(costs.systems)
        for row, (job, pick) in enumerate(zip(costs.jobs[: self.max_jobs], picks, strict=False)):
            col = int(pick)
            if col >= len(costs.systems) or not np.isfinite(costs.response[row, col]):
                continue
            cap = costs.capacity[col]
            if cap is not None and taken[col] >= cap:
                continue
            taken[col] += 1
            assignment[job] = costs.systems[col]
        row_of = {j: r for r, j in enumerate(costs.jobs)}
        col_of = {s: c for c, s in enumerate(costs.systems)}
        total = sum(self._cost(costs.response[row_of[j], col_of[s]], costs.energy[row_of[j], col_of[s]])
                    for j, s in assignment.items())
        unassigned = {j: "held by the agent" for j in costs.jobs if j not in assignment}
        chosen = check_result(ClearingResult(assignment, float(total), unassigned, "agent"), costs, "agent")
        ms = model.metascheduler
        token = _CHOSEN.set(chosen)
        try:
            ms.clear()  # the cycle again, from its start: the same predictions, now with the agent's choice
        finally:
            _CHOSEN.reset(token)
        ms.n_cycles -= 1  # the pause's own count
        reward = -total
        self._predicted += total
        done = self._run()
        if done:
            reward += self._predicted - self._realised()
        return self._observe(), float(reward), done, False, self._info()

    def _cost(self, response_s: float, energy: float) -> float:
        return (self.w_t * response_s / 3600.0 + (100.0 - self.w_t) * energy) / 100.0

    def _realised(self) -> float:
        """The reward's sum over the jobs the metascheduler placed, as they ran."""
        records = self.records
        assert records is not None  # the run ended
        placed = records[records["routed"].astype(bool)] if "routed" in records else records.iloc[:0]
        response = float((placed["end"] - placed["submit"]).sum())
        energy = float(placed["electricity_cost"].sum()) if "electricity_cost" in placed else 0.0
        return self._cost(response, energy)

    # ------------------------------------------------------------------ views
    def _observe(self) -> np.ndarray:
        n = len(self.systems)
        obs = np.zeros(self.observation_space.shape[0], dtype=np.float32)  # type: ignore[index]  # a Box's shape
        costs = self._costs
        if costs is None or self.model is None or self.model.metascheduler is None:
            return obs
        ms, now, scale = self.model.metascheduler, self._now, self.time_scale
        jobs = {j.id: j for j in ms.pending}
        finite = np.isfinite(costs.energy)
        top = float(np.abs(costs.energy[finite]).max()) if finite.any() else 0.0
        k = 0
        for row, job_id in enumerate(costs.jobs[: self.max_jobs]):
            job = jobs[job_id]
            obs[k] = 1.0
            k += 1
            for col in range(n):
                response = costs.response[row, col]
                if np.isfinite(response):
                    wait = max(0.0, response - job.estimate - (now - job.submit))
                    energy = abs(costs.energy[row, col]) / top if top else 0.0
                    obs[k:k + 4] = (wait / (wait + scale), response / (response + scale), energy, 1.0)
                k += 4
        k = self.max_jobs * (1 + 4 * n)
        providers = [self.model.providers[s] for s in self.systems]
        prices = [abs(ms.price_view(p, now).price_at(now)) if p.prices is not None else 0.0 for p in providers]
        high = max(prices) if prices else 0.0
        for col, price in enumerate(prices):
            obs[k + col] = price / high if high else 0.0
        return obs

    def _info(self) -> dict:
        costs = self._costs
        if costs is None:
            return {"time": None}
        mask = np.zeros((self.max_jobs, len(self.systems) + 1), dtype=bool)
        mask[:, -1] = True
        m = min(len(costs.jobs), self.max_jobs)
        mask[:m, :-1] = np.isfinite(costs.response[:m])
        return {"time": self._now, "jobs": list(costs.jobs), "action_mask": mask}

    @property
    def costs(self) -> CycleCosts | None:
        """The metascheduler's predictions of the cycle under way (what a clearing method is given), or None."""
        return self._costs

    def action_for(self, result: ClearingResult) -> np.ndarray:
        """The action that places the current cycle's jobs as ``result`` (a clearing method's answer) does."""
        costs = self._costs
        if costs is None:
            raise InvalidInput("Dispatch: no cycle under way")
        action = np.full(self.max_jobs, len(self.systems), dtype=np.int64)
        col_of = {s: c for c, s in enumerate(costs.systems)}
        for row, job in enumerate(costs.jobs[: self.max_jobs]):
            if job in result.assignment:
                action[row] = col_of[result.assignment[job]]
        return action
