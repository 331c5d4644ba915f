"""Hypothesis strategies shared by the scheduling tests: small random workloads."""

from hypothesis import strategies as st

from gridmarket.job import Job
from gridmarket.reservation import Reservation
from gridmarket.scheduling.profile import Profile


@st.composite
def machines_and_jobs(draw, max_jobs=30, max_procs=16, exact=False):
    """(procs, jobs) with jobs sorted by (submit, id); estimates may undershoot runtimes."""
    procs = draw(st.integers(1, max_procs))
    n = draw(st.integers(1, max_jobs))
    gaps = draw(st.lists(st.integers(0, 60), min_size=n, max_size=n))
    jobs, t = [], 0
    for i, gap in enumerate(gaps):
        t += gap
        runtime = draw(st.integers(1, 200))
        estimate = runtime if exact else draw(st.one_of(st.integers(1, 400), st.just(runtime)))
        jobs.append(Job(i, t, draw(st.integers(1, procs)), runtime, estimate, user=draw(st.integers(0, 3))))
    return procs, jobs


@st.composite
def reservations_for(draw, procs, max_n=3):
    """Mutually compatible reservations on a machine of ``procs`` processors."""
    plan = Profile(procs)
    out = []
    for i in range(draw(st.integers(0, max_n))):
        start = draw(st.integers(0, 500))
        duration = draw(st.integers(1, 200))
        n = draw(st.integers(1, procs))
        if plan.min_free(start, duration) >= n:
            plan.reserve(start, duration, n)
            out.append(Reservation(f"r{i}", start, n, duration))
    return out
