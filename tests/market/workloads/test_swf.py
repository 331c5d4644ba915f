"""SWF reader and writer: field mapping, dropping, errors, gzip, round trip."""

from __future__ import annotations

import gzip
import tempfile
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.workloads import DroppedJobsWarning, Workload, read_swf, write_swf
from gridmarket.workloads.swf import SWF_FIELDS


def record(
    job: int,
    submit: int,
    run: int | str = 100,
    alloc: int | str = 4,
    req_procs: int | str = -1,
    req_time: int | str = 3600,
    user: int = 1,
    group: int = 2,
    avg_cpu: str = "-1",
) -> str:
    """One SWF line with the fields the reader uses; the others -1 (status 1)."""
    return (
        f"{job} {submit} -1 {run} {alloc} {avg_cpu} -1 {req_procs} {req_time} -1 1 "
        f"{user} {group} -1 -1 -1 -1 -1"
    )


def write(tmp_path: Path, *lines: str, name: str = "t.swf") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


def read_quietly(path: Path, **kwargs) -> Workload:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DroppedJobsWarning)
        return read_swf(path, **kwargs)


# ----------------------------------------------------------------------------------------------
# Field mapping
# ----------------------------------------------------------------------------------------------


def test_read_swf_maps_the_fields_of_each_record_to_a_job(tmp_path):
    path = write(
        tmp_path,
        "; MaxProcs: 64",
        record(5, 1000, run=3600, alloc=16, req_time=7200, user=3, group=9),
        record(6, 1060, run=20, alloc=1, req_time=60, user=4, group=9),
    )
    w = read_swf(path)
    assert w.jobs == (
        Job(5, submit=0, procs=16, runtime=3600, estimate=7200, user=3, group=9),
        Job(6, submit=60, procs=1, runtime=20, estimate=60, user=4, group=9),
    )
    assert w.max_procs == 64
    assert w.name == "t.swf"
    assert dict(w.dropped) == {}
    assert w.header["gridmarket.submit_offset"] == "1000"
    assert w.header["gridmarket.estimates_filled"] == "0"


def test_procs_fall_back_to_requested_processors_when_allocated_is_unknown(tmp_path):
    path = write(tmp_path, record(1, 0, alloc=-1, req_procs=8), record(2, 5, alloc=2, req_procs=8))
    assert [j.procs for j in read_swf(path).jobs] == [8, 2]


@pytest.mark.parametrize("req_time", [-1, 0])
def test_unknown_or_zero_requested_time_gives_estimate_equal_to_runtime_and_is_counted(
    tmp_path, req_time
):
    path = write(tmp_path, record(1, 0, run=77, req_time=req_time), record(2, 5, run=50))
    w = read_swf(path)
    assert [j.estimate for j in w.jobs] == [77, 3600]
    assert w.header["gridmarket.estimates_filled"] == "1"


def test_runtime_longer_than_estimate_is_kept_as_is(tmp_path):
    w = read_swf(write(tmp_path, record(1, 0, run=5000, req_time=3600)))
    assert (w.jobs[0].runtime, w.jobs[0].estimate) == (5000, 3600)


def test_rebase_false_keeps_the_trace_times(tmp_path):
    path = write(tmp_path, record(1, 500), record(2, 800))
    w = read_swf(path, rebase=False)
    assert [j.submit for j in w.jobs] == [500, 800]
    assert w.header["gridmarket.submit_offset"] == "0"


def test_equal_submit_times_are_ordered_by_job_number(tmp_path):
    w = read_swf(write(tmp_path, record(9, 10), record(3, 10), record(4, 11)))
    assert [j.id for j in w.jobs] == [3, 9, 4]


def test_jobs_larger_than_the_machine_are_kept(tmp_path):
    w = read_swf(write(tmp_path, "; MaxProcs: 8", record(1, 0, alloc=64)))
    assert w.jobs[0].procs == 64 and w.max_procs == 8


def test_decimal_values_in_unused_fields_are_accepted(tmp_path):
    w = read_swf(write(tmp_path, record(1, 0, avg_cpu="142.50")))
    assert len(w) == 1


