"""Standard Workload Format (SWF) reader and writer.

The format of the Parallel Workloads Archive (Chapin, Cirne, Feitelson et al., "Benchmarks and
standards for the evaluation of parallel job schedulers", JSSPP 1999;
https://www.cs.huji.ac.il/labs/parallel/workload/swf.html): one job per line, 18
whitespace-separated numeric fields, ``-1`` for unknown, header comments ``; Key: value``.
Times in the file and in the returned jobs are integer seconds.
"""

from __future__ import annotations

import gzip
import re
from os import PathLike
from pathlib import Path

from gridmarket.atomicfile import write_atomic
from gridmarket.errors import InvalidInput
from gridmarket.workloads._tracefile import (
    INT,
    NUMBER,
    DroppedJobsWarning,
    Format,
    build_workload,
    fast_numeric_columns,
    parse_header,
    parse_records,
    read_text,
)
from gridmarket.workloads.workload import Workload

__all__ = ["read_swf", "write_swf", "DroppedJobsWarning", "SWF_FIELDS"]

#: The 18 SWF fields in file order (names used in error messages).
SWF_FIELDS = (
    "job number",
    "submit time",
    "wait time",
    "run time",
    "allocated processors",
    "average cpu time",
    "used memory",
    "requested processors",
    "requested time",
    "requested memory",
    "status",
    "user id",
    "group id",
    "executable",
    "queue",
    "partition",
    "preceding job",
    "think time",
)

_COLUMNS = {
    "id": 0,
    "submit": 1,
    "runtime": 3,
    "alloc": 4,
    "req_procs": 7,
    "req_time": 8,
    "user": 11,
    "group": 12,
}

_SWF = Format(
    name="SWF",
    comment=";",
    fields=tuple(
        (name, INT if i in _COLUMNS.values() else NUMBER) for i, name in enumerate(SWF_FIELDS)
    ),
    columns=_COLUMNS,
)

# Header keys the writer computes itself instead of copying from `Workload.header`.
_WRITER_KEYS = ("Version", "MaxJobs", "MaxRecords", "MaxProcs")
_KEY = re.compile(r"[A-Za-z][\w.\-]*\Z")


def read_swf(
    path: str | PathLike[str], *, drop_invalid: bool = True, rebase: bool = True
) -> Workload:
    """Read an SWF file (plain or gzip) into a `Workload`.

    Parameters
    ----------
    path : str or path-like
        The trace. Gzip files are recognised by a ``.gz`` suffix or by their magic bytes.
    drop_invalid : bool, default True
        Drop jobs whose runtime or processor count is unknown or zero, counting them by
        reason in `Workload.dropped` and emitting a `DroppedJobsWarning`. With ``False``, such
        a job raises `InvalidInput` instead.
    rebase : bool, default True
        Subtract the first kept job's submit time from every submit time, so the workload
        starts at 0. The seconds subtracted are recorded in the header under
        ``gridmarket.submit_offset`` (``0`` when ``rebase=False``); the absolute time of a
        submit is ``UnixStartTime + offset + submit``.

    Returns
    -------
    Workload
        Jobs in ``(submit, id)`` order, named after the file. ``max_procs`` is the leading
        integer of the ``MaxProcs`` header, else of ``MaxNodes`` (``MaxNodes: 338 (batch
        partition; 512 total)`` gives 338), else ``None``. ``header`` holds the ``; Key: value``
        comments plus ``gridmarket.estimates_filled`` and ``gridmarket.submit_offset``.

    Raises
    ------
    InvalidInput
        For a malformed line (not 18 fields, a non-numeric or non-finite field, a used field
        that is not a whole number or is below -1, an unknown or negative submit time, a submit
        time before the previous line's, a repeated job number), an empty trace, a trace whose
        every job is dropped, or an unreadable ``MaxProcs``/``MaxNodes`` header. The message
        names the file, the line and the field.

    Notes
    -----
    Each record becomes a `Job` with

    * ``procs`` = allocated processors (field 5); when that is unknown (``-1``), requested
      processors (field 8).
    * ``runtime`` = run time (field 4).
    * ``estimate`` = requested time (field 9); when it is unknown or 0, the runtime (as if the
      user had estimated exactly). Such jobs are counted in the header under
      ``gridmarket.estimates_filled`` (CTC-SP2: 6 jobs, LANL-CM5: 11,286; NASA-iPSC and
      SDSC-Par: all, as their logs have no requested times).
    * ``user``, ``group`` = fields 12 and 13.

    A job whose runtime is unknown or 0 is dropped as ``"runtime unknown or zero"``; else one
    whose processor count is unknown or 0 as ``"procs unknown or zero"`` (one reason per job).
    Jobs larger than ``max_procs`` are kept: the simulator reports them. Jobs whose runtime
    exceeds their estimate are kept as they are (`Job.effective_runtime` kills them at the
    estimate).

    Only -1 may mark an unknown value: a used field below -1 is an error, not silently
    clamped. Unused fields need only be finite numbers (``avg cpu time`` is a decimal in many
    logs). Ties in submit time are ordered by job number.

    Speed: numpy's C parser reads the numbers; the exact Python parser runs only to name the
    problem in a malformed file. The 243,306-record SDSC-BLUE trace reads in about 2.5 s on
    a 2-core machine, 60% of it in building and validating the `Job` records.

    Examples
    --------
    >>> import tempfile, pathlib, warnings
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "tiny.swf"
    >>> _ = path.write_text(
    ...     "; MaxProcs: 8\\n"
    ...     "1 100 -1 3600  4 -1 -1  4 7200 -1 1 3 1 -1 -1 -1 -1 -1\\n"
    ...     "2 160 -1   -1  2 -1 -1  2  600 -1 5 3 1 -1 -1 -1 -1 -1\\n"
    ...     "3 200 -1   60 -1 -1 -1  2   -1 -1 1 4 1 -1 -1 -1 -1 -1\\n"
    ... )
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", DroppedJobsWarning)
    ...     w = read_swf(path)
    >>> [(j.id, j.submit, j.procs, j.runtime, j.estimate) for j in w.jobs]
    [(1, 0, 4, 3600, 7200), (3, 100, 2, 60, 60)]
    >>> w.dropped, w.max_procs, w.header["gridmarket.estimates_filled"]
    ({'runtime unknown or zero': 1}, 8, '1')
    """
    text = read_text(path)
    lines = text.splitlines()
    header = parse_header(lines, _SWF.comment)
    columns = fast_numeric_columns(lines, _SWF)
    if columns is None:
        columns = parse_records(lines, _SWF, str(path))
    return build_workload(
        columns,
        _SWF,
        path=str(path),
        name=Path(path).name,
        header=header,
        drop_invalid=drop_invalid,
        rebase=rebase,
        warn_stacklevel=3,
    )


