"""The table of limits and its checks: every bound holds its reason, and a value past one is refused in one line."""

import math

import pandas as pd
import pytest

import gridmarket.validation as validation
from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.limits import BYTES_PER_JOB, KERNEL_INT_LIMIT, LIMITS, SECONDS_LIMIT
from gridmarket.metrics import summarize
from gridmarket.pricing.state import ProviderState, RunningJob, state_from_dict
from gridmarket.reservation import Reservation
from gridmarket.validation import check_fits_memory, check_number

INT64_MAX = 2**63 - 1


def test_times_a_queue_of_them_and_a_job_s_processor_seconds_fit_the_kernels():
    jobs, procs = LIMITS["jobs"].high, LIMITS["processors"].high
    assert SECONDS_LIMIT + jobs * SECONDS_LIMIT < KERNEL_INT_LIMIT  # an instant plus a whole queue run in a row
    assert LIMITS["instant"].high + jobs * SECONDS_LIMIT < KERNEL_INT_LIMIT  # the same from a run's own instant
    assert procs * SECONDS_LIMIT < INT64_MAX  # one job's processor-seconds
    assert SECONDS_LIMIT < 2**53  # every time exact in float64


def test_every_limit_says_why_and_has_ordered_bounds():
    for limit in LIMITS.values():
        assert limit.reason and limit.low <= limit.high, limit
        assert not limit.integer or (isinstance(limit.low, int) and isinstance(limit.high, int)), limit


@pytest.mark.parametrize("value, quantity, message", [
    (2**63, "seconds", "--x must be an int in [0, 3155760000] s (a century"),
    (SECONDS_LIMIT + 1, "seconds", "got 3155760001"),
    (-1, "seconds", "--x must be an int in [0, 3155760000] s, got -1"),
    (1.5, "seconds", "--x must be an int in [0, 3155760000] s, got float 1.5"),
    (True, "processors", "--x must be an int in [1, 16777216] processors, got bool True"),
    ("7", "jobs", "got str '7'"),
    (math.nan, "fraction", "--x must be a number in [0.0, 1.0], got nan"),
    (math.inf, "unit cost", "got inf"),
    (-math.inf, "watts", "got -inf"),
    (1e300, "price per MWh", "--x must be a number in [-1000000.0, 1000000.0] currency per MWh (far beyond"),
])
def test_values_out_of_bounds_are_refused_naming_field_bounds_and_unit(value, quantity, message):
    with pytest.raises(InvalidInput, match="^--x ") as err:
        check_number("--x", value, quantity)
    assert message in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("value, quantity", [(0, "seconds"), (SECONDS_LIMIT, "seconds"), (2**24, "processors"),
                                             (1, "fraction"), (0.0, "fraction"), (INT64_MAX, "seed")])
def test_values_at_the_bounds_are_kept(value, quantity):
    assert check_number("x", value, quantity) == value


def test_a_request_larger_than_memory_is_refused_with_the_largest_that_fits(monkeypatch):
    monkeypatch.setattr(validation, "physical_memory", lambda: 1000 * BYTES_PER_JOB)
    assert check_fits_memory("--jobs", 1000) == 1000
    with pytest.raises(InvalidInput, match=r"^--jobs: 1001 jobs need about .* this machine has .*, room for at most "
                                           r"1000 jobs$"):
        check_fits_memory("--jobs", 1001)


def test_unknown_memory_refuses_nothing(monkeypatch):
    monkeypatch.setattr(validation, "physical_memory", lambda: None)
    assert check_fits_memory("--jobs", 10**8) == 10**8


@pytest.mark.parametrize("fields, message", [
    ({"runtime": SECONDS_LIMIT + 1}, "job 1: runtime must be an int in [0, 3155760000] s"),
    ({"estimate": 2**62}, "job 1: estimate must be an int in [0, 3155760000] s"),
    ({"submit": 2**63 - 1}, "job 1: submit must be an int in [0, 9007199254740992] s"),
    ({"procs": 2**24 + 1}, "job 1: procs must be an int in [1, 16777216] processors"),
])
def test_jobs_past_the_kernels_bounds_are_refused(fields, message):
    with pytest.raises(InvalidInput) as err:
        Job(**{"id": 1, "submit": 0, "procs": 1, "runtime": 10, "estimate": 10, **fields})
    assert str(err.value).startswith(message)


