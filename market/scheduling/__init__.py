"""Local batch schedulers of one machine, selectable by name.

Times are integer seconds from simulation start; see :mod:`gridmarket.scheduling.base`
for the protocol the simulator drives. A policy is named by its registered name
(:data:`POLICIES`) or, for a policy outside this package, ``"package.module:Name"``
(a :class:`LocalScheduler` subclass, imported where it is used: :mod:`gridmarket.plugins`;
``docs/extending.md``).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.plugins import ClassContract, Registry, is_plugin_name
from gridmarket.scheduling.base import LocalScheduler
from gridmarket.scheduling.conservative import ConservativeScheduler
from gridmarket.scheduling.easy import EASYScheduler
from gridmarket.scheduling.fcfs import FCFSScheduler
from gridmarket.scheduling.machine import MachineSimulation
from gridmarket.scheduling.picked import PickedMixin, picking
from gridmarket.scheduling.planner import ForwardPlanner, GreedyPlanner, Planner
from gridmarket.scheduling.profile import AvailabilityProfile, Profile
from gridmarket.scheduling.psp import PSPScheduler
from gridmarket.scheduling.slots import FreeSlot, SlotScheduler
from gridmarket.scheduling.slurm import SlurmPSPScheduler

if TYPE_CHECKING:
    from gridmarket.twotier.policies import TwoTierPolicy

__all__ = [
    "POLICIES",
    "POLICY_CONTRACT",
    "AvailabilityProfile",
    "ConservativeScheduler",
    "EASYScheduler",
    "FCFSScheduler",
    "ForwardPlanner",
    "FreeSlot",
    "GreedyPlanner",
    "LocalScheduler",
    "MachineSimulation",
    "PSPScheduler",
    "PickedMixin",
    "Planner",
    "Profile",
    "SlotScheduler",
    "SlurmPSPScheduler",
    "machine_policy_names",
    "make_scheduler",
    "picking",
    "planner_of",
    "policy_names",
    "policy_of",
    "register_policy",
    "resolve_machine_policy",
    "resolve_policy",
]

POLICY_CONTRACT = ClassContract(LocalScheduler, abstract=("schedule",))
"""What a policy is: a :class:`LocalScheduler` subclass that defines ``schedule(now)`` and whose
overrides accept the simulator's calls (``submit(job, now)``, ``finish(job, now)``, ...)."""

POLICIES: Registry[type[LocalScheduler]] = Registry("policy", POLICY_CONTRACT)
"""Registered policies by name (the live table; :func:`register_policy` adds to it)."""


def register_policy(cls: type[LocalScheduler]) -> type[LocalScheduler]:
    """Make ``cls`` selectable by its ``name`` (usable as a class decorator).

    Raises ``InvalidInput`` for a class that is no policy (:data:`POLICY_CONTRACT`: without a name,
    without ``schedule``, with an override that does not take the simulator's call), or a name another
    class holds (a subclass that keeps its base's ``name`` must be given its own:
    :class:`gridmarket.plugins.Registry`).

    >>> class Cautious(EASYScheduler):  # inherits the name 'easy'
    ...     pass
    >>> register_policy(Cautious)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: policy 'easy' is already registered to gridmarket.scheduling.easy.EASYScheduler; ...Cautious needs a name of its own
    """
    name = getattr(cls, "name", None) if isinstance(cls, type) else None
    if not isinstance(name, str) or not name:
        raise InvalidInput(f"policy class {getattr(cls, '__name__', cls)!r} has no name")
    return POLICIES.register(name, cls)


def policy_names() -> list[str]:
    """Registered policy names, sorted (plug-ins are named by ``"package.module:Name"`` besides)."""
    return POLICIES.names()