def test_irregular_whitespace_and_blank_lines_are_accepted(tmp_path):
    line = "   1    0 -1   100 \t 4 -1 -1 -1 3600 -1 1 1 2 -1 -1 -1 -1 -1   "
    w = read_swf(write(tmp_path, "", line, "   ", record(2, 3)))
    assert [j.id for j in w.jobs] == [1, 2]


# ----------------------------------------------------------------------------------------------
# Dropping
# ----------------------------------------------------------------------------------------------


def test_jobs_with_unknown_or_zero_runtime_or_procs_are_dropped_counted_and_warned(tmp_path):
    path = write(
        tmp_path,
        record(1, 0),
        record(2, 1, run=-1),
        record(3, 2, run=0),
        record(4, 3, alloc=-1, req_procs=-1),
        record(5, 4, alloc=0, req_procs=4),
        record(6, 5, run=-1, alloc=-1),  # counted once, under the runtime
        record(7, 6),
    )
    with pytest.warns(DroppedJobsWarning, match=r"t\.swf: dropped 5 of 7 jobs"):
        w = read_swf(path)
    assert [j.id for j in w.jobs] == [1, 7]
    assert dict(w.dropped) == {"runtime unknown or zero": 3, "procs unknown or zero": 2}
    assert w.n_dropped == 5


