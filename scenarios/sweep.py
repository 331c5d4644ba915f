"""Parameter sweeps: a grid of scenario overrides, runs stored in Parquet parts, resumable, local or on Dask.

``run_sweep(config, grid, out)`` runs :func:`gridmarket.scenarios.experiment.compare` for
every point of the Cartesian product of ``grid`` (parameter name -> values);
``run_sweep(config, None, out, points=...)`` runs a list of design points
instead (e.g. a Latin hypercube read by :func:`read_points` from a CSV file).
Layout of ``OUT/``::

    sweep.json          the sweep's manifest: scenario and grid or points (a resume must match it), versions
    parts/*.parquet     the finished runs: each run's grid point, n_rows and summary rows (one per model),
                        a few parts per process that ran points (:mod:`gridmarket.scenarios.sweepstore`)
    sweep.csv           the combined table (one row per run and interaction model), written last
    sweep.parquet       the same table, typed (pandas, Polars, DuckDB and Dask read it without parsing)
    sweep.png           each metric per design point and model: mean over seeds, 95 % interval
    means.csv           one row per design point and metric: mean over seeds, 95 % interval, its method
    means.md            the same, a table per topic with its legend (:mod:`gridmarket.scenarios.pointtable`)

A run is stored by the process that ran it, the moment it finishes: that
process rewrites its current part whole, atomically (temporary file + rename),
so a sweep killed at any instant leaves only whole parts holding every
finished run, plus perhaps a hidden ``.*.tmp`` that a resume deletes; a sweep
of thousands of runs makes tens of files, not thousands (shared HPC file
systems pay per file). ``resume=True`` skips every run that is whole in a part
(its point, a row per interaction model, as many as its ``n_rows``; a folder
of an earlier version, with one ``runs/<run_id>.json`` per run, resumes too);
another is logged and run again. An existing folder is refused unless
``resume`` or ``force`` (start over: the sweep's own files are deleted, and in
a folder without ``sweep.json`` nothing is). One sweep writes a folder at a
time (:func:`gridmarket.scenarios.outfolder.claim`); a second is refused.

Executors: ``"local"`` (``workers`` processes; 1 = in this process) or
``"dask"``: a ``distributed`` scheduler at ``scheduler`` (``tcp://HOST:PORT``,
e.g. started by dask-jobqueue on an HPC site), or without it a loopback
``LocalCluster`` of ``workers`` processes, closed at the end. No wait on
the cluster is unbounded (:func:`run_dask`): if a cluster the sweep started
has had no worker for :data:`NO_WORKER_SECONDS` (its worker processes died
and were not restarted), the sweep stops with :class:`NoWorkers`, keeping the
finished runs for a resume; on an external ``scheduler`` it waits for workers
to join (dask-jobqueue may start them much later), logging a warning every
:data:`NO_WORKER_SECONDS` while none is connected. A run stored in a part is
finished, so its result is read from there, not fetched from the worker that
computed it (which may be gone).

Grid syntax (``parse_grid``): ``name=v1,v2,...`` or ``name=a..b`` (integers,
inclusive); ``model=mcmf,stable`` picks one interaction model per run. Times
are seconds.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import json
import logging
import math
import multiprocessing
import os
import re
import time
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import pandas as pd

from gridmarket.atomicfile import is_temporary
from gridmarket.decoding import read_json, read_text
from gridmarket.errors import InvalidInput, MarketError
from gridmarket.scenarios.config import ScenarioConfig, overridable, suggest, with_overrides
from gridmarket.scenarios.experiment import check_models, compare
from gridmarket.scenarios.interrupts import stop_workers, with_hint
from gridmarket.scenarios.outfolder import claim, entries
from gridmarket.scenarios.results import manifest, write_atomic
from gridmarket.scenarios.sweepstore import PARTS, PartCache, add_run, is_part, new_session, part_files, read_runs
from gridmarket.validation import check_number

__all__ = ["EXECUTORS", "MANIFEST", "NO_WORKER_SECONDS", "NoWorkers", "check_executor", "executor_runs",
           "parse_grid", "point_id", "read_points", "run_dask", "run_local", "run_point", "run_sweep"]

EXECUTORS = ("local", "dask")
MANIFEST = "sweep.json"
"""The sweep manifest's file name inside ``OUT/``."""

DASK_HINT = 'pip install "gridmarket[dask]"'

NO_WORKER_SECONDS = 30.0
"""How long a Dask run tolerates a scheduler without any worker, in seconds.

Longer than a nanny needs to restart a killed worker process (a few seconds,
more on a loaded machine). A cluster started for the command that stays
workerless this long is given up (:class:`NoWorkers`); on an external
scheduler the command keeps waiting and logs a warning this often. Read when a
run starts, so a test may set it lower.
"""