def resolve_policy(policy: str | type[LocalScheduler]) -> type[LocalScheduler]:
    """The scheduler class of a registered name, a ``"package.module:Name"`` plug-in, or a class.

    Raises ``InvalidInput`` with one line naming the policy: unknown name (with the closest
    known one), a plug-in that cannot be imported, or an object that is no policy
    (:data:`POLICY_CONTRACT`).

    >>> resolve_policy("easy").__name__, resolve_policy("gridmarket.scheduling.psp:PSPScheduler").name
    ('EASYScheduler', 'psp')
    >>> resolve_policy("consrvative")
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: unknown policy 'consrvative' (did you mean 'conservative'?); known: conservative, easy, fcfs, psp, psp-slurm, slots, or a plug-in 'package.module:Name'
    >>> resolve_policy("gridmarket.scheduling.base:LocalScheduler")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: policy 'gridmarket.scheduling.base:LocalScheduler': LocalScheduler does not define schedule(now) ...
    """
    return POLICIES.resolve(policy)


def machine_policy_names() -> list[str]:
    """Every policy a machine runs by name, sorted: the registered batch policies and the two-tier ones.

    >>> machine_policy_names()
    ['conservative', 'easy', 'fcfs', 'keasy', 'measy', 'psp', 'psp-slurm', 'reasy', 'slots']
    """
    from gridmarket.twotier.policies import TWO_TIER_POLICIES  # late: loading the two-tier engine loads pandas

    return sorted(POLICIES.names() + TWO_TIER_POLICIES.names())


def resolve_machine_policy(policy: object) -> type[LocalScheduler] | TwoTierPolicy:
    """What a machine runs, from a name given at the boundary (command line, scenario file, Python call).

    A batch policy (registered name, ``"package.module:Name"`` plug-in or class: :func:`resolve_policy`)
    gives its :class:`LocalScheduler` subclass, run by :class:`MachineSimulation`; a two-tier policy of
    Liu et al. 2012 (``keasy``, ``reasy``, ``measy``, or a :class:`gridmarket.twotier.TwoTierPolicy`)
    gives its record, run by the two-tier engine (foreground and background VMs, no plan). The one place a
    machine policy's name is looked up: callers tell the two apart by what they get back (a class or a
    record), never by name.

    Raises ``InvalidInput`` with one line: an unknown name (with the closest of
    :func:`machine_policy_names`), a plug-in that cannot be imported, an object that is no policy.

    >>> resolve_machine_policy("easy").__name__, resolve_machine_policy("measy").deploy
    ('EASYScheduler', 'M')
    >>> resolve_machine_policy("mesy")
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: unknown policy 'mesy' (did you mean 'measy'?); known: conservative, easy, fcfs, keasy, measy, psp, psp-slurm, reasy, slots, or a plug-in 'package.module:Name'
    """
    from gridmarket.twotier.policies import TWO_TIER_POLICIES, TwoTierPolicy

    if isinstance(policy, TwoTierPolicy):
        return policy
    if isinstance(policy, str) and policy in TWO_TIER_POLICIES:
        return TWO_TIER_POLICIES[policy]
    try:
        return resolve_policy(policy)  # type: ignore[arg-type]  # anything else is refused there
    except InvalidInput:
        if not isinstance(policy, str) or is_plugin_name(policy):
            raise  # the plug-in's own import error, or an object that is no policy
        raise InvalidInput(POLICIES.unknown(policy, also=TWO_TIER_POLICIES.names())) from None


def policy_of(scheduler: LocalScheduler | type[LocalScheduler]) -> str | type[LocalScheduler]:
    """The policy name that resolves to ``scheduler``'s class: what pricing and advertising a live scheduler need.

    Its registered name if that name is registered for this very class; else its plug-in name
    ``"module:Qualname"`` when that imports back to the class; else the class itself (a class defined
    in a function: :func:`resolve_policy` takes classes). A scheduler's ``name`` alone is not enough:
    a plug-in's name is not registered (``sjf`` of ``docs/extending.md``), and a subclass that keeps
    its base's name (an EASY variant still called ``easy``) is not the registered class.

    >>> policy_of(make_scheduler("easy", 4)), policy_of(make_scheduler("gridmarket.scheduling.psp:PSPScheduler", 4))
    ('easy', 'psp')
    >>> class Cautious(EASYScheduler):  # inherits the name 'easy'; defined here, so no name reaches it
    ...     pass
    >>> policy_of(Cautious(4)) is Cautious
    True
    """
    cls = scheduler if isinstance(scheduler, type) else type(scheduler)
    if POLICIES.get(cls.name) is cls:
        return cls.name
    name = f"{cls.__module__}:{cls.__qualname__}"
    if is_plugin_name(name):
        try:
            if resolve_policy(name) is cls:
                return name
        except InvalidInput:
            pass
    return cls


