"""The compiled kernel against the pure-Python reference: same answers, same state, same errors.

``gridmarket.scheduling.profile.Profile`` is the Cython build of ``_cprofile.pyx``
when it was built; every operation sequence here runs on both and must leave
identical steps and return identical values (or raise the same error).
Whole simulations of every policy run under ``GRIDMARKET_KERNEL=reference``
and the compiled default in subprocesses and must give the same rows.
"""

import inspect
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridmarket import kernel
from gridmarket.errors import MarketError
from gridmarket.job import Job
from gridmarket.scheduling.profile import (
    AvailabilityProfile,
    ReferenceProfile,
    ReferenceQueuePlan,
    reference_backfill_by_counting,
    reference_shadow_by_counting,
    reference_split_due,
)

ROOT = Path(__file__).resolve().parents[3]

compiled = pytest.importorskip("gridmarket.scheduling._cprofile", reason="the compiled kernel is not built here")



@pytest.mark.parametrize("cls", [ReferenceProfile, compiled.Profile], ids=["reference", "compiled"])
def test_both_profiles_are_availability_profiles_with_the_protocols_parameters(cls):
    # type checkers see the compiled class only through the protocol, so this is where it is held to it
    assert isinstance(cls(4, origin=5), AvailabilityProfile)
    assert cls(4, origin=5).steps() == [(5, 4)]
    for name in sorted(AvailabilityProfile.__protocol_attrs__ - {"__init__", "procs", "times", "free"}):
        wanted = list(inspect.signature(getattr(AvailabilityProfile, name)).parameters)
        assert list(inspect.signature(getattr(cls, name)).parameters) == wanted, name


PROCS = 8
times = st.integers(0, 300)
durations = st.integers(-2, 80)  # zero and negative durations must fail the same way
widths = st.integers(0, PROCS + 2)  # wider than the machine must fail the same way
operation = st.one_of(
    st.tuples(st.just("reserve"), times, durations, widths),
    st.tuples(st.just("release"), times, durations, widths),
    st.tuples(st.just("earliest_start"), widths, st.integers(1, 80), st.one_of(st.none(), times)),
    st.tuples(st.just("earliest_move"), widths, st.integers(1, 80), times, times),
    st.tuples(st.just("min_free"), times, st.integers(1, 80)),
    st.tuples(st.just("max_free"), times, st.integers(1, 80)),
    st.tuples(st.just("free_at"), times),
    st.tuples(st.just("running_min"), times),
    st.tuples(st.just("advance"), times),
    st.tuples(st.just("copy")),
)


def _apply(profile, op):
    name, *args = op
    if name == "copy":
        other = profile.copy()
        assert type(other) is type(profile) and other is not profile
        return other.steps()
    if name == "earliest_move":
        procs, duration, after, current = args
        if current < profile.times[0]:
            return None  # a block planned in the forgotten past: not a question the schedulers ask
        args = [procs, duration, min(after, current), current]
    if name in ("reserve", "release", "min_free", "max_free") and args[0] < profile.times[0]:
        args = [profile.times[0], *args[1:]]  # the past is forgotten after advance
    try:
        return getattr(profile, name)(*args)
    except (MarketError, IndexError) as exc:  # IndexError: a block wider than the machine
        return type(exc).__name__, str(exc)


@given(st.lists(operation, max_size=40))
@settings(max_examples=300)
def test_compiled_profile_matches_reference_on_every_operation(ops):
    ref, fast = ReferenceProfile(PROCS), compiled.Profile(PROCS)
    for op in ops:
        assert _apply(fast, op) == _apply(ref, op), op
        assert fast.steps() == ref.steps(), op


blocks = st.lists(st.tuples(st.integers(1, PROCS), st.integers(1, 60)), max_size=12)


class _Job:
    def __init__(self, i, procs, estimate):
        self.id, self.procs, self.estimate = i, procs, estimate