_POLL_SECONDS = 0.1  # how often run_dask looks for finished runs (as distributed's own as_completed does)
_CHECK_SECONDS = 1.0  # at most this long between looks at the workers while nothing comes in
_ASK_SECONDS = 5.0  # how long the scheduler may take to say how many workers it has
_FETCH_SECONDS = 60.0  # the longest single wait for one result; a timed-out fetch is retried after a look
_CLOSE_SECONDS = 30.0  # how long closing the client or the LocalCluster may take before it is left to exit


class NoWorkers(MarketError):
    """The Dask cluster started for this command has had no worker for :data:`NO_WORKER_SECONDS`."""


_RANGE = re.compile(r"^(-?\d+)\.\.(-?\d+)$")
_BAD_RANGE = re.compile(r"^[-\d.]*\.\.[-\d.]*$")
_log = logging.getLogger(__name__)


def _value(text: str):
    text = text.strip()
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    if text.lower() in ("none", "inf"):
        return None
    return text


def parse_grid(specs: Sequence[str]) -> dict[str, list]:
    """``["alpha=0,0.5", "seed=1..3"]`` -> ``{"alpha": [0, 0.5], "seed": [1, 2, 3]}``.

    >>> parse_grid(["alpha=0,0.5,1", "seed=1..3", "model=mcmf"])
    {'alpha': [0, 0.5, 1], 'seed': [1, 2, 3], 'model': ['mcmf']}
    """
    grid: dict[str, list] = {}
    names = [n for n in overridable() if n != "models"] + ["model"]  # one model per run: a point's value is one name
    for spec in specs:
        name, sep, values = spec.partition("=")
        name = name.strip()
        if not sep or not name or not values.strip():
            raise InvalidInput(f"bad grid {spec!r}: expected NAME=v1,v2,... or NAME=a..b")
        if name not in names:
            raise InvalidInput(f"bad grid {spec!r}: unknown parameter {name!r}{suggest(name, names)}")
        if name in grid:
            raise InvalidInput(f"bad grid {spec!r}: {name!r} given twice")
        m = _RANGE.match(values.strip())
        if m:
            lo, hi = int(m[1]), int(m[2])
            if hi < lo:
                raise InvalidInput(f"bad grid {spec!r}: empty range {lo}..{hi}")
            # counted before the list is built: a range of 10**12 values is refused, not allocated
            check_number(f"bad grid {spec!r}: the number of values", hi - lo + 1, "runs")
            grid[name] = list(range(lo, hi + 1))
        elif _BAD_RANGE.match(values.strip()):  # a range typo; a path such as ../x.swf is a value
            raise InvalidInput(f"bad grid {spec!r}: {values.strip()!r} is not a range a..b of integers")
        else:
            parts = [v for v in values.split(",")]
            if any(not p.strip() for p in parts):
                raise InvalidInput(f"bad grid {spec!r}: empty value in {values!r}")
            grid[name] = [_value(p) for p in parts]
    return grid


def read_points(path: str | Path) -> list[dict]:
    r"""Design points from a CSV file: a header of parameter names, then one point per line.

    Values are read as grid values are (ints, floats, ``none``, text). A missing file, an empty
    one, a blank name or value, a line with the wrong number of values or a point given twice is
    refused in one line naming the file and line.

    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "design.csv"
    >>> _ = f.write_text("alpha,seed\n0,1\n0.5,2\n")
    >>> read_points(f)
    [{'alpha': 0, 'seed': 1}, {'alpha': 0.5, 'seed': 2}]
    """
    import csv

    path = Path(path)
    lines = read_text(path, "design points").splitlines()
    rows = [(k, r) for k, r in enumerate(csv.reader(lines), 1) if r and any(c.strip() for c in r)]
    if not rows:
        raise InvalidInput(f"{path}: no header and no points (expected e.g. 'alpha,seed' then '0.5,1')")
    (_, header), body = rows[0], rows[1:]
    names = [n.strip() for n in header]
    if not all(names) or len(set(names)) != len(names):
        raise InvalidInput(f"{path}: line 1: every column needs a distinct name, got {','.join(header)!r}")
    if not body:
        raise InvalidInput(f"{path}: a header but no design point")
    points: list[dict] = []
    seen: dict = {}
    for k, row in body:
        if len(row) != len(names):
            raise InvalidInput(f"{path}: line {k}: {len(row)} values for {len(names)} columns ({', '.join(names)})")
        if any(not c.strip() for c in row):
            raise InvalidInput(f"{path}: line {k}: empty value in {','.join(row)!r}")
        point = {n: _value(c) for n, c in zip(names, row)}
        key = json.dumps(point, sort_keys=True, default=str)
        if key in seen:
            raise InvalidInput(f"{path}: line {k}: the same point as line {seen[key]}")
        seen[key] = k
        points.append(point)
    return points


def point_id(scenario: str, point: Mapping) -> str:
    """``quickstart-alpha0.5-seed3`` (file-name safe)."""
    parts = [scenario] + [f"{k.removeprefix('workload.')}{v}" for k, v in point.items()]
    return re.sub(r"[^A-Za-z0-9._=+-]", "_", "-".join(parts))


