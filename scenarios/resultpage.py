"""A results folder read back as one page: its tables, figures, scenario, seeds and provenance.

:func:`read_results` recognises the folders gridmarket's commands write — ``compare`` and ``run SCENARIO``
(``manifest.json`` with a scenario), ``run REPRODUCTION`` (``manifest.json`` with a reproduction; with
``--seeds``, a ``summary.csv`` over ``seed-N/``), ``sweep`` (``sweep.json``) and ``simulate --out`` (CSV
files and no manifest) — and checks a manifest's files against their recorded sizes and SHA-256 before
reading anything (:func:`gridmarket.scenarios.outfolder.check_files`). :func:`to_html` renders the page as
one self-contained HTML file (figures embedded as base64 PNG, the style inline, nothing fetched from
elsewhere) and :func:`to_markdown` as Markdown beside the figures. Every table goes through
:func:`render_table`, the one place a table becomes text.

The provenance block names what a paper's supplement cites: the command, the code (package version and
git commit), Python and every dependency's version as the manifest recorded them, the seeds, the
manifest's own SHA-256 (which pins every file it lists) and the SHA-256 of every data file the scenario
names or the reproduction reads, compared with the one ``data/registry.toml`` records for it. Times in
the tables are seconds, allocation costs SU, electricity costs the prices' currency.
"""

from __future__ import annotations

import base64
import html
import json
import math
import numbers
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from gridmarket import vocabulary
from gridmarket.decoding import read_json
from gridmarket.errors import InvalidInput
from gridmarket.scenarios.outfolder import MANIFEST_NAME, check_files, file_record

__all__ = ["DataFile", "Figure", "ResultPage", "Table", "read_results", "render_table", "to_html", "to_markdown"]

#: Rows of a table shown on the page; the rest stay in its file (a sweep may hold thousands).
MAX_ROWS = 200

SWEEP_MANIFEST = "sweep.json"



@dataclass(frozen=True)
class Table:
    """A table of the folder: its title, the file it came from, its rows (at most :data:`MAX_ROWS` shown)."""

    title: str
    source: str
    frame: pd.DataFrame
    n_rows: int
    legend: str = ""


@dataclass(frozen=True)
class Figure:
    """A PNG of the folder."""

    title: str
    path: Path


@dataclass(frozen=True)
class DataFile:
    """A data file the run read: where the scenario names it, its SHA-256 now, and the registry's."""

    field: str
    path: str
    sha256: str | None
    registered: str | None = None
    note: str = ""

    @property
    def status(self) -> str:
        if self.sha256 is None:
            return self.note or "not found from here"
        if self.registered is None:
            return "not in the data registry"
        return "matches the registry" if self.sha256 == self.registered else "DIFFERS from the registry"


@dataclass(frozen=True)
class ResultPage:
    """Everything the page shows about one results folder."""

    folder: Path
    kind: str
    title: str
    tables: tuple[Table, ...]
    figures: tuple[Figure, ...]
    scenario: Mapping[str, Any] | None
    seeds: tuple[int, ...]
    command: tuple[str, ...]
    python: str | None
    packages: Mapping[str, str | None]
    git_commit: str | None
    manifest_sha256: str | None
    data_files: tuple[DataFile, ...]
    notes: tuple[str, ...] = field(default=())


# ---- reading a folder ----------------------------------------------------------------------------------


def _csv(path: Path, title: str, legend: str | None = None) -> Table:
    """The first rows of a CSV table; its legend, unless given, names the vocabulary's metrics among its columns."""
    try:
        frame = pd.read_csv(path)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as err:
        raise InvalidInput(f"{path}: not a readable CSV table ({str(err).splitlines()[0]})") from None
    if legend is None:
        legend = vocabulary.legend([c for c in frame.columns if vocabulary.is_metric(c)])
    return Table(title, path.name, frame.head(MAX_ROWS), len(frame), legend)


def _figures(folder: Path) -> tuple[Figure, ...]:
    return tuple(Figure(p.stem, p) for p in sorted(folder.glob("*.png")) if p.is_file())


def _registered() -> dict[str, str]:
    from gridmarket.datasets import registry, samples

    return {path: ds.sha256 for pool in (registry(), samples()) for path, ds in pool.items()}