def _compress_and_split(cls, split, running, queue, now):
    """Running blocks from 0, a conservative plan of ``queue``; the blocks end at ``now``; compress."""
    p, planned = cls(PROCS), {}
    held = [(n, d) for n, d in running if p.min_free(0, d) >= n and p.reserve(0, d, n) == 0]
    for job in queue:
        planned[job.id] = p.reserve(p.earliest_start(job.procs, job.estimate, 0), job.estimate, job.procs)
    for n, d in held:
        if d > now:
            p.release(now, d - now, n)
    waiting = [job for job in queue if planned[job.id] >= now]  # the others have started
    p.advance(now)
    first = p.compress(waiting, planned, now)
    assert first == min((planned[j.id] for j in waiting), default=None)
    due, rest, after = split(waiting, planned, now)
    assert after == min((planned[j.id] for j in rest), default=None)
    return p.steps(), planned, [j.id for j in due], [j.id for j in rest], first, after


@given(blocks, blocks, st.integers(0, 90))
@settings(max_examples=300)
def test_compiled_compression_and_due_split_match_reference(running, jobs, now):
    queue = [_Job(i, n, d) for i, (n, d) in enumerate(jobs)]
    ref = _compress_and_split(ReferenceProfile, reference_split_due, running, queue, now)
    fast = _compress_and_split(compiled.Profile, compiled.split_due, running, queue, now)
    assert fast == ref


def _conservative_day(profile_cls, plan, running, events):
    """A conservative plan driven by ``events`` through ``plan`` (a QueuePlan or its reference).

    ``running``: blocks held from 0 to their estimates. Each event is
    ``(dt, kind, a, b)`` after ``dt`` seconds: ``"end"`` ends running block
    ``a`` now if it is still running (an early end compresses the plan);
    ``"arrive"`` queues a job of ``a`` processors and ``b`` seconds at its
    earliest start. After each event the jobs due now start (a pass).
    Returns every step of the plan, every start and every wake-up seen.
    """
    p, planned, queue, now, seen = profile_cls(PROCS), {}, [], 0, []
    held = {}
    for k, (n, d) in enumerate(running):
        if p.min_free(0, d) >= n:
            held[k] = (n, p.reserve(0, d, n) + d)
    started = {}
    for i, (dt, kind, a, b) in enumerate(events):
        now += dt
        p.advance(now)
        for k, (_, end) in list(held.items()):
            if end <= now:
                del held[k]
        if kind == "end" and a in held:
            n, end = held.pop(a)
            p.release(now, end - now, n)
            seen.append(("first", plan.compress(p, queue, planned, now)))
        elif kind == "arrive":
            job = _Job(i, a, b)
            queue.append(job)
            planned[job.id] = p.reserve(p.earliest_start(a, b, now), b, a)
            plan.append(job, planned[job.id])
        due, queue, first = plan.split_due(queue, planned, now)
        for job in due:
            held[("job", job.id)] = (job.procs, now + job.estimate)
            started[job.id] = now
        seen.append((p.steps(), dict(planned), sorted(started.items()), first))
    return seen


event = st.one_of(
    st.tuples(st.integers(0, 15), st.just("end"), st.integers(0, 11), st.just(0)),
    st.tuples(st.integers(0, 15), st.just("arrive"), st.integers(1, PROCS), st.integers(1, 60)),
)


@given(blocks, st.lists(event, max_size=40))
@settings(max_examples=300, deadline=None)
def test_compiled_queue_plan_matches_reference_over_a_day_of_early_ends(running, events):
    ref = _conservative_day(ReferenceProfile, ReferenceQueuePlan(), running, events)
    assert _conservative_day(compiled.Profile, compiled.QueuePlan(), running, events) == ref


