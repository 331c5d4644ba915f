"""Penalty Scheduling Policy: EASY backfilling over a queue ordered by estimate accuracy.

Rocchetti, Iturriaga & Nesmachnow, "Including accurate user estimates in HPC
schedulers: an empirical analysis" (seed ``rocchetti-penalty-scheduling-policy.txt``),
Sec. 4 and Table 1. The accuracy of a job is ``A = runtime / estimate``; a user's
accuracy is the mean over the user's last ten completed jobs; Table 1 maps it to a
priority 1..5, and higher priorities go first in the queue. Underneath runs EASY
backfilling, the default of the paper's Maui-managed cluster (Sec. 2.1).

Times are integer seconds from simulation start.
"""

from __future__ import annotations

import math
from bisect import bisect_right, insort
from collections import deque
from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.scheduling.easy import EASYScheduler

if TYPE_CHECKING:  # records are DataFrames; pandas loads with them, not with the scheduler
    import pandas as pd

__all__ = [
    "CLASS_BOUNDS",
    "CLASSES",
    "DEFAULT_ACCURACY",
    "WINDOW",
    "FrozenAccuracies",
    "PSPScheduler",
    "UserAccuracies",
    "accuracy_class",
    "class_waits",
    "job_accuracy",
    "user_accuracies",
]

WINDOW = 10
"""Completed jobs per user that make up the user's accuracy (Sec. 4)."""

DEFAULT_ACCURACY = 1.0
"""Accuracy of a user with no completed job yet: no past, so no penalty (see `PSPScheduler`)."""

CLASS_BOUNDS = (0.2, 0.4, 0.6, 0.8)
"""Lower ends of the accuracy intervals of priorities 2..5 (Table 1, tags a2..a5)."""

CLASSES = (1, 2, 3, 4, 5)
"""Priorities / accuracy classes a1..a5 of Table 1."""


def job_accuracy(runtime: int, estimate: int) -> float:
    """Accuracy ``A = runtime / estimate`` of one job, clipped at 1 (Sec. 4).

    A job whose runtime reaches or exceeds its estimate is killed at its
    estimate: it used all the time it asked for, so its accuracy is 1.

    Raises
    ------
    InvalidInput
        If ``estimate`` < 1 or ``runtime`` < 0.

    Examples
    --------
    >>> job_accuracy(30, 120), job_accuracy(500, 100)
    (0.25, 1.0)
    """
    if estimate < 1 or runtime < 0:
        raise InvalidInput(f"accuracy needs runtime >= 0 and estimate >= 1, got {runtime}, {estimate}")
    return min(runtime, estimate) / estimate


def accuracy_class(accuracy: float) -> int:
    """Priority 1..5 of an accuracy by the intervals of Table 1.

    ``[0, 0.2)`` -> 1, ``[0.2, 0.4)`` -> 2, ``[0.4, 0.6)`` -> 3, ``[0.6, 0.8)``
    -> 4, ``[0.8, 1]`` -> 5.

    Raises
    ------
    InvalidInput
        If ``accuracy`` is not in [0, 1].

    Examples
    --------
    The paper's example (Sec. 4): accuracy 0.35 gives priority 2.

    >>> accuracy_class(0.35), accuracy_class(0.2), accuracy_class(0.8), accuracy_class(1.0)
    (2, 2, 5, 5)
    """
    if not 0.0 <= accuracy <= 1.0:  # also rejects NaN
        raise InvalidInput(f"accuracy must be in [0, 1], got {accuracy!r}")
    return bisect_right(CLASS_BOUNDS, accuracy) + 1


def _check_params(window: int, default_accuracy: float) -> None:
    if not isinstance(window, int) or isinstance(window, bool) or window < 1:
        raise InvalidInput(f"PSP: window must be an int >= 1, got {window!r}")
    if isinstance(default_accuracy, bool) or not isinstance(default_accuracy, (int, float)) or not (
        0.0 <= default_accuracy <= 1.0
    ):
        raise InvalidInput(f"PSP: default_accuracy must be in [0, 1], got {default_accuracy!r}")