def _data_file(where: str, named: str) -> DataFile:
    """The file ``named`` (as the scenario names it: relative to the folder the command ran in, or absolute)."""
    from gridmarket.datasets import sha256

    path = Path(named)
    digest = sha256(path) if path.is_file() else None
    posix = path.as_posix()
    registered = next((h for p, h in _registered().items() if posix == p or posix.endswith("/" + p)), None)
    return DataFile(where, named, digest, registered)


def _scenario_data(scenario: Mapping[str, Any]) -> list[DataFile]:
    """Every data file a scenario document names: traces, price CSVs, workflow files."""
    found = []
    workload = scenario.get("workload") or {}
    if isinstance(workload, Mapping):
        if isinstance(workload.get("trace"), str):
            found.append(_data_file("workload.trace", workload["trace"]))
        for i, name in enumerate(workload.get("workflow_files") or ()):
            if isinstance(name, str):
                found.append(_data_file(f"workload.workflow_files[{i}]", name))
    for i, provider in enumerate(scenario.get("providers") or ()):
        if not isinstance(provider, Mapping):
            continue
        if isinstance(provider.get("trace"), str):
            found.append(_data_file(f"providers[{i}].trace", provider["trace"]))
        prices = provider.get("prices")
        if isinstance(prices, str) and prices not in ("synthetic", "fixed"):
            found.append(_data_file(f"providers[{i}].prices", prices))
    return found


def _reproduction_data(name: str) -> list[DataFile]:
    """The registered files a reproduction reads, as found under the data root now."""
    from gridmarket.datasets import data_root, needed_by, sha256

    root = data_root()
    out = []
    for path in needed_by(name):
        registered = _registered().get(path)
        found = root / path
        if found.is_file():
            out.append(DataFile("reads", path, sha256(found), registered))
        else:
            out.append(DataFile("reads", path, None, registered, f"not under {root} now"))
    return out


def _manifest(folder: Path, path: Path, *, files: bool) -> dict:
    doc = read_json(path, "results manifest", allow_nan=True)
    if not isinstance(doc, dict) or not isinstance(doc.get("scenario"), Mapping):
        raise InvalidInput(f"{path}: not a gridmarket manifest (an object with 'scenario')")
    if files:
        check_files(folder, doc.get("files"), path)
    return doc


def _seeds(values: object) -> tuple[int, ...]:
    if isinstance(values, (list, tuple)):
        return tuple(int(v) for v in values if isinstance(v, (int, float)) and not isinstance(v, bool))
    if isinstance(values, int) and not isinstance(values, bool):
        return (values,)
    return ()


def _environment() -> tuple[str, dict[str, str | None], str | None]:
    from gridmarket.scenarios.results import manifest

    now = manifest({}, 0, command=[])
    return now["python"], now["packages"], now["git_commit"]


