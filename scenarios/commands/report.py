"""``gridmarket report DIR``: one HTML page and one Markdown page for a results folder.

A thin layer over :mod:`gridmarket.scenarios.resultpage`: the folder a ``compare``, ``run``, ``sweep`` or
``simulate --out`` wrote becomes ``results.html`` (self-contained: figures embedded, no external file) and
``results.md`` (beside the figures it links), with the tables, figures, scenario, seeds and a provenance block
(command, versions, data files' SHA-256).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from gridmarket.atomicfile import write_atomic
from gridmarket.scenarios.outfolder import claim
from gridmarket.scenarios.resultpage import read_results, to_html, to_markdown

__all__ = ["PAGE_NAMES", "add_subcommand", "run_report"]

#: The pages written, in the results folder unless --out names another.
PAGE_NAMES = ("results.html", "results.md")


def run_report(args: argparse.Namespace) -> int:
    """Read the folder (refused in one line if it is not a results folder), then write both pages."""
    page = read_results(args.folder)
    out = Path(args.out) if args.out else page.folder
    out.mkdir(parents=True, exist_ok=True)
    html_path, md_path = (out / name for name in PAGE_NAMES)
    with claim(page.folder):  # no command writes the folder while its pages are made from it
        write_atomic(html_path, to_html(page))
        write_atomic(md_path, to_markdown(page, figures_from=out))
    print(f"{page.title}\nwrote {html_path} and {md_path} ({len(page.tables)} tables, {len(page.figures)} figures, "
          f"{len(page.data_files)} data files)")
    return 0


def add_subcommand(subparsers) -> None:
    """Add ``report`` to the main CLI's subparsers (it sets ``run``)."""
    p = subparsers.add_parser(
        "report",
        help="write an HTML and a Markdown page (tables, figures, provenance) for a results folder",
        description="Read a folder written by compare, run, sweep or simulate --out (a manifest's files are "
        "checked against their SHA-256 first) and write results.html (self-contained: figures embedded as "
        "base64 PNG, no external CSS, script or font) and results.md: the tables with their legend, the "
        "figures, the scenario, the seeds, and a provenance block (command, gridmarket version and git commit, "
        "Python and dependency versions, the manifest's SHA-256 and every data file's, checked against the "
        "data registry) a paper's supplement can cite.",
    )
    p.add_argument("folder", metavar="DIR", help="the results folder")
    p.add_argument("--out", metavar="DIR", help=f"write {' and '.join(PAGE_NAMES)} here (default: into DIR)")
    p.set_defaults(run=run_report)
