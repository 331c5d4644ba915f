"""Local batch schedulers of one machine, selectable by name.

Times are integer seconds from simulation start; see :mod:`gridmarket.scheduling.base`
for the protocol the simulator drives. A policy is named by its registered name
(:data:`POLICIES`) or, for a policy outside this package, ``"package.module:Name"``
(a :class:`LocalScheduler` subclass, imported where it is used: :mod:`gridmarket.plugins`;
``docs/extending.md``).
"""

import difflib

from gridmarket.errors import InvalidInput
from gridmarket.plugins import is_plugin_name, load_plugin, register_class
from gridmarket.scheduling.base import LocalScheduler
from gridmarket.scheduling.conservative import ConservativeScheduler
from gridmarket.scheduling.easy import EASYScheduler
from gridmarket.scheduling.fcfs import FCFSScheduler
from gridmarket.scheduling.profile import AvailabilityProfile, Profile
from gridmarket.scheduling.psp import PSPScheduler
from gridmarket.scheduling.slots import FreeSlot, SlotScheduler
from gridmarket.scheduling.slurm import SlurmPSPScheduler

__all__ = [
    "POLICIES",
    "AvailabilityProfile",
    "ConservativeScheduler",
    "EASYScheduler",
    "FCFSScheduler",
    "FreeSlot",
    "LocalScheduler",
    "PSPScheduler",
    "Profile",
    "SlotScheduler",
    "SlurmPSPScheduler",
    "make_scheduler",
    "policy_names",
    "policy_of",
    "register_policy",
    "resolve_policy",
]

POLICIES: dict[str, type[LocalScheduler]] = {}


def register_policy(cls: type[LocalScheduler]) -> type[LocalScheduler]:
    """Make ``cls`` selectable by its ``name`` (usable as a class decorator).

    Raises ``InvalidInput`` for a class without a name, or a name another class holds (a subclass that
    keeps its base's ``name`` must be given its own: :func:`gridmarket.plugins.register_class`).

    >>> class Cautious(EASYScheduler):  # inherits the name 'easy'
    ...     pass
    >>> register_policy(Cautious)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: policy 'easy' is already registered to gridmarket.scheduling.easy.EASYScheduler; ...Cautious needs a name of its own
    """
    if not cls.name:
        raise InvalidInput(f"policy class {cls.__name__} has no name")
    return register_class(POLICIES, "policy", cls.name, cls)


_PLUGINS: dict[str, type[LocalScheduler]] = {}  # "package.module:Name" -> class, once imported


def policy_names() -> list[str]:
    """Registered policy names, sorted (plug-ins are named by ``"package.module:Name"`` besides)."""
    return sorted(POLICIES)


def resolve_policy(policy: str | type[LocalScheduler]) -> type[LocalScheduler]:
    """The scheduler class of a registered name, a ``"package.module:Name"`` plug-in, or a class.

    Raises ``InvalidInput`` with one line naming the policy: unknown name (with the closest
    known one), a plug-in that cannot be imported, or an object that is not a scheduler.

    >>> resolve_policy("easy").__name__, resolve_policy("gridmarket.scheduling.psp:PSPScheduler").name
    ('EASYScheduler', 'psp')
    >>> resolve_policy("consrvative")
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: unknown policy 'consrvative' (did you mean 'conservative'?); known: conservative, easy, fcfs, psp, psp-slurm, slots, or a plug-in 'package.module:Name'
    """
    if isinstance(policy, type) and issubclass(policy, LocalScheduler):
        return policy
    cls = POLICIES.get(policy) if isinstance(policy, str) else None
    if cls is not None:
        return cls
    if is_plugin_name(policy):
        cls = _PLUGINS.get(policy)
        if cls is None:
            cls = _PLUGINS[policy] = load_plugin(policy, kind="policy", base=LocalScheduler)
        return cls
    close = difflib.get_close_matches(str(policy), POLICIES, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise InvalidInput(
        f"unknown policy {policy!r}{hint}; known: {', '.join(policy_names())}, or a plug-in 'package.module:Name'"
    )


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


for _cls in (FCFSScheduler, EASYScheduler, ConservativeScheduler, SlotScheduler, PSPScheduler, SlurmPSPScheduler):
    register_policy(_cls)

