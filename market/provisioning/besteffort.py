"""Best-effort just-in-time execution of a workflow: the baseline provisioning is compared with.

Singh 2008, ch. 4.7 ("Executing an application using the best effort
scheduling was done by simulating a just in time scheduling policy"): tasks
are ranked by HEFT upward rank (eq. 7) and each is submitted to a resource
queue, in rank order, when all its parents have finished; the makespan is the
time from the first submission to the last finish; the allocation cost is
``Σ runtime × processors`` (eq. 16), what a best-effort user pays. With
several resources (ch. 4.9) a ready task goes to the one with the fewest
tasks running and queued. Tasks request their actual runtime (ch. 4.7).

Times are integer seconds from simulation start; costs are SU.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

import networkx as nx

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.provisioning.advertised import SECONDS_PER_HOUR
from gridmarket.provisioning.schedule import Placement
from gridmarket.simulation import MachineSimulation
from gridmarket.workflows.dag import Network, runtime_on, validate_workflow
from gridmarket.workflows.rank import rank_order, upward_rank

__all__ = ["BestEffortRun", "best_effort_cost", "run_best_effort", "submit_job"]


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
    Site choice (ch. 4.9): when a task becomes ready, the site with the
    fewest tasks queued and running that can run it; ties go to the first
    site. The task is then submitted there once its parents' data has
    arrived. Virtual (zero-runtime) tasks finish as soon as they are ready.

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
    validate_workflow(workflow)
    if not sites:
        raise InvalidInput("best effort needs at least one site")
    names = list(sites)
    for name, sim in sites.items():
        if release < sim.now:
            raise InvalidInput(f"release {release} is before site {name!r}'s clock {sim.now}")
    if order is None:
        order = rank_order(workflow, upward_rank(workflow, resources=names, network=network))
    order = list(order)
    rank_pos = {t: i for i, t in enumerate(order)}
    virtual = set()
    able: dict[Hashable, list[Hashable]] = {}
    for t in order:
        runtimes = [runtime_on(workflow, t, r) for r in names]
        if all(rt == 0 for rt in runtimes if rt is not None) and any(rt == 0 for rt in runtimes):
            virtual.add(t)
            continue
        procs = workflow.nodes[t]["procs"]
        able[t] = [r for r, rt in zip(names, runtimes) if rt and procs <= sites[r].scheduler.procs]
        if not able[t]:
            biggest = max(sites[r].scheduler.procs for r in names)
            raise InvalidInput(
                f"task {t!r} ({procs} processors) can run on no site (largest machine: {biggest} processors)"
            )
    if first_id is None:
        first_id = 1 + max((j.id for s in sites.values() for j in s.jobs), default=0)

    waiting = {t: workflow.in_degree(t) for t in order}
    finish: dict[Hashable, int] = {}
    site_of: dict[Hashable, Hashable | None] = {}
    submitted: dict[Hashable, int] = {}
    job_ids: dict[Hashable, int] = {}
    running: dict[Hashable, dict[int, Hashable]] = {r: {} for r in names}  # site -> job id -> task
    placements: dict[Hashable, Placement] = {}
    jobs_of: dict[Hashable, Job] = {}

    def load(site: Hashable) -> int:
        # tasks queued and running there, plus workflow jobs handed over whose submit time is ahead
        sched, now = sites[site].scheduler, sites[site].now
        ahead = sum(1 for t in running[site].values() if submitted[t] > now)
        return len(sched.queue) + len(sched.running) + ahead

    def ready(tasks: list[Hashable], now: int) -> None:
        """Submit (or finish, if virtual) every task in ``tasks``, in rank order."""
        for t in sorted(tasks, key=rank_pos.__getitem__):
            parents = list(workflow.predecessors(t))
            if t in virtual:
                at = max([finish[p] for p in parents], default=release)
                finish[t], site_of[t] = at, None
                placements[t] = Placement(t, None, at, at, 0)
                ready(_release_children(t), at)
                continue
            site = min(able[t], key=lambda r: (load(r), names.index(r)))
            at = now
            for p in parents:
                lag = 0
                if network is not None and site_of[p] is not None:
                    lag = network.transfer(workflow.edges[p, t].get("data_bytes", 0), site_of[p], site)
                at = max(at, finish[p] + lag)
            runtime = runtime_on(workflow, t, site)
            jid = first_id + rank_pos[t]
            job = Job(jid, at, workflow.nodes[t]["procs"], runtime, runtime)  # type: ignore[arg-type]  # site able: a runtime
            submit_job(sites[site], job)
            submitted[t], site_of[t], job_ids[t], jobs_of[t] = at, site, jid, job
            running[site][jid] = t

    def _release_children(t: Hashable) -> list[Hashable]:
        out = []
        for c in workflow.successors(t):
            waiting[c] -= 1
            if waiting[c] == 0:
                out.append(c)
        return out

    for r in names:  # the queues as they stand at the release, for the site choice
        sites[r].run_until(release)
    ready([t for t in order if waiting[t] == 0], release)
    left = len(order) - len(finish)
    while left:
        times = [t for t in (sites[r].next_time() for r in names) if t is not None]
        if not times:
            stuck = [t for t in order if t not in finish][:5]
            raise RuntimeError(f"best effort stalled with tasks unfinished, e.g. {stuck}")
        now = min(times)
        for r in names:
            sites[r].run_until(now)
        done = []
        for r in names:
            ends = sites[r].end
            for jid in [j for j in running[r] if j in ends]:
                t = running[r].pop(jid)
                finish[t] = ends[jid]
                placements[t] = Placement(t, r, sites[r].start[jid], ends[jid], jobs_of[t].procs)
                done.append(t)
        newly: list[Hashable] = []
        for t in sorted(done, key=rank_pos.__getitem__):
            newly.extend(_release_children(t))
        if newly:
            ready(newly, now)
        left = len(order) - len(finish)
    first = min(submitted.values(), default=release)
    last = max(finish.values())
    cost = sum(jobs_of[t].procs * jobs_of[t].runtime for t in jobs_of) / SECONDS_PER_HOUR
    ordered = {t: placements[t] for t in order}
    return BestEffortRun(ordered, submitted, last - first, cost, job_ids)