def test_jobs_at_the_bounds_are_kept():
    job = Job(1, submit=SECONDS_LIMIT, procs=2**24, runtime=SECONDS_LIMIT, estimate=SECONDS_LIMIT)
    assert job.work == 2**24 * SECONDS_LIMIT


def test_records_of_a_run_may_pass_the_century_their_inputs_keep():
    # a job submitted late in a century asks for a slot a century later: the run's own instants pass it
    assert Reservation("r", start=2 * SECONDS_LIMIT, procs=1, duration=SECONDS_LIMIT).end == 3 * SECONDS_LIMIT
    assert Job(1, submit=2 * SECONDS_LIMIT, procs=1, runtime=10, estimate=10).submit == 2 * SECONDS_LIMIT
    state = ProviderState(2 * SECONDS_LIMIT, 4, running=(RunningJob(1, 2, SECONDS_LIMIT, 3 * SECONDS_LIMIT),))
    assert state.now == 2 * SECONDS_LIMIT


def test_reservations_past_the_bounds_are_refused():
    with pytest.raises(InvalidInput, match=r"reservation 'r': duration must be an int in \[0, 3155760000\] s"):
        Reservation("r", start=0, procs=1, duration=2**63 - 1)


def test_utilisation_of_huge_totals_does_not_wrap_around():
    # two jobs of 2**24 processors for 2**39 s: 2**64 processor-seconds, which an int64 sum wraps to 0
    records = pd.DataFrame({"submit": [0, 0], "start": [0, 0], "end": [2**39, 2**39], "procs": [2**24, 2**24],
                            "runtime": [2**39, 2**39], "estimate": [2**39, 2**39]})
    assert summarize(records, procs=2**25)["utilization"] == 1.0


def test_a_state_whose_prices_could_pass_the_kernel_s_int64_is_refused():
    n = 2000  # jobs of the whole machine for a century each: the queue's delays times processors pass 2**62
    queued = [{"id": i, "submit": 0, "procs": 2**24, "estimate": SECONDS_LIMIT} for i in range(n)]
    with pytest.raises(InvalidInput, match=r"^state: 2000 queued jobs of .* past the pricing kernel's int64 "
                                           r"limit of 2\*\*62"):
        state_from_dict({"now": 0, "procs": 2**24, "queued": queued})


def test_a_large_state_within_the_kernel_s_range_is_kept():
    queued = [{"id": i, "submit": 0, "procs": 64, "estimate": 86400} for i in range(100)]
    assert len(state_from_dict({"now": 0, "procs": 1024, "queued": queued}).queue) == 100


def test_the_trace_reader_refuses_a_runtime_past_the_limit_by_line(tmp_path):
    from gridmarket.workloads import read_swf

    path = tmp_path / "big.swf"
    path.write_text("; MaxProcs: 4\n1 0 0 100 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1\n"
                    f"2 10 0 {2**61} 4 -1 -1 4 {2**61} -1 1 1 1 -1 -1 -1 -1 -1\n")
    with pytest.raises(InvalidInput, match=rf"big.swf line 3: field 'run time' is {2**61}, above the limit of "
                                           r"3155760000 s"):
        read_swf(path)



def test_the_documentation_s_table_is_the_module_s():
    from pathlib import Path

    from gridmarket.limits import table_markdown

    page = (Path(__file__).resolve().parents[2] / "docs" / "limits.md").read_text(encoding="utf-8")
    begin, end = "<!-- limits table: generated by gridmarket.limits.table_markdown() -->\n", "\n<!-- end of limits table -->"
    assert page[page.index(begin) + len(begin):page.index(end)] == table_markdown()


@pytest.mark.parametrize("price", ["inf", "1e300", "-1e307"])
def test_a_price_csv_row_beyond_the_bound_is_refused_by_line(tmp_path, price):
    from gridmarket.energy import read_prices

    path = tmp_path / "p.csv"
    path.write_text("timestamp,price,zone,currency\n2020-01-01T00:00:00,-12.5,DE,EUR\n"
                    f"2020-01-01T01:00:00,{price},DE,EUR\n")
    with pytest.raises(InvalidInput, match=r"p.csv, line 3: price .* is outside \[-1000000.0, 1000000.0\] currency"):
        read_prices(path)
