"""A comparison's results folder: per-job Parquet (and CSV), summary CSV and Markdown, PNG bars, manifest JSON.

Layout of ``OUT/``::

    jobs.parquet    one row per job and model (model, seed, job_id, site, submit, start, end, procs, ...),
                    typed columns (pandas.read_parquet, Dask, Polars, DuckDB read it)
    jobs.csv        the same rows as text, for tools that read CSV
    summary.csv     one row per model (the comparison table, with msg_<kind> columns)
    summary.md      the same table in Markdown
    metrics.png     bars per model: mean wait, mean response, bounded slowdown, makespan,
                    allocation cost, electricity cost
    messages.png    messages per type and model
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

from gridmarket.atomicfile import is_temporary, save_figure, write_atomic
from gridmarket.errors import InvalidInput
from gridmarket.scenarios.outfolder import LOCK_NAME, MANIFEST_NAME, entries, file_record, remove_written

__all__ = ["PACKAGES", "RESULT_FILES", "format_table", "manifest", "prepare_out", "write_atomic", "write_manifest",
           "write_results"]

PACKAGES = ("gridmarket", "mesa", "numpy", "pandas", "networkx", "scipy", "deap", "ortools", "scikit-learn",
            "statsmodels", "matplotlib", "tqdm", "pyarrow")

_PLOTTED = (("mean_wait", "mean wait (s)"), ("mean_response", "mean response (s)"),
            ("mean_bsld", "mean bounded slowdown"), ("makespan", "makespan (s)"),
            ("allocation_cost", "allocation cost (SU)"), ("electricity_cost", "electricity cost"))


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


_HEADERS = {
    "model": "model", "makespan": "makespan_s", "mean_wait": "wait_s", "mean_response": "response_s",
    "mean_bsld": "bsld", "workflow_makespan": "wf_makespan_s", "reservation_success": "ar_success",
    "reservation_cost": "ar_extra_cost", "allocation_cost": "alloc_SU", "electricity_cost": "energy_cost",
    "success_rate": "success", "messages": "messages", "users_surplus": "surplus_SU",
    "provider_revenue": "revenue_SU", "social_welfare": "welfare_SU", "negotiation_rounds": "rounds",
}  # fmt: skip


def format_table(summary: pd.DataFrame) -> str:
    """The comparison as a fixed-width text table (one row per model; message counts by type are in the CSV).

    Jobs' wait, response and bounded slowdown are over the users' own jobs;
    ``wf_makespan_s`` is the mean workflow makespan, ``ar_success`` the share of
    reservation requests started by their wanted start and ``ar_extra_cost``
    their mean extra cost over n·D (Singh ch. 6.3). ``surplus_SU``, ``revenue_SU`` and
    ``welfare_SU`` are the users' surplus (value - price), providers' revenue and their sum;
    ``rounds`` the negotiation's rounds (``gridmarket.scenarios.experiment.summary_row``).
    """
    cols = [c for c in _HEADERS if c in summary.columns]
    frame = summary[cols].copy()
    for c in ("mean_wait", "mean_response", "workflow_makespan"):
        if c in frame:
            frame[c] = frame[c].map(lambda v: "-" if pd.isna(v) else f"{v:.0f}")
    for c in ("mean_bsld", "allocation_cost", "electricity_cost", "success_rate", "reservation_success",
              "reservation_cost", "users_surplus", "provider_revenue", "social_welfare"):
        if c in frame:
            frame[c] = frame[c].map(lambda v: "-" if pd.isna(v) else f"{v:.3f}")
    return frame.rename(columns=_HEADERS).to_string(index=False)


def _markdown(frame: pd.DataFrame) -> str:
    def cell(v) -> str:
        if isinstance(v, float):
            return "" if math.isnan(v) else f"{v:.3f}"
        return str(v)

    lines = ["| " + " | ".join(frame.columns) + " |", "|" + "---|" * len(frame.columns)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines)


def _bars(summary: pd.DataFrame, path: Path, title: str, *, currency: str = ""):
    """Six panels of per-model metrics, one horizontal bar per model (names never collide).

    The run's makespan is usually set by the last long job and equal for every model, so it is
    said in the title and the panel shows the workflows' mean makespan instead (where workflows ran).
    """
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    panels = list(_PLOTTED)
    makespan = summary.get("makespan")
    note = ""
    if "workflow_makespan" in summary and summary["workflow_makespan"].notna().any():
        panels[3] = ("workflow_makespan", "workflow makespan (s)")
        if makespan is not None and makespan.notna().all():
            spread = makespan.max() - makespan.min()
            note = (f"; run makespan {makespan.min() / 3600:.1f} h for every model" if spread == 0 else
                    f"; run makespan {makespan.min() / 3600:.1f}-{makespan.max() / 3600:.1f} h")
    unit = currency or "price units"
    panels[5] = ("electricity_cost", f"electricity cost ({unit})")
    models = list(summary["model"])
    fig = Figure(figsize=(12, 1.6 + 0.55 * len(models) * 2), layout="constrained")
    axes = fig.subplots(2, 3, sharey=True).ravel()
    colours = [f"C{i % 10}" for i in range(len(models))]
    y = range(len(models))
    for ax, (col, label) in zip(axes, panels):
        values = summary[col] if col in summary else pd.Series([float("nan")] * len(models))
        ax.barh(list(y), values, color=colours)
        ax.set_title(label)
        ax.set_yticks(list(y), models)
        ax.grid(axis="x", alpha=0.3)
    axes[0].invert_yaxis()  # once: the panels share the y axis, and each call would flip it back
    fig.suptitle(title + note)
    save_figure(fig, path, dpi=110)
    return fig


def _message_bars(summary: pd.DataFrame, path: Path, title: str) -> None:
    from matplotlib.figure import Figure

    kinds = [c for c in summary.columns if c.startswith("msg_")]
    fig = Figure(figsize=(7, 4), layout="constrained")
    ax = fig.subplots()
    width = 0.8 / max(len(kinds), 1)
    x = range(len(summary))
    for k, kind in enumerate(kinds):
        ax.bar([i + k * width for i in x], summary[kind].fillna(0), width, label=kind.removeprefix("msg_"))
    ax.set_xticks([i + width * (len(kinds) - 1) / 2 for i in x], summary["model"])
    ax.set_ylabel("messages")
    ax.legend()
    ax.set_title(title)
    save_figure(fig, path, dpi=110)


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
    from gridmarket.scenarios import plots

    written = []
    tables = [("jobs.csv", jobs), ("summary.csv", summary)]
    for attr in ("workflows", "reservations"):
        frames = [getattr(r, attr).assign(model=r.model) for r in runs or () if getattr(r, attr) is not None]
        if frames:
            tables.append((f"{attr}.csv", pd.concat(frames, ignore_index=True)))
    rows = {out / name: len(frame) for name, frame in tables}
    rows[out / "jobs.parquet"] = len(jobs)
    files = [("jobs.parquet", jobs.to_parquet(index=False)), *((name, f.to_csv(index=False)) for name, f in tables),
             ("summary.md", f"# {title}\n\n" + _markdown(summary) + "\n")]
    for name, text in files:
        write_atomic(out / name, text)
        written.append(out / name)
    currency = next((r.currency for r in runs or () if getattr(r, "currency", "")), "")
    _bars(summary, out / "metrics.png", title, currency=currency)
    _message_bars(summary, out / "messages.png", title)
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