def read_results(folder: str | os.PathLike[str]) -> ResultPage:
    """The page of the results folder ``folder`` (see the module); InvalidInput in one line for a folder that is
    missing, not a results folder, or whose manifest does not match its files."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InvalidInput(f"{folder}: {'not a folder' if folder.exists() else 'no such folder'}")
    manifest_path, sweep_path = folder / MANIFEST_NAME, folder / SWEEP_MANIFEST
    notes: list[str] = []
    if manifest_path.is_file():
        doc = _manifest(folder, manifest_path, files=True)
        scenario = doc["scenario"]
        tables: list[Table] = []
        if "reproduction" in scenario:
            kind = "run"
            title = f"{scenario['reproduction']}: {scenario.get('citation', '')} (size {scenario.get('size')})"
            if (folder / "summary.csv").is_file():
                tables.append(_csv(folder / "summary.csv", "Figures and directions over seeds (95 % intervals)",
                                   f"Interval method: {doc.get('ci_method', 'see the reproduction')}."))
            elif (folder / "report.csv").is_file():
                tables.append(_csv(folder / "report.csv", "Our figures beside the paper's, and the directions",
                                   "units: the table's units column; seed_value and seed_ref: the paper's figure."))
            notes += [str(n) for n in doc.get("notes") or ()]
            data = _reproduction_data(str(scenario["reproduction"]))
            seeds = _seeds(doc.get("seeds")) or _seeds(doc.get("seed"))
        else:
            kind = "compare"
            title = f"{scenario.get('name', folder.name)}: interaction models compared"
            if (folder / "summary.csv").is_file():
                tables.append(_csv(folder / "summary.csv", "One row per interaction model"))
            data = _scenario_data(scenario)
            seeds = _seeds(doc.get("seed"))
        provenance = (doc.get("python"), dict(doc.get("packages") or {}), doc.get("git_commit"))
        command = tuple(str(c) for c in doc.get("command") or ())
        manifest_sha = file_record(manifest_path)["sha256"]
    elif sweep_path.is_file():
        doc = _manifest(folder, sweep_path, files=False)
        scenario = doc["scenario"]
        kind = "sweep"
        title = f"{scenario.get('name', folder.name)}: sweep"
        if not (folder / "sweep.csv").is_file():
            raise InvalidInput(f"{folder}: the sweep has no sweep.csv yet (unfinished; run it again with --resume)")
        table = _csv(folder / "sweep.csv", "One row per run (design point, model and seed)")
        tables = [table]
        full = pd.read_csv(folder / "sweep.csv", usecols=lambda c: c == "seed")
        seeds = tuple(sorted(int(s) for s in full["seed"].dropna().unique())) if "seed" in full else ()
        created = doc.get("created_with") or {}
        provenance = (created.get("python"), dict(created.get("packages") or {}), created.get("git_commit"))
        command = tuple(str(c) for c in created.get("command") or ())
        data = _scenario_data(scenario)
        manifest_sha = file_record(sweep_path)["sha256"]
        notes.append(f"sweep.json records the scenario and the design: {json.dumps(doc.get('grid') or doc.get('points'))}")
    else:
        csvs = sorted(p for p in folder.glob("*.csv") if p.is_file())
        if not csvs:
            raise InvalidInput(f"{folder}: not a results folder (no {MANIFEST_NAME}, no {SWEEP_MANIFEST}, no CSV "
                               "tables); give the folder compare, run, sweep or simulate --out wrote")
        kind, scenario, data, seeds, command, manifest_sha = "simulate", None, [], (), (), None
        title = f"{folder.name}: per-job tables"
        tables = [_csv(p, p.stem) for p in csvs]
        provenance = _environment()
        notes.append(f"The folder has no {MANIFEST_NAME} (simulate writes none): the versions below are this "
                     "environment's at report time, not necessarily the run's.")
    python, packages, commit = provenance
    return ResultPage(folder, kind, title, tuple(tables), _figures(folder), scenario, seeds, command, python,
                      packages, commit, manifest_sha, tuple(data), tuple(notes))


# ---- rendering -----------------------------------------------------------------------------------------


def _cell(value: object) -> str:
    if isinstance(value, float):
        if math.isnan(value):
            return ""
        return f"{value:.6g}"
    return "" if value is None else str(value)


_NUMBER = ' class="num"'


def _is_number(value: object) -> bool:
    return isinstance(value, numbers.Number) and not isinstance(value, bool)


def render_table(table: Table, fmt: str) -> str:
    """``table`` as ``"html"`` or ``"markdown"``: its rows, how many more its file holds, and its legend."""
    frame = table.frame
    more = table.n_rows - len(frame)
    tail = f"{more} more rows in {table.source}." if more > 0 else ""
    if fmt == "markdown":
        lines = ["| " + " | ".join(map(str, frame.columns)) + " |", "|" + "---|" * len(frame.columns)]
        lines += ["| " + " | ".join(_cell(v).replace("|", "\\|") for v in row) + " |"
                  for row in frame.itertuples(index=False)]
        after = " ".join(x for x in (tail, table.legend) if x)
        return "\n".join(lines) + (f"\n\n{after}" if after else "")
    if fmt != "html":
        raise ValueError(f"fmt must be 'html' or 'markdown', got {fmt!r}")
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in frame.columns)
    body = "".join("<tr>" + "".join(f"<td{_NUMBER if _is_number(v) else ''}>{html.escape(_cell(v))}</td>"
                                    for v in row) + "</tr>"
                   for row in frame.itertuples(index=False))
    after = "".join(f"<p class=\"legend\">{html.escape(x)}</p>" for x in (tail, table.legend) if x)
    return f"<div class=\"scroll\"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>{after}"


def _provenance_lines(page: ResultPage) -> list[tuple[str, str]]:
    """(label, text) pairs of the provenance block, in citation order."""
    version = page.packages.get("gridmarket") or "unknown"
    rows = [("results", f"{page.folder.name} ({page.kind})")]
    if page.command:
        rows.append(("command", " ".join(page.command)))
    if page.scenario is not None:
        rows.append(("scenario", str(page.scenario.get("name") or page.scenario.get("reproduction") or "")))
    rows.append(("seeds", ", ".join(map(str, page.seeds)) or "none recorded"))
    rows.append(("code", f"gridmarket {version}, git commit {page.git_commit or 'unknown'}"))
    rows.append(("python", page.python or "unknown"))
    deps = ", ".join(f"{k} {v}" for k, v in page.packages.items() if k != "gridmarket" and v)
    rows.append(("dependencies", deps or "none recorded"))
    if page.manifest_sha256:
        name = SWEEP_MANIFEST if page.kind == "sweep" else MANIFEST_NAME
        rows.append((name, f"sha256 {page.manifest_sha256}"))
    for d in page.data_files:
        digest = f"sha256 {d.sha256}" if d.sha256 else "sha256 unknown"
        rows.append((f"data: {d.field}", f"{d.path} — {digest} ({d.status})"))
    return rows


def to_markdown(page: ResultPage, figures_from: str | os.PathLike[str] | None = None) -> str:
    """The page as Markdown; figures are linked relative to ``figures_from`` (the page's folder; default the
    results folder itself)."""
    base = Path(figures_from) if figures_from is not None else page.folder
    out = [f"# {page.title}", ""]
    out += ["## Provenance", ""] + [f"- **{k}**: {v}" for k, v in _provenance_lines(page)] + [""]
    out += [f"> {n}" for n in page.notes] + ([""] if page.notes else [])
    for table in page.tables:
        out += [f"## {table.title} (`{table.source}`)", "", render_table(table, "markdown"), ""]
    if page.figures:
        out += ["## Figures", ""]
        for fig in page.figures:
            rel = Path(os.path.relpath(fig.path, base)).as_posix()
            out += [f"![{fig.title}]({rel})", ""]
    if page.scenario is not None:
        out += ["## Scenario", "", "```json", json.dumps(page.scenario, indent=2, default=str), "```", ""]
    return "\n".join(out)


_STYLE = """
body { font-family: sans-serif; max-width: 72rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.2rem; border-bottom: 1px solid #ccc; margin-top: 2rem; }
table { border-collapse: collapse; font-size: 0.85rem; }
th, td { border: 1px solid #ccc; padding: 0.2rem 0.4rem; text-align: left; white-space: nowrap; }
th { background: #f0f0f0; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.scroll { overflow-x: auto; } .legend { font-size: 0.85rem; color: #555; }
dl.provenance { display: grid; grid-template-columns: max-content 1fr; gap: 0.2rem 1rem; font-size: 0.9rem; }
dl.provenance dt { font-weight: bold; } dl.provenance dd { margin: 0; font-family: monospace; word-break: break-all; }
figure { margin: 1rem 0; } img { max-width: 100%; } pre { background: #f6f6f6; padding: 0.5rem; overflow-x: auto; }
"""


def to_html(page: ResultPage) -> str:
    """The page as one self-contained HTML document: figures as base64 PNG, the style inline, no external link."""
    esc = html.escape
    parts = ["<!DOCTYPE html>", "<html lang=\"en\"><head><meta charset=\"utf-8\">",
             f"<title>{esc(page.title)}</title><style>{_STYLE}</style></head><body>", f"<h1>{esc(page.title)}</h1>",
             "<h2>Provenance</h2><dl class=\"provenance\">"]
    parts += [f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in _provenance_lines(page)]
    parts.append("</dl>")
    parts += [f"<p class=\"legend\">{esc(n)}</p>" for n in page.notes]
    for table in page.tables:
        parts += [f"<h2>{esc(table.title)} (<code>{esc(table.source)}</code>)</h2>", render_table(table, "html")]
    if page.figures:
        parts.append("<h2>Figures</h2>")
        for fig in page.figures:
            data = base64.b64encode(fig.path.read_bytes()).decode("ascii")
            parts.append(f"<figure><img alt=\"{esc(fig.title)}\" src=\"data:image/png;base64,{data}\">"
                         f"<figcaption>{esc(fig.path.name)}</figcaption></figure>")
    if page.scenario is not None:
        parts += ["<h2>Scenario</h2>", f"<pre>{esc(json.dumps(page.scenario, indent=2, default=str))}</pre>"]
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
