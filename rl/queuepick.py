"""``gridmarket/QueuePick-v0``: pick which queued job a real batch scheduler starts next (a Gymnasium environment).

Times are integer seconds from the start of the workload; the observation scales them to [0, 1).

One machine replays a trace (SWF or GWF) or a seeded Lublin-Feitelson workload through the
simulator's own event step (:meth:`gridmarket.scheduling.MachineSimulation.steps`) under a base
policy (``easy`` by default: EASY backfilling; ``fcfs``; or a plug-in that re-plans from its queue
at every pass) made *picked* by :func:`gridmarket.scheduling.picking`. After every event step
that leaves jobs waiting and no job picked, the agent picks one of the first ``window`` queued jobs
(in arrival order), or waits for the next event. A picked job that fits starts at once; one that
does not becomes the queue head the base reserves for, and a backfilling base backfills the others
around it until it starts (the queue-picking decision of RLScheduler, Zhang et al. 2020, and
SchedGym; here the policy, the event loop and the capacity check are the simulator's own).
"""

from __future__ import annotations

from collections.abc import Sequence
from os import PathLike
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.metrics import BSLD_BOUND, job_bounded_slowdown
from gridmarket.scheduling import MachineSimulation, picking, resolve_policy
from gridmarket.scheduling.psp import UserAccuracies
from gridmarket.workloads import Workload, lublin_workload, read_gwf, read_swf

__all__ = ["JOB_FEATURES", "REWARDS", "QueuePickEnv"]

JOB_FEATURES = ("present", "procs", "estimate", "wait", "accuracy")
"""What the observation says of each of the ``window`` first queued jobs, in this order (see :class:`QueuePickEnv`)."""

REWARDS = ("bsld", "wait", "response")
"""Selectable rewards: each the negative sum, over the jobs that ended during the step, of their
bounded slowdown (Feitelson & Rudolph; bound 10 s: :data:`gridmarket.metrics.BSLD_BOUND`), wait
(hours) or response time (hours). An episode's return is minus the sum over all its jobs."""

_HOUR = 3600.0


