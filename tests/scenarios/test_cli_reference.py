"""The command-line reference page is the parsers' own help, so it cannot drift from the options."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _tool():
    spec = importlib.util.spec_from_file_location("cli_reference", ROOT / "tools" / "cli_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def reference_markdown() -> str:
    return _tool().reference_markdown()


def test_the_reference_page_is_the_parsers_help():
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert page == reference_markdown(), "docs/cli.md is stale: rewrite it with 'python tools/cli_reference.py docs/cli.md'"


def test_every_command_and_nested_command_has_a_section_with_its_options():
    page = reference_markdown()
    for command in ("simulate", "compare", "sweep", "quote", "advertise", "clear", "viz", "provision", "run",
                    "data", "data fetch"):
        assert f"\n## gridmarket {command}\n" in page or f"\n### gridmarket {command}\n" in page, command
    sweep = page[page.index("## gridmarket sweep"):page.index("## gridmarket quote")]
    assert "--grid NAME=VALUES" in sweep and "--resume" in sweep
