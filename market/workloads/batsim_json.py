"""Batsim JSON workloads as a trace source.

The input format of Batsim (Dutot, Mercier, Poquet, Richard, "Batsim: a realistic language-independent
resources and jobs management systems simulator", JSSPP 2016; Batsim's documentation, "Workload"): a JSON
object with ``jobs``, ``profiles`` and ``nb_res``. A job has an ``id``, a ``subtime`` (submit time, absolute
seconds), ``res`` (processors), a ``profile`` (the name of how it runs) and an optional ``walltime`` (seconds
after its start at which it is killed; absent or ``-1`` for none). Only delay profiles can be read, since
gridmarket's jobs are rigid and run for a known time: ``{"type": "delay", "delay": SECONDS}`` (Batsim 5
names the type ``"DelayProfile"``; both are read). Parallel-task, SMPI and sequence profiles describe work
a platform model turns into time, which gridmarket does not have, and are refused by name.

Times in the file are numbers of seconds (floats allowed); the jobs hold integer seconds: a submit time
is rounded to the nearest second, a delay or walltime up to a whole second (a job holds its processors
at least as long as its file says).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from os import PathLike
from pathlib import Path
from typing import Any

from gridmarket.decoding import parse_json
from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.validation import check_number
from gridmarket.workloads._tracefile import (
    DROP_RUNTIME,
    ESTIMATES_FILLED_KEY,
    SUBMIT_OFFSET_KEY,
    DroppedJobsWarning,
    read_text,
)
from gridmarket.workloads.workload import Workload

__all__ = ["DELAY_PROFILE_TYPES", "IDS_RENUMBERED_KEY", "read_batsim_workload"]

#: The profile types read as a fixed run time: Batsim 3-4's name and Batsim 5's.
DELAY_PROFILE_TYPES = ("delay", "DelayProfile")

#: Header key counting the jobs renumbered because the file's ids are not all whole numbers.
IDS_RENUMBERED_KEY = "gridmarket.ids_renumbered"

_NO_WALLTIME = -1


def _whole_id(value: object) -> int | None:
    """A job id as an int when it is a non-negative whole number (``7`` or ``"7"``), else None."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    if isinstance(value, str) and value.isascii() and value.isdigit():
        return int(value)
    return None


def _delays(profiles: Mapping[str, Any], used: set[str], where: str) -> dict[str, int]:
    """Run time in whole seconds of every profile in ``used``; InvalidInput naming a profile that is not a delay."""
    out = {}
    for name in sorted(used):
        at = f"{where}: profiles.{name}"
        profile = profiles[name]
        if not isinstance(profile, Mapping):
            raise InvalidInput(f"{at} must be an object with a 'type', got {type(profile).__name__}")
        if "type" not in profile:
            raise InvalidInput(f"{at}: missing field 'type'")
        kind = profile["type"]
        if kind not in DELAY_PROFILE_TYPES:
            raise InvalidInput(f"{at}: profile type {kind!r} cannot be read; gridmarket reads delay profiles only "
                               f"(type {' or '.join(map(repr, DELAY_PROFILE_TYPES))}: the job runs for 'delay' seconds)")
        if "delay" not in profile:
            raise InvalidInput(f"{at}: missing field 'delay'")
        out[name] = math.ceil(check_number(f"{at}.delay", profile["delay"], "seconds", whole=False))
    return out


def _field(job: Mapping[str, Any], key: str, at: str) -> Any:
    if key not in job:
        raise InvalidInput(f"{at}: missing field {key!r}")
    return job[key]