class UserAccuracies:
    """Each user's accuracy over the last ``window`` ended jobs and its Table 1 class (Sec. 4).

    Parameters
    ----------
    window : int
        Completed jobs per user averaged into the user's accuracy.
    default_accuracy : float
        Accuracy of a user with no ended job yet.

    Examples
    --------
    >>> book = UserAccuracies(window=2)
    >>> book.cls(7), book.record(Job(1, 0, 1, 10, 100, user=7)), book.cls(7)
    (5, True, 1)
    >>> book.record(Job(2, 0, 1, 100, 100, user=7)), round(book.accuracy(7), 2), book.cls(7)
    (True, 0.55, 3)
    """

    def __init__(self, *, window: int = WINDOW, default_accuracy: float = DEFAULT_ACCURACY) -> None:
        _check_params(window, default_accuracy)
        self.window = window
        self.default_accuracy = default_accuracy
        self.classes: dict[int, int] = {}
        self._history: dict[int, deque[float]] = {}

    def accuracy(self, user: int) -> float:
        """Mean accuracy of ``user``'s last ``window`` completed jobs (the default if none)."""
        history = self._history.get(user)
        if not history:
            return float(self.default_accuracy)
        return math.fsum(history) / len(history)

    def current(self) -> dict[int, float]:
        """Accuracy of every user with an ended job (others have ``default_accuracy``)."""
        return {user: self.accuracy(user) for user, history in self._history.items() if history}

    def cls(self, user: int) -> int:
        """Current Table 1 class (priority 1..5) of ``user``."""
        prio = self.classes.get(user)
        if prio is None:
            prio = self.classes[user] = accuracy_class(self.accuracy(user))
        return prio

    def record(self, job: Job) -> bool:
        """Add an ended ``job`` to its user's window; True if the user's class changed."""
        history = self._history.get(job.user)
        if history is None:
            history = self._history[job.user] = deque(maxlen=self.window)
        history.append(job_accuracy(job.runtime, job.estimate))
        old = self.classes.get(job.user)
        self.classes[job.user] = new = accuracy_class(self.accuracy(job.user))
        return new != old


class FrozenAccuracies(UserAccuracies):
    """Users' accuracies held at given values: the view of a what-if plan (:meth:`record` changes nothing).

    A plan of PSP's queue (pricing a slot, advertising free capacity) runs the policy forward with
    every job lasting its estimate. A job that has not ended has no known accuracy; its user's mean
    over the last ``window`` ended jobs is the scheduler's best guess of it, so the plan keeps each
    user's class as it is at the planning instant. (Recording the plan's ends would give every
    planned job accuracy 1 and lift every user towards class 5, an order the run will not follow.)

    Parameters
    ----------
    accuracies : mapping of int to float
        Accuracy of each user with a history, in [0, 1].
    default_accuracy : float
        Accuracy of any other user.

    Examples
    --------
    >>> book = FrozenAccuracies({7: 0.1}, default_accuracy=1.0)
    >>> book.cls(7), book.cls(8), book.record(Job(1, 0, 1, 100, 100, user=7)), book.cls(7)
    (1, 5, False, 1)
    """

    def __init__(self, accuracies: Mapping[int, float], *, default_accuracy: float = DEFAULT_ACCURACY) -> None:
        super().__init__(default_accuracy=default_accuracy)
        self._fixed = dict(accuracies)

    def accuracy(self, user: int) -> float:
        return float(self._fixed.get(user, self.default_accuracy))

    def current(self) -> dict[int, float]:
        return dict(self._fixed)

    def record(self, job: Job) -> bool:
        return False


def accuracy_planning_state(book: UserAccuracies | None, default_accuracy: float) -> dict:
    """The planning state of a PSP scheduler: ``{"accuracy": {user: mean accuracy}, "default_accuracy": a}``.

    Users without an ended job are left out (they have ``default_accuracy``).

    Examples
    --------
    >>> book = UserAccuracies(window=2); _ = book.record(Job(1, 0, 1, 10, 40, user=3))
    >>> accuracy_planning_state(book, 1.0)
    {'accuracy': {3: 0.25}, 'default_accuracy': 1.0}
    """
    return {"accuracy": {} if book is None else book.current(), "default_accuracy": float(default_accuracy)}


