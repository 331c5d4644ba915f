"""singh-pricing's two set-up readings (Singh 2008, ch. 5.3): where Figs. 25-26's duplicated jobs land, and
what Figs. 30-31's reservations ask for. Hand-checkable cases; the reproduction's runs are in
test_reproductions.py."""

import inspect

import pytest

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.scenarios.reproductions.singh import _raised_window, singh_pricing
from gridmarket.workloads.workload import Workload

DAY = 86400


def _trace():
    # three jobs: days 1, 8 and 9 of a trace; 1 processor for a day each on a 4-processor machine
    return Workload(tuple(Job(i, submit=d * DAY, procs=1, runtime=DAY, estimate=DAY) for i, d in
                          ((1, 1), (2, 8), (3, 9))))


def test_the_default_copy_lands_a_week_earlier_so_the_window_start_gets_copies():
    w = _trace()
    window, p = _raised_window(w, list(w.jobs), 4, 14 * DAY, raise_by=10.0, draw=1)
    # the copy of the day-8 job lands on day 1, of the day-9 job on day 2; the day-1 job's copy would
    # precede the trace and is dropped. A week-later copy would put copies on days 8, 15 and 16 instead
    assert p == 1.0
    assert [(j.id, j.submit // DAY) for j in window] == [(1, 1), (5, 1), (6, 2), (2, 8), (3, 9)]


def test_the_week_later_reading_stays_available_by_name():
    w = _trace()
    window, p = _raised_window(w, list(w.jobs), 4, 14 * DAY, raise_by=10.0, draw=1, copy="week-later")
    assert [(j.id, j.submit // DAY) for j in window] == [(1, 1), (2, 8), (4, 8), (3, 9)]
    with pytest.raises(InvalidInput, match="copy must be one of"):
        _raised_window(w, list(w.jobs), 4, 14 * DAY, raise_by=0.2, draw=1, copy="week-sooner")


def test_p_is_set_from_the_measured_loads_of_the_window():
    w = _trace()
    # own load: 2 job-days inside 14 days on 4 processors (the day-1 and day-8 jobs end inside; the day-9 too)
    # = 3 / 56; the whole copy adds the day-1 and day-2 copies: 2 / 56; +20 % of own = 0.6 / 56 -> p = 0.3
    window, p = _raised_window(w, list(w.jobs), 4, 14 * DAY, raise_by=0.2, draw=1)
    assert p == 0.3


def test_defaults_are_the_readings_chosen_from_the_text():
    params = inspect.signature(singh_pricing).parameters
    assert params["copy"].default == "week-earlier" and params["slot_estimates"].default == "exact"
