"""A comparison's results folder: per-job Parquet (and CSV), summary CSV and Markdown, PNG bars, manifest JSON.

Layout of ``OUT/``::

    jobs.parquet    one row per job and model (model, seed, job_id, site, submit, start, end, procs, ...),
                    typed columns (pandas.read_parquet, Dask, Polars, DuckDB read it)
    jobs.csv        the same rows as text, for tools that read CSV
    summary.csv     one row per model (the comparison table, with msg_<kind> columns)
    summary.md      the same table in Markdown: a table per topic (time, money, market, ...), each with its legend
    metrics.png     bars per model: mean wait, mean response, bounded slowdown, makespan,
                    allocation cost, electricity cost
    messages.png    messages per type and model (a table of counts)
    workflows.csv   one row per workflow and model (submit, finish, makespan, provisioned, cost)
    reservations.csv  one row per reservation request and model (success, normalized extra cost, used)
    pareto.png      the last MOGA Pareto set, the chosen plan marked
    prices.png      slot prices quoted and paid over time, per model and provider
    gantt.png       one provider's schedule under a broker model
    manifest.json   scenario, seed, package versions, git commit, command, and ``files``: every other
                    file's bytes, SHA-256 and (tables) rows; written last, so its presence means complete

Every file is written under a temporary name and renamed (:mod:`gridmarket.atomicfile`): a stop
leaves no cut file and no manifest, and a later command replaces such an unfinished folder
(:func:`prepare_out`).
Parquet is written by pyarrow (pandas' default engine).
Times are seconds; allocation cost SU; electricity cost in the prices' currency.
"""

from __future__ import annotations

import contextlib
import fnmatch
import functools
import json
import math
import platform
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from importlib import metadata
from pathlib import Path

import pandas as pd

from gridmarket.atomicfile import is_temporary, write_atomic
from gridmarket.errors import InvalidInput
from gridmarket.scenarios.outfolder import LOCK_NAME, MANIFEST_NAME, entries, file_record, remove_written
from gridmarket.vocabulary import by_topic, is_metric, legend_items, legend_lines, metric

__all__ = ["PACKAGES", "PRINTED", "RESULT_FILES", "format_table", "manifest", "prepare_out", "run_currency",
           "summary_markdown", "write_atomic", "write_manifest", "write_results"]

PACKAGES = ("gridmarket", "mesa", "numpy", "pandas", "networkx", "scipy", "deap", "ortools", "scikit-learn",
            "statsmodels", "matplotlib", "tqdm", "pyarrow")



RESULT_FILES = ("jobs.parquet", "jobs.csv", "summary.csv", "summary.md", "metrics.png", "messages.png",
                "workflows.csv", "reservations.csv", "pareto.png", "prices.png", "gantt.png", "batsim")
"""What :func:`write_results` (and ``compare --batsim``) may write besides ``manifest.json`` (glob patterns)."""


