"""The command-line reference page (``docs/cli.md``), generated from the ``gridmarket`` argparse parsers.

Every subcommand's ``--help`` text, as argparse formats it at a fixed width of ``WIDTH`` columns,
under a heading per command (nested commands such as ``gridmarket data fetch`` too). A test keeps
``docs/cli.md`` equal to ``reference_markdown()``; after changing an option, rewrite the page with
``python tools/cli_reference.py docs/cli.md``. Developer tooling, not part of the installed package
(no command may import the CLI that dispatches to it, and this reads the CLI's parsers).
"""

from __future__ import annotations

import argparse
import functools
import sys
from pathlib import Path
from typing import cast

__all__ = ["WIDTH", "reference_markdown"]

WIDTH = 100
"""Columns the help texts are formatted to (argparse would otherwise take the terminal's)."""

_HEADER = """# Command-line reference

Every `gridmarket` command and its options, as `gridmarket COMMAND --help` prints them. This page
is generated from the command's parsers (`tools/cli_reference.py` in the repository) and a test
keeps the two equal. The README shows the commands at work; {doc}`glossary` explains the metrics their
tables print.
"""


class _Recording(argparse.ArgumentParser):
    """A parser that keeps its subcommands' parsers in order, and formats its help at :data:`WIDTH` columns."""

    def __init__(self, *args, **kwargs):
        kwargs["formatter_class"] = functools.partial(argparse.HelpFormatter, width=WIDTH)
        super().__init__(*args, **kwargs)
        self.commands: list[tuple[str, _Recording]] = []

    def add_subparsers(self, **kwargs):
        action = super().add_subparsers(**kwargs)
        add_parser = action.add_parser

        def recorded(name, **options):
            parser = add_parser(name, **options)
            self.commands.append((name, parser))
            return parser

        action.add_parser = recorded  # type: ignore[method-assign]
        return action


def _sections(parser: _Recording, level: int) -> list[str]:
    out = []
    for _, command in parser.commands:
        if not command.add_help:  # argparse's stand-in without help: full_parser gave every command its own parser
            continue
        out += [f"{'#' * level} {command.prog}", "", "```text", command.format_help().rstrip(), "```", ""]
        out += _sections(command, level + 1)
    return out


def reference_markdown() -> str:
    """The whole ``docs/cli.md`` page: the main command's help, then each command's, in the CLI's order."""
    from gridmarket.scenarios.commands.cli import full_parser

    parser = cast(_Recording, full_parser(parser_class=_Recording))
    lines = [_HEADER, "## gridmarket", "", "```text", parser.format_help().rstrip(), "```", ""]
    return "\n".join(lines + _sections(parser, 2)).rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    """``python tools/cli_reference.py [PATH]``: write the page to PATH (default: print it)."""
    args = sys.argv[1:] if argv is None else argv
    text = reference_markdown()
    if args:
        from gridmarket.atomicfile import write_atomic

        write_atomic(Path(args[0]), text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
