"""One episode of a scenario's agent market, paused where a learning agent decides.

Both market environments (:mod:`gridmarket.rl.bid`, :mod:`gridmarket.rl.dispatch`) build the market as
``gridmarket run`` builds it, for the episode's seed, and run it until the agent's seam raises its pause
exception (the desk's trade, the metascheduler's cycle); the next :meth:`MarketModel.run` resumes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from gridmarket.agents.model import MarketModel, RunResult
    from gridmarket.scenarios.config import ScenarioConfig

__all__ = ["Episode", "start_episode"]


@dataclass
class Episode:
    """A market built for one seed: its config, model and the inputs the summary needs."""

    config: ScenarioConfig
    model: MarketModel
    workload: Any
    requests: Any

    def run_to_pause(self, pause: type[BaseException]) -> tuple[RunResult | None, BaseException | None]:
        """Run the market on: ``(result, None)`` at its end, ``(None, the pause)`` where the agent decides."""
        try:
            return self.model.run(), None
        except pause as stop:
            return None, stop


def start_episode(config: ScenarioConfig, mechanism: str, seed: int | None,
                  np_random: np.random.Generator) -> Episode:
    """Build ``config``'s market for ``mechanism`` (an interaction model, desk or clearing plug-in).

    ``seed`` None draws the run's seed from the environment's ``np_random`` (Gymnasium's seeding), so an
    unseeded reset after a seeded one is still reproducible.
    """
    from gridmarket.scenarios.config import with_overrides
    from gridmarket.scenarios.experiment import build_inputs, build_market

    run_seed = seed if seed is not None else int(np_random.integers(2**31 - 1))
    run_config = with_overrides(config, {"seed": run_seed})
    workload, prices, requests, m_rng = build_inputs(run_config)
    model = build_market(run_config, mechanism, workload, prices, rng=m_rng, requests=requests)
    return Episode(run_config, model, workload, requests)