def read_accuracy_planning_state(
    planning_state: Mapping | None, policy: str, extra: tuple[str, ...] = ()
) -> tuple[dict[int, float], float]:
    """Users' accuracies and the default accuracy from a PSP planning state (``state.json``'s ``policy_state``).

    None (no ``policy_state``) is a scheduler that has seen no job end: every user at the default.
    JSON's string keys are read as user ids. Errors name the field (``InvalidInput``); keys other
    than ``accuracy``, ``default_accuracy`` and ``extra`` are refused.

    Examples
    --------
    >>> read_accuracy_planning_state({"accuracy": {"7": 0.25}}, "psp")
    ({7: 0.25}, 1.0)
    >>> read_accuracy_planning_state({"acuracy": {}}, "psp")
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: policy_state of psp: unknown key 'acuracy' (known: accuracy, default_accuracy)
    """
    where = f"policy_state of {policy}"
    if planning_state is None:
        return {}, DEFAULT_ACCURACY
    if not isinstance(planning_state, Mapping):
        raise InvalidInput(f"{where}: must be an object, got {type(planning_state).__name__}")
    known = ("accuracy", "default_accuracy", *extra)
    for key in planning_state:
        if key not in known:
            raise InvalidInput(f"{where}: unknown key {key!r} (known: {', '.join(known)})")
    default = planning_state.get("default_accuracy", DEFAULT_ACCURACY)
    _check_params(WINDOW, default)
    given = planning_state.get("accuracy", {})
    if not isinstance(given, Mapping):
        raise InvalidInput(f"{where}: accuracy must be an object of user -> accuracy, got {type(given).__name__}")
    accuracies: dict[int, float] = {}
    for key, value in given.items():
        try:
            user = int(key)
        except (TypeError, ValueError):
            raise InvalidInput(f"{where}: accuracy: user {key!r} is not an integer id") from None
        if isinstance(key, (bool, float)) or user < 0:
            raise InvalidInput(f"{where}: accuracy: user {key!r} is not an integer id >= 0")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
            raise InvalidInput(f"{where}: accuracy[{key!r}] must be a number in [0, 1], got {value!r}")
        accuracies[user] = float(value)
    return accuracies, float(default)


