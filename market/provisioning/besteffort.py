"""Best-effort just-in-time execution of a workflow: the baseline provisioning is compared with.

Singh 2008, ch. 4.7 ("Executing an application using the best effort
scheduling was done by simulating a just in time scheduling policy"): tasks
are ranked by HEFT upward rank (eq. 7) and each is submitted to a resource
queue, in rank order, when all its parents have finished; the makespan is the
time from the first submission to the last finish; the allocation cost is
``Σ runtime × processors`` (eq. 16), what a best-effort user pays. With
several resources (ch. 4.9) a ready task goes to the one with the fewest
tasks running and queued. Tasks request their actual runtime (ch. 4.7).

:class:`JustInTime` is that rule, once: which ready task is submitted to which queue and when.
:func:`run_best_effort` drives it over replayed machines (the reproductions), the agent market's
broker over its providers (``gridmarket.agents.broker``, the ``best-effort`` model of ``compare``
and the just-in-time workflows of the job markets).

Times are integer seconds from simulation start; costs are SU.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import networkx as nx

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.provisioning.advertised import SECONDS_PER_HOUR
from gridmarket.provisioning.schedule import Placement
from gridmarket.simulation import MachineSimulation
from gridmarket.workflows.dag import Network, runtime_on, validate_workflow
from gridmarket.workflows.rank import rank_order, upward_rank

__all__ = ["BestEffortRun", "JustInTime", "Submission", "best_effort_cost", "run_best_effort", "submit_job"]


@dataclass(frozen=True)
class BestEffortRun:
    """What a just-in-time best-effort execution of a workflow gave.

    Attributes
    ----------
    placements : dict
        Task -> :class:`Placement` (``resource`` is the site; no slots).
    submit : dict
        Task -> the time it was submitted to its queue.
    makespan : int
        Last finish minus first submission, seconds.
    allocation_cost : float
        Eq. 16, SU.
    job_ids : dict
        Task -> id of the job that ran it.
    """

    placements: dict[Hashable, Placement]
    submit: dict[Hashable, int]
    makespan: int
    allocation_cost: float
    job_ids: dict[Hashable, int]

    @property
    def total_wait(self) -> int:
        """Seconds the tasks spent queued, summed."""
        return sum(p.start - self.submit[t] for t, p in self.placements.items() if p.resource is not None)


Load = Callable[[Any], int]
"""``load(site) -> int``: the other jobs running and queued at ``site`` (a site name of the caller's kind)."""


@dataclass(frozen=True, slots=True)
class Submission:
    """A ready task handed to a best-effort queue: ``procs`` x ``runtime`` (seconds) submitted to ``site`` at ``at``."""

    task: Hashable
    site: Hashable
    at: int
    procs: int
    runtime: int


class JustInTime:
    """Just-in-time best-effort execution of one workflow: which ready task goes to which queue, and when.

    Singh 2008, ch. 4.7: "First rank values are assigned to each task in the application in the HEFT
    order using (7). Then tasks are sorted by rank in non-increasing order and tasks from this list are
    submitted one by one in this order to the resource queue when they become ready for execution i.e.
    all parent tasks have finished execution." Ch. 4.9, several resources: "the heuristic used for
    resource selection was to select the resource with the least number of tasks (running and queued).
    Whenever an application task became ready for execution, this heuristic was used to select the
    resource queue to which it should be submitted."

    The caller owns the machines: it hands over each :class:`Submission` and reports each task's end
    (:meth:`finished`); the object keeps the workflow's state. The same object drives replayed machines
    (:func:`run_best_effort`) and the agent market's broker, so both measure one best effort.

    Parameters
    ----------
    workflow : networkx.DiGraph
        A workflow; per-site runtimes are looked up by site name (:func:`runtime_on`).
    sites : mapping of name to int
        Each site's machine size (processors), in the order ties are broken.
    release : int
        When the entry tasks are ready (seconds).
    network : Network, optional
        Data transfer between sites: a task is submitted once every parent's data has arrived at its site.
    order : sequence, optional
        Submission order; by default non-increasing upward rank (eq. 7) over the sites.

    Raises
    ------
    InvalidInput
        No site; a task no site can run (no runtime there, or more processors than the machine).

    Notes
    -----
    *Site choice* (ch. 4.9): among the sites that can run the task (a runtime there and enough
    processors), the one where ``load(site)`` -- the other jobs running and queued there, as the
    caller sees them -- plus this workflow's tasks handed to it and not yet ended is smallest; ties go
    to the first site in ``sites``. A task only one site can run goes there without asking ``load``.
    *Submission time*: when the task is ready, or later by the data transfer from its parents' sites.
    Tasks that become ready together are submitted in rank order. Virtual (zero-runtime) tasks end as
    soon as they are ready and go nowhere.

    Examples
    --------
    Two ready tasks on two idle sites of 4 processors: the first goes to ``a`` (a tie, the first
    site), the second to ``b``, where nothing of the workflow waits yet.

    >>> g = nx.DiGraph()
    >>> g.add_node("x", procs=2, runtime=100); g.add_node("y", procs=2, runtime=50)
    >>> jit = JustInTime(g, {"a": 4, "b": 4}, release=10)
    >>> [(s.task, s.site, s.at) for s in jit.start(lambda site: 0)]
    [('x', 'a', 10), ('y', 'b', 10)]
    >>> jit.finished([("x", 110), ("y", 60)], 110, lambda site: 0), jit.done, jit.last_finish
    ([], True, 110)
    """

    def __init__(
        self,
        workflow: nx.DiGraph,
        sites: Mapping[Hashable, int],
        *,
        release: int,
        network: Network | None = None,
        order: Sequence[Hashable] | None = None,
    ) -> None:
        validate_workflow(workflow)
        if not sites:
            raise InvalidInput("best effort needs at least one site")
        self.workflow = workflow
        self.names = list(sites)
        self.release = release
        self.network = network
        if order is None:
            order = rank_order(workflow, upward_rank(workflow, resources=self.names, network=network))
        self.order = list(order)
        self._rank = {t: i for i, t in enumerate(self.order)}
        self.virtual: set[Hashable] = set()
        self.able: dict[Hashable, list[Hashable]] = {}
        for t in self.order:
            runtimes = [runtime_on(workflow, t, r) for r in self.names]
            if all(rt == 0 for rt in runtimes if rt is not None) and any(rt == 0 for rt in runtimes):
                self.virtual.add(t)
                continue
            procs = workflow.nodes[t]["procs"]
            self.able[t] = [r for r, rt in zip(self.names, runtimes) if rt and procs <= sites[r]]
            if not self.able[t]:
                biggest = max(sites.values())
                raise InvalidInput(
                    f"task {t!r} ({procs} processors) can run on no site (largest machine: {biggest} processors)"
                )
        self._waiting = {t: workflow.in_degree(t) for t in self.order}
        self.finish: dict[Hashable, int] = {}
        """Task -> when it ended (seconds)."""
        self.site_of: dict[Hashable, Hashable | None] = {}
        """Task -> the site it was submitted to (``None`` for a virtual task)."""
        self.submitted: dict[Hashable, int] = {}
        """Task -> when it was submitted (seconds)."""
        self._open = {r: 0 for r in self.names}  # tasks handed to each site and not ended

    @property
    def done(self) -> bool:
        """Whether every task has ended."""
        return len(self.finish) == len(self.order)

    @property
    def last_finish(self) -> int:
        """The latest end of any task so far (seconds; the release before any)."""
        return max(self.finish.values(), default=self.release)

    def start(self, load: Load) -> list[Submission]:
        """The entry tasks, ready at the release, each with its site (see the class notes for ``load``)."""
        return self._ready([t for t in self.order if self._waiting[t] == 0], self.release, load)

    def finished(self, ended: Sequence[tuple[Hashable, int]], now: int,
                 load: Load) -> list[Submission]:
        """Record ``(task, end)`` pairs known at ``now``; submit the tasks they make ready, in rank order.

        Raises ``InvalidInput`` for a task that was never submitted or has ended already.
        """
        newly: list[Hashable] = []
        for task, t in sorted(ended, key=lambda e: self._rank.get(e[0], -1)):
            if task not in self.submitted or task in self.finish:
                raise InvalidInput(f"best effort: task {task!r} ends at {t} but is not running")
            self.finish[task] = t
            self._open[self.site_of[task]] -= 1
            newly.extend(self._release_children(task))
        return self._ready(newly, now, load)

    def _release_children(self, task: Hashable) -> list[Hashable]:
        out = []
        for c in self.workflow.successors(task):
            self._waiting[c] -= 1
            if self._waiting[c] == 0:
                out.append(c)
        return out

    def _site(self, task: Hashable, load: Load) -> Hashable:
        able = self.able[task]
        if len(able) == 1:
            return able[0]
        return min(able, key=lambda r: (load(r) + self._open[r], self.names.index(r)))

    def _ready(self, tasks: list[Hashable], now: int, load: Load) -> list[Submission]:
        out: list[Submission] = []
        g = self.workflow
        for t in sorted(tasks, key=self._rank.__getitem__):
            parents = list(g.predecessors(t))
            if t in self.virtual:
                at = max([self.finish[p] for p in parents], default=self.release)
                self.finish[t], self.site_of[t] = at, None
                out.extend(self._ready(self._release_children(t), at, load))
                continue
            site = self._site(t, load)
            at = now
            for p in parents:
                lag = 0
                if self.network is not None and self.site_of[p] is not None:
                    lag = self.network.transfer(g.edges[p, t].get("data_bytes", 0), self.site_of[p], site)
                at = max(at, self.finish[p] + lag)
            runtime = runtime_on(g, t, site)
            self.submitted[t], self.site_of[t] = at, site
            self._open[site] += 1
            out.append(Submission(t, site, at, g.nodes[t]["procs"], runtime))  # type: ignore[arg-type]  # able: a runtime
        return out


def best_effort_cost(workflow: nx.DiGraph, resource: Hashable | None = None) -> float:
    """Eq. 16: ``Σ runtime × processors`` over the tasks, in SU (virtual tasks cost nothing).

    >>> g = nx.DiGraph([("a", "b")])
    >>> g.add_node("a", procs=4, runtime=1800); g.add_node("b", procs=1, runtime=3600)
    >>> best_effort_cost(g)
    3.0
    """
    total = 0
    for t, attrs in workflow.nodes(data=True):
        rt = runtime_on(workflow, t, resource) if resource is not None else attrs["runtime"]
        if isinstance(rt, Mapping):
            raise InvalidInput(f"task {t!r} has per-resource runtimes: name the resource")
        if rt:
            total += rt * attrs["procs"]
    return total / SECONDS_PER_HOUR


def submit_job(sim: MachineSimulation, job: Job) -> None:
    """Add ``job`` to ``sim``'s arrivals so that it is submitted at ``job.submit``.

    The simulator reads arrivals in order from ``sim.jobs``; every arrival up
    to ``sim.now`` has been read, so a job submitted at ``sim.now`` or later
    inserted after every arrival at or before its submit time is read at its
    time, after those already there (at ``sim.now`` itself the simulator then
    makes one more scheduling pass at that instant).

    Raises
    ------
    InvalidInput
        ``job.submit`` is before the simulation's clock.
    """
    if job.submit < sim.now:
        raise InvalidInput(f"job {job.id} submits at {job.submit}, before the simulation clock {sim.now}")
    if callable(getattr(sim, "submit", None)):  # the simulator's own arrival hook, where it has one
        sim.submit(job)
        return
    jobs = sim.jobs
    if not isinstance(jobs, list):
        sim.jobs = jobs = list(jobs)
    jobs.insert(bisect_right(jobs, job.submit, key=lambda j: j.submit), job)


def run_best_effort(
    workflow: nx.DiGraph,
    sites: Mapping[Hashable, MachineSimulation],
    *,
    release: int,
    network: Network | None = None,
    order: Sequence[Hashable] | None = None,
    first_id: int | None = None,
) -> BestEffortRun:
    """Run ``workflow`` just in time on the best-effort queues of ``sites``; advances the simulations.

    Parameters
    ----------
    workflow : networkx.DiGraph
        A workflow; per-resource runtimes are looked up by site name.
    sites : mapping of name to MachineSimulation
        Each site's machine, replaying its background workload; the
        simulations are advanced until the workflow ends (they are the
        caller's: pass fresh ones to keep the originals).
    release : int
        When the entry tasks are submitted (seconds), not before any site's clock.
    network : Network, optional
        Data transfer between sites: a child is submitted when the data of
        every parent has arrived at its site.
    order : sequence, optional
        Submission order; by default non-increasing upward rank (eq. 7) over
        the sites.
    first_id : int, optional
        Id of the first workflow job (others follow in order); by default one
        past the largest id of any site's workload.

    Returns
    -------
    BestEffortRun

    Raises
    ------
    InvalidInput
        No site; a task no site can run (unknown runtime, more processors
        than the machine); ``release`` before a site's clock.

    Notes
    -----
    Which task goes to which queue and when is :class:`JustInTime` (ch. 4.7, 4.9): when a task
    becomes ready, the site with the fewest tasks queued and running that can run it -- the site's
    own jobs as its scheduler holds them, plus the workflow's tasks handed to it and not ended --
    ties to the first site; the task is submitted there once its parents' data has arrived.
    Virtual (zero-runtime) tasks finish as soon as they are ready.

    Examples
    --------
    An idle 4-processor machine runs the chain a (2 procs, 100 s) -> b (4 procs, 50 s):

    >>> from gridmarket.scheduling import make_scheduler
    >>> g = nx.DiGraph([("a", "b")])
    >>> g.add_node("a", procs=2, runtime=100); g.add_node("b", procs=4, runtime=50)
    >>> sim = MachineSimulation(make_scheduler("conservative", 4), [])
    >>> run = run_best_effort(g, {"m": sim}, release=10)
    >>> run.makespan, [(t, p.start, p.end) for t, p in run.placements.items()]
    (150, [('a', 10, 110), ('b', 110, 160)])
    """
    if not sites:
        raise InvalidInput("best effort needs at least one site")
    names = list(sites)
    for name, sim in sites.items():
        if release < sim.now:
            raise InvalidInput(f"release {release} is before site {name!r}'s clock {sim.now}")
    jit = JustInTime(workflow, {r: sites[r].scheduler.procs for r in names}, release=release, network=network,
                     order=order)
    if first_id is None:
        first_id = 1 + max((j.id for s in sites.values() for j in s.jobs), default=0)
    rank_pos = {t: i for i, t in enumerate(jit.order)}
    job_ids: dict[Hashable, int] = {}
    running: dict[Hashable, dict[int, Hashable]] = {r: {} for r in names}  # site -> job id -> task
    placements: dict[Hashable, Placement] = {}
    jobs_of: dict[Hashable, Job] = {}

    def load(site: Hashable) -> int:
        # the site's other jobs queued and running; the workflow's own are counted by JustInTime
        sched, own = sites[site].scheduler, running[site]
        return (sum(1 for j in sched.queue if j.id not in own)
                + sum(1 for jid in sched.running if jid not in own))

    def hand_over(submissions: list[Submission]) -> None:
        for sub in submissions:
            jid = first_id + rank_pos[sub.task]
            job = Job(jid, sub.at, sub.procs, sub.runtime, sub.runtime)
            submit_job(sites[sub.site], job)
            job_ids[sub.task], jobs_of[sub.task] = jid, job
            running[sub.site][jid] = sub.task

    for r in names:  # the queues as they stand at the release, for the site choice
        sites[r].run_until(release)
    hand_over(jit.start(load))
    while not jit.done:
        times = [t for t in (sites[r].next_time() for r in names) if t is not None]
        if not times:
            stuck = [t for t in jit.order if t not in jit.finish][:5]
            raise RuntimeError(f"best effort stalled with tasks unfinished, e.g. {stuck}")
        now = min(times)
        for r in names:
            sites[r].run_until(now)
        ended = []
        for r in names:
            ends = sites[r].end
            for jid in [j for j in running[r] if j in ends]:
                t = running[r].pop(jid)
                placements[t] = Placement(t, r, sites[r].start[jid], ends[jid], jobs_of[t].procs)
                ended.append((t, ends[jid]))
        if ended:
            hand_over(jit.finished(ended, now, load))
    for t in jit.virtual:
        at = jit.finish[t]
        placements[t] = Placement(t, None, at, at, 0)
    submitted = jit.submitted
    first = min(submitted.values(), default=release)
    last = jit.last_finish
    cost = sum(jobs_of[t].procs * jobs_of[t].runtime for t in jobs_of) / SECONDS_PER_HOUR
    ordered = {t: placements[t] for t in jit.order}
    return BestEffortRun(ordered, submitted, last - first, cost, job_ids)
