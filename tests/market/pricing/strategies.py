"""Hypothesis strategies for the pricing tests: small provider states, from scratch or from a live scheduler."""

from hypothesis import strategies as st

from gridmarket.job import Job
from gridmarket.pricing.state import ProviderState, RunningJob
from gridmarket.reservation import Reservation
from gridmarket.scheduling import make_scheduler
from gridmarket.scheduling.profile import Profile
from gridmarket.simulation import MachineSimulation


@st.composite
def provider_states(draw, max_procs=10, max_queue=8, max_running=4, max_reservations=2):
    """A consistent ProviderState: running jobs and reservations fit the machine at every instant."""
    procs = draw(st.integers(1, max_procs))
    now = draw(st.integers(0, 50))
    held = Profile(procs, now)
    running = []
    for i in range(draw(st.integers(0, max_running))):
        n = draw(st.integers(1, procs))
        end = now + draw(st.integers(1, 120))
        if held.min_free(now, end - now) >= n:
            held.reserve(now, end - now, n)
            running.append(RunningJob(100 + i, n, max(0, now - draw(st.integers(0, 30))), end))
    reservations = []
    for i in range(draw(st.integers(0, max_reservations))):
        start = now + draw(st.integers(0, 150))
        duration = draw(st.integers(1, 90))
        n = draw(st.integers(1, procs))
        if held.min_free(start, duration) >= n:
            held.reserve(start, duration, n)
            reservations.append(Reservation(f"r{i}", start, n, duration))
    queue = tuple(
        Job(i, now - draw(st.integers(0, 5)) if now >= 5 else now, draw(st.integers(1, procs)), 1,
            draw(st.integers(1, 100)))
        for i in range(draw(st.integers(0, max_queue)))
    )
    queue = tuple(sorted(queue, key=lambda j: (j.submit, j.id)))
    return ProviderState(now, procs, tuple(running), queue, tuple(reservations))


@st.composite
def slot_requests(draw, state, horizon=400):
    """(start, procs, duration) of a well-formed request on ``state``'s machine."""
    return (
        state.now + draw(st.integers(0, horizon)),
        draw(st.integers(1, state.procs)),
        draw(st.integers(1, 150)),
    )


@st.composite
def live_schedulers(draw, policy, max_jobs=25, max_procs=10):
    """A scheduler of ``policy`` stopped mid-run (some jobs ran, some ended early, some wait), and now."""
    procs = draw(st.integers(1, max_procs))
    n = draw(st.integers(1, max_jobs))
    jobs, t = [], 0
    for i in range(n):
        t += draw(st.integers(0, 30))
        estimate = draw(st.integers(1, 120))
        runtime = draw(st.one_of(st.just(estimate), st.integers(1, estimate)))
        jobs.append(Job(i, t, draw(st.integers(1, procs)), runtime, estimate))
    scheduler = make_scheduler(policy, procs)
    sim = MachineSimulation(scheduler, jobs)
    now = draw(st.integers(0, t + 10))
    sim.run_until(now)
    return scheduler, now