def test_queue_plan_refuses_a_queue_it_does_not_mirror_and_survives_pickling():
    import pickle

    plan, p = compiled.QueuePlan(), compiled.Profile(PROCS)
    jobs = [_Job(1, 2, 10), _Job(2, 3, 5)]
    planned = {1: p.reserve(0, 10, 2), 2: p.reserve(0, 5, 3)}
    plan.load(jobs, planned)
    copy = pickle.loads(pickle.dumps(plan))
    assert copy.entries() == plan.entries() == [(2, 10, 0), (3, 5, 0)]
    with pytest.raises(RuntimeError, match="the queue has 1 jobs, the plan mirrors 2"):
        plan.split_due(jobs[:1], planned, 0)
    due, rest, first = copy.split_due(jobs, planned, 0)
    assert [j.id for j in due] == [1, 2] and rest == [] and first is None and len(copy) == 0


def _replan(cls, held, queue, now):
    """Held blocks (running jobs, reservations) from 0, then the queue planned around them from ``now``."""
    p, planned = cls(PROCS), {}
    for n, d in held:
        if p.min_free(0, d) >= n:
            p.reserve(0, d, n)
    p.advance(now)
    first = p.replan(queue, planned, now)
    return p.steps(), list(planned.items()), first


@given(blocks, blocks, st.integers(0, 90))
@settings(max_examples=300)
def test_compiled_queue_replan_matches_reference(held, jobs, now):
    queue = [_Job(i, n, d) for i, (n, d) in enumerate(jobs)]
    ref = _replan(ReferenceProfile, held, queue, now)
    assert _replan(compiled.Profile, held, queue, now) == ref
    assert ref[2] == min((t for _, t in ref[1]), default=None)


def _release_jobs(cls, jobs, starts, now):
    """A plan of ``jobs`` at ``starts`` (where they fit), forgotten before ``now``, then all given back."""
    p, planned = cls(PROCS), {}
    for job, t in zip(jobs, starts):
        if p.min_free(t, job.estimate) >= job.procs:
            planned[job.id] = p.reserve(t, job.estimate, job.procs)
        else:
            planned[job.id] = t  # not in the profile: releasing it must fail the same way
    p.advance(now)
    try:
        p.release_jobs(jobs, planned)
    except (MarketError, ValueError) as exc:
        return p.steps(), type(exc).__name__, str(exc)
    return p.steps()


@given(blocks, st.lists(st.integers(0, 120), min_size=12, max_size=12), st.integers(0, 60))
@settings(max_examples=300)
def test_compiled_release_of_a_queue_matches_reference(jobs, starts, now):
    queue = [_Job(i, n, d) for i, (n, d) in enumerate(jobs)]
    assert _release_jobs(compiled.Profile, queue, starts, now) == _release_jobs(ReferenceProfile, queue, starts, now)


def _simulate(policy: str, kernel: str, tmp_path: Path) -> str:
    out = tmp_path / f"{policy}-{kernel}.csv"
    env = {**os.environ, "GRIDMARKET_KERNEL": kernel}
    subprocess.run(
        [sys.executable, "-m", "gridmarket.scenarios.commands.cli", "simulate", "--jobs", "1500", "--procs", "64", "--seed", "3",
         "--policy", policy, "--out", str(out)],
        check=True, capture_output=True, cwd=ROOT, env=env,
    )
    return out.read_text()


@given(
    st.lists(st.tuples(st.integers(1, PROCS), st.integers(1, 200)), max_size=30),
    st.integers(0, 2), st.integers(0, 100), st.integers(-1, PROCS), st.integers(-1, PROCS), st.integers(0, 300),
)
@settings(max_examples=300, deadline=None)
def test_compiled_counting_backfill_matches_reference(jobs, first, now, free_now, extra, shadow):
    queue = [Job(i, 0, procs, estimate, estimate) for i, (procs, estimate) in enumerate(jobs)]
    want = reference_backfill_by_counting(queue, first, now, free_now, extra, shadow)
    assert compiled.backfill_by_counting(queue, first, now, free_now, extra, shadow) == want
    picked, left = want
    assert all(i >= first for i in picked) and sum(queue[i].procs for i in picked) <= max(free_now, 0)


@pytest.mark.parametrize("policy", ["conservative", "easy", "fcfs", "slots", "measy"])
def test_whole_simulation_rows_equal_under_both_kernels(policy, tmp_path):
    assert _simulate(policy, "compiled", tmp_path) == _simulate(policy, "reference", tmp_path)


