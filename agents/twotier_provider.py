"""A resource provider whose machine runs a two-tier policy (KEASY, REASY, MEASY; Liu et al. 2012), as a Mesa agent.

Times are integer seconds from simulation start. The machine is a
:class:`gridmarket.twotier.stepper.TwoTierMachineSimulation`: every processor has a foreground and a
background VM, and a job's progress rate changes with every placement on its processors, so the
machine keeps no plan. Such a provider therefore runs what it is sent -- its users' jobs, the
metascheduler's dispatches, a best-effort broker's just-in-time tasks -- but cannot advertise,
quote, reserve or sell slots: an interaction model whose broker reads plans is refused when the
market is built (``MarketModel``), and a plan query is a one-line error.
"""

from __future__ import annotations

import mesa
import numpy as np

from gridmarket.agents.provider import ResourceProvider
from gridmarket.energy.prices import HourlyPrices
from gridmarket.errors import InvalidInput
from gridmarket.prediction.wait_replay import past_jobs, replay_wait_predictions
from gridmarket.scheduling import resolve_machine_policy
from gridmarket.twotier.stepper import TwoTierMachineSimulation

__all__ = ["TwoTierProvider"]

_BASE_POLICY = "easy"  # what ResourceProvider's constructor builds before the two-tier machine replaces it


class TwoTierProvider(ResourceProvider):
    """One site of ``procs`` processors under ``policy`` in ``{"keasy", "reasy", "measy"}``.

    Each job's process usages, background efficiency and foreground loss are drawn when it arrives
    (sec. 3.1's model, :func:`gridmarket.twotier.progress.draw_traits`) from a generator spawned from
    the model's, so a run is determined by the model's seed. MEASY migrates at the paper's 20 s.
    The keyword arguments are :class:`gridmarket.agents.ResourceProvider`'s; ``pricing``, ``overbooking`` and
    ``sells`` are kept but unused (this provider sells nothing).
    """

    def __init__(
        self,
        model: mesa.Model,
        name: str,
        procs: int,
        policy: str = "measy",
        *,
        prices: HourlyPrices | None = None,
        watts_per_proc: float = 0.0,
        pricing: str = "externality",
        overbooking: float = 1.0,
        sells: str = "quote",
    ) -> None:
        try:
            two_tier = resolve_machine_policy(policy)
        except InvalidInput as err:
            raise InvalidInput(f"{name}: {err}") from None
        if isinstance(two_tier, type):
            raise InvalidInput(f"{name}: a two-tier provider runs a two-tier policy, got the batch policy {policy!r}")
        super().__init__(model, name, procs, _BASE_POLICY, prices=prices, watts_per_proc=watts_per_proc,
                         pricing=pricing, overbooking=overbooking, sells=sells)
        self.policy = policy
        self.machine = TwoTierMachineSimulation(  # type: ignore[assignment]  # offers the machine interface used here
            procs, two_tier, rng=model.rng.spawn(1)[0])

    def _no_plan(self, what: str):
        raise InvalidInput(f"{self.name}: a two-tier provider ({self.policy}) cannot {what}: a job's progress rate "
                           "changes with every placement on its processors, so it keeps no plan to price")

    def plan(self, now: int):
        """Refused: a two-tier machine has no plan to price or advertise (one-line ``InvalidInput``)."""
        self._no_plan("price or advertise slots")

    def state(self, now: int):
        """Refused, as :meth:`plan`."""
        self._no_plan("state a plan")

    def earliest_start(self, procs: int, duration: int, now: int):
        """Refused, as :meth:`plan`."""
        self._no_plan("give an earliest start")

    def warm_waits(self, n_jobs: int, rng: np.random.Generator) -> None:
        """Train the wait predictor on ``n_jobs`` past jobs replayed on a two-tier machine of its own policy.

        The history (:func:`gridmarket.prediction.wait_replay.warm_predictor`) runs on a fresh
        :class:`TwoTierMachineSimulation` of this provider's size and policy, its jobs' traits drawn
        from ``rng`` after the history itself; the predictor then learns from this machine's own
        starts as the market runs.
        """
        if self.wait_predictor is None:
            raise InvalidInput(f"{self.name}: no wait predictor to warm (call track_waits first)")
        history = past_jobs(n_jobs, procs=self.procs, rng=rng)
        replay_wait_predictions(history, procs=self.procs, predictor=self.wait_predictor, predict=False,
                                machine=TwoTierMachineSimulation(self.procs, self.policy, rng=rng))
