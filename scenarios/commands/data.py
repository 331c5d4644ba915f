"""``gridmarket data``: the real inputs (traces, prices, workflows) -- list them, fetch them into the cache, locate one.

A thin layer over :mod:`gridmarket.datasets`::

    gridmarket data list                                   # every registered file: size, sha256, source, use, cached?
    gridmarket data fetch traces/SDSC-SP2-1998-4.2-cln.swf.gz
    gridmarket data fetch prices/pjm_comed_2013-2018_epftoolbox.csv --from /mnt/mirror   # or --from https://...
    gridmarket data path traces/SDSC-SP2-1998-4.2-cln.swf.gz                           # where it is read from

Listing imports neither numpy nor pooch; only a download loads pooch.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import fields

from gridmarket import datasets
from gridmarket.errors import InvalidInput
from gridmarket.scenarios.options import run_standalone

__all__ = ["add_subcommands", "format_list", "main"]


def _size(n: int) -> str:
    """Bytes as a short human figure (``1.2 MB``, ``23 kB``; powers of 1000)."""
    return f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n / 1e3:.0f} kB"


def format_list(kind: str | None = None) -> str:
    """The registry as a table: path, size, sha256 (first 12 hex digits), cached?, the reproductions using it,
    then the source's title and first URL (for a derived file: the origin it is remade from; for a generated
    one: that only a mirror serves it)."""
    files = [ds for p, ds in datasets.registry().items() if kind is None or p.startswith(kind + "/")]
    cache = datasets.cache_dir()
    width = max(len(ds.path) for ds in files)
    lines = [(f"cache: {cache} (${datasets.CACHE_ENV} to move it); reads: --data, else ${datasets.DATA_ENV}, "
              "else the cache"),
             f"{'path':<{width}}  {'size':>7}  {'sha256':<12}  cached  used by"]
    srcs = datasets.sources()
    for ds in files:
        cached = "yes" if datasets.is_cached(ds.path) else "no"
        lines.append(f"{ds.path:<{width}}  {_size(ds.size):>7}  {ds.sha256[:12]}  {cached:<6}  "
                     f"{', '.join(ds.used_by) or '-'}")
        if ds.urls:
            where = ds.urls[0]
        elif ds.derive:
            where = f"remade from {ds.derive['from']} (its column of prices, rewritten; sha256-checked)"
        else:
            where = f"generated ({ds.origin[0]}); only a mirror serves it (--from)"
        lines.append(f"    {srcs[ds.source].title}: {where}")
    total = sum(ds.size for ds in files)
    lines.append(f"{len(files)} files, {_size(total)}; samples shipped with gridmarket: "
                 f"{', '.join(datasets.samples())} (`gridmarket data path samples/NAME`)")
    return "\n".join(lines)


def _list(args: argparse.Namespace) -> int:
    if args.json:
        srcs = datasets.sources()
        doc = []
        for ds in datasets.registry().values():
            if args.kind and not ds.path.startswith(args.kind + "/"):
                continue
            entry = {f.name: getattr(ds, f.name) for f in fields(ds) if getattr(ds, f.name) not in (None, "", ())}
            entry["cached"] = datasets.is_cached(ds.path)
            entry["licence"] = srcs[ds.source].licence
            entry["cite"] = srcs[ds.source].cite
            doc.append(entry)
        print(json.dumps(doc, indent=1))
        return 0
    print(format_list(args.kind))
    return 0


def _fetch(args: argparse.Namespace) -> int:
    paths = list(args.paths)
    for name in args.needed_by or ():
        from gridmarket.scenarios.reproductions import get_reproduction

        get_reproduction(name)  # an unknown name: one line with the closest
        paths += [p for p in datasets.needed_by(name) if p not in paths]
    if not paths:
        raise InvalidInput("name the files to fetch (`gridmarket data list`) or --for REPRODUCTION")
    for path in datasets.fetch(paths, mirror=args.mirror, progress=args.progress):
        print(path)
    return 0


def _path(args: argparse.Namespace) -> int:
    if args.path in datasets.samples():
        print(datasets.sample(args.path))
        return 0
    datasets.get(args.path)  # an unregistered path: one line with the closest
    print(datasets.locate(args.path, args.data))
    return 0


def add_subcommands(sub) -> None:
    """Register ``data`` (``list``, ``fetch``, ``path``) on the ``gridmarket`` sub-command parsers."""
    p = sub.add_parser("data", help="list, fetch (sha256-checked, into the user cache) or locate the real data files",
                       description="The real inputs gridmarket registers (data/registry.toml): PWA traces, "
                       "electricity prices, workflows. Files are read from --data DIR, else $GRIDMARKET_DATA, else "
                       "the user cache ($GRIDMARKET_CACHE, else the platform cache folder), which 'fetch' fills.")
    actions = p.add_subparsers(dest="action", required=True)
    ls = actions.add_parser("list", help="every registered file: size, sha256, whether cached, who uses it, source")
    ls.add_argument("--kind", choices=("traces", "prices", "workflows"), help="only this folder")
    ls.add_argument("--json", action="store_true", help="every field of every entry (full sha256, URLs, licence, "
                    "citation) as JSON")
    ls.set_defaults(run=_list)
    fe = actions.add_parser("fetch", help="download files into the cache, checking each sha256",
                            description="Download registered files (from their public URLs, or from --from) into the "
                            "cache; a file whose sha256 differs from the registry's is refused and nothing is cached.")
    fe.add_argument("paths", nargs="*", metavar="PATH", help="registered paths (gridmarket data list)")
    fe.add_argument("--for", dest="needed_by", action="append", metavar="REPRODUCTION",
                    help="also every file this reproduction reads (repeatable)")
    fe.add_argument("--from", dest="mirror", metavar="DIR_OR_URL",
                    help="a mirror: a folder laid out like the data root, or its URL (file://, https://); the way "
                    "to fill the cache without internet, and the only source of derived files")
    fe.add_argument("--progress", action="store_true", help="show a download bar")
    fe.set_defaults(run=_fetch)
    pa = actions.add_parser("path", help="print where a registered file (or a shipped sample) is read from")
    pa.add_argument("path", metavar="PATH", help="a registered path, or samples/NAME")
    pa.add_argument("--data", help="a data folder to look in (default $GRIDMARKET_DATA, else the cache)")
    pa.set_defaults(run=_path)


def main(argv: list[str] | None = None) -> int:
    """``python -P -m gridmarket.scenarios.commands.data``: the same subcommand without the rest of the CLI."""
    return run_standalone(add_subcommands, argv, __doc__.splitlines()[0])


if __name__ == "__main__":
    raise SystemExit(main())