def _configure(config: ScenarioConfig, point: Mapping) -> ScenarioConfig:
    values = dict(point)
    if "model" in values:
        values["models"] = (values.pop("model"),)
    return with_overrides(config, values)


def _absolute_paths(config: ScenarioConfig) -> ScenarioConfig:
    """``config`` with its trace, workflow and price-CSV paths made absolute (workers may run in another folder)."""
    work = config.workload
    if work.trace is not None:
        work = dataclasses.replace(work, trace=str(Path(work.trace).resolve()))
    if work.workflow_files:
        work = dataclasses.replace(work, workflow_files=tuple(str(Path(f).resolve()) for f in work.workflow_files))
    providers = tuple(
        p if p.prices in ("synthetic", "fixed") else dataclasses.replace(p, prices=str(Path(p.prices).resolve()))
        for p in config.providers)
    return dataclasses.replace(config, workload=work, providers=providers)


def run_point(config: ScenarioConfig, point: dict, parts: str, run_id: str, session: str) -> tuple[dict, bool]:
    """Run one grid point; store it in this process's part of ``session`` in ``parts`` when that folder exists here.

    Returns ``(document, stored)``: the run's ``{"point", "n_rows", "rows"}`` and whether it
    was stored, so that a client whose Dask workers do not share its file system stores it itself.
    """
    runs = compare(_configure(config, point))
    rows = [{**{f"grid.{k}": v for k, v in point.items()}, **r.summary} for r in runs]
    doc = json.loads(json.dumps({"point": point, "n_rows": len(rows), "rows": rows}, default=str))
    if Path(parts).is_dir():
        add_run(parts, run_id, doc, session)
        return doc, True
    return doc, False


def _incomplete(doc: object, point: Mapping | None = None, n_models: int | None = None) -> str | None:
    """Why ``doc`` is not a finished run's document (of ``point``, with a row per each of ``n_models``), or None."""
    if not isinstance(doc, dict) or not isinstance(doc.get("rows"), list):
        return "no list of rows"
    rows = doc["rows"]
    if not rows or not all(isinstance(r, dict) and "model" in r for r in rows):
        return "no rows" if not rows else "a row without its model"
    for r in rows:  # a row becomes one line of the table: a model's name and plain values
        if not isinstance(r["model"], str):
            return f"a model {r['model']!r} that is not a name"
        if not all(isinstance(v, (str, int, float, bool)) or v is None for v in r.values()):
            return "a row value that is not a number or a text"
    if "n_rows" in doc and doc["n_rows"] != len(rows):  # files of earlier versions have no n_rows
        return f"{len(rows)} rows, n_rows says {doc.get('n_rows')!r}"
    if n_models is not None and len(rows) != n_models:
        return f"{len(rows)} rows for {n_models} interaction models"
    if point is not None and json.dumps(doc.get("point"), sort_keys=True, default=str) != json.dumps(
            dict(point), sort_keys=True, default=str):
        return f"the point {doc.get('point')!r}, not {dict(point)!r}"
    return None


_part_caches: dict[str, PartCache] = {}


def _from_disk(key: tuple[str, str]) -> dict | None:
    """:func:`run_dask`'s ``recover`` for a sweep: run ``key = (run_id, parts folder)``'s document once stored whole."""
    rid, parts = key
    cache = _part_caches.setdefault(parts, PartCache(parts))
    doc = cache.runs().get(rid)
    return doc if doc is not None and _incomplete(doc) is None else None


def _recovered(key: tuple[str, str]) -> tuple[dict, bool] | None:
    """:func:`_from_disk` as :func:`run_point`'s result: the document, stored."""
    doc = _from_disk(key)
    return None if doc is None else (doc, True)


def _is_run_file(path: Path) -> bool:
    """Whether ``path`` is a run's JSON document (whole or not) of an earlier version's sweep, not someone else's file."""
    try:
        doc = read_json(path, "run file", allow_nan=True)
    except InvalidInput:
        return path.read_bytes().startswith(b'{\n "point":') if path.is_file() else False  # cut short
    return isinstance(doc, dict) and "point" in doc and "rows" in doc