def make_scheduler(policy: str | type[LocalScheduler], procs: int) -> LocalScheduler:
    """A fresh scheduler for ``procs`` processors from a policy name or class.

    >>> make_scheduler("easy", 8).name
    'easy'
    >>> make_scheduler("sjf", 8)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: unknown policy 'sjf'; known: conservative, easy, fcfs, ...
    """
    return resolve_policy(policy)(procs)


def planner_of(policy: object, *, purpose: str = "planning") -> Planner:
    """The planner of a policy: the one place a policy's name turns into how its queue is planned.

    ``policy`` is a registered name or a plug-in ``"package.module:Name"`` (resolved here), a
    scheduler class or a live scheduler (its class's ``planner``), or a planner (returned as it is).
    A policy planned forward must take the stand-ins of running jobs (a job of user 0, from a
    scheduler made by its ``for_planning``): checked once per class.

    Parameters
    ----------
    purpose : str
        What the plan is for, in messages (``"pricing"``: ``unknown pricing policy ...``).

    Raises
    ------
    InvalidInput
        One line: an unknown name (with the names a plan takes, whole-queue planners first), a
        plug-in that cannot be imported, an object that is not a scheduler, or a scheduler that
        refuses the stand-ins.

    Examples
    --------
    >>> planner_of("slots").plans_whole_queue, planner_of("easy").plans_whole_queue, planner_of("psp").name
    (True, False, 'psp')
    >>> planner_of("sjf", purpose="pricing")
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: unknown pricing policy 'sjf'; known: conservative, slots, easy, fcfs, psp, psp-slurm, or a plug-in 'package.module:Name'
    """
    if isinstance(policy, (GreedyPlanner, ForwardPlanner)):
        return policy
    if isinstance(policy, LocalScheduler):
        cls: type = type(policy)
    else:
        try:
            cls = resolve_policy(policy)  # type: ignore[arg-type]  # anything else is refused there
        except InvalidInput as err:
            if is_plugin_name(policy):
                raise InvalidInput(f"{purpose} {err}") from None  # the plug-in's own import error
            whole = [n for n in policy_names() if POLICIES[n].planner.plans_whole_queue]
            known = ", ".join(whole + [n for n in policy_names() if n not in whole])
            raise InvalidInput(f"unknown {purpose} policy {policy!r}; known: {known}, or a plug-in "
                               "'package.module:Name'") from None
    planner: Planner = cls.planner  # type: ignore[attr-defined]  # every LocalScheduler gives one
    if isinstance(planner, ForwardPlanner):
        refusal = _refuses_stand_ins(planner)
        if refusal is not None:
            raise InvalidInput(f"{purpose} policy {policy if isinstance(policy, str) else planner.name!r}: "
                               f"its scheduler refuses the stand-ins of running jobs ({refusal})")
    return planner


@functools.cache
def _refuses_stand_ins(planner: ForwardPlanner) -> str | None:
    """Why ``planner``'s fresh scheduler refuses a job of user 0 (a plan's first step, on one processor); None if it takes it.

    Cached per planner: every pricer checks its policy, and the answer cannot change.
    """
    try:
        planner.scheduler(1, None).submit(Job(0, 0, 1, 1, 1, user=0), 0)
    except InvalidInput as err:
        return str(err)
    return None


for _cls in (FCFSScheduler, EASYScheduler, ConservativeScheduler, SlotScheduler, PSPScheduler, SlurmPSPScheduler):
    register_policy(_cls)