class PSPScheduler(EASYScheduler):
    """Penalty Scheduling Policy: EASY backfilling, queue ordered by user accuracy.

    Parameters
    ----------
    procs : int
        Processors of the machine.
    window : int, default 10
        Completed jobs per user averaged into the user's accuracy (Sec. 4:
        "the last ten completed jobs for each user").
    default_accuracy : float, default 1.0
        Accuracy of a user who has no completed job yet.

    Attributes
    ----------
    queue : list of Job
        Waiting jobs sorted by ``(-priority of the job's user, submit, id)``.
    priorities : dict of int to int
        Current priority (1..5) of every user seen so far.

    Raises
    ------
    InvalidInput
        From :meth:`submit`, for a job without a user (``user == -1``): PSP
        cannot rank a job it cannot attribute; or for bad parameters (checked
        at the first submission, scikit-learn style).

    Notes
    -----
    Source: Sec. 4, Table 1 and Algorithm 1. A job's priority is its user's
    Table 1 class; it is computed at submission and recomputed at every
    submission and every completion (Algorithm 1's ``computeNewPriority`` on
    ``job_submission`` / ``job_completion``). Accuracies change only when a job
    ends, so recomputation happens in :meth:`finish` and the queue is re-sorted
    only when the ending job's user changes class. The queue is then served by
    EASY backfilling (Sec. 2.1: Maui's default is FCFS plus EASY): the head of
    the priority-ordered queue gets the reservation and later jobs backfill in
    queue order. EASY's pass only deletes from the sorted queue, so it stays
    sorted.

    Ties: equal priorities are served in arrival order (``submit``, then id).
    Ended jobs enter a user's window in the order the simulator reports them
    (end time, then start order).

    Default accuracy: the paper does not say how a user without history is
    ranked. PSP is a *penalty* policy: it "is based on lowering the priority
    of jobs submitted by users whose runtime estimates have been inaccurate in
    the past" (end of Sec. 3). A user without a past has nothing to be
    penalised for, so the default accuracy is 1.0 (priority 5, the top class).

    Accuracy of a job killed at its estimate is 1 (see `job_accuracy`).
    A user's mean uses ``math.fsum`` so that ten jobs of accuracy 0.6 give
    exactly 0.6 and class 4, as the table's closed lower ends require.

    Complexity: submission O(q) (sorted insertion into a queue of q jobs); a
    completion that changes its user's class re-sorts the queue, O(q log q)
    at worst and near O(q) as the queue is nearly sorted.

    Examples
    --------
    Two processors. Job 1 (user 2) asks for 100 s and runs 10; job 2 (user 1)
    asks for 50 s and runs 50. Both start at once; when job 1 ends, user 2's
    accuracy is 0.1 and drops to priority 1.

    >>> s = PSPScheduler(2)
    >>> j1, j2 = Job(1, 0, 1, 10, 100, user=2), Job(2, 0, 1, 50, 50, user=1)
    >>> s.submit(j1, 0); s.submit(j2, 0); [j.id for j in s.schedule(0)]
    [1, 2]
    >>> s.finish(j1, 10); s.priorities
    {2: 1, 1: 5}

    Job 3 (user 2) arrives at 20 and job 4 (user 1) at 30, both needing the
    whole machine. Job 4 jumps ahead and starts when job 2 ends; under EASY
    job 3 would have gone first.

    >>> s.submit(Job(3, 20, 2, 10, 10, user=2), 20); s.schedule(20)
    []
    >>> s.submit(Job(4, 30, 2, 10, 10, user=1), 30); [j.id for j in s.queue]
    [4, 3]
    >>> s.finish(j2, 50); [j.id for j in s.schedule(50)]
    [4]
    """

    name = "psp"

    def __init__(
        self, procs: int, *, window: int = WINDOW, default_accuracy: float = DEFAULT_ACCURACY
    ) -> None:
        super().__init__(procs)
        self.window = window
        self.default_accuracy = default_accuracy
        self.accuracies: UserAccuracies | None = None  # made at the first submission (parameters checked then)

    # ------------------------------------------------------------- accuracy
    @property
    def priorities(self) -> dict[int, int]:
        """Current priority (Table 1 class) of every user seen so far."""
        return {} if self.accuracies is None else self.accuracies.classes

    def accuracy(self, user: int) -> float:
        """Mean accuracy of ``user``'s last ``window`` completed jobs (the default if none)."""
        if self.accuracies is None:
            _check_params(self.window, self.default_accuracy)
            return float(self.default_accuracy)
        return self.accuracies.accuracy(user)

    def priority(self, user: int) -> int:
        """Current priority (Table 1 class) of ``user``."""
        return self._book().cls(user)

    def _book(self) -> UserAccuracies:
        if self.accuracies is None:
            self.accuracies = UserAccuracies(window=self.window, default_accuracy=self.default_accuracy)
        return self.accuracies

    def _key(self, job: Job) -> tuple[int, int, int]:
        return (-self.accuracies.classes[job.user], job.submit, job.id)  # type: ignore[union-attr]  # made at submission

    # ------------------------------------------------------------- what-if plans
    def planning_state(self) -> dict:
        """Each user's current accuracy (users with an ended job) and the default: what orders the queue."""
        return accuracy_planning_state(self.accuracies, self.default_accuracy)

    @classmethod
    def for_planning(cls, procs: int, planning_state: Mapping | None) -> PSPScheduler:
        """A PSP scheduler whose users keep the accuracies of ``planning_state`` (:class:`FrozenAccuracies`).

        Examples
        --------
        User 2 is in class 1, so its earlier job 3 waits behind user 1's job 4:

        >>> s = PSPScheduler.for_planning(2, {"accuracy": {"2": 0.1}})
        >>> s.submit(Job(3, 0, 2, 10, 10, user=2), 5); s.submit(Job(4, 1, 2, 10, 10, user=1), 5)
        >>> [j.id for j in s.queue], s.priorities
        ([4, 3], {2: 1, 1: 5})
        """
        accuracies, default = read_accuracy_planning_state(planning_state, cls.name)
        sched = cls(procs, default_accuracy=default)
        sched.accuracies = FrozenAccuracies(accuracies, default_accuracy=default)
        return sched

    # ------------------------------------------------------------- protocol
    def submit(self, job: Job, now: int) -> None:
        """Enqueue ``job`` at its priority's place (after equal priorities that arrived earlier)."""
        book = self._book()
        if job.user < 0:
            raise InvalidInput(
                f"missing users for PSP: job {job.id} has user {job.user}; "
                "PSP ranks jobs by their user's estimate accuracy"
            )
        super().submit(job, now)  # appends, after the size check
        self.queue.pop()
        book.cls(job.user)
        insort(self.queue, job, key=self._key)

    def finish(self, job: Job, now: int) -> None:
        """``job`` ended at ``now``: update its user's accuracy and re-rank the queue if needed."""
        super().finish(job, now)
        if self._book().record(job) and any(j.user == job.user for j in self.queue):
            self.queue.sort(key=self._key)