class _Finished:
    """The finished runs of a sweep folder: whole in a part, or in an earlier version's ``runs/<run_id>.json``.

    A run cut short, emptied or edited (no rows, a row count other than its ``n_rows`` or
    than the point's interaction models, another point) is logged and run again.
    """

    def __init__(self, out: Path, expected: Mapping[str, tuple[Mapping, int]]) -> None:
        self.parts = PartCache(out / PARTS)
        self.legacy = out / "runs"
        self.expected = expected

    def whole(self, ids: Iterable[str], *, quiet: bool = False) -> dict[str, dict]:
        """Run id -> whole document, for the runs of ``ids`` that are finished (the parts read once)."""
        stored = self.parts.runs()
        found = {}
        for rid in ids:
            point, n_models = self.expected[rid]
            doc = stored.get(rid)
            where: object = self.parts.folder
            if doc is None:
                path = self.legacy / f"{rid}.json"
                if not path.exists():
                    continue
                where = path
                try:
                    doc = read_json(path, "run file", allow_nan=True)
                except InvalidInput as err:
                    if not quiet:
                        _log.warning("%s; running that point again", err)
                    continue
            why = _incomplete(doc, point, n_models)
            if why is not None:
                if not quiet:
                    _log.warning("%s: incomplete run %s (%s); running that point again", where, rid, why)
                continue
            found[rid] = doc
        return found


# ---- the folder -------------------------------------------------------------


def _differences(where: str, old, new) -> list[str]:
    if isinstance(old, dict) and isinstance(new, dict):
        return [d for key in sorted(set(old) | set(new), key=str)
                for d in _differences(f"{where}.{key}", old.get(key), new.get(key))]
    return [] if old == new else [f"{where} {old!r} here, {new!r} asked"]


def _spec_differences(old: dict, new: dict) -> list[str]:
    """What differs between two sweep manifests' scenario and grid, e.g. ``scenario.seed 1 here, 2 asked``."""
    return (_differences("scenario", old.get("scenario"), new["scenario"])
            + _differences("grid", old.get("grid"), new.get("grid"))
            + _differences("points", old.get("points"), new.get("points")))


def _check_out(out: Path, spec: dict, *, resume: bool, force: bool) -> None:
    """Refuse ``out`` before any work: exists without resume/force, or resume of another sweep."""
    if out.exists() and not out.is_dir():
        raise InvalidInput(f"{out}: exists and is not a folder")
    if not out.exists() or not [p for p in entries(out) if not is_temporary(p)]:
        return
    spec_path = out / MANIFEST
    if force:
        return
    if not spec_path.exists():
        raise InvalidInput(f"{out}: folder exists and holds no sweep (no {MANIFEST}); pass --force to write the "
                           "sweep into it (it deletes only files a sweep wrote), or choose another --out")
    try:
        old = read_json(spec_path, "sweep manifest")
    except InvalidInput as err:
        raise InvalidInput(f"{err}; pass --force to start over") from None
    if not isinstance(old, dict):
        raise InvalidInput(f"{spec_path}: a sweep manifest is an object, got {type(old).__name__}; pass --force "
                           "to start over")
    n_done = len(read_runs(out / PARTS)) + (sum(1 for _ in (out / "runs").glob("*.json"))
                                           if (out / "runs").is_dir() else 0)
    diffs = _spec_differences(old, spec)
    if diffs:
        raise InvalidInput(f"{out}: holds a different sweep ({'; '.join(diffs)}); choose another --out, "
                           "or pass --force to delete its runs and start over")
    if not resume:
        runs = "run" if n_done == 1 else "runs"
        raise InvalidInput(f"{out}: folder exists with {n_done} finished {runs} of this sweep; "
                           "pass --resume to continue it or --force to start over")


def _init_out(out: Path, spec: dict, *, force: bool) -> None:
    """Create ``out`` (manifest first, then ``parts/``); ``force`` deletes the old sweep; drop a kill's temporaries."""
    out.mkdir(parents=True, exist_ok=True)  # refusals were _check_out's
    parts_dir, runs_dir = out / PARTS, out / "runs"
    if force and (out / MANIFEST).exists():  # a sweep's folder: its files go; in any other folder nothing does
        parts = [p for p in part_files(parts_dir) if is_part(p)]
        runs = [p for p in runs_dir.glob("*.json") if _is_run_file(p)]
        for path in [out / MANIFEST, *parts, *runs, out / "sweep.csv", out / "sweep.parquet", out / "sweep.png",
                     out / "means.csv", out / "means.md"]:
            path.unlink(missing_ok=True)
    spec_path = out / MANIFEST
    if not spec_path.exists():
        provenance = manifest(spec["scenario"], spec["scenario"].get("seed"))
        doc = {**spec, "created_with": {k: provenance[k] for k in ("python", "packages", "git_commit", "command")}}
        write_atomic(spec_path, json.dumps(doc, indent=1, default=str) + "\n")
    parts_dir.mkdir(exist_ok=True)
    for folder in (parts_dir, runs_dir):
        for tmp in folder.glob(".*.tmp"):
            tmp.unlink(missing_ok=True)


# ---- executors --------------------------------------------------------------


