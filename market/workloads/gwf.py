"""Grid Workloads Archive (GWF) reader.

The format of the Grid Workloads Archive (Iosup, Li, Jan, Anoep, Dumitrescu, Wolters, Epema,
"The Grid Workloads Archive", Future Generation Computer Systems 24(7), 2008;
http://gwa.ewi.tudelft.nl): one job per line, 29 whitespace-separated fields, ``-1`` for
unknown, ``#`` comment lines. It extends SWF's first 16 fields with grid ones (origin and
execution site, job structure, network, disk, virtual organisation, project). Times are
integer seconds.

The field order below was checked against independent GWA readers in the code corpus: the R
function ``ReadGWATrace`` (29 ``col.names``, ``JobID`` ... ``ProjectID``) and OurSim's
``GWAJobDescription`` (Java), which agree on it.
"""

from __future__ import annotations

from os import PathLike
from pathlib import Path

from gridmarket.workloads._tracefile import (
    ANY,
    ID,
    INT,
    TEXT,
    Format,
    build_workload,
    parse_header,
    parse_records,
    read_text,
)
from gridmarket.workloads.workload import Workload

__all__ = ["read_gwf", "GWF_FIELDS"]

#: The 29 GWF fields in file order (names used in error messages).
GWF_FIELDS = (
    "JobID",
    "SubmitTime",
    "WaitTime",
    "RunTime",
    "NProcs",
    "AverageCPUTimeUsed",
    "UsedMemory",
    "ReqNProcs",
    "ReqTime",
    "ReqMemory",
    "Status",
    "UserID",
    "GroupID",
    "ExecutableID",
    "QueueID",
    "PartitionID",
    "OrigSiteID",
    "LastRunSiteID",
    "JobStructure",
    "JobStructureParams",
    "UsedNetwork",
    "UsedLocalDiskSpace",
    "UsedResources",
    "ReqPlatform",
    "ReqNetwork",
    "ReqLocalDiskSpace",
    "ReqResources",
    "VOID",
    "ProjectID",
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
    "site": 16,
}
_KINDS = {0: INT, 1: INT, 3: INT, 4: INT, 7: INT, 8: INT, 11: ID, 12: ID, 16: TEXT}

_GWF = Format(
    name="GWF",
    comment="#",
    fields=tuple((name, _KINDS.get(i, ANY)) for i, name in enumerate(GWF_FIELDS)),
    columns=_COLUMNS,
)


def read_gwf(
    path: str | PathLike[str], *, drop_invalid: bool = True, rebase: bool = True
) -> Workload:
    """Read a GWF file (plain or gzip) into a `Workload`.

    Parameters
    ----------
    path : str or path-like
        The trace (``anon_jobs.gwf`` in a GWA archive). Gzip files are recognised by a
        ``.gz`` suffix or by their magic bytes.
    drop_invalid : bool, default True
        As in `gridmarket.workloads.swf.read_swf`: drop (and count, and warn about) jobs whose
        runtime or processor count is unknown or zero, or raise `InvalidInput` if ``False``.
    rebase : bool, default True
        Subtract the first kept job's submit time from every submit time (GWA submit times are
        Unix times); the offset is recorded under ``gridmarket.submit_offset``.

    Returns
    -------
    Workload
        Jobs in ``(submit, id)`` order, named after the file. ``max_procs`` comes from
        ``# MaxProcs:`` / ``# MaxNodes:`` comment lines if the file has them, else ``None``.

    Raises
    ------
    InvalidInput
        Under the same rules as `read_swf`, with 29 fields per line; messages name the file,
        the line and the GWF field (``'RunTime'``).

    Notes
    -----
    The mapping to `Job` is SWF's: ``procs`` = ``NProcs``, else ``ReqNProcs`` when unknown;
    ``runtime`` = ``RunTime``; ``estimate`` = ``ReqTime``, else the runtime when unknown or 0
    (counted under ``gridmarket.estimates_filled``); ``site`` = ``OrigSiteID`` as a string
    (``None`` when ``-1``).

    GWA logs write some identifiers as names (the AuverGrid log has ``UserID`` values such as
    ``user_12``). A ``UserID`` or ``GroupID`` column holding any non-integer is numbered 0, 1,
    2, ... in order of first appearance (``-1`` stays unknown), so that `Job.user` and
    `Job.group` stay integers and distinct names stay distinct. Only the fields a job needs
    are checked; the other 20 may hold any token.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> line = "{id} {t} 5 {run} 2 -1 -1 2 3600 -1 1 U{u} G1 -1 -1 -1 {site} {site}" + " -1" * 11
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "tiny.gwf"
    >>> _ = path.write_text(
    ...     "# a GWF trace\\n"
    ...     + line.format(id=1, t=1136070000, run=600, u=7, site="siteA") + "\\n"
    ...     + line.format(id=2, t=1136070090, run=30, u=9, site="siteB") + "\\n"
    ... )
    >>> w = read_gwf(path)
    >>> [(j.id, j.submit, j.runtime, j.estimate, j.user, j.site) for j in w.jobs]
    [(1, 0, 600, 3600, 0, 'siteA'), (2, 90, 30, 3600, 1, 'siteB')]
    """
    lines = read_text(path).splitlines()
    header = parse_header(lines, _GWF.comment)
    columns = parse_records(lines, _GWF, str(path))
    return build_workload(
        columns,
        _GWF,
        path=str(path),
        name=Path(path).name,
        header=header,
        drop_invalid=drop_invalid,
        rebase=rebase,
        warn_stacklevel=3,
    )
