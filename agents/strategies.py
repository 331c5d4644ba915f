"""Broker strategies by name: how a broker serves its users' workflows, reservation requests and jobs.

A broker (:class:`gridmarket.agents.broker.Broker`) runs one *strategy* (:class:`BrokerStrategy`), chosen by
name: a registered one (:data:`BROKER_STRATEGIES`: ``best-effort`` here, ``moga`` and ``greedy`` in
:mod:`gridmarket.agents.provisioning`, ``var`` and ``combined`` in :mod:`gridmarket.agents.reservations`, the job markets
of :mod:`gridmarket.agents.trading`), or a strategy written outside gridmarket and named
``"package.module:Name"`` (a :class:`BrokerStrategy` subclass, imported where it is used:
:mod:`gridmarket.plugins`, ``docs/extending.md``). The strategy decides; the broker moves the messages
and keeps the records, through the public methods listed in :class:`BrokerStrategy`.

Times are integer seconds from simulation start; prices SU.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

from gridmarket.errors import InvalidInput
from gridmarket.plugins import ClassContract, Registry
from gridmarket.pricing import BASE_RATE, SECONDS_PER_HOUR
from gridmarket.provisioning import Placement

__all__ = ["BROKER_STRATEGIES", "STRATEGY_CONTRACT", "BestEffort", "BrokerStrategy", "WorkflowPlan", "base_cost", "register_strategy",
           "resolve_strategy", "strategy_names"]


def base_cost(procs: int, seconds: int) -> float:
    """SU of ``procs`` processors for ``seconds`` at the base rate (``gridmarket.pricing.BASE_RATE`` per processor-hour).

    >>> base_cost(4, 1800)
    2.0
    """
    return procs * seconds * BASE_RATE / SECONDS_PER_HOUR


@dataclass(frozen=True)
class WorkflowPlan:
    """What a strategy bought for a workflow: where each task runs and what its reservation cost.

    ``placements``: one :class:`gridmarket.provisioning.Placement` per task that runs (``resource`` a
    provider's name, ``[start, end)`` in seconds, ``procs``); virtual (zero-runtime) tasks may be
    left out. ``prices``: task -> SU paid for its reservation.
    """

    placements: Sequence[Placement]
    prices: Mapping[Hashable, float]


class BrokerStrategy:
    """How a broker serves requests; subclass it for a strategy of your own.

    The broker makes one object per run, ``cls(broker)``, and calls

    * :meth:`plan_workflow` when a user submits a workflow: a :class:`WorkflowPlan` to reserve, or
      None to run the tasks best effort, each submitted when its parents have ended to the queue
      :class:`gridmarket.provisioning.JustInTime` picks (Singh 2008, ch. 4.7, 4.9);
    * :meth:`reserve` when a user asks for an advance reservation: True when the strategy took care
      of it, False to submit the job at its wanted start (best effort);
    * :meth:`take` for every job of the users, when ``buys_jobs`` is set (a job market,
      :mod:`gridmarket.agents.trading`).

    What a strategy may use (``self.broker``, :class:`gridmarket.agents.broker.Broker`): ``providers()``,
    ``home(site, procs)``, ``query(provider, now, "plan" | "advertise")`` (the provider's
    :class:`gridmarket.pricing.ProviderPlan` or advertised slots), ``quoting(now)`` (providers answering
    form-19 queries, for :func:`gridmarket.provisioning.provision_greedy`), ``reserve_at(request,
    provider, f)``, ``submit_at(job, provider)``, ``later(t, action)`` and the parameters ``alpha``,
    ``penalty``, ``population``, ``generations``, ``history``, ``network``, ``valuations``,
    ``cycle``; ``self.model`` is the market (its ``rng``, ``time``, ``message_counts``).

    Attributes
    ----------
    name : str
        The registered name (``register_strategy``); plug-ins are named ``"package.module:Name"``.
    needs_plans : bool
        The strategy reads providers' priced plans (queries ``"plan"`` or ``"advertise"``): every
        provider's policy must be one pricing can plan (``gridmarket.pricing.check_policy``), which is
        checked when the market is built.
    buys_jobs : bool
        Users hand the broker every job; the market draws each job's valuation
        (:mod:`gridmarket.valuation`) if none are given.
    pending : sequence
        Requests held to act on later; the market keeps running while there are any.
    """

    name = ""
    needs_plans = False
    buys_jobs = False
    pending: Sequence = ()

    def __init__(self, broker) -> None:
        self.broker = broker
        self.model = broker.model

    def plan_workflow(self, wf) -> WorkflowPlan | None:
        """Reservations to buy for workflow ``wf`` (:class:`gridmarket.agents.broker.WorkflowRequest`); None: best effort."""
        return None

    def reserve(self, request, home) -> bool:
        """Serve reservation ``request`` (:class:`gridmarket.agents.broker.ReservationRequest`); ``home`` fits its job.

        Return True when done; False lets the broker submit the job at the wanted start.
        """
        return False

    def take(self, job) -> None:
        """A user's job (only called when ``buys_jobs``)."""
        raise InvalidInput(f"broker strategy {self.name!r} does not buy jobs")


class BestEffort(BrokerStrategy):
    """No market: workflows run just in time, reservation requests are jobs submitted at the wanted start (ch. 4.7)."""

    name = "best-effort"


STRATEGY_CONTRACT = ClassContract(BrokerStrategy)
"""What a broker strategy is: a :class:`BrokerStrategy` subclass whose overrides accept the broker's calls."""

BROKER_STRATEGIES: Registry[type[BrokerStrategy]] = Registry("broker strategy", STRATEGY_CONTRACT)
"""Registered broker strategies by name (the live table; :func:`register_strategy` adds to it)."""


def register_strategy(cls: type[BrokerStrategy]) -> type[BrokerStrategy]:
    """Make ``cls`` selectable by its ``name`` (usable as a class decorator).

    Raises ``InvalidInput`` for a class that is not a :class:`BrokerStrategy` (:data:`STRATEGY_CONTRACT`),
    a name that is empty, has a colon (those are plug-in names) or is taken by another class.
    """
    return BROKER_STRATEGIES.register(getattr(cls, "name", None), cls)  # type: ignore[arg-type]  # checked there


def strategy_names() -> list[str]:
    """Registered strategy names, in registration order (plug-ins are named ``"package.module:Name"`` besides)."""
    return list(BROKER_STRATEGIES)


def resolve_strategy(name: str | type[BrokerStrategy]) -> type[BrokerStrategy]:
    """The strategy class of a registered name, a ``"package.module:Name"`` plug-in, or a class.

    Raises ``InvalidInput`` with one line naming the strategy: an unknown name (with the closest
    known one), a plug-in that cannot be imported, or an object that is not a strategy.

    >>> resolve_strategy("best-effort").__name__, resolve_strategy("gridmarket.agents.strategies:BestEffort").name
    ('BestEffort', 'best-effort')
    >>> resolve_strategy("besteffort")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: unknown broker strategy 'besteffort' (did you mean 'best-effort'?); known: ...
    """
    return BROKER_STRATEGIES.resolve(name)


register_strategy(BestEffort)