def check_executor(executor: str, workers: int | None, scheduler: str | None) -> None:
    """Refuse a bad ``executor`` / ``workers`` / ``scheduler`` combination (InvalidInput), before any work."""
    if executor not in EXECUTORS:
        raise InvalidInput(f"unknown executor {executor!r}{suggest(executor, EXECUTORS)}")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise InvalidInput(f"workers must be an int >= 1, got {workers!r}")
    if workers is not None:
        check_number("workers", workers, "workers")
    if scheduler is not None and executor != "dask":
        raise InvalidInput(f"a scheduler ({scheduler!r}) needs the dask executor")
    if scheduler is not None and workers is not None:
        raise InvalidInput(f"workers={workers} sizes a local cluster; the scheduler {scheduler!r} "
                           "brings its own workers")


@contextlib.contextmanager
def children_without_working_folder() -> Iterator[None]:
    """Context in which the Python processes started (worker pools, clusters) keep the working folder off sys.path.

    ``multiprocessing`` starts its forkserver and spawned processes as ``python -c ...``, which puts
    the working folder first on ``sys.path`` while the child imports ``multiprocessing`` and pickle's
    modules: a ``struct.py`` lying in the folder a sweep starts from would run in every worker. Inside
    the context ``PYTHONSAFEPATH=1`` (what ``python -P`` sets) is in the environment the children
    inherit; this process's own environment is restored when it ends.
    """
    old = os.environ.get("PYTHONSAFEPATH")
    os.environ["PYTHONSAFEPATH"] = "1"
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("PYTHONSAFEPATH", None)
        else:
            os.environ["PYTHONSAFEPATH"] = old


def run_local(fn: Callable, tasks: Sequence[tuple[Any, tuple]], workers: int) -> Generator[tuple[Any, Any], None, None]:
    """``(key, fn(*args))`` for each ``(key, args)`` of ``tasks``, in completion order, on ``workers`` processes.

    One worker runs them in this process, in order. Closing the iterator early
    cancels the runs not yet started.
    """
    if workers == 1:
        for key, args in tasks:
            yield key, fn(*args)
        return
    # forkserver: workers start from a clean interpreter, not a fork of this (maybe threaded) process
    # the resource tracker starts with the pool, the forkserver and the workers at the first submits
    with children_without_working_folder():
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("forkserver"))
        try:
            futures = {pool.submit(fn, *args): key for key, args in tasks}
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    with pool:
        finished = False
        try:
            for fut in as_completed(futures):
                yield futures[fut], fut.result()
            finished = True
        finally:
            if not finished:  # interrupted or failed: start nothing more, end the runs in progress
                pool.shutdown(wait=False, cancel_futures=True)
                stop_workers()


@contextlib.contextmanager
def _closed_within(thing, what: str):
    """Yield ``thing`` (a Dask client or cluster) and close it on exit, waiting at most ``_CLOSE_SECONDS``.

    A close that takes longer is logged and abandoned, not waited on: its
    error would hide the one that ended the runs (e.g. :class:`NoWorkers`),
    and worker processes still left end with this one.
    """
    try:
        yield thing
    finally:
        try:
            thing.close(timeout=_CLOSE_SECONDS)
        except TimeoutError:
            _log.warning("%s did not close within %g s; left to end with this process", what, _CLOSE_SECONDS)


@contextlib.contextmanager
def _dask_client(scheduler: str | None, workers: int, timeout_seconds: float):
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise InvalidInput(f"the dask executor needs dask.distributed, which is not installed: {DASK_HINT}") from None
    if scheduler is None:
        with children_without_working_folder():  # the nannies and workers start here
            local = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                                 dashboard_address=None)
        with (_closed_within(local, "the Dask LocalCluster") as cluster,
              _closed_within(Client(cluster), "the Dask client") as client):
            yield client
        return
    try:
        client = Client(scheduler, timeout=f"{timeout_seconds}s")
    except (OSError, TimeoutError, ValueError, TypeError) as err:
        raise InvalidInput(f"cannot reach the Dask scheduler at {scheduler!r} within {timeout_seconds:g} s: "
                           f"{err}") from None
    with _closed_within(client, "the Dask client"):
        if not _n_workers(client, timeout_seconds):
            _log.warning("the Dask scheduler at %s has no workers yet; runs start when workers join", scheduler)
        yield client


def _n_workers(client, timeout_seconds: float) -> int | None:
    """How many workers ``client``'s scheduler has, or None if it does not answer within ``timeout_seconds``."""
    try:
        info = client.sync(client.scheduler.identity, callback_timeout=timeout_seconds)
    except (OSError, TimeoutError):
        return None
    return len(info.get("workers", ()))


