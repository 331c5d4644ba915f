"""The README's shell blocks, rendered as CommonMark, run in a fresh clone of this checkout.

A chosen subset runs: every ``gridmarket`` command that names a file of ``docs/examples/`` or the
example scenario (a small one, with ``--models best-effort --out`` into the clone), and every
``gridmarket simulate`` of a sample trace shipped in ``data/samples/``, each in its own
shell from the clone's root, as a reader following the README line by line after the install
would. A fresh clone holds only committed files, so a command that depends on a git-ignored or
uncommitted file fails here even when it works in the developer's working tree. The two install
lines at the top are what ``.ci/run`` runs in a fresh clone.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def _readme_commands() -> list[str]:
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").parse((ROOT / "README.md").read_text(encoding="utf-8"))
    lines = []
    for t in tokens:
        if t.type == "fence" and t.info.strip() == "bash":
            # a command continued with a trailing backslash is one command: join it (comments removed below)
            lines += t.content.replace("\\\n", " ").splitlines()
    # `gridmarket viz` serves a page until stopped: it is not a command that ends
    chosen = [line.split("  #")[0].strip() for line in lines
              if line.startswith("gridmarket ") and not line.startswith("gridmarket viz ")
              and ("docs/examples/" in line or "docs/example-scenario.toml" in line
                   or line.startswith("gridmarket simulate --trace data/samples/"))]
    return chosen


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: nothing to clone")
    dest = tmp_path_factory.mktemp("fresh") / "gridmarket"
    done = subprocess.run(["git", "clone", "-q", str(ROOT), str(dest)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    _import_tree(dest)
    where = subprocess.run([sys.executable, "-c", "import gridmarket.scenarios as s; print(s.__file__)"], cwd=dest,
                           env={**os.environ, "PYTHONPATH": str(dest / ".import")}, capture_output=True, text=True,
                           timeout=120)
    assert where.stdout.strip() == str(dest / ".import" / "gridmarket" / "scenarios" / "__init__.py"), where.stderr
    return dest


def _import_tree(clone: Path) -> None:
    """``clone/.import/gridmarket``: links to the clone's folders in the installed layout (setup.py's mapping).

    On ``PYTHONPATH`` it makes ``import gridmarket`` load the clone's sources, ahead of the editable
    install of this checkout. The clone's own ``tools/import_tree.py`` builds it.
    """
    done = subprocess.run([sys.executable, str(clone / "tools" / "import_tree.py")], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr


def test_the_readme_names_the_example_commands():
    commands = _readme_commands()
    assert any(c.startswith("gridmarket quote ") for c in commands)
    assert any(c.startswith("gridmarket provision ") for c in commands)
    assert any("docs/example-scenario.toml" in c for c in commands)
    assert sum(c.startswith("gridmarket simulate --trace data/samples/") for c in commands) == 3


@pytest.mark.slow
@pytest.mark.parametrize("command", _readme_commands())
def test_a_readme_command_runs_in_a_fresh_clone(clone, command, tmp_path):
    if command.startswith("gridmarket compare "):  # the example scenario, small: one model, 30 jobs
        command = re.sub(r"--out \S+", "", command) + f" --models best-effort --out {tmp_path / 'res'}"
        config = clone / "small.toml"
        text = (clone / "docs" / "example-scenario.toml").read_text()
        config.write_text(text.replace("n_jobs = 200", "n_jobs = 30").replace("n_workflows = 3", "n_workflows = 1"))
        command = command.replace("docs/example-scenario.toml", str(config))
    # the clone's own sources, the installed interpreter and dependencies (the clone has no compiled
    # kernel: the reference runs, with its one-line notice)
    env = {**os.environ, "PYTHONPATH": str(clone / ".import"), "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    shell = command.replace("gridmarket ", f"{sys.executable} -m gridmarket.scenarios.commands.cli ", 1)
    done = subprocess.run(shell, shell=True, cwd=clone, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{command}\n{done.stderr[-2000:]}"
    assert done.stdout.strip()
    assert "Traceback" not in done.stderr
