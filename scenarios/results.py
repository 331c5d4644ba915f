"""A comparison's results folder: per-job CSV, summary CSV and Markdown, PNG bars, manifest JSON.

Layout of ``OUT/``::

    jobs.csv        one row per job and model (model, seed, job_id, site, submit, start, end, procs, ...)
    summary.csv     one row per model (the comparison table, with msg_<kind> columns)
    summary.md      the same table in Markdown
    metrics.png     bars per model: mean wait, mean response, bounded slowdown, makespan,
                    allocation cost, electricity cost
    messages.png    messages per type and model
    manifest.json   scenario, seed, package versions, git commit, command

Per-job rows are CSV, not Parquet: pyarrow would be a ~40 MB dependency for
files of a few thousand rows, and CSV is what evalys and Batsim tools read.
Times are seconds; allocation cost SU; electricity cost in the prices' currency.
"""

from __future__ import annotations

import json
import math
import os
import platform
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path

import pandas as pd

from market.errors import InvalidInput

__all__ = ["PACKAGES", "format_table", "manifest", "prepare_out", "write_atomic", "write_results"]

PACKAGES = ("gridmarket", "mesa", "numpy", "pandas", "networkx", "scipy", "deap", "ortools", "scikit-learn",
            "statsmodels", "matplotlib")

_PLOTTED = (("mean_wait", "mean wait (s)"), ("mean_response", "mean response (s)"),
            ("mean_bsld", "mean bounded slowdown"), ("makespan", "makespan (s)"),
            ("allocation_cost", "allocation cost (SU)"), ("electricity_cost", "electricity cost"))


def prepare_out(out: str | Path, *, force: bool = False) -> Path:
    """Create ``out``; refuse an existing non-empty folder unless ``force``."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise InvalidInput(f"{out}: exists and is not a folder")
    if out.exists() and any(out.iterdir()) and not force:
        raise InvalidInput(f"{out}: folder exists; pass --force to overwrite it")
    out.mkdir(parents=True, exist_ok=True)
    return out


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and a rename (no half-written file)."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _git_commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], check=False, cwd=Path(__file__).resolve().parent,
                             capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def manifest(config_dict: dict, seed: int, *, command: list[str] | None = None) -> dict:
    """What produced a result: scenario, seed, package versions, git commit, command."""
    versions = {}
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
        "git_commit": _git_commit(),
        "command": command if command is not None else sys.argv,
    }


def format_table(summary: pd.DataFrame) -> str:
    """The comparison as a fixed-width text table (one row per model)."""
    cols = ["model", "makespan", "mean_wait", "mean_response", "mean_bsld", "allocation_cost",
            "electricity_cost", "success_rate"] + [c for c in summary.columns if c.startswith("msg_")]
    frame = summary[cols].copy()
    for c in ("mean_wait", "mean_response"):
        frame[c] = frame[c].map(lambda v: f"{v:.1f}")
    for c in ("mean_bsld", "allocation_cost", "electricity_cost", "success_rate"):
        frame[c] = frame[c].map(lambda v: f"{v:.3f}")
    for c in frame.columns:
        if c.startswith("msg_"):
            frame[c] = frame[c].fillna(0).astype(int)
    return frame.to_string(index=False)


def _markdown(frame: pd.DataFrame) -> str:
    def cell(v) -> str:
        if isinstance(v, float):
            return "" if math.isnan(v) else f"{v:.3f}"
        return str(v)

    lines = ["| " + " | ".join(frame.columns) + " |", "|" + "---|" * len(frame.columns)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join(lines)


def _bars(summary: pd.DataFrame, path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    fig = Figure(figsize=(12, 6.5), layout="constrained")
    axes = fig.subplots(2, 3).ravel()
    colours = [f"C{i}" for i in range(len(summary))]
    for ax, (col, label) in zip(axes, _PLOTTED):
        ax.bar(summary["model"], summary[col], color=colours)
        ax.set_title(label)
        ax.tick_params(axis="x", labelrotation=30)
    fig.suptitle(title)
    fig.savefig(path, dpi=110)


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
    fig.savefig(path, dpi=110)


def write_results(out: Path, jobs: pd.DataFrame, summary: pd.DataFrame, manifest_doc: dict, title: str) -> list[Path]:
    """Write the folder's files (see module docstring); return their paths."""
    out = Path(out)
    written = []
    for name, text in (("jobs.csv", jobs.to_csv(index=False)), ("summary.csv", summary.to_csv(index=False)),
                       ("summary.md", f"# {title}\n\n" + _markdown(summary) + "\n"),
                       ("manifest.json", json.dumps(manifest_doc, indent=2, default=str) + "\n")):
        write_atomic(out / name, text)
        written.append(out / name)
    _bars(summary, out / "metrics.png", title)
    _message_bars(summary, out / "messages.png", title)
    written += [out / "metrics.png", out / "messages.png"]
    return written