class _WorkerWatch:
    """Whether a Dask scheduler still has workers, asked at most every ``check_seconds`` while runs wait.

    ``check()`` raises :class:`NoWorkers` once the scheduler has had none for
    ``no_worker_seconds`` (``give_up``: a cluster started for this command, whose
    dead workers nothing restarts), or else logs a warning that often (workers
    of an external scheduler may join later).
    """

    def __init__(self, client, *, give_up: bool, no_worker_seconds: float, n_total: int):
        self.client, self.give_up, self.no_worker_seconds, self.n_total = client, give_up, no_worker_seconds, n_total
        self.check_seconds = min(_CHECK_SECONDS, no_worker_seconds / 4)
        self.checked = time.monotonic()  # a LocalCluster starts with its workers; a scheduler without is warned of
        self.workerless_since: float | None = None
        self.warned: float | None = None

    def has_workers(self) -> bool:
        """Whether the scheduler had a worker when last asked (asking again if that is ``check_seconds`` old)."""
        now = time.monotonic()
        if now - self.checked >= self.check_seconds:
            self.checked = now
            if _n_workers(self.client, _ASK_SECONDS):  # no answer counts as no worker
                self.workerless_since = self.warned = None
            elif self.workerless_since is None:
                self.workerless_since = now
        return self.workerless_since is None

    def check(self, n_waiting: int) -> None:
        """Give up (NoWorkers) or warn if the scheduler has been without workers too long, ``n_waiting`` runs left."""
        if self.has_workers():
            return
        now = time.monotonic()
        idle = now - self.workerless_since  # type: ignore[operator]  # no workers: has_workers set it
        if idle < self.no_worker_seconds or (self.warned is not None and now - self.warned < self.no_worker_seconds):
            return
        if self.give_up:
            raise NoWorkers(f"the Dask LocalCluster started for this command has had no worker for "
                            f"{self.no_worker_seconds:g} s (its worker processes died or were killed, e.g. short of "
                            f"memory, and were not restarted); {n_waiting} of {self.n_total} runs not finished")
        self.warned = now
        _log.warning("no worker connected to the Dask scheduler for %.0f s; %d of %d runs waiting (they start when "
                     "workers join; Ctrl-C stops and keeps the finished runs)", idle, n_waiting, self.n_total)


def run_dask(client, fn: Callable, tasks: Sequence[tuple[Any, tuple]], *, wait_for_workers: bool = False,
             no_worker_seconds: float | None = None,
             recover: Callable[[Any], object | None] | None = None) -> Generator[tuple[Any, Any], None, None]:
    """:func:`run_local` on a Dask ``client``'s workers; closing the iterator cancels what is left.

    Every wait is bounded: for the next finished run and for its result, which
    is lost (and waits for a recomputation) if its worker died before the
    result was fetched. While nothing comes in, the scheduler is asked every
    second whether it has a worker left.

    Parameters
    ----------
    wait_for_workers
        False (a cluster started for this command, which nothing refills): once
        no worker has been connected for ``no_worker_seconds``, raise
        :class:`NoWorkers` rather than wait forever for runs no one will do.
        True (an external scheduler, whose workers may join later): keep
        waiting, logging a warning every ``no_worker_seconds`` while none is.
    no_worker_seconds
        The grace period, in seconds (default: :data:`NO_WORKER_SECONDS`).
    recover
        ``recover(key)``: the result of task ``key`` if it was kept elsewhere
        (a sweep's run file, written by the run's own process), else None.
        Asked before fetching a finished run's result, and for every waiting
        run while the scheduler has no worker, so a run that finished on a
        worker that is gone is not lost (nor counted as unfinished).

    Raises
    ------
    NoWorkers
        Without ``wait_for_workers``: no worker for ``no_worker_seconds``.
    """
    from distributed import as_completed as dask_completed

    if no_worker_seconds is None:
        no_worker_seconds = NO_WORKER_SECONDS
    futures = {client.submit(fn, *args, pure=False): key for key, args in tasks}
    waiting = dict(futures)  # not yet yielded
    watch = _WorkerWatch(client, give_up=not wait_for_workers, no_worker_seconds=no_worker_seconds,
                         n_total=len(futures))
    # finished once (their result maybe lost since with its worker, and waiting for a recomputation), not yet
    # taken -> the time limit of the next fetch (as_completed reports a future once, so they are kept here)
    fetch_seconds: dict[Any, float] = {}  # futures
    scanned = None  # the workerless spell whose finished runs were looked for with recover
    try:
        completed = dask_completed(futures)
        while waiting:
            # never a blocking next(completed): once the workers are gone the futures stay pending, with no error
            for fut in completed.next_batch(block=False):
                if fut in waiting:
                    fetch_seconds.setdefault(fut, watch.check_seconds)
            took = False
            for fut in [f for f in fetch_seconds if f.done()]:
                key = waiting[fut]
                value = recover(key) if recover is not None else None
                if value is None:
                    try:
                        value = fut.result(timeout=fetch_seconds[fut])
                    except TimeoutError:  # lost with its worker during the fetch, or slow: retry, more patiently
                        fetch_seconds[fut] = min(2 * fetch_seconds[fut], _FETCH_SECONDS)
                        continue
                del fetch_seconds[fut], waiting[fut]
                took = True
                yield key, value
            if took:
                continue
            if recover is not None and not watch.has_workers() and scanned != watch.workerless_since:
                # once a spell: runs that finished (on disk) before their workers died; none finishes during it
                scanned = watch.workerless_since
                for fut, key in list(waiting.items()):
                    value = recover(key)
                    if value is not None:
                        del waiting[fut]
                        fetch_seconds.pop(fut, None)
                        client.cancel([fut])  # no worker that joins later redoes it
                        yield key, value
                continue
            watch.check(len(waiting))
            time.sleep(_POLL_SECONDS)
    finally:
        client.cancel(list(futures))


