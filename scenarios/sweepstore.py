"""A sweep's finished runs, stored as a few Parquet parts per process instead of one file per run.

Shared HPC file systems (Lustre, GPFS) pay for every file created and every
metadata lookup; a sweep of 10,000 runs writing 10,000 JSON files strains them.
Each process that runs sweep points writes its own parts,
``OUT/parts/<session>-<host>-<pid>.<k>.parquet``, its runs ``k * RUNS_PER_PART``
onwards in that session (one call of :func:`gridmarket.scenarios.sweep.run_sweep`;
a resumed sweep writes new parts beside the old): after each run the process
rewrites its current part whole (a new
temporary file renamed over the old one, :func:`gridmarket.atomicfile.write_atomic`),
so a stop at any instant leaves every run finished before it on disk and
nothing cut. No two processes write one part, so parts need no lock; the
sweep's folder lock (:func:`gridmarket.scenarios.outfolder.claim`) keeps other
sweeps out.

A part's rows, one per summary row of a run: ``run_id`` (text), ``point``
(the run's grid point as JSON text), ``n_rows`` (the run's number of summary
rows) and ``row`` (the summary row as JSON text; values of a column differ in
type from point to point, so the typed table is built once, on reading,
as ``sweep.parquet``). :func:`read_runs` joins the parts into one document per
run, the same ``{"point", "n_rows", "rows"}`` a run's JSON file held.
"""

from __future__ import annotations

import io
import json
import logging
import os
import socket
import threading
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from gridmarket.atomicfile import is_temporary, write_atomic

__all__ = ["PARTS", "RUNS_PER_PART", "PartCache", "add_run", "is_part", "new_session", "part_files", "read_runs"]

_log = logging.getLogger(__name__)

PARTS = "parts"
"""The folder of a sweep's parts, inside its results folder."""

RUNS_PER_PART = 64
"""Runs per part: a run rewrites its process's current part whole, so a part is kept small."""

_SCHEMA = pa.schema([("run_id", pa.string()), ("point", pa.string()), ("n_rows", pa.int64()), ("row", pa.string())])
_MARK = b"gridmarket-sweep-part"  # the parts' key-value metadata: --force deletes only files bearing it


class _Writer:
    """This process's parts in one folder: the runs of its current part, rewritten whole after each run."""

    def __init__(self, folder: Path, session: str) -> None:
        self.folder = folder
        host = "".join(c if c.isalnum() or c in "-_" else "_" for c in socket.gethostname())[:40] or "host"
        self.stem = f"{session}-{host}-{os.getpid()}"
        self.index = 0
        self.runs: list[tuple[str, dict]] = []

    def add(self, run_id: str, doc: dict) -> None:
        if len(self.runs) == RUNS_PER_PART:
            self.index, self.runs = self.index + 1, []
        self.runs.append((run_id, doc))
        columns: dict[str, list] = {"run_id": [], "point": [], "n_rows": [], "row": []}
        for rid, d in self.runs:
            point = json.dumps(d["point"], sort_keys=True, default=str)
            for row in d["rows"]:
                columns["run_id"].append(rid)
                columns["point"].append(point)
                columns["n_rows"].append(d["n_rows"])
                columns["row"].append(json.dumps(row, default=str))
        table = pa.Table.from_pydict(columns, schema=_SCHEMA.with_metadata({_MARK: b"1"}))
        buffer = io.BytesIO()
        pq.write_table(table, buffer)
        try:
            write_atomic(self.folder / f"{self.stem}.{self.index}.parquet", buffer.getvalue())
        except BaseException:
            self.runs.pop()  # the part on disk is the one before this run: so is the list
            raise


_writers: dict[tuple[Path, str], _Writer] = {}
_writers_lock = threading.Lock()


def new_session() -> str:
    """A name for one sweep call's parts: the time it started (ns), sorting parts oldest first."""
    return f"s{time.time_ns()}"


def add_run(folder: str | os.PathLike[str], run_id: str, doc: dict, session: str) -> None:
    """Store run ``run_id``'s document (``{"point", "n_rows", "rows"}``) in this process's part of ``session``."""
    path = Path(folder).resolve()
    with _writers_lock:
        writer = _writers.get((path, session))
        if writer is None:
            # a new session in this folder: the process's writers of earlier ones are done (their parts stay)
            for key in [k for k in _writers if k[0] == path]:
                del _writers[key]
            writer = _writers[path, session] = _Writer(path, session)
        writer.add(run_id, doc)


def part_files(folder: str | os.PathLike[str]) -> list[Path]:
    """The part files in ``folder`` (not the temporaries of a write in progress or killed), sorted by name."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.glob("*.parquet") if not is_temporary(p))


def is_part(path: Path) -> bool:
    """Whether ``path`` is a part a sweep wrote (its metadata says so), not someone else's Parquet file."""
    try:
        metadata = pq.read_schema(path).metadata or {}
    except (OSError, pa.ArrowException):
        return False
    return metadata.get(_MARK) == b"1"


def _read_part(path: Path) -> dict[str, dict] | None:
    """Run id -> document of the runs in part ``path``; None (logged) when it cannot be read as a part."""
    try:
        table = pq.read_table(path)
        if not table.schema.remove_metadata().equals(_SCHEMA):
            raise ValueError(f"columns {table.schema.names}, not a sweep part's")
        runs: dict[str, dict] = {}
        for rid, point, n_rows, row in zip(*(table.column(n).to_pylist() for n in _SCHEMA.names)):
            doc = runs.setdefault(rid, {"point": json.loads(point), "n_rows": n_rows, "rows": []})
            doc["rows"].append(json.loads(row))
        return runs
    except (OSError, ValueError, pa.ArrowException) as err:
        _log.warning("%s: unreadable sweep part (%s); its runs count as not finished", path, err)
        return None


class PartCache:
    """:func:`read_runs` for a folder read again and again: a part is read again only once it changed."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)
        self._parts: dict[Path, tuple[tuple[int, int], dict[str, dict]]] = {}
        self._merged: dict[str, dict] = {}

    def runs(self) -> dict[str, dict]:
        """Run id -> document, over every part; a run stored twice gives its newest copy (by session, then part).

        A run is stored again when a resume re-ran it (its earlier copy was incomplete or edited),
        or when a Dask worker died after storing it and the scheduler ran it elsewhere (the same rows).
        """
        parts: dict[Path, tuple[tuple[int, int], dict[str, dict]]] = {}
        changed = False
        for path in part_files(self.folder):
            try:
                st = path.stat()
            except OSError:
                continue
            stamp = (st.st_mtime_ns, st.st_size)
            cached = self._parts.get(path)
            if cached is None or cached[0] != stamp:
                runs = _read_part(path)
                cached = (stamp, runs if runs is not None else {})
                changed = True
            parts[path] = cached
        if changed or parts.keys() != self._parts.keys():  # merged again only when a part changed
            self._parts, self._merged = parts, {}
            for _, runs in parts.values():
                self._merged.update(runs)
        return self._merged


def read_runs(folder: str | os.PathLike[str]) -> dict[str, dict]:
    """Run id -> its document (``{"point", "n_rows", "rows"}``) over the parts in ``folder``."""
    return PartCache(folder).runs()