def prepare_out(out: str | Path, *, force: bool = False, ours: Sequence[str] = RESULT_FILES) -> Path:
    """Make the folder ``out`` ready for a command's results (the caller holds its lock, ``outfolder.claim``).

    An empty or missing folder is created; a non-empty one is refused unless ``force``,
    which deletes only what gridmarket wrote there (the manifest first, the files it lists,
    the entries of ``ours``, glob patterns, and stray temporary files) and keeps the rest.
    The refusal says whether the folder holds a finished result (``manifest.json``) or an
    unfinished one (only files of ``ours``: a command stopped while writing).
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise InvalidInput(f"{out}: exists and is not a folder")
    if out.exists() and entries(out):
        if not force:
            found = entries(out)
            if (out / MANIFEST_NAME).exists():
                what = " and holds a finished result"
            elif all(is_temporary(p) or any(fnmatch.fnmatch(p.name, pattern) for pattern in ours) for p in found):
                what = f" and holds an unfinished result (no {MANIFEST_NAME}: a command stopped while writing)"
            else:
                what = ""
            raise InvalidInput(f"{out}: folder exists{what}; pass --force to replace what gridmarket wrote there "
                               "(other files are kept)")
        remove_written(out, ours)
    out.mkdir(parents=True, exist_ok=True)
    return out


def remove_if_empty(out: Path) -> bool:
    """Remove the folder ``out`` if it exists and is empty but its lock (nothing written); True if removed."""
    out = Path(out)
    if out.is_dir() and not entries(out):
        with contextlib.suppress(FileNotFoundError):
            (out / LOCK_NAME).unlink()  # the lock of this process's own claim, which ends with the folder
        out.rmdir()
        return True
    return False


@functools.cache
def code_version() -> str | None:
    """The git commit of this code, ``-dirty`` appended when tracked files differ from it; None outside git.

    Taken once per process: the commands that write results call it when they
    start, so a manifest names the code that ran, not the commit checked out
    when a long run happened to end.
    """
    here = Path(__file__).resolve().parent

    def git(*args: str) -> subprocess.CompletedProcess | None:
        try:
            return subprocess.run(["git", *args], check=False, cwd=here, capture_output=True, text=True, timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            return None

    head = git("rev-parse", "HEAD")
    if head is None or head.returncode != 0 or not head.stdout.strip():
        return None
    status = git("status", "--porcelain", "--untracked-files=no")
    dirty = status is not None and status.returncode == 0 and bool(status.stdout.strip())
    return head.stdout.strip() + ("-dirty" if dirty else "")


def manifest(config_dict: dict, seed: int, *, command: list[str] | None = None) -> dict:
    """What produced a result: scenario, seed, package versions, git commit, command."""
    versions: dict[str, str | None] = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return {
        "scenario": config_dict,
        "seed": seed,
        "python": platform.python_version(),
        "packages": versions,
        "git_commit": code_version(),
        "command": command if command is not None else sys.argv,
    }


PRINTED = ("makespan", "mean_wait", "mean_response", "mean_bsld", "workflow_makespan", "success_rate",
           "allocation_cost", "electricity_cost", "users_surplus", "provider_revenue", "social_welfare", "messages",
           "negotiation_rounds", "reservation_success", "reservation_cost")
"""The metrics ``compare`` prints (every metric is in summary.csv and summary.md)."""


def run_currency(runs: Sequence | None) -> str:
    """The currency of the electricity prices the runs read (``""`` when none says)."""
    return next((r.currency for r in runs or () if getattr(r, "currency", "")), "")


def format_table(summary: pd.DataFrame, metrics: Sequence[str] = PRINTED, *, currency: str = "") -> str:
    """The comparison as fixed-width text: one block per topic, a row per model, each with its legend line.

    Column labels, units, directions and decimals come from :mod:`gridmarket.vocabulary`; the legend
    under each block says what every label means (``wait = mean wait (s), lower is better``), the
    electricity cost in ``currency`` when the run knows it.
    """
    units = {"electricity_cost": currency} if currency else None
    cols = [c for c in metrics if c in summary.columns]
    blocks = []
    for topic, names in by_topic(cols):
        frame = pd.DataFrame({"model": summary["model"]} if "model" in summary else {})
        for name in names:
            frame[metric(name).label] = [metric(name).format(v) for v in summary[name]]
        blocks.append(f"[{topic}]\n{frame.to_string(index=False)}\n{legend_lines(names, units=units)}")
    return "\n\n".join(blocks)


def _markdown(frame: pd.DataFrame) -> str:
    """A Markdown table of ``frame``: its metric columns labelled and formatted from the vocabulary."""
    def cell(name, v) -> str:
        if is_metric(name):
            return metric(name).format(v)
        if isinstance(v, float):
            return "" if math.isnan(v) else f"{v:.3f}"
        return str(v)

    names = list(frame.columns)
    lines = ["| " + " | ".join(metric(c).label if is_metric(c) else c for c in names) + " |",
             "|" + "---|" * len(names)]
    lines += ["| " + " | ".join(cell(c, v) for c, v in zip(names, row)) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines)


def summary_markdown(summary: pd.DataFrame, title: str, *, currency: str = "") -> str:
    """``summary.md``: the comparison split by topic (one table per topic, a row per model), each with its legend.

    The columns that are not metrics (``run_id``, ``seed``) go with the ``run`` topic, at the end.
    """
    units = {"electricity_cost": currency} if currency else None
    keys = ["model"] if "model" in summary else []
    others = [c for c in summary.columns if not is_metric(c) and c not in keys]
    groups = by_topic(list(summary.columns))
    if others and not any(topic == "run" for topic, _ in groups):
        groups.append(("run", []))
    parts = [f"# {title}", ""]
    for topic, names in groups:
        cols = keys + (others if topic == "run" else []) + names
        parts += [f"## {topic}", "", _markdown(summary[cols]), ""]
        parts += [f"- {item}" for item in legend_items(names, units=units)] + ([""] if names else [])
    return "\n".join(parts)


def write_manifest(out: Path, doc: dict, written: Sequence[Path], rows: Mapping[Path, int] | None = None) -> Path:
    """Write ``out/manifest.json``: ``doc`` with ``files`` (each written file's bytes, SHA-256 and rows), last.

    Its presence says the folder is complete: every other file is written before it.
    """
    out = Path(out)
    rows = rows or {}
    files = {p.relative_to(out).as_posix(): file_record(p, rows=rows.get(p)) for p in written}
    path = out / MANIFEST_NAME
    write_atomic(path, json.dumps({**doc, "files": files}, indent=2, default=str) + "\n")
    return path


def write_results(out: Path, jobs: pd.DataFrame, summary: pd.DataFrame, manifest_doc: dict, title: str,
                  runs: Sequence | None = None, procs: Mapping[str, int] | None = None,
                  extra: Callable[[Path], list[Path]] | None = None) -> list[Path]:
    """Write the folder's files (see module docstring), ``manifest.json`` last; return their paths.

    ``runs`` (the :class:`gridmarket.scenarios.experiment.ModelRun` list) adds
    workflows.csv, reservations.csv, pareto.png, prices.png and gantt.png;
    ``procs`` (provider -> processors) sizes the Gantt chart; ``extra(out)``
    writes more files (returning their paths) before the manifest. Stopped
    (Ctrl-C, SIGTERM) before the manifest, it deletes what it wrote: no file
    of an unfinished result is left to be taken for one.
    """
    try:
        return _write_results(Path(out), jobs, summary, manifest_doc, title, runs, procs, extra)
    except KeyboardInterrupt:
        if not (Path(out) / MANIFEST_NAME).exists():
            remove_written(Path(out), RESULT_FILES)
        raise


def _write_results(out: Path, jobs, summary, manifest_doc, title, runs, procs, extra) -> list[Path]:
    from gridmarket import plots

    written = []
    tables = [("jobs.csv", jobs), ("summary.csv", summary)]
    for attr in ("workflows", "reservations"):
        frames = [getattr(r, attr).assign(model=r.model) for r in runs or () if getattr(r, attr) is not None]
        if frames:
            tables.append((f"{attr}.csv", pd.concat(frames, ignore_index=True)))
    currency = run_currency(runs)
    rows = {out / name: len(frame) for name, frame in tables}
    rows[out / "jobs.parquet"] = len(jobs)
    files = [("jobs.parquet", jobs.to_parquet(index=False)), *((name, f.to_csv(index=False)) for name, f in tables),
             ("summary.md", summary_markdown(summary, title, currency=currency))]
    for name, text in files:
        write_atomic(out / name, text)
        written.append(out / name)
    plots.model_bars(summary, out / "metrics.png", title, currency=currency)
    plots.message_table(summary, out / "messages.png", title)
    written += [out / "metrics.png", out / "messages.png"]
    if runs:
        moga = next((r for r in runs if r.front), None)
        plots.pareto_front(moga.front if moga else [], moga.choice if moga else None, out / "pareto.png",
                           f"{title}: last MOGA Pareto set" + (f" ({moga.model})" if moga else ""))
        until = max(float(r.records["end"].max()) for r in runs if len(r.records))
        plots.price_history({r.model: r.price_log for r in runs}, out / "prices.png", f"{title}: slot prices",
                            until=until)
        written += [out / "pareto.png", out / "prices.png"]
        if procs:
            run = next((r for r in runs if r.model in ("moga", "greedy")), runs[0])
            site = max(procs, key=lambda s: (len(run.records[run.records["site"] == s]), s))
            plots.gantt(run.records[run.records["site"] == site], procs[site], out / "gantt.png",
                        f"{title}: {site} under {run.model}")
            written.append(out / "gantt.png")
    if extra is not None:
        written += extra(out)
    return [*written, write_manifest(out, manifest_doc, written, rows)]