@contextlib.contextmanager
def executor_runs(fn: Callable, tasks: Sequence[tuple[object, tuple]], *, executor: str = "local",
                  workers: int | None = None, scheduler: str | None = None, timeout_seconds: float = 5.0,
                  no_worker_seconds: float | None = None):
    """Context yielding the ``(key, fn(*args))`` pairs of ``tasks`` in completion order, on ``executor``.

    ``"local"``: ``workers`` processes (default 1, in this process); ``"dask"``:
    the workers of ``scheduler`` (waited for while none is connected), or a
    loopback cluster of ``workers`` processes (default: the CPU count), given
    up with :class:`NoWorkers` once workerless for ``no_worker_seconds``
    (:func:`run_dask`). Arguments are checked first (:func:`check_executor`);
    leaving the context cancels unfinished runs.
    """
    check_executor(executor, workers, scheduler)
    with contextlib.ExitStack() as stack:
        if executor == "dask" and tasks:
            n = workers if workers is not None else (os.cpu_count() or 1)
            client = stack.enter_context(_dask_client(scheduler, n, timeout_seconds))
            results = run_dask(client, fn, tasks, wait_for_workers=scheduler is not None,
                               no_worker_seconds=no_worker_seconds)
        else:
            results = run_local(fn, tasks, workers or 1)
        yield stack.enter_context(contextlib.closing(results))


# ---- the sweep --------------------------------------------------------------


def run_sweep(
    config: ScenarioConfig,
    grid: Mapping[str, Sequence] | None,
    out: str | Path,
    *,
    points: Sequence[Mapping] | None = None,
    executor: str = "local",
    workers: int | None = None,
    scheduler: str | None = None,
    resume: bool = False,
    force: bool = False,
    progress: Callable[[str, str, int, int], None] | None = None,
    timeout_seconds: float = 5.0,
    no_worker_seconds: float | None = None,
) -> pd.DataFrame:
    """Run every point of ``grid`` (or ``points``) into ``out``; return the combined table.

    The table is also written as ``out/sweep.csv`` and ``out/sweep.parquet``.

    Parameters
    ----------
    config, grid
        The scenario and its grid (``parse_grid``); every point is checked
        (``with_overrides``) before any run starts.
    points
        Instead of ``grid`` (which must then be None): the design points to
        run, each a mapping of parameter name -> value (:func:`read_points`).
    out
        The sweep folder, locked for the sweep's life (a second writer is
        refused). An existing non-empty one is refused unless ``resume``
        (same scenario and grid: finished runs are skipped) or ``force``
        (its run files, table and manifest are deleted first; in a folder
        holding no ``sweep.json`` nothing is deleted).
    executor, workers, scheduler
        ``"local"``: ``workers`` processes (default 1 = in this process).
        ``"dask"``: connect to ``scheduler`` (``tcp://HOST:PORT``; its own
        workers run the sweep, so ``workers`` must be None), or without it
        start a loopback ``LocalCluster`` of ``workers`` processes (default:
        the CPU count). On ``scheduler`` the runs wait for workers to join
        (a warning is logged every ``no_worker_seconds`` while none is).
    progress
        Called as ``progress(run_id, status, n_done, n_total)`` with status
        ``"skipped"`` (finished earlier) or ``"done"``, in completion order.
    timeout_seconds
        How long to try to reach ``scheduler``.
    no_worker_seconds
        How long the sweep's own ``LocalCluster`` may be without any worker
        before the sweep gives up (default :data:`NO_WORKER_SECONDS`).

    Raises
    ------
    InvalidInput
        Bad arguments or grid values, a refused folder, an unreachable
        scheduler, or dask not installed; all before any run starts.
    NoWorkers
        The sweep's own ``LocalCluster`` lost all its workers for
        ``no_worker_seconds``; the finished runs are kept for ``resume``.
    """
    check_executor(executor, workers, scheduler)
    if resume and force:
        raise InvalidInput("resume and force exclude each other: resume keeps finished runs, force deletes them")
    out = Path(out)
    if (grid is None) == (points is None):
        raise InvalidInput("give a grid or a list of design points, not both" if grid is not None
                           else "give a grid or a list of design points")
    rows: list[dict]  # the design points
    design: dict[str, object]
    if grid is not None:
        names = list(grid)
        # counted before the product is built: each run writes its own file
        sizes = " x ".join(f"{len(grid[n])} {n}" for n in names)
        check_number(f"grid of {sizes}: the number of runs", math.prod(len(grid[n]) for n in names), "runs")
        rows = [dict(zip(names, combo)) for combo in itertools.product(*(grid[n] for n in names))]
        what = f"grid {dict(grid)!r}"
        design = {"grid": {k: list(v) for k, v in grid.items()}}
    else:
        rows = [dict(p) for p in points]  # type: ignore[union-attr]  # not None: checked above
        what = "the design points"
        design = {"points": rows}
    if not rows:
        raise InvalidInput(f"empty {what}: no run to do")
    check_number(f"{what}: the number of runs", len(rows), "runs")
    for point in rows:
        check_models(_configure(config, point))  # bad values and plug-ins fail here, before hours of work
    ids = [point_id(config.name, point) for point in rows]
    if len(set(ids)) != len(ids):
        raise InvalidInput(f"{what} gives two runs the same id; give each value once")
    spec = json.loads(json.dumps({"scenario": config.to_dict(), **design}, default=str))
    n_models = [len(_configure(config, point).models) for point in rows]
    with claim(out):  # one sweep per folder at a time: a second is refused, not mixed in
        return _sweep_into(out, config, spec, ids, rows, n_models, executor=executor, workers=workers,
                           scheduler=scheduler, resume=resume, force=force, progress=progress,
                           timeout_seconds=timeout_seconds, no_worker_seconds=no_worker_seconds)