def test_kernel_choice_is_reported_and_a_bad_choice_is_refused():
    assert kernel.KERNEL == "compiled"
    env = {**os.environ, "GRIDMARKET_KERNEL": "fastest"}
    result = subprocess.run([sys.executable, "-c", "import gridmarket.scheduling"], capture_output=True, text=True,
                            env=env, cwd=ROOT)
    assert result.returncode != 0 and "GRIDMARKET_KERNEL: expected 'compiled' or 'reference'" in result.stderr


_queue_ops = st.lists(st.one_of(
    st.tuples(st.just("append"), st.integers(1, PROCS), st.integers(1, 200)),
    st.tuples(st.just("delete"), st.integers(0, 40), st.integers(1, 3)),
    st.tuples(st.just("prefix"), st.integers(0, 5), st.just(0)),
    st.tuples(st.just("shuffle"), st.integers(0, 2**16), st.just(0)),
    st.tuples(st.just("replace"), st.integers(0, 40), st.integers(1, PROCS)),  # a new job object at a slot
), max_size=40)


@given(_queue_ops, st.integers(0, 100), st.integers(0, PROCS), st.integers(0, PROCS), st.integers(0, 300))
@settings(max_examples=200, deadline=None)
def test_queue_keys_follow_every_change_of_the_queue(ops, now, free_now, extra, shadow):
    # EASY deletes and appends between scans; anything else (reorder, a new object in a slot) must also be seen
    import random

    keys, queue, next_id = compiled.QueueKeys(), [], 0
    for op, a, b in ops:
        if op == "append":
            queue.append(Job(next_id, 0, a, b, b))
            next_id += 1
        elif op == "delete" and queue:
            del queue[a % len(queue):a % len(queue) + b]
        elif op == "prefix":
            del queue[:a]
        elif op == "shuffle":
            random.Random(a).shuffle(queue)
        elif op == "replace" and queue:
            old = queue[a % len(queue)]
            queue[a % len(queue)] = Job(old.id, 0, b, old.estimate + 1, old.estimate + 1)
        want = reference_backfill_by_counting(queue, 1, now, free_now, extra, shadow)
        assert compiled.backfill_by_counting(queue, 1, now, free_now, extra, shadow, keys) == want
        assert keys.numbers() == [(job.procs, job.estimate) for job in queue] or free_now == 0


def test_queue_keys_hold_their_jobs_and_let_them_go():
    keys = compiled.QueueKeys()
    jobs = [Job(i, 0, 1, 10, 10) for i in range(3)]
    before = [sys.getrefcount(job) for job in jobs]
    keys.sync(jobs)
    assert [sys.getrefcount(job) for job in jobs] == [n + 1 for n in before]  # no address reused while cached
    keys.sync(jobs[1:])
    assert [sys.getrefcount(job) for job in jobs] == [before[0], before[1] + 1, before[2] + 1]
    keys.sync([])
    assert [sys.getrefcount(job) for job in jobs] == before and len(keys) == 0


def test_queue_keys_stay_consistent_when_a_job_is_malformed():
    keys = compiled.QueueKeys()
    good = [Job(i, 0, 1, 10, 10) for i in range(3)]
    keys.sync(good)
    with pytest.raises(AttributeError):
        keys.sync([good[0], object(), good[2]])
    keys.sync(good)
    assert keys.numbers() == [(1, 10)] * 3


@given(st.lists(st.tuples(st.integers(0, 200), st.integers(1, 6)), max_size=12), st.integers(0, 8),
       st.integers(1, 16), st.integers(0, 100))
@settings(max_examples=300)
def test_compiled_shadow_by_counting_matches_reference(running, free, need, now):
    ends = sorted((end, i, procs) for i, (end, procs) in enumerate(running))
    assert compiled.shadow_by_counting(ends, free, need, now) == reference_shadow_by_counting(ends, free, need, now)
