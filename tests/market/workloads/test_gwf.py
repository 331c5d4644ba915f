"""GWF reader: 29 fields, sites, named ids, the SWF reading rules."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from gridmarket.errors import InvalidInput
from gridmarket.workloads import DroppedJobsWarning, read_gwf
from gridmarket.workloads.gwf import GWF_FIELDS


def gwf(
    job: int,
    submit: int,
    run: int | str = 100,
    nprocs: int = 1,
    req_procs: int = -1,
    req_time: int = 3600,
    user: str = "1",
    group: str = "1",
    site: str = "-1",
    last_site: str = "-1",
) -> str:
    """One GWF line; fields the reader ignores get placeholder values, some of them names."""
    return (
        f"{job}\t{submit}\t12\t{run}\t{nprocs}\t55.5\t1024.0\t{req_procs}\t{req_time}\t-1\t1\t"
        f"{user}\t{group}\tapp_3\tqueue_a\t-1\t{site}\t{last_site}" + "\t-1" * 11
    )


def write(tmp_path: Path, *lines: str, name: str = "t.gwf") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n")
    return path


def test_the_gwf_format_has_29_fields_in_gwa_order():
    assert len(GWF_FIELDS) == 29
    assert GWF_FIELDS[16:18] == ("OrigSiteID", "LastRunSiteID")
    assert gwf(1, 0).count("\t") == 28


def test_read_gwf_maps_fields_and_takes_the_site_from_orig_site_id(tmp_path):
    path = write(
        tmp_path,
        "# JobID SubmitTime WaitTime ...",
        gwf(1, 1136070000, run=600, nprocs=2, req_time=1800, site="clrlcgce01", last_site="x"),
        gwf(2, 1136070090, run=30, site="7"),
        gwf(3, 1136070100, run=30, site="-1"),
    )
    w = read_gwf(path)
    assert [(j.id, j.submit, j.procs, j.runtime, j.estimate) for j in w.jobs] == [
        (1, 0, 2, 600, 1800),
        (2, 90, 1, 30, 3600),
        (3, 100, 1, 30, 3600),
    ]
    assert [j.site for j in w.jobs] == ["clrlcgce01", "7", None]
    assert w.header["gridmarket.submit_offset"] == "1136070000"
    assert w.max_procs is None


def test_numeric_user_and_group_ids_are_kept(tmp_path):
    w = read_gwf(write(tmp_path, gwf(1, 0, user="42", group="-1"), gwf(2, 1, user="7", group="3")))
    assert [(j.user, j.group) for j in w.jobs] == [(42, -1), (7, 3)]


def test_named_user_ids_are_numbered_by_first_appearance(tmp_path):
    path = write(
        tmp_path,
        gwf(1, 0, user="user_12"),
        gwf(2, 1, user="user_3"),
        gwf(3, 2, user="user_12"),
        gwf(4, 3, user="-1"),
        gwf(5, 4, user="15"),
    )
    assert [j.user for j in read_gwf(path).jobs] == [0, 1, 0, -1, 2]


def test_procs_fall_back_to_requested_and_unknown_runtimes_are_dropped(tmp_path):
    path = write(
        tmp_path,
        gwf(1, 0, nprocs=-1, req_procs=8),
        gwf(2, 1, run=-1),
        gwf(3, 2, nprocs=-1, req_procs=-1),
        gwf(4, 3, req_time=-1, run=70),
    )
    with pytest.warns(DroppedJobsWarning, match=r"t\.gwf: dropped 2 of 4 jobs"):
        w = read_gwf(path)
    assert [(j.id, j.procs, j.estimate) for j in w.jobs] == [(1, 8, 3600), (4, 1, 70)]
    assert dict(w.dropped) == {"runtime unknown or zero": 1, "procs unknown or zero": 1}
    assert w.header["gridmarket.estimates_filled"] == "1"


def test_max_procs_comes_from_hash_comment_header(tmp_path):
    w = read_gwf(write(tmp_path, "# MaxProcs: 475", gwf(1, 0)))
    assert w.max_procs == 475 and w.header["MaxProcs"] == "475"


@pytest.mark.parametrize(
    ("bad_line", "message"),
    [
        (gwf(2, 5) + "\t-1", r"t\.gwf line 3: 30 fields, expected 29 \(GWF\)"),
        (gwf(2, 5, run="long"), r"t\.gwf line 3: field 'RunTime' is 'long', not a number"),
        (gwf(2, 1), r"t\.gwf line 3: submit time 1 is before the previous job's 5"),
        (gwf(1, 9), r"t\.gwf line 3: job number 1 already appeared on line 2"),
    ],
)
def test_malformed_gwf_lines_raise_naming_file_line_and_field(tmp_path, bad_line, message):
    path = write(tmp_path, "# comment", gwf(1, 5), bad_line)
    with pytest.raises(InvalidInput, match=message):
        read_gwf(path)


def test_drop_invalid_false_raises_for_unknown_runtime(tmp_path):
    with pytest.raises(InvalidInput, match=r"line 1: field 'RunTime' is -1"):
        read_gwf(write(tmp_path, gwf(1, 0, run=-1)), drop_invalid=False)


def test_empty_gwf_raises(tmp_path):
    with pytest.raises(InvalidInput, match=r"t\.gwf: no jobs"):
        read_gwf(write(tmp_path, "# nothing here"))


def test_gzip_gwf_is_read(tmp_path):
    path = tmp_path / "anon_jobs.gwf.gz"
    path.write_bytes(gzip.compress((gwf(1, 0, site="s1") + "\n").encode()))
    assert read_gwf(path).jobs[0].site == "s1"
