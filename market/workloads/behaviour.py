"""User-behaviour scenarios of runtime estimates, and the paper's default synthetic workload.

Rocchetti, Iturriaga & Nesmachnow, "Including accurate user estimates in HPC
schedulers: an empirical analysis" (seed ``rocchetti-penalty-scheduling-policy.txt``),
Sec. 5 and Table 2. A scenario gives every user an estimate accuracy
``runtime / estimate`` (Sec. 4): static scenarios draw it from a mix of accuracy
groups (BE, GE, CF, CFG); dynamic ones let users improve it every five jobs (DI, HDI).
Applied to any workload, a scenario sets each job's user and rewrites its estimate
so that ``runtime / estimate`` is the accuracy of that user at that job.

Times are integer seconds from the start of the workload.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.workloads.workload import Workload

__all__ = [
    "DAY",
    "CLUSTER_FING_GROUPS",
    "CF_WEIGHTS",
    "CFG_WEIGHTS",
    "SCENARIOS",
    "PAPER_N_JOBS",
    "PAPER_N_USERS",
    "PAPER_SIZES",
    "PAPER_SPAN",
    "PAPER_MAX_RUNTIME",
    "SMALL_JOB_SHARE",
    "SEQUENTIAL_SHARE",
    "Behaviour",
    "apply_behaviour",
    "improve",
    "learning_curve",
    "paper_workload",
    "user_levels",
    "with_accuracies",
]

DAY = 86400
"""Seconds in a day."""

CLUSTER_FING_GROUPS = ((0.0, 0.05), (0.05, 0.15), (0.15, 0.25), (0.25, 0.35), (0.35, 0.60), (0.60, 1.0))
"""Accuracy intervals of the user groups g1..g6 found at Cluster FING (Sec. 5.1)."""

CF_WEIGHTS = (0.21, 0.21, 0.18, 0.17, 0.19, 0.04)
"""Shares of users in g1..g6 at Cluster FING (Sec. 5.1; scenario CF)."""

CFG_WEIGHTS = (0.12, 0.12, 0.09, 0.08, 0.10, 0.49)
"""Shares of users in g1..g6 when almost half estimate well (Sec. 5.2; scenario CFG)."""

PAPER_N_JOBS = 1000
PAPER_N_USERS = 20
PAPER_SIZES = (1, 2, 4, 8, 16)
PAPER_SPAN = 10 * DAY
PAPER_MAX_RUNTIME = 10 * DAY

SMALL_JOB_SHARE = 0.493
"""Share of jobs shorter than a minute in the Cluster FING trace (Sec. 5.1)."""

SEQUENTIAL_SHARE = 0.442 / (0.442 + 0.065)
"""Share of one-core jobs: 44.2 % sequential against 6.5 % parallel jobs (Sec. 5.1)."""

_SMALL_RUNTIME = 60  # seconds: "small jobs, with less than a minute of execution time"


@dataclass(frozen=True, slots=True)
class Behaviour:
    """One user-behaviour scenario of Table 2.

    Parameters
    ----------
    name : str
        Tag of Table 2 (``BE``, ``GE``, ``CF``, ``CFG``, ``DI``, ``HDI``).
    groups : tuple of (float, float)
        Accuracy intervals ``[low, high]`` within [0, 1] users are drawn from.
    weights : tuple of float
        Share of users in each group; non-negative, summing to 1.
    learners : float, default 0.0
        Share of users who improve their accuracy (DI: 1, HDI: 0.5).
    every : int, default 5
        A learner improves after every ``every`` of its jobs (Sec. 5.2).
    rate : float, default 0.1
        Learning rate of `improve` (Sec. 5.2).
    """

    name: str
    groups: tuple[tuple[float, float], ...]
    weights: tuple[float, ...]
    learners: float = 0.0
    every: int = 5
    rate: float = 0.1

    def __post_init__(self) -> None:
        if not self.groups or len(self.groups) != len(self.weights):
            raise InvalidInput(
                f"behaviour {self.name!r}: {len(self.groups)} group(s) but {len(self.weights)} weight(s)"
            )
        for low, high in self.groups:
            if not 0.0 <= low < high <= 1.0:
                raise InvalidInput(
                    f"behaviour {self.name!r}: accuracy interval {(low, high)} is not within [0, 1]"
                )
        total = math.fsum(self.weights)
        if any(not w >= 0 for w in self.weights) or not math.isclose(total, 1.0, abs_tol=1e-9):
            raise InvalidInput(f"behaviour {self.name!r}: weights {self.weights} must be >= 0 and sum to 1")
        if not 0.0 <= self.learners <= 1.0:
            raise InvalidInput(f"behaviour {self.name!r}: learners must be in [0, 1], got {self.learners!r}")
        if not isinstance(self.every, int) or isinstance(self.every, bool) or self.every < 1:
            raise InvalidInput(f"behaviour {self.name!r}: every must be an int >= 1, got {self.every!r}")
        if not 0.0 < self.rate <= 1.0:
            raise InvalidInput(f"behaviour {self.name!r}: rate must be in (0, 1], got {self.rate!r}")


SCENARIOS: dict[str, Behaviour] = {
    b.name: b
    for b in (
        Behaviour("BE", ((0.0, 0.2),), (1.0,)),
        Behaviour("GE", ((0.8, 1.0),), (1.0,)),
        Behaviour("CF", CLUSTER_FING_GROUPS, CF_WEIGHTS),
        Behaviour("CFG", CLUSTER_FING_GROUPS, CFG_WEIGHTS),
        Behaviour("DI", CLUSTER_FING_GROUPS, CF_WEIGHTS, learners=1.0),
        Behaviour("HDI", CLUSTER_FING_GROUPS, CF_WEIGHTS, learners=0.5),
    )
}
"""The six scenarios of Table 2, by tag.