def write_swf(workload: Workload, path: str | PathLike[str]) -> None:
    """Write a workload as an SWF file, gzip-compressed if ``path`` ends in ``.gz``.

    Parameters
    ----------
    workload : Workload
        Jobs to write, with their header.
    path : str or path-like
        Destination; overwritten if it exists.

    Raises
    ------
    InvalidInput
        If a header key cannot be written as ``; Key: value`` (it must start with a letter
        and hold only letters, digits, ``_``, ``.`` and ``-``).

    Notes
    -----
    The header starts with ``Version`` (the workload's, else 2.2), then the workload's other
    header entries in order (a value with several lines becomes repeated ``; Key:`` lines),
    then ``MaxJobs`` and ``MaxRecords`` (the job count) and ``MaxProcs`` (``max_procs``; left
    out, together with ``MaxNodes``, when it is ``None``).

    Each job is one line of 18 fields: job number, submit, ``-1`` wait, runtime, procs as both
    allocated and requested processors, estimate as requested time, user, group, and ``-1``
    for every other field. `read_swf` of the file gives back the jobs' ``id``, ``submit``
    (with ``rebase=False``, or when the first job submits at 0), ``procs``, ``runtime``,
    ``estimate``, ``user`` and ``group``; ``site``, ``power_watts`` and ``data_bytes`` have no
    SWF field and are not written. Gzip output is byte-for-byte reproducible (mtime 0).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from gridmarket.job import Job
    >>> w = Workload((Job(1, submit=0, procs=4, runtime=60, estimate=120, user=7),), max_procs=8)
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "out.swf.gz"
    >>> write_swf(w, path)
    >>> read_swf(path).jobs == w.jobs
    True
    """
    header = dict(workload.header)
    version = (header.get("Version") or "2.2").split("\n")[0]
    lines = [f"; Version: {version}"]
    for key, value in header.items():
        if key in _WRITER_KEYS or (key == "MaxNodes" and workload.max_procs is None):
            continue
        if not _KEY.match(key):
            raise InvalidInput(
                f"workload {workload.name!r}: header key {key!r} cannot be written to SWF"
            )
        lines.extend(f"; {key}: {part}".rstrip() for part in value.split("\n"))
    n = len(workload.jobs)
    lines.append(f"; MaxJobs: {n}")
    lines.append(f"; MaxRecords: {n}")
    if workload.max_procs is not None:
        lines.append(f"; MaxProcs: {workload.max_procs}")
    lines.extend(
        f"{j.id} {j.submit} -1 {j.runtime} {j.procs} -1 -1 {j.procs} {j.estimate} -1 -1 "
        f"{j.user} {j.group} -1 -1 -1 -1 -1"
        for j in workload.jobs
    )
    data = ("\n".join(lines) + "\n").encode("utf-8")
    if Path(path).suffix == ".gz":
        data = gzip.compress(data, compresslevel=6, mtime=0)
    write_atomic(path, data)
