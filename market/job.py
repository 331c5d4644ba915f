"""The job record shared by workloads, schedulers and metrics.

Times are integer seconds from the start of the simulation (or of the trace).
``runtime`` is the actual run time; ``estimate`` is the user's requested run
time, which schedulers plan with (Singh 2008, ch. 3; Mu'alem & Feitelson 2001).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import repeat

from gridmarket.errors import InvalidInput
from gridmarket.limits import LIMITS, SECONDS_LIMIT

__all__ = ["Job", "checked_jobs"]


@dataclass(frozen=True, slots=True)
class Job:
    """One rigid parallel job.

    Parameters
    ----------
    id : int
        Job number, unique within a workload.
    submit : int
        Submit time in seconds, >= 0.
    procs : int
        Processors the job needs for its whole run, >= 1.
    runtime : int
        Actual run time in seconds, >= 1.
    estimate : int
        Requested run time in seconds, >= 1. Run times are at most a century, ``submit`` below
        2**53 (a run's own instants may pass the century a trace keeps) and processors at most
        2**24 (:data:`gridmarket.limits.LIMITS`). A job whose ``runtime`` exceeds
        its ``estimate`` is killed at its estimate.
    user, group : int
        Owner ids as in SWF fields 12-13 (-1 when unknown).
    site : str or None
        Origin site (Grid Workloads Archive ``OrigSiteID``), if any.
    power_watts : float or None
        Electric power drawn while running, if known.
    data_bytes : int or None
        Input data the job must move before it starts, if known.

    Examples
    --------
    >>> Job(1, submit=0, procs=4, runtime=3600, estimate=7200).work
    14400
    """

    id: int
    submit: int
    procs: int
    runtime: int
    estimate: int
    user: int = -1
    group: int = -1
    site: str | None = None
    power_watts: float | None = None
    data_bytes: int | None = None

    def __post_init__(self) -> None:
        for name in ("id", "submit", "procs", "runtime", "estimate"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise InvalidInput(f"job {self.id!r}: {name} must be an int, got {value!r}")
        if self.submit < 0:
            raise InvalidInput(f"job {self.id}: submit must be >= 0, got {self.submit}")
        if self.procs < 1:
            raise InvalidInput(f"job {self.id}: procs must be >= 1, got {self.procs}")
        if self.runtime < 1:
            raise InvalidInput(f"job {self.id}: runtime must be >= 1 s, got {self.runtime}")
        if self.estimate < 1:
            raise InvalidInput(f"job {self.id}: estimate must be >= 1 s, got {self.estimate}")
        if (max(self.runtime, self.estimate) > SECONDS_LIMIT or self.submit > _INSTANT_LIMIT
                or self.procs > _PROCS_LIMIT):
            from gridmarket.validation import check_number

            for name, quantity in (("submit", "instant"), ("procs", "processors"), ("runtime", "seconds"),
                                   ("estimate", "seconds")):
                check_number(f"job {self.id}: {name}", getattr(self, name), quantity)

    @property
    def work(self) -> int:
        """Processor-seconds the job would use if it ran to completion."""
        return self.procs * self.runtime

    @property
    def effective_runtime(self) -> int:
        """Seconds the job actually occupies its processors: killed at its estimate."""
        return min(self.runtime, self.estimate)


# the schedulers' kernels hold times and processors in int64: bounded here, so sums cannot wrap
_PROCS_LIMIT = LIMITS["processors"].high
_INSTANT_LIMIT = LIMITS["instant"].high

_FIELDS = ("id", "submit", "procs", "runtime", "estimate", "user", "group", "site", "power_watts", "data_bytes")


def checked_jobs(ids, submit, procs, runtime, estimate, user, group, site=None) -> tuple[Job, ...]:
    """Jobs from columns a reader has already checked as a whole: the same jobs, no per-job check.

    The trusted path of the trace readers (``gridmarket.workloads._tracefile``), which
    check every column with numpy before building jobs, so the checks of
    :class:`Job` would only repeat them; skipping them builds a trace's jobs in
    about a third of the time (77,205 CTC-SP2 jobs: 0.16 -> 0.05 s). Every
    column is a sequence of Python ints (``site`` of str or None, default all
    None), one item per job; ``power_watts`` and ``data_bytes`` are None. The
    caller guarantees what :class:`Job` would check (ints within their limits, ``submit >= 0``,
    ``procs``, ``runtime`` and ``estimate >= 1``).

    >>> checked_jobs([7], [0], [4], [3600], [7200], [-1], [-1]) == (Job(7, 0, 4, 3600, 7200),)
    True
    """
    new = object.__new__
    set_id, set_submit, set_procs, set_runtime, set_estimate, set_user, set_group, set_site, set_power, set_data = (
        _SETTERS
    )
    out: list[Job] = []
    append = out.append
    for i, s, p, r, e, u, g, site_ in zip(ids, submit, procs, runtime, estimate, user, group,
                                           repeat(None) if site is None else site):
        job = new(Job)
        set_id(job, i)
        set_submit(job, s)
        set_procs(job, p)
        set_runtime(job, r)
        set_estimate(job, e)
        set_user(job, u)
        set_group(job, g)
        set_site(job, site_)
        set_power(job, None)
        set_data(job, None)
        append(job)
    return tuple(out)


# the slots' own setters: a frozen dataclass refuses setattr, its slot descriptors do not
_SETTERS = tuple(Job.__dict__[name].__set__ for name in _FIELDS)