def test_no_warning_when_nothing_is_dropped(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read_swf(write(tmp_path, record(1, 0)))


def test_drop_invalid_false_raises_at_the_first_job_without_runtime(tmp_path):
    path = write(tmp_path, "; c", record(1, 0), record(2, 1, run=-1))
    with pytest.raises(InvalidInput, match=r"t\.swf line 3: field 'run time' is -1.*drop_invalid"):
        read_swf(path, drop_invalid=False)


def test_drop_invalid_false_raises_at_a_job_without_processors(tmp_path):
    path = write(tmp_path, record(1, 0, alloc=-1, req_procs=-1))
    with pytest.raises(
        InvalidInput,
        match=r"line 1: fields 'allocated processors' and 'requested processors' are -1 and -1",
    ):
        read_swf(path, drop_invalid=False)


def test_rebase_uses_the_first_kept_job(tmp_path):
    w = read_quietly(write(tmp_path, record(1, 100, run=-1), record(2, 130), record(3, 150)))
    assert [j.submit for j in w.jobs] == [0, 20]
    assert w.header["gridmarket.submit_offset"] == "130"


def test_a_trace_whose_every_job_is_dropped_raises(tmp_path):
    path = write(tmp_path, record(1, 0, run=-1), record(2, 1, run=0))
    with pytest.raises(InvalidInput, match=r"t\.swf: all 2 jobs were dropped"):
        read_swf(path)


# ----------------------------------------------------------------------------------------------
# Malformed files
# ----------------------------------------------------------------------------------------------

MALFORMED = [
    pytest.param(
        record(2, 5) + " 7", r"t\.swf line 3: 19 fields, expected 18 \(SWF\)", id="field-count"
    ),
    pytest.param(
        record(2, 5, run="abc"),
        r"t\.swf line 3: field 'run time' is 'abc', not a number",
        id="non-numeric",
    ),
    pytest.param(
        record(2, 5, avg_cpu="x1"),
        r"t\.swf line 3: field 'average cpu time' is 'x1', not a number",
        id="unused-field-text",
    ),
    pytest.param(
        record(2, 5, avg_cpu="nan"),
        r"line 3: field 'average cpu time' is 'nan', not finite",
        id="nan",
    ),
    pytest.param(
        record(2, 5, run="12.5"),
        r"line 3: field 'run time' is '12.5', not a whole number",
        id="fraction",
    ),
    pytest.param(
        record(2, 5, run="inf"), r"line 3: field 'run time' is 'inf', not a whole number", id="inf"
    ),
    pytest.param(
        record(2, -1), r"line 3: field 'submit time' is -1 \(unknown\)", id="unknown-submit"
    ),
    pytest.param(
        record(2, -7), r"line 3: field 'submit time' is -7; only -1 may mark", id="negative-submit"
    ),
    pytest.param(
        record(2, 5, alloc=-3),
        r"line 3: field 'allocated processors' is -3; only -1 may mark",
        id="below-minus-one",
    ),
    pytest.param(
        record(2, 5, user=-2), r"line 3: field 'user id' is -2; only -1 may mark", id="user"
    ),
    pytest.param(record(1, 5), r"line 3: job number 1 already appeared on line 2", id="duplicate"),
    pytest.param(record(-4, 5), r"line 3: field 'job number' is -4, not a job number", id="bad-id"),
]


@pytest.mark.parametrize(("bad_line", "message"), MALFORMED)
def test_malformed_line_raises_naming_file_line_and_field(tmp_path, bad_line, message):
    path = write(tmp_path, "; Version: 2.2", record(1, 5), bad_line, record(3, 9))
    with pytest.raises(InvalidInput, match=message):
        read_swf(path)


def test_submit_times_going_backwards_raise(tmp_path):
    path = write(tmp_path, record(1, 50), record(2, 70), record(3, 60))
    message = r"t\.swf line 3: submit time 60 is before the previous job's 70 \(line 2\)"
    with pytest.raises(InvalidInput, match=message):
        read_swf(path)


def test_the_earliest_problem_is_reported(tmp_path):
    path = write(tmp_path, record(1, 0), record(2, 5, alloc=-9), record(3, 1))
    with pytest.raises(InvalidInput, match=r"line 2: field 'allocated processors'"):
        read_swf(path)


@pytest.mark.parametrize("lines", [(), ("; Version: 2.2", "; MaxProcs: 4", ";"), ("", "  ")])
def test_a_trace_without_jobs_raises_naming_the_file(tmp_path, lines):
    path = write(tmp_path, *lines, name="empty.swf")
    with pytest.raises(InvalidInput, match=r"empty\.swf: no jobs"):
        read_swf(path)


def test_an_unreadable_max_procs_header_raises(tmp_path):
    path = write(tmp_path, "; MaxProcs: lots", record(1, 0))
    with pytest.raises(InvalidInput, match=r"t\.swf: header MaxProcs is 'lots'"):
        read_swf(path)


# ----------------------------------------------------------------------------------------------
# Header
# ----------------------------------------------------------------------------------------------

CTC_LIKE_HEADER = (
    "; Version: 2.2",
    "; Computer: IBM SP2",
    "; Information: http://www.tc.cornell.edu/",
    ";              http://www.cs.huji.ac.il/labs/parallel/workload/",
    "; UnixStartTime: 835823160",
    "; MaxNodes: 338 (batch partition; 512 total)",
    "; Note: uses the EASY scheduler",
    "; Queue:  1 DSI      ",
    "; Queue:  2 astro    ",
    ";",
    "; Note: THIS IS A CLEANED VERSION OF THE LOG!",
    ";       The filter used to produce it was",
    ";         user=135 and (job>=47421 and job<=50307) (2080 jobs removed)",
)


def test_header_keys_repeats_and_continuation_lines_are_parsed(tmp_path):
    w = read_swf(write(tmp_path, *CTC_LIKE_HEADER, record(1, 0)))
    h = w.header
    assert h["Computer"] == "IBM SP2"
    assert h["UnixStartTime"] == "835823160"
    assert h["Information"] == (
        "http://www.tc.cornell.edu/\nhttp://www.cs.huji.ac.il/labs/parallel/workload/"
    )
    assert h["Queue"] == "1 DSI\n2 astro"
    assert h["Note"].split("\n") == [
        "uses the EASY scheduler",
        "THIS IS A CLEANED VERSION OF THE LOG!",
        "The filter used to produce it was",
        "user=135 and (job>=47421 and job<=50307) (2080 jobs removed)",
    ]
    assert "http" not in h
    assert w.max_procs == 338  # leading integer of MaxNodes


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (("; MaxNodes: 144", "; MaxProcs: 1152"), 1152),
        (("; MaxNodes: 400 (48 interactive, 352 batch)",), 400),
        (("; MaxProcs: -1", "; MaxNodes: 16"), 16),
        (("; Version: 2",), None),
    ],
)
def test_max_procs_comes_from_max_procs_else_max_nodes(tmp_path, header, expected):
    assert read_swf(write(tmp_path, *header, record(1, 0))).max_procs == expected