def read_batsim_workload(path: str | PathLike[str], *, rebase: bool = True) -> Workload:
    """Read a Batsim JSON workload (plain or gzip) of delay profiles into a `Workload`.

    Parameters
    ----------
    path : str or path-like
        The workload file (``.json``, or ``.json.gz``).
    rebase : bool, default True
        Subtract the first submit time from every submit time, so the workload starts at 0 (Batsim's
        ``subtime`` is absolute); the seconds subtracted are recorded under ``gridmarket.submit_offset``.

    Returns
    -------
    Workload
        Jobs in ``(submit, id)`` order, named after the file, ``max_procs`` from ``nb_res`` (None without it).
        Each job's ``procs`` is ``res``, its ``runtime`` its profile's ``delay`` and its ``estimate`` its
        ``walltime``, or its runtime when it has none (counted under ``gridmarket.estimates_filled``, as the
        SWF reader counts unknown requested times). A walltime shorter than the delay kills the job at its
        walltime, as Batsim does (`Job.effective_runtime`). Ids that are whole numbers (``7`` or ``"7"``) are
        kept; if any is not (Batsim allows any string), every job is numbered 1, 2, ... in file order and
        ``gridmarket.ids_renumbered`` says how many. A job whose delay is 0 is dropped as ``"runtime unknown
        or zero"`` with a `DroppedJobsWarning`, as the SWF reader drops one. Users are unknown (-1).

    Raises
    ------
    InvalidInput
        One line naming the file and the field: not JSON, ``jobs`` or ``profiles`` missing, a job missing a
        field, a profile name not in ``profiles``, a profile type other than delay (named), a negative or
        non-finite delay, subtime, walltime (other than -1) or ``res`` out of its bounds
        (:data:`gridmarket.limits.LIMITS`), a repeated id, no jobs.

    Examples
    --------
    >>> import json, tempfile, pathlib
    >>> doc = {"nb_res": 4, "profiles": {"d10": {"type": "delay", "delay": 10}, "d2": {"type": "delay", "delay": 1.5}},
    ...        "jobs": [{"id": "1", "subtime": 100.2, "res": 2, "profile": "d10", "walltime": 20},
    ...                 {"id": "2", "subtime": 103, "res": 4, "profile": "d2"}]}
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "w.json"
    >>> _ = path.write_text(json.dumps(doc))
    >>> w = read_batsim_workload(path)
    >>> [(j.id, j.submit, j.procs, j.runtime, j.estimate) for j in w.jobs], w.max_procs
    ([(1, 0, 2, 10, 20), (2, 3, 4, 2, 2)], 4)
    >>> doc["profiles"]["d2"] = {"type": "parallel_homogeneous", "cpu": 1e9, "com": 0}
    >>> _ = path.write_text(json.dumps(doc))
    >>> read_batsim_workload(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: .../w.json: profiles.d2: profile type 'parallel_homogeneous' cannot be read; ...
    """
    where = str(path)
    doc = parse_json(read_text(path, "Batsim workload", errors="strict"), where, "Batsim workload")
    if not isinstance(doc, Mapping):
        raise InvalidInput(f"{where}: a Batsim workload is an object with 'jobs' and 'profiles', "
                           f"got {type(doc).__name__}")
    for key in ("jobs", "profiles"):
        if key not in doc:
            raise InvalidInput(f"{where}: missing field {key!r}")
    jobs = doc["jobs"]
    if not isinstance(jobs, list):
        raise InvalidInput(f"{where}: jobs must be an array, got {type(jobs).__name__}")
    if not jobs:
        raise InvalidInput(f"{where}: no jobs (the array 'jobs' is empty)")
    profiles = doc["profiles"]
    if not isinstance(profiles, Mapping):
        raise InvalidInput(f"{where}: profiles must be an object of named profiles, got {type(profiles).__name__}")
    max_procs = None
    if "nb_res" in doc:
        max_procs = int(check_number(f"{where}: nb_res", doc["nb_res"], "processors"))

    rows = []  # (id as given, submit, procs, profile, walltime or None)
    used: set[str] = set()
    for i, job in enumerate(jobs):
        at = f"{where}: jobs[{i}]"
        if not isinstance(job, Mapping):
            raise InvalidInput(f"{at} must be an object, got {type(job).__name__}")
        ident = _field(job, "id", at)
        if not isinstance(ident, (int, str)) or isinstance(ident, bool):
            raise InvalidInput(f"{at}.id must be a string or an integer, got {ident!r}")
        at = f"{at} (id {ident!r})"
        submit = check_number(f"{at}: subtime", _field(job, "subtime", at), "seconds", whole=False)
        procs = check_number(f"{at}: res", _field(job, "res", at), "processors")
        profile = _field(job, "profile", at)
        if not isinstance(profile, str) or profile not in profiles:
            raise InvalidInput(f"{at}: profile {profile!r} is not one of the workload's profiles")
        used.add(profile)
        walltime = job.get("walltime", _NO_WALLTIME)
        if walltime is None or (walltime == _NO_WALLTIME and not isinstance(walltime, bool)):
            walltime = None
        else:
            walltime = check_number(f"{at}: walltime", walltime, "seconds", whole=False)
            if walltime == 0:
                raise InvalidInput(f"{at}: walltime must be > 0 s, or -1 for none, got {walltime!r}")
        rows.append((ident, math.floor(submit + 0.5), int(procs), profile, walltime))
    delays = _delays(profiles, used, where)

    whole = [_whole_id(r[0]) for r in rows]
    renumbered = None in whole
    ids = list(range(1, len(rows) + 1)) if renumbered else whole
    first: dict[object, int] = {}
    for i, row in enumerate(rows):
        if first.setdefault(row[0], i) != i:
            raise InvalidInput(f"{where}: jobs[{i}]: id {row[0]!r} already given to jobs[{first[row[0]]}]")
    if not renumbered and len(set(ids)) < len(ids):  # 7 and "7"
        seen: dict[int | None, int] = {}
        for i, k in enumerate(ids):
            if seen.setdefault(k, i) != i:
                raise InvalidInput(f"{where}: jobs[{i}]: id {rows[i][0]!r} is job number {k}, as jobs[{seen[k]}] is")

    kept = [(k, row) for k, row in zip(ids, rows, strict=True) if delays[row[3]] > 0]
    n_dropped = len(rows) - len(kept)
    if not kept:
        raise InvalidInput(f"{where}: all {len(rows)} jobs were dropped ({DROP_RUNTIME}: every delay is 0)")
    offset = min(row[1] for _, row in kept) if rebase else 0
    filled = 0
    built = []
    for k, (_, submit, procs, profile, walltime) in kept:
        runtime = delays[profile]
        if walltime is None:
            filled += 1
            estimate = runtime
        else:
            estimate = math.ceil(walltime)
        built.append(Job(int(k), submit - offset, procs, runtime, estimate))  # type: ignore[arg-type]
    built.sort(key=lambda j: (j.submit, j.id))
    header = {ESTIMATES_FILLED_KEY: str(filled), SUBMIT_OFFSET_KEY: str(offset)}
    if renumbered:
        header[IDS_RENUMBERED_KEY] = str(len(rows))
    dropped = {DROP_RUNTIME: n_dropped} if n_dropped else {}
    if n_dropped:
        warnings.warn(f"{where}: dropped {n_dropped} of {len(rows)} jobs: {dropped}", DroppedJobsWarning,
                      stacklevel=2)
    return Workload(tuple(built), max_procs=max_procs, name=Path(path).name, dropped=dropped, header=header)
