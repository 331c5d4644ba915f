"""`checked_jobs` (the trace readers' trusted path) builds the jobs `Job(...)` builds."""

from dataclasses import fields

from hypothesis import given
from hypothesis import strategies as st

from gridmarket.job import Job, checked_jobs

_ROW = st.tuples(
    st.integers(0, 10**9), st.integers(0, 10**9), st.integers(1, 10**5), st.integers(1, 10**7),
    st.integers(1, 10**7), st.integers(-1, 10**4), st.integers(-1, 10**4), st.none() | st.text(max_size=5),
)


@given(st.lists(_ROW, max_size=20))
def test_checked_jobs_equal_the_checked_constructor(rows):
    columns = [list(c) for c in zip(*rows)] or [[] for _ in range(8)]
    built = checked_jobs(*columns)
    expected = tuple(Job(*row) for row in rows)
    assert built == expected
    # every field is set and the same (== compares them all; repr reads each slot)
    assert [repr(j) for j in built] == [repr(j) for j in expected]
    assert [hash(j) for j in built] == [hash(j) for j in expected]


def test_checked_jobs_set_every_field_of_job():
    # a field added to Job must be set here too: reading an unset slot raises AttributeError
    (job,) = checked_jobs([1], [0], [2], [10], [20], [3], [4])
    assert {f.name: getattr(job, f.name) for f in fields(Job)} == {
        "id": 1, "submit": 0, "procs": 2, "runtime": 10, "estimate": 20, "user": 3, "group": 4,
        "site": None, "power_watts": None, "data_bytes": None,
    }


def test_sites_default_to_none_and_are_taken_per_row():
    jobs = checked_jobs([1, 2], [0, 5], [1, 1], [1, 1], [1, 1], [-1, -1], [-1, -1], ["a", None])
    assert [j.site for j in jobs] == ["a", None]
    assert [j.site for j in checked_jobs([1], [0], [1], [1], [1], [-1], [-1])] == [None]