BE: all users in [0, 0.2) (tag a1 of Table 1). GE: all users in [0.8, 1.0] (the
paper's "a6 (0.8-1.0)", i.e. tag a5 of Table 1). CF and CFG: groups g1..g6 with the
shares of Sec. 5.1 and 5.2. DI and HDI: the CF mix to start from (the paper does not
say; CF is its model of the real cluster), all users or half of them learning.
"""


def improve(accuracy: float, rate: float = 0.1) -> float:
    """One learning step of Sec. 5.2, clipped at 1.

    ``a + (1 - a) * rate`` if ``a <= 0.5``, else ``a + a * rate``. The second
    branch would pass 1 from ``a > 1 / (1 + rate)``; an accuracy cannot exceed 1.

    Examples
    --------
    >>> improve(0.5), round(improve(0.6), 10), improve(0.95)
    (0.55, 0.66, 1.0)
    """
    if not 0.0 <= accuracy <= 1.0:
        raise InvalidInput(f"accuracy must be in [0, 1], got {accuracy!r}")
    step = (1.0 - accuracy) * rate if accuracy <= 0.5 else accuracy * rate
    return min(accuracy + step, 1.0)


def learning_curve(accuracy: float, n_jobs: int, *, every: int = 5, rate: float = 0.1) -> np.ndarray:
    """Accuracies of a learning user's successive jobs (Sec. 5.2, scenarios DI and HDI).

    Jobs ``0 .. every-1`` keep the initial accuracy; every ``every`` submitted
    jobs the accuracy takes one `improve` step.

    Examples
    --------
    >>> learning_curve(0.1, 12, every=5).round(3).tolist()
    [0.1, 0.1, 0.1, 0.1, 0.1, 0.19, 0.19, 0.19, 0.19, 0.19, 0.271, 0.271]
    """
    if not isinstance(n_jobs, int) or n_jobs < 0:
        raise InvalidInput(f"n_jobs must be an int >= 0, got {n_jobs!r}")
    levels = [accuracy]
    for _ in range((n_jobs - 1) // every if n_jobs else 0):
        levels.append(improve(levels[-1], rate))
    return np.repeat(np.asarray(levels, dtype=float), every)[:n_jobs]


def _apportion(n: int, weights: Sequence[float]) -> list[int]:
    """Largest-remainder split of ``n`` users over ``weights`` (ties: lower group first)."""
    quotas = [n * w for w in weights]
    counts = [math.floor(q) for q in quotas]
    order = sorted(range(len(weights)), key=lambda g: -(quotas[g] - counts[g]))
    for g in order[: n - sum(counts)]:
        counts[g] += 1
    return counts


def user_levels(users: Sequence[int], behaviour: Behaviour, *, rng: np.random.Generator) -> dict[int, float]:
    """Initial accuracy of each user under a scenario's group mix.

    Parameters
    ----------
    users : sequence of int
        Distinct user ids.
    behaviour : Behaviour
        The group intervals and their shares of users.
    rng : numpy.random.Generator
        Draws which users fall in which group, then each user's accuracy.

    Returns
    -------
    dict of int to float
        Accuracy by user, each in ``(low, high]`` of its group.

    Notes
    -----
    Group sizes are the largest-remainder apportionment of ``len(users)`` over
    the weights, so the mix is met as closely as the number of users allows (20
    users in CF: 4, 4, 4, 3, 4, 1); a random permutation assigns users to
    groups. Within a group the accuracy is uniform; the open end is the low
    one so that an accuracy is never 0 (which would need an infinite estimate).

    Examples
    --------
    >>> lv = user_levels(range(20), SCENARIOS["CF"], rng=np.random.default_rng(1))
    >>> sum(a > 0.6 for a in lv.values()), all(0 < a <= 1 for a in lv.values())
    (1, True)
    """
    users = list(users)
    if len(set(users)) != len(users):
        raise InvalidInput("user_levels: user ids must be distinct")
    counts = _apportion(len(users), behaviour.weights)
    group_of = np.repeat(np.arange(len(counts)), counts)[rng.permutation(len(users))]
    low = np.array([behaviour.groups[g][0] for g in group_of])
    high = np.array([behaviour.groups[g][1] for g in group_of])
    levels = high - (high - low) * rng.random(len(users))
    return dict(zip(users, levels.tolist()))


def with_accuracies(
    workload: Workload, accuracies: Sequence[float] | np.ndarray, *, users: Sequence[int] | None = None,
    max_estimate: int | None = None,
) -> Workload:
    """Rewrite every job's estimate so that ``runtime / estimate`` is the given accuracy.

    Parameters
    ----------
    workload : Workload
        Jobs whose runtimes, sizes and submit times are kept.
    accuracies : sequence of float
        One accuracy per job, in (0, 1].
    users : sequence of int, optional
        One user id (>= 0) per job to set as well.
    max_estimate : int, optional
        The queue's longest request, seconds: an estimate above it is cut to it
        (never below the job's runtime), as a batch queue refuses longer
        requests (Rocchetti et al., Sec. 5.2: the generated jobs "fulfill the
        constraints of the execution queue configured"). None: no cap.

    Returns
    -------
    Workload
        Same jobs with ``estimate = max(runtime, round(runtime / accuracy))``
        (capped as above): integer seconds, never below the runtime (so no job
        is killed), and as close to the accuracy as whole seconds allow.

    Raises
    ------
    InvalidInput
        If the lengths differ from the number of jobs, an accuracy is outside
        (0, 1] (0 would need an infinite estimate), or a user id is negative.

    Notes
    -----
    Whole-second estimates make the realised accuracy ``runtime / estimate``
    differ from the requested one by at most ``0.5 * accuracy / estimate``:
    negligible for runs of minutes, coarse for runs of a few seconds (a 1 s
    job can only have accuracy 1, 1/2, 1/3, ...). PSP and the per-class tables
    use the realised accuracy, so a user drawn just above a Table 1 boundary
    can land just below it. Without ``max_estimate`` estimates are not capped:
    an accuracy near 0 gives a very long estimate, as the formula demands; with
    it a capped job's realised accuracy is ``runtime / max_estimate``, higher
    than drawn.

    Examples
    --------
    >>> w = Workload((Job(1, 0, 1, 100, 100), Job(2, 5, 2, 30, 30)))
    >>> [(j.estimate, j.user) for j in with_accuracies(w, [0.25, 1.0], users=[3, 4]).jobs]
    [(400, 3), (30, 4)]
    >>> [j.estimate for j in with_accuracies(w, [0.25, 0.5], max_estimate=200).jobs]
    [200, 60]
    >>> with_accuracies(w, [0.25, 1.5])
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: job 2: accuracy must be in (0, 1], got 1.5
    """
    jobs = workload.jobs
    if len(accuracies) != len(jobs):
        raise InvalidInput(f"{len(accuracies)} accuracies for {len(jobs)} jobs")
    if users is not None and len(users) != len(jobs):
        raise InvalidInput(f"{len(users)} users for {len(jobs)} jobs")
    if max_estimate is not None and (isinstance(max_estimate, bool) or not isinstance(max_estimate, int)
                                     or max_estimate < 1):
        raise InvalidInput(f"max_estimate must be an int >= 1 s or None, got {max_estimate!r}")
    out = []
    for k, (job, acc) in enumerate(zip(jobs, accuracies)):
        acc = float(acc)
        if not 0.0 < acc <= 1.0:  # also rejects NaN
            raise InvalidInput(f"job {job.id}: accuracy must be in (0, 1], got {acc!r}")
        user = job.user if users is None else int(users[k])
        if users is not None and user < 0:
            raise InvalidInput(f"job {job.id}: user must be >= 0, got {user}")
        estimate = round(job.runtime / acc)
        if max_estimate is not None:
            estimate = min(estimate, max_estimate)
        estimate = max(job.runtime, estimate)
        out.append(replace(job, estimate=estimate, user=user))
    return Workload(
        tuple(out), workload.max_procs, workload.name, dict(workload.dropped), dict(workload.header)
    )


def apply_behaviour(
    workload: Workload,
    scenario: str | Behaviour,
    *,
    n_users: int | None = PAPER_N_USERS,
    max_estimate: int | None = None,
    rng: np.random.Generator,
) -> Workload:
    """Give a workload the users and estimates of one user-behaviour scenario (Table 2).

    Parameters
    ----------
    workload : Workload
        Any workload; runtimes, sizes and submit times are kept.
    scenario : str or Behaviour
        A tag of `SCENARIOS` or a custom `Behaviour`.
    n_users : int or None, default 20
        Assign every job a user drawn uniformly from ``1 .. n_users`` (the
        paper's 20 users, Sec. 5.2). ``None`` keeps the workload's users, which
        must all be known (>= 0).
    max_estimate : int, optional
        The queue's longest request, seconds (`with_accuracies`); None: no cap.
    rng : numpy.random.Generator
        Source of every random choice: users (if drawn), then each user's group
        and initial accuracy (`user_levels`), then which users learn.

    Returns
    -------
    Workload
        Jobs with their users set and ``estimate = max(runtime, round(runtime /
        a))``, where ``a`` is the accuracy of the job's user at that job: fixed
        in static scenarios, following `learning_curve` over the user's jobs in
        submit order for learners. The header records the scenario under
        ``gridmarket.behaviour``.

    Raises
    ------
    InvalidInput
        Unknown scenario, ``n_users`` < 1, an unknown user with ``n_users=None``,
        or ``rng`` not a Generator.

    Notes
    -----
    The set of users is those who submit at least one job. With a learning
    share ``s``, ``round(s * n)`` of the ``n`` users learn, chosen at random
    (HDI: "half of the users", Sec. 5.2). Same ``rng`` state, same result.

    Examples
    --------
    >>> w = paper_workload(100, rng=np.random.default_rng(3))
    >>> be = apply_behaviour(w, "BE", rng=np.random.default_rng(4))
    >>> all(j.runtime / j.estimate < 0.2 + 1e-9 and j.user >= 1 for j in be.jobs)
    True
    >>> be == apply_behaviour(w, "BE", rng=np.random.default_rng(4))
    True
    """
    if not isinstance(rng, np.random.Generator):
        raise InvalidInput(f"apply_behaviour: rng must be a numpy.random.Generator, got {rng!r}")
    if isinstance(scenario, Behaviour):
        behaviour = scenario
    else:
        try:
            behaviour = SCENARIOS[scenario]
        except (KeyError, TypeError):
            raise InvalidInput(f"unknown behaviour {scenario!r}; known: {', '.join(SCENARIOS)}") from None
    jobs = workload.jobs
    if n_users is None:
        for job in jobs:
            if job.user < 0:
                raise InvalidInput(f"job {job.id} has no user (user {job.user}); pass n_users to draw users")
        users = np.fromiter((j.user for j in jobs), np.int64, len(jobs))
    else:
        if not isinstance(n_users, int) or isinstance(n_users, bool) or n_users < 1:
            raise InvalidInput(f"n_users must be an int >= 1 or None, got {n_users!r}")
        users = rng.integers(1, n_users + 1, size=len(jobs))
    present = np.unique(users).tolist()
    levels = user_levels(present, behaviour, rng=rng)
    n_learners = round(behaviour.learners * len(present))
    learners = set(rng.permutation(present)[:n_learners].tolist())
    accuracies = np.empty(len(jobs))
    for user in present:
        idx = np.flatnonzero(users == user)  # the user's jobs in submit order
        if user in learners:
            accuracies[idx] = learning_curve(
                levels[user], len(idx), every=behaviour.every, rate=behaviour.rate
            )
        else:
            accuracies[idx] = levels[user]
    out = with_accuracies(workload, accuracies, users=users.tolist(), max_estimate=max_estimate)
    header = dict(out.header)
    header["gridmarket.behaviour"] = behaviour.name
    return replace(out, header=header)


def paper_workload(
    n_jobs: int = PAPER_N_JOBS,
    *,
    n_users: int = PAPER_N_USERS,
    span: int = PAPER_SPAN,
    max_runtime: int = PAPER_MAX_RUNTIME,
    rng: np.random.Generator,
) -> Workload:
    """The paper's default synthetic workload (Sec. 5.2), with exact estimates.

    Parameters
    ----------
    n_jobs : int, default 1000
        Jobs to generate ("Each generated workload has 1000 jobs").
    n_users : int, default 20
        Users, each job's drawn uniformly from ``1 .. n_users`` ("from 20 users").
    span : int, default 10 days
        Submit times are uniform on ``[0, span)`` seconds.
    max_runtime : int, default 10 days
        Longest runtime ("up to 10 days of runtime execution").
    rng : numpy.random.Generator
        Source of randomness; the same seed gives the same workload.

    Returns
    -------
    Workload
        Jobs with ids 1..n in submit order, ``estimate == runtime`` (apply a
        scenario with `apply_behaviour` to set estimates), ``max_procs`` None
        (the workload fixes no machine; the paper simulates Cluster FING's 1672 cores, Sec. 2.1), named
        ``"psp-paper"``.

    Raises
    ------
    InvalidInput
        If a count or time is not a positive int (``max_runtime`` >= 60), or
        ``rng`` is not a Generator.

    Notes
    -----
    The paper gives the shape of the workload only in outline (Sec. 5.1-5.2);
    this generator fills the gaps as follows, from the Cluster FING statistics of
    Sec. 5.1:

    * Sizes: a power of two in 1..16. One core with probability
      `SEQUENTIAL_SHARE` = 44.2 / (44.2 + 6.5) (sequential against parallel
      jobs), else uniform on {2, 4, 8, 16}.
    * Runtimes: with probability `SMALL_JOB_SHARE` = 0.493 a small job, uniform
      on 1..59 s ("less than a minute"); else log-uniform on [60 s,
      ``max_runtime``] (a heavy tail up to the queue limit; the paper does not
      give the distribution), rounded to whole seconds.
    * Arrivals: uniform on ``[0, span)`` (a Poisson process conditioned on
      ``n_jobs`` arrivals). The paper does not give the arrival process; 10 days
      matches the horizon it states.

    Draw order: submits, small-job flags, small runtimes, long runtimes, size
    flags, parallel sizes, users. Complexity O(n_jobs).

    Examples
    --------
    >>> w = paper_workload(rng=np.random.default_rng(0))
    >>> len(w), {j.procs for j in w.jobs} <= {1, 2, 4, 8, 16}, max(j.runtime for j in w.jobs) <= 10 * DAY
    (1000, True, True)
    >>> len({j.user for j in w.jobs}), w == paper_workload(rng=np.random.default_rng(0))
    (20, True)
    """
    checks = (("n_jobs", n_jobs), ("n_users", n_users), ("span", span), ("max_runtime", max_runtime))
    for name, value in checks:
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise InvalidInput(f"paper_workload: {name} must be an int >= 1, got {value!r}")
    if max_runtime < _SMALL_RUNTIME:
        raise InvalidInput(f"paper_workload: max_runtime must be >= {_SMALL_RUNTIME} s, got {max_runtime}")
    if not isinstance(rng, np.random.Generator):
        raise InvalidInput(f"paper_workload: rng must be a numpy.random.Generator, got {rng!r}")
    submits = np.sort(rng.integers(0, span, size=n_jobs))
    small = rng.random(n_jobs) < SMALL_JOB_SHARE
    short = rng.integers(1, _SMALL_RUNTIME, size=n_jobs)
    log_low, log_high = math.log(_SMALL_RUNTIME), math.log(max_runtime)
    long = np.clip(np.rint(np.exp(rng.uniform(log_low, log_high, size=n_jobs))), _SMALL_RUNTIME, max_runtime)
    runtimes = np.where(small, short, long).astype(np.int64)
    sequential = rng.random(n_jobs) < SEQUENTIAL_SHARE
    parallel = rng.choice(np.asarray(PAPER_SIZES[1:]), size=n_jobs)
    sizes = np.where(sequential, 1, parallel)
    users = rng.integers(1, n_users + 1, size=n_jobs)
    jobs = tuple(
        Job(i, int(s), int(p), int(r), int(r), user=int(u))
        for i, (s, p, r, u) in enumerate(zip(submits, sizes, runtimes, users), 1)
    )
    header = {
        "gridmarket.model": "Rocchetti et al. Sec. 5.2 default workload (gridmarket reading)",
        "gridmarket.span_seconds": str(span),
        "MaxRuntime": str(max_runtime),
    }
    return Workload(jobs, max_procs=None, name="psp-paper", header=header)
