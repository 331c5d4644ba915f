"""Local batch schedulers of one machine, selectable by name.

Times are integer seconds from simulation start; see :mod:`market.scheduling.base`
for the protocol the simulator drives.
"""

from market.errors import InvalidInput
from market.scheduling.base import LocalScheduler
from market.scheduling.conservative import ConservativeScheduler
from market.scheduling.easy import EASYScheduler
from market.scheduling.fcfs import FCFSScheduler
from market.scheduling.profile import Profile
from market.scheduling.psp import PSPScheduler
from market.scheduling.slots import FreeSlot, SlotScheduler
from market.scheduling.slurm import SlurmPSPScheduler

__all__ = [
    "POLICIES",
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
    "register_policy",
]

POLICIES: dict[str, type[LocalScheduler]] = {}


def register_policy(cls: type[LocalScheduler]) -> type[LocalScheduler]:
    """Make ``cls`` selectable by its ``name`` (usable as a class decorator)."""
    if not cls.name:
        raise InvalidInput(f"policy class {cls.__name__} has no name")
    POLICIES[cls.name] = cls
    return cls


def make_scheduler(policy: str | type[LocalScheduler], procs: int) -> LocalScheduler:
    """A fresh scheduler for ``procs`` processors from a policy name or class.

    >>> make_scheduler("easy", 8).name
    'easy'
    >>> make_scheduler("sjf", 8)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    market.errors.InvalidInput: unknown policy 'sjf'; known: conservative, easy, fcfs, ...
    """
    if isinstance(policy, type) and issubclass(policy, LocalScheduler):
        return policy(procs)
    try:
        cls = POLICIES[policy]
    except (KeyError, TypeError):
        raise InvalidInput(
            f"unknown policy {policy!r}; known: {', '.join(sorted(POLICIES))}"
        ) from None
    return cls(procs)


for _cls in (FCFSScheduler, EASYScheduler, ConservativeScheduler, SlotScheduler, PSPScheduler, SlurmPSPScheduler):
    register_policy(_cls)