def user_accuracies(records: pd.DataFrame, *, window: int = WINDOW) -> pd.Series:
    """Each user's accuracy at the end of a run: mean over the last ``window`` ended jobs.

    This is the accuracy PSP would hold for the user after the last completion
    (Sec. 4); the paper classes users of its dynamic scenarios by it ("the
    class where he belongs at the end of the simulation", Sec. 6).

    Parameters
    ----------
    records : pandas.DataFrame
        Per-job records with ``job_id, end, runtime, estimate, user``.
    window : int, default 10
        Jobs per user averaged.

    Returns
    -------
    pandas.Series
        Accuracy by user (index ``user``, sorted).

    Notes
    -----
    Jobs are ordered by ``(end, job_id)``; accuracies are clipped at 1 as in
    `job_accuracy`.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"job_id": [1, 2, 3], "end": [10, 30, 20], "runtime": [10, 10, 5],
    ...                    "estimate": [10, 40, 100], "user": [7, 7, 8]})
    >>> user_accuracies(df, window=1).to_dict()
    {7: 0.25, 8: 0.05}
    """
    missing = [c for c in ("job_id", "end", "runtime", "estimate", "user") if c not in records.columns]
    if missing:
        raise InvalidInput(f"records lack column(s) {missing}; have {list(records.columns)}")
    _check_params(window, DEFAULT_ACCURACY)
    frame = records.sort_values(["end", "job_id"], kind="stable").reset_index(drop=True)
    acc = np.minimum(frame["runtime"], frame["estimate"]) / frame["estimate"]
    users = frame["user"]
    last = acc.groupby(users).tail(window)
    means = last.groupby(users.loc[last.index]).agg(lambda s: math.fsum(s) / len(s))
    return means.astype(float).rename_axis("user").rename("accuracy")


def class_waits(records: pd.DataFrame, *, window: int = WINDOW, by: str = "user") -> pd.Series:
    """Average wait of each accuracy class 1..5 (the rows of the paper's Table 3).

    Each user is put in the Table 1 class of its end-of-run accuracy
    (`user_accuracies`); classes without a user are NaN (the paper's empty
    cells).

    Parameters
    ----------
    records : pandas.DataFrame
        Per-job records with ``job_id, end, runtime, estimate, user, wait``.
    window : int, default 10
        Jobs per user in the accuracy.
    by : {"user", "job"}, default "user"
        ``"user"``: mean over the class's users of each user's mean wait (the
        paper's "average waiting time per user", Sec. 6); ``"job"``: mean over
        the class's jobs.

    Returns
    -------
    pandas.Series
        Average wait in seconds, indexed by class 1..5 (index name ``class``).

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"job_id": [1, 2, 3], "end": [10, 30, 20], "runtime": [10, 10, 5],
    ...                    "estimate": [10, 10, 100], "user": [7, 7, 8], "wait": [0, 60, 600]})
    >>> class_waits(df).tolist()
    [600.0, nan, nan, nan, 30.0]
    """
    if by not in ("user", "job"):
        raise InvalidInput(f"by must be 'user' or 'job', got {by!r}")
    if "wait" not in records.columns:
        raise InvalidInput(f"records lack column 'wait'; have {list(records.columns)}")
    classes = user_accuracies(records, window=window).map(accuracy_class)
    job_class = records["user"].map(classes)
    if by == "job":
        waits = records["wait"].groupby(job_class).mean()
    else:
        per_user = records.groupby("user")["wait"].mean()
        waits = per_user.groupby(classes.reindex(per_user.index)).mean()
    return waits.astype(float).reindex(CLASSES).rename_axis("class").rename("wait")