# ----------------------------------------------------------------------------------------------
# Gzip
# ----------------------------------------------------------------------------------------------


def test_gzip_files_are_read_by_suffix(tmp_path):
    path = tmp_path / "t.swf.gz"
    path.write_bytes(gzip.compress(("; MaxProcs: 4\n" + record(1, 0) + "\n").encode()))
    w = read_swf(path)
    assert len(w) == 1 and w.max_procs == 4 and w.name == "t.swf.gz"


def test_gzip_files_are_read_by_magic_bytes_whatever_their_name(tmp_path):
    path = tmp_path / "t.swf"
    path.write_bytes(gzip.compress((record(1, 0) + "\n").encode()))
    assert len(read_swf(path)) == 1


def test_a_gz_file_that_is_not_gzip_raises(tmp_path):
    path = write(tmp_path, record(1, 0), name="t.swf.gz")
    with pytest.raises(InvalidInput, match=r"t\.swf\.gz: not a readable gzip file"):
        read_swf(path)


def test_a_gzip_bomb_is_refused_before_it_is_held_whole(tmp_path, monkeypatch):
    """A log that decompresses past the text limit is one line, however small the file."""
    from gridmarket.workloads import _tracefile

    monkeypatch.setattr(_tracefile, "text_limit", lambda: 1_000_000)
    path = tmp_path / "bomb.swf.gz"
    path.write_bytes(gzip.compress(b"; " + b"0" * 50_000_000 + b"\n"))  # 50 MB of text in about 50 kB
    assert path.stat().st_size < 100_000
    with pytest.raises(InvalidInput, match=r"bomb\.swf\.gz: the job log decompresses to more than 1000000 bytes"):
        read_swf(path)
    plain = tmp_path / "big.swf"
    plain.write_bytes(b"; " + b"0" * 2_000_000 + b"\n")
    with pytest.raises(InvalidInput, match=r"big\.swf: the job log holds more than 1000000 bytes"):
        read_swf(plain)


