"""The README's "Watch a market live" section: its commands parse and its Python example runs."""

import argparse
import re
import shlex
from pathlib import Path

from gridmarket.viz import server

README = Path(__file__).resolve().parents[2] / "README.md"


def _section() -> str:
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Watch a market live"):]
    return section[:section.index("\n## ", 1)]


def test_viz_commands_in_the_readme_parse():
    parser = argparse.ArgumentParser()
    server.add_subcommand(parser.add_subparsers(dest="command", required=True))
    lines = [line.split("#")[0] for line in _section().splitlines() if line.startswith("gridmarket viz")]
    assert len(lines) == 2
    parsed = [parser.parse_args(shlex.split(line)[1:]) for line in lines]
    assert parsed[0].scenario == "quickstart" and parsed[0].port == server.DEFAULT_PORT
    assert (parsed[1].scenario, parsed[1].model, parsed[1].port) == ("docs/example-scenario.toml", "moga", 0)


def test_python_example_in_the_readme_runs():
    section = _section()
    assert "](docs/viz.png)" in section and (README.parent / "docs" / "viz.png").is_file()
    (snippet,) = re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)
    scope = {}
    exec(compile(snippet, "README.md", "exec"), scope)  # noqa: S102 - our own README's example
    view = scope["view"]
    assert view.now == 7200 and view.error is None
    assert [row["model"] for row in view.summaries()] == ["mcmf"]