class QueuePickEnv(gym.Env):
    """One machine whose next job is picked by the agent, over a real batch policy (see the module).

    Parameters
    ----------
    workload : Workload or sequence of Job, optional
        Jobs sorted by ``(submit, id)``. Without it and without ``trace``, each episode is a fresh
        Lublin-Feitelson workload (Tsafrir estimates) of ``n_jobs`` jobs drawn from the reset's seed.
    trace : path, optional
        An SWF (``.swf``, ``.swf.gz``) or GWF (``.gwf``) file, read once.
    procs : int, optional
        Machine size; by default the workload's ``max_procs`` (a Lublin workload: 256). Jobs wider
        than the machine are left out, as :func:`gridmarket.simulation.simulate` leaves them out.
    policy : str
        The base policy: a registered name (``easy``, ``fcfs``) or ``"package.module:Name"``.
    window : int
        How many queued jobs the agent sees and may pick (K).
    n_jobs : int
        Jobs of an episode: a run of consecutive jobs of the trace starting at a random job
        (drawn from the reset's seed), or the size of a Lublin workload. ``None`` replays the whole
        trace, the same episode every reset.
    profile_steps : int
        How many future steps of the availability profile the observation shows.
    reward : {"bsld", "wait", "response"}
        See :data:`REWARDS`.
    time_scale : float
        Seconds ``s`` by which the observation scales a duration ``t`` to ``t / (t + s)``.

    Notes
    -----
    Action ``i < window`` picks the ``i``-th queued job; action ``window`` waits (nothing starts
    until the next arrival or end). An action naming no queued job, and a wait when no event is
    left to wait for, pick the queue head; ``info["action_mask"]`` marks the actions that do what
    they say (for maskable agents).

    The observation (float32, every entry in [0, 1]) is, for each of the first ``window`` queued
    jobs, :data:`JOB_FEATURES`: 1 if there is a job, procs / machine procs, estimate and wait so far
    scaled by ``time_scale``, and its user's estimate accuracy (mean runtime / estimate over the
    user's last ten ended jobs, 1 before any: Rocchetti et al., sec. 4, :class:`UserAccuracies`);
    zeros past the queue's end. Then the free processors now / procs; then ``profile_steps`` pairs
    (time from now scaled, free processors / procs) of the next steps of the availability profile
    (running jobs held to their estimates, reservations), the last step repeated at scaled time 1.

    Examples
    --------
    >>> env = QueuePickEnv([Job(1, 0, 2, 10, 10), Job(2, 0, 2, 5, 5), Job(3, 1, 1, 5, 5)], procs=2)
    >>> obs, info = env.reset(seed=0)
    >>> obs, reward, terminated, truncated, info = env.step(1)  # job 2 before job 1
    >>> env.simulation.start
    {2: 0}
    >>> while not terminated:
    ...     obs, reward, terminated, truncated, info = env.step(0)
    >>> env.simulation.start
    {2: 0, 1: 5, 3: 15}
    """

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(self, workload: Workload | Sequence[Job] | None = None, *, trace: str | PathLike[str] | None = None,
                 procs: int | None = None, policy: str = "easy", window: int = 16, n_jobs: int | None = 256,
                 profile_steps: int = 8, reward: str = "bsld", time_scale: float = _HOUR) -> None:
        if workload is not None and trace is not None:
            raise InvalidInput("QueuePick: give a workload or a trace, not both")
        if trace is not None:
            path = Path(trace)
            workload = (read_gwf if path.name.removesuffix(".gz").endswith(".gwf") else read_swf)(path)
        if isinstance(workload, Workload):
            procs = procs if procs is not None else workload.max_procs
            workload = workload.jobs
        if workload is None:
            procs = 256 if procs is None else procs
        if procs is None:
            raise InvalidInput("QueuePick: no machine size: pass procs (the workload declares none)")
        for name, value in (("procs", procs), ("window", window), ("profile_steps", profile_steps)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise InvalidInput(f"QueuePick: {name} must be a positive int, got {value!r}")
        if n_jobs is not None and (not isinstance(n_jobs, int) or isinstance(n_jobs, bool) or n_jobs < 1):
            raise InvalidInput(f"QueuePick: n_jobs must be a positive int or None, got {n_jobs!r}")
        if n_jobs is None and workload is None:
            raise InvalidInput("QueuePick: a Lublin workload needs n_jobs")
        if reward not in REWARDS:
            raise InvalidInput(f"QueuePick: reward must be one of {', '.join(REWARDS)}, got {reward!r}")
        if not time_scale > 0:
            raise InvalidInput(f"QueuePick: time_scale must be > 0 s, got {time_scale!r}")
        self.procs = procs
        self.policy = picking(resolve_policy(policy))
        self.window = window
        self.n_jobs = n_jobs
        self.profile_steps = profile_steps
        self.reward_name = reward
        self.time_scale = float(time_scale)
        self.trace: list[Job] | None = None
        if workload is not None:
            self.trace = [job for job in workload if job.procs <= procs]  # as simulate drops them
            if not self.trace:
                raise InvalidInput(f"QueuePick: no job of the workload fits {procs} processors")
        self.action_space = spaces.Discrete(window + 1)
        self._n_obs = window * len(JOB_FEATURES) + 1 + 2 * profile_steps
        self.observation_space = spaces.Box(0.0, 1.0, shape=(self._n_obs,), dtype=np.float32)
        width = len(JOB_FEATURES)
        self._padding = [[0.0] * (width * (window - n)) for n in range(window + 1)]  # zeros past the queue's end
        self._mask_rows = [[True] * n + [False] * (window - n) for n in range(window + 1)]
        self.simulation: MachineSimulation | None = None

    # ------------------------------------------------------------------ episode
    def _episode_jobs(self) -> list[Job]:
        rng = self.np_random
        if self.trace is None:
            assert self.n_jobs is not None  # checked in __init__
            return list(lublin_workload(self.n_jobs, procs=self.procs, rng=rng, estimates="tsafrir").jobs)
        if self.n_jobs is None or self.n_jobs >= len(self.trace):
            return self.trace
        first = int(rng.integers(0, len(self.trace) - self.n_jobs + 1))
        return self.trace[first:first + self.n_jobs]

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """Start a new episode (``seed``: the episode's window of the trace or Lublin workload); its first observation and info."""
        super().reset(seed=seed)
        jobs = self._episode_jobs()
        self.scheduler = self.policy(self.procs)
        self.simulation = MachineSimulation(self.scheduler, list(jobs), now=jobs[0].submit)
        self._steps = self.simulation.steps()
        self._accuracies = UserAccuracies()
        self._accuracy: dict[int, float] = {}  # the book's accuracy of each user with an ended job
        self._done = False
        self._run()  # to the first decision: the first arrival (no job has ended, so no reward)
        return self._observe(), self._info()

    def step(self, action) -> tuple[np.ndarray, float, bool, bool, dict]:
        """Apply ``action`` (class notes) and run the machine to its next decision: observation, reward, terminated, truncated, info."""
        if self._done or self.simulation is None:
            raise InvalidInput("QueuePick: step() after the episode ended; call reset()")
        a = int(action)
        if not 0 <= a <= self.window:
            raise InvalidInput(f"QueuePick: action must be in 0..{self.window}, got {action!r}")
        sim, queue = self.simulation, self.scheduler.queue
        if a == self.window and sim.next_time() is not None:
            pass  # wait: the next step is the next event's
        else:
            self.scheduler.picked = queue[a] if a < len(queue) and a < self.window else queue[0]
            sim.wake_at(sim.now)
        reward = self._run()
        return self._observe(), reward, self._done, False, self._info()

    def _run(self) -> float:
        """Step the machine to the next decision (jobs waiting, none picked) or to the end; the reward of the ends."""
        scheduler = self.scheduler
        reward = 0.0
        for _ in self._steps:
            if scheduler.ended:
                reward += self._reward_of_ends()
            if scheduler.queue and scheduler.picked is None:
                break
        else:
            self._done = True
            if scheduler.ended:
                reward += self._reward_of_ends()
        return reward

    def _reward_of_ends(self) -> float:
        ended, self.scheduler.ended = self.scheduler.ended, []
        start = self.simulation.start  # type: ignore[union-attr]  # set by reset
        record = self._accuracies.record
        total = 0.0
        kind = self.reward_name
        accuracy, known = self._accuracies.accuracy, self._accuracy
        for job, end in ended:
            record(job)
            known[job.user] = accuracy(job.user)
            if kind == "bsld":
                total += job_bounded_slowdown(job.submit, start[job.id], end, BSLD_BOUND)
            elif kind == "wait":
                total += (start[job.id] - job.submit) / _HOUR
            else:
                total += (end - job.submit) / _HOUR
        return -total

    # ------------------------------------------------------------------ views
    def _observe(self) -> np.ndarray:
        sim, scheduler = self.simulation, self.scheduler
        assert sim is not None  # set by reset
        now, procs, scale = sim.now, self.procs, self.time_scale
        accuracy, default = self._accuracy.get, self._accuracies.default_accuracy
        values: list[float] = []  # one array made at the end: cheaper than writing numpy slices
        add = values.extend
        queue = scheduler.queue[: self.window]
        for job in queue:
            wait = now - job.submit
            estimate = job.estimate
            add((1.0, job.procs / procs, estimate / (estimate + scale), wait / (wait + scale),
                 accuracy(job.user, default)))
        values += self._padding[len(queue)]
        values.append(scheduler.n_free / procs)
        steps = scheduler.profile.steps()
        last = steps[0][1]
        for i in range(1, self.profile_steps + 1):
            if i < len(steps):
                t, last = steps[i]
                dt = t - now
                add((dt / (dt + scale), last / procs))
            else:
                add((1.0, last / procs))
        return np.array(values, dtype=np.float32)

    def _info(self) -> dict:
        sim, queue = self.simulation, self.scheduler.queue
        assert sim is not None  # set by reset
        n = min(len(queue), self.window)
        mask = np.array(self._mask_rows[n] + [not self._done and sim.next_time() is not None])
        return {"time": sim.now, "queued": len(queue), "action_mask": mask}

    def action_masks(self) -> np.ndarray:
        """The actions that do what they say now (``info["action_mask"]``): the hook of maskable agents (sb3-contrib)."""
        return self._info()["action_mask"]
