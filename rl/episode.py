"""One episode of a scenario's agent market, paused where a learning agent decides.

Both market environments (:mod:`gridmarket.rl.bid`, :mod:`gridmarket.rl.dispatch`) build the market as
``gridmarket run`` builds it, for the episode's seed, and run it until the agent's seam raises its pause
exception (the desk's trade, the metascheduler's cycle); the next :meth:`MarketModel.run` resumes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from os import PathLike
from typing import TYPE_CHECKING, Any

import numpy as np

from gridmarket.errors import InvalidInput

if TYPE_CHECKING:
    from gridmarket.agents.model import MarketModel, RunResult
    from gridmarket.scenarios.config import ScenarioConfig

__all__ = ["Episode", "scenario_config", "start_episode"]


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


def scenario_config(scenario: Any, env: str) -> ScenarioConfig:
    """``scenario`` as a config: a registered name, a ``.toml`` file (name or path) or a config itself.

    ``env`` names the environment in the one-line error for anything else.
    """
    from gridmarket.scenarios.config import ScenarioConfig
    from gridmarket.scenarios.registry import get_scenario

    if isinstance(scenario, ScenarioConfig):
        return scenario
    if isinstance(scenario, (str, PathLike)):
        return get_scenario(str(scenario))
    raise InvalidInput(f"{env}: scenario must be a scenario name, a TOML file or a ScenarioConfig, got {scenario!r}")


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