def test_a_gzip_of_several_members_or_cut_short(tmp_path):
    members = gzip.compress(("; MaxProcs: 4\n" + record(1, 0) + "\n").encode()) + gzip.compress(
        (record(2, 10) + "\n").encode())
    path = tmp_path / "two.swf.gz"
    path.write_bytes(members)
    assert [j.id for j in read_swf(path).jobs] == [1, 2]  # as gzip.decompress reads them
    cut = tmp_path / "cut.swf.gz"
    cut.write_bytes(members[: len(members) // 3])
    with pytest.raises(InvalidInput, match=r"cut\.swf\.gz: not a readable gzip file"):
        read_swf(cut)


# ----------------------------------------------------------------------------------------------
# Writer
# ----------------------------------------------------------------------------------------------


def small_workload() -> Workload:
    return Workload(
        (
            Job(1, submit=0, procs=4, runtime=60, estimate=120, user=7, group=1),
            Job(2, submit=30, procs=1, runtime=5, estimate=5),
        ),
        max_procs=8,
        name="w",
        header={"Computer": "toy", "Note": "first\nsecond"},
    )


def test_write_swf_writes_a_header_and_18_fields_per_job(tmp_path):
    path = tmp_path / "out.swf"
    write_swf(small_workload(), path)
    lines = path.read_text().splitlines()
    header = [line for line in lines if line.startswith(";")]
    records = [line.split() for line in lines if not line.startswith(";")]
    assert header[0] == "; Version: 2.2"
    assert "; MaxProcs: 8" in header and "; MaxJobs: 2" in header
    assert "; Note: first" in header and "; Note: second" in header
    assert all(len(r) == len(SWF_FIELDS) == 18 for r in records)
    assert records[0] == ["1", "0", "-1", "60", "4", "-1", "-1", "4", "120", "-1", "-1", "7", "1", "-1", "-1", "-1", "-1", "-1"]


def test_write_then_read_gives_back_jobs_max_procs_and_header(tmp_path):
    w = small_workload()
    path = tmp_path / "out.swf"
    write_swf(w, path)
    back = read_swf(path)
    assert back.jobs == w.jobs and back.max_procs == w.max_procs
    assert back.header["Computer"] == "toy" and back.header["Note"] == "first\nsecond"


def test_write_swf_compresses_by_suffix_reproducibly(tmp_path):
    a, b = tmp_path / "a.swf.gz", tmp_path / "b.swf.gz"
    write_swf(small_workload(), a)
    write_swf(small_workload(), b)
    assert a.read_bytes()[:2] == b"\x1f\x8b"
    assert a.read_bytes() == b.read_bytes()
    assert read_swf(a).jobs == small_workload().jobs


def test_write_swf_leaves_out_max_procs_when_unknown(tmp_path):
    w = Workload(small_workload().jobs, header={"MaxNodes": "99"})
    path = tmp_path / "out.swf"
    write_swf(w, path)
    assert read_swf(path).max_procs is None


def test_write_swf_rejects_a_header_key_swf_cannot_hold(tmp_path):
    w = Workload(small_workload().jobs, name="w", header={"bad key": "x"})
    with pytest.raises(InvalidInput, match=r"header key 'bad key'"):
        write_swf(w, tmp_path / "out.swf")


@st.composite
def workloads(draw) -> Workload:
    n = draw(st.integers(1, 40))
    ids = draw(st.lists(st.integers(0, 10**9), min_size=n, max_size=n, unique=True))
    gaps = draw(st.lists(st.integers(0, 10**6), min_size=n, max_size=n))
    submits = [sum(gaps[: i + 1]) - gaps[0] for i in range(n)]  # first job at 0
    jobs = [
        Job(
            job_id,
            submit=submit,
            procs=draw(st.integers(1, 10**5)),
            runtime=draw(st.integers(1, 10**7)),
            estimate=draw(st.integers(1, 10**7)),
            user=draw(st.integers(-1, 10**4)),
            group=draw(st.integers(-1, 100)),
        )
        for job_id, submit in zip(ids, submits)
    ]
    jobs.sort(key=lambda j: (j.submit, j.id))
    max_procs = draw(st.none() | st.integers(1, 10**5))
    return Workload(tuple(jobs), max_procs=max_procs, name="h")


@settings(max_examples=60, deadline=None)
@given(w=workloads(), suffix=st.sampled_from([".swf", ".swf.gz"]))
def test_read_of_write_gives_back_every_job_field_swf_keeps(w, suffix):
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / f"w{suffix}"
        write_swf(w, path)
        back = read_swf(path)
        assert back.jobs == w.jobs  # the first job submits at 0, so rebasing changes nothing
        assert back.max_procs == w.max_procs
        assert read_swf(path, rebase=False).jobs == w.jobs


def test_a_comment_line_with_a_url_is_not_read_as_a_key(tmp_path):
    w = read_swf(write(tmp_path, "; Information: see", "; http://example.org/x", record(1, 0)))
    assert w.header["Information"] == "see\nhttp://example.org/x"
    assert "http" not in w.header


def test_header_text_before_any_key_is_kept_under_comment(tmp_path):
    w = read_swf(write(tmp_path, "; generated by hand", record(1, 0)))
    assert w.header["Comment"] == "generated by hand"


def test_header_survives_a_write_read_cycle(tmp_path):
    first = read_swf(write(tmp_path, *CTC_LIKE_HEADER, record(1, 0)))
    path = tmp_path / "again.swf"
    write_swf(first, path)
    again = read_swf(path)
    for key in ("Computer", "Information", "Queue", "Note", "UnixStartTime", "MaxNodes"):
        assert again.header[key] == first.header[key]
    assert again.max_procs == first.max_procs == 338