def _sweep_into(out: Path, config: ScenarioConfig, spec: dict, ids: list[str], points: list[dict],
                n_models: list[int], *, executor, workers, scheduler, resume, force, progress, timeout_seconds,
                no_worker_seconds) -> pd.DataFrame:
    """:func:`run_sweep` once it holds the folder's lock."""
    _check_out(out, spec, resume=resume, force=force)
    parts_dir = (out / PARTS).resolve()
    done = _Finished(out.resolve(), {rid: (point, n) for rid, point, n in zip(ids, points, n_models)})
    finished = set() if force else set(done.whole(ids))
    todo = [(rid, point) for rid, point in zip(ids, points) if rid not in finished]

    with contextlib.ExitStack() as stack:
        client = None
        if executor == "dask" and todo:  # before the folder is touched: an unreachable scheduler leaves nothing
            n = workers if workers is not None else (os.cpu_count() or 1)
            client = stack.enter_context(_dask_client(scheduler, n, timeout_seconds))
        _init_out(out, spec, force=force)
        n_total, n_done = len(points), 0
        for rid in ids:
            if rid in finished:
                n_done += 1
                if progress:
                    progress(rid, "skipped", n_done, n_total)
        run_config = _absolute_paths(config)
        session = new_session()
        tasks = [((rid, str(parts_dir)), (run_config, point, str(parts_dir), rid, session)) for rid, point in todo]
        if client is not None:
            results = run_dask(client, run_point, tasks, wait_for_workers=scheduler is not None,
                               no_worker_seconds=no_worker_seconds, recover=_recovered)
        else:
            results = run_local(run_point, tasks, workers or 1)
        try:
            for (rid, _), (doc, stored) in stack.enter_context(contextlib.closing(results)):
                if not stored:  # a Dask worker that does not share this file system
                    add_run(parts_dir, rid, doc, session)
                n_done += 1
                if progress:
                    progress(rid, "done", n_done, n_total)
        except KeyboardInterrupt as exc:
            stop_workers()
            for tmp in parts_dir.glob(".*.tmp"):  # a run stopped while writing leaves no partial file
                tmp.unlink(missing_ok=True)
            kept = len(done.whole(ids, quiet=True))
            raise with_hint(exc, f"{kept} of {n_total} runs finished and are kept in {parts_dir}; repeat the "
                                 "command with --resume to run the rest") from None
        except NoWorkers as exc:
            kept = len(done.whole(ids, quiet=True))
            raise NoWorkers(f"{exc}; {kept} of {n_total} runs finished and are kept in {parts_dir}; repeat the "
                            "command with --resume to run the rest") from None

    rows = []
    docs = done.whole(ids)
    for rid in ids:
        doc = docs.get(rid)
        if doc is None:  # changed on disk since its run stored it (another process, a hand)
            raise MarketError(f"{parts_dir}: run {rid} is missing or incomplete after the sweep (see the warning "
                              "above); repeat the command with --resume to run it again")
        rows += doc["rows"]
    table = pd.DataFrame(rows)
    from gridmarket.plots import metric_by_model
    from gridmarket.scenarios.pointtable import point_table, points_markdown

    # the table last: sweep.csv there means every file of the sweep is
    write_atomic(out / "sweep.parquet", table.to_parquet(index=False))
    means = point_table(table)
    write_atomic(out / "means.csv", means.to_csv(index=False))
    write_atomic(out / "means.md", points_markdown(means, f"{config.name}: sweep"))
    metric_by_model(means, out / "sweep.png", config.name)
    write_atomic(out / "sweep.csv", table.to_csv(index=False))
    return table
