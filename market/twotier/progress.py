"""Progress of processes on two-tier (foreground/background) processors (Liu et al. 2012, secs. 2.1, 3.1, 3.2).

X. Liu et al., "Scheduling Parallel Jobs Using Migration and Consolidation in the Cloud",
Mathematical Problems in Engineering 2012, article 695757 (``shared/seeds/measy-migration-
consolidation.txt``). Each processor hosts a foreground (fg) VM with the highest CPU priority and a
background (bg) VM with the lowest; the bg VM only gets the cycles its fg VM leaves idle (sec. 2.1).

Rates are in dedicated seconds of progress per wall-clock second: a job whose ``work`` is its
runtime on dedicated processors (in seconds) ends when its progress reaches ``work``. Times are
integer seconds from simulation start; rates and progress are floats.

The model, sec. 3.2 (the seed's copy lost the equations' symbols; what is kept here is the text):

* a fg process advances ``T * (1 - loss)`` per time slice ``T``, ``loss ~ U(0.5 %, 4 %)`` per job
  (sec. 2.1 (1): "the average performance loss of jobs running in the foreground tier");
* a bg process advances ``T * beta * u * idle``: ``beta`` the share of the idle cycles the bg job
  turns into progress, ``u`` the process's CPU usage on a dedicated processor, ``idle = 1 - u_fg``
  the share its fg VM leaves unused (1 when the fg VM is empty); ``beta ~ U(0.80, 0.92)`` for a
  single-process job and normal (clipped to the observed 19.8 %-76.6 %) for a multi-process one
  (sec. 2.1 (2));
* a job advances at the pace of its slowest process (end of sec. 3.2).

The seed gives the multi-process ``beta`` range (19.8 %-76.6 %) but its copy lost the normal
distribution's mean and standard deviation. :data:`BETA_MULTI_MEAN` and :data:`BETA_MULTI_SD`
are therefore this module's choice: the middle of the range and a sixth of its width (the range
read as +-3 sd). They are parameters of :func:`draw_traits`.

Two readings of the bg formula, which agree for single-process jobs (``u = 1``): ``"product"``,
``beta * u * idle`` (the seed's symbol order "beta ... u ... idle"), and ``"ratio"``,
``min(1, beta * idle / u)``: the idle cycles the process gets divided by the cycles it needs,
under which a low-usage process behind an empty fg VM runs at full speed (as the paper's Fig. 1
narrative has J8 do). :data:`DEFAULT_BG_MODEL` is ``"ratio"``: run against sec. 3.4's numbers
(40,000 FWload and 20,000 JWload jobs, loads 0.5-0.9, seeds 1-3; ``benchmarks/
RESULTS_reproductions.md``, measy) it gives MEASY below EASY at every point, as Figs. 6-7 show,
and an average response gain near the paper's 23.1 %, where "product" leaves MEASY above EASY on
FWload at high loads.

CPU usage of processes (sec. 3.1): a single-process job uses 100 %; each process of a
multi-process job uses ``U(40 %, 100 %)``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from gridmarket.errors import InvalidInput
from gridmarket.job import Job

__all__ = [
    "BETA_MULTI_MEAN",
    "BETA_MULTI_RANGE",
    "BETA_MULTI_SD",
    "BETA_SINGLE_RANGE",
    "BG_MODELS",
    "DEFAULT_BG_MODEL",
    "LOSS_RANGE",
    "USAGE_MULTI_RANGE",
    "USAGE_THRESHOLD",
    "JobTraits",
    "bg_rate",
    "check_usage",
    "draw_traits",
    "fg_rate",
]

#: Performance loss of a fg process against a dedicated processor, uniform (sec. 2.1 (1)).
LOSS_RANGE = (0.005, 0.04)
#: Share of idle cycles a single-process bg job uses, uniform (sec. 2.1 (2)).
BETA_SINGLE_RANGE = (0.80, 0.92)
#: Observed range of the same share for multi-process bg jobs (sec. 2.1 (2)).
BETA_MULTI_RANGE = (0.198, 0.766)
#: Mean and standard deviation of the multi-process share: this module's choice (see header).
BETA_MULTI_MEAN = (BETA_MULTI_RANGE[0] + BETA_MULTI_RANGE[1]) / 2
BETA_MULTI_SD = (BETA_MULTI_RANGE[1] - BETA_MULTI_RANGE[0]) / 6
#: Per-process CPU usage of multi-process jobs, uniform (sec. 3.1 (2)).
USAGE_MULTI_RANGE = (0.40, 1.00)
#: A bg VM only takes a process if its fg VM's usage is below this (sec. 2.1 (3), 2.2.1 (3)).
USAGE_THRESHOLD = 0.96
#: Forms of the bg progress equation accepted by :func:`bg_rate`.
BG_MODELS = ("product", "ratio")
#: The reading used unless another is asked for (module notes).
DEFAULT_BG_MODEL = "ratio"


@dataclass(frozen=True, slots=True)
class JobTraits:
    """What the two-tier machine knows and hides about one job.

    Parameters
    ----------
    usage : tuple of float
        Actual CPU usage of each process on a dedicated processor, in [0, 1].
    seen : tuple of float or None
        The usage the scheduler is told per process (None: unknown to it).
    beta : float
        Share of its fg VM's idle cycles the job turns into progress in the bg tier.
    loss : float
        Performance loss in the fg tier.
    """

    usage: tuple[float, ...]
    seen: tuple[float | None, ...]
    beta: float
    loss: float

    @property
    def fg_rate(self) -> float:
        """Dedicated seconds of progress per second in the fg tier."""
        return fg_rate(self.loss)


def fg_rate(loss: float) -> float:
    """Progress per second of a fg process: ``1 - loss`` (sec. 3.2).

    >>> fg_rate(0.02)
    0.98
    """
    return 1.0 - loss


def bg_rate(beta: float, usage: float, fg_usage: float, model: str = DEFAULT_BG_MODEL) -> float:
    """Progress per second of one bg process behind a fg VM of usage ``fg_usage`` (sec. 3.2).

    Parameters
    ----------
    beta : float
        Share of idle cycles the job turns into progress.
    usage : float
        The bg process's CPU usage on a dedicated processor.
    fg_usage : float
        Usage of the process in the fg VM of the same processor (0 when that VM is empty).
    model : {"product", "ratio"}
        ``beta * usage * (1 - fg_usage)``, or ``min(1, beta * (1 - fg_usage) / usage)``.

    Examples
    --------
    >>> round(bg_rate(0.9, 1.0, 0.5), 6)
    0.45
    >>> round(bg_rate(0.9, 0.5, 0.5, model="product"), 6), round(bg_rate(0.9, 0.5, 0.5, model="ratio"), 6)
    (0.225, 0.9)
    >>> round(bg_rate(0.5, 0.5, 0.0, model="ratio"), 6)
    1.0
    """
    idle = 1.0 - fg_usage
    if model == "product":
        return beta * usage * idle
    if model == "ratio":
        if usage <= 0.0:
            return 1.0
        return min(1.0, beta * idle / usage)
    raise InvalidInput(f"bg progress model must be one of {BG_MODELS}, got {model!r}")


def check_usage(job_id: int, usage: object, procs: int) -> tuple[float, ...] | None:
    """Validate a user-given usage for ``job_id``: a float for every process, a sequence, or None.

    Raises
    ------
    InvalidInput
        A value outside [0, 1], not a number, or a sequence of the wrong length; the message
        names the job and the field.

    Examples
    --------
    >>> check_usage(3, 0.5, 2)
    (0.5, 0.5)
    >>> check_usage(3, [0.5, 1.2], 2)
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: job 3: usage[1] must be in [0, 1], got 1.2
    """
    if usage is None:
        return None
    if isinstance(usage, str) or not isinstance(usage, (int, float, Sequence, np.ndarray)):
        raise InvalidInput(f"job {job_id}: usage must be a number, a sequence or None, got {usage!r}")
    values = [usage] * procs if isinstance(usage, (int, float)) else list(usage)
    if len(values) != procs:
        raise InvalidInput(f"job {job_id}: usage has {len(values)} values for {procs} processes")
    out = []
    for i, u in enumerate(values):
        if isinstance(u, bool) or not isinstance(u, (int, float, np.floating, np.integer)):
            raise InvalidInput(f"job {job_id}: usage[{i}] must be a number, got {u!r}")
        u = float(u)
        if not 0.0 <= u <= 1.0:  # also rejects nan
            raise InvalidInput(f"job {job_id}: usage[{i}] must be in [0, 1], got {u!r}")
        out.append(u)
    return tuple(out)


def draw_traits(
    jobs: Sequence[Job],
    *,
    rng: np.random.Generator,
    usage: str | Mapping[int, object] = "paper",
    usage_known: bool = True,
    beta_multi_mean: float = BETA_MULTI_MEAN,
    beta_multi_sd: float = BETA_MULTI_SD,
) -> dict[int, JobTraits]:
    """Draw each job's process usages, ``beta`` and ``loss`` (secs. 2.1, 3.1, 3.2).

    Parameters
    ----------
    jobs : sequence of Job
        In any order; draws are made in the given order, four streams of fixed length per job,
        so a job's traits do not depend on the policy that later runs it.
    rng : numpy.random.Generator
        Source of every draw.
    usage : "paper", "full" or mapping
        ``"paper"``: sec. 3.1 (single-process 100 %, multi-process U(40 %, 100 %) per process);
        ``"full"``: every process 100 % (sec. 3.5.2); a mapping job id -> number, sequence or
        None gives actual usages (None: drawn as ``"paper"`` and hidden from the scheduler);
        jobs absent from the mapping are drawn as ``"paper"``.
    usage_known : bool
        Whether the scheduler sees the usages (False: sec. 3.5.1, no usage information).
    beta_multi_mean, beta_multi_sd : float
        Normal distribution of ``beta`` for multi-process jobs, clipped to
        :data:`BETA_MULTI_RANGE`.

    Returns
    -------
    dict of int to JobTraits

    Raises
    ------
    InvalidInput
        Unknown usage mode, a usage outside [0, 1] (the message names the job), a negative
        standard deviation.

    Examples
    --------
    >>> jobs = [Job(1, 0, 1, 10, 10), Job(2, 0, 3, 10, 10)]
    >>> t = draw_traits(jobs, rng=np.random.default_rng(0))
    >>> t[1].usage, len(t[2].usage), 0.8 <= t[1].beta <= 0.92
    ((1.0,), 3, True)
    """
    if isinstance(usage, str):
        if usage not in ("paper", "full"):
            raise InvalidInput(f"usage must be 'paper', 'full' or a mapping, got {usage!r}")
        given: Mapping[int, object] = {}
    elif isinstance(usage, Mapping):
        given = usage
    else:
        raise InvalidInput(f"usage must be 'paper', 'full' or a mapping, got {usage!r}")
    if not (beta_multi_sd >= 0.0):
        raise InvalidInput(f"beta_multi_sd must be >= 0, got {beta_multi_sd!r}")
    out: dict[int, JobTraits] = {}
    lo_u, hi_u = USAGE_MULTI_RANGE
    lo_b, hi_b = BETA_MULTI_RANGE
    uniform, normal = rng.uniform, rng.normal
    for job in jobs:
        # fixed-length draws per job keep every job's traits independent of the others' sizes
        u_draw = uniform(lo_u, hi_u, size=job.procs)
        b_single = uniform(*BETA_SINGLE_RANGE)
        b_multi = min(max(float(normal(beta_multi_mean, beta_multi_sd)), lo_b), hi_b)  # np.clip's value
        loss = float(uniform(*LOSS_RANGE))
        paper = (1.0,) if job.procs == 1 else tuple(u_draw.tolist())
        known = usage_known
        if job.id in given:
            actual = check_usage(job.id, given[job.id], job.procs)
            if actual is None:
                actual, known = paper, False
        elif usage == "full":
            actual = (1.0,) * job.procs
        else:
            actual = paper
        seen = actual if known else (None,) * job.procs
        beta = float(b_single) if job.procs == 1 else b_multi
        out[job.id] = JobTraits(actual, seen, beta, loss)
    return out
