"""Code health as a gate: ruff and mypy, as pyproject.toml configures them, report nothing.

Both run as a developer runs them from the repository's root (``ruff check .``; ``python
tools/import_tree.py`` then ``mypy``), so CI, which runs the test suite, fails on any finding and
prints it. mypy reads the sources through ``.import/gridmarket`` (pyproject.toml says why); its
findings are printed with the real file's path.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# the rule families the code base is held to, at 120 columns; E501 (length) and B905 (zip strict) may be ignored
REQUIRED_RULES = {"F", "E", "W", "B", "UP", "SIM", "I"}


def _run(*command: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *command], cwd=ROOT, capture_output=True, text=True, timeout=900)


def _real_paths(report: str) -> str:
    """mypy's ``.import/gridmarket/...`` paths replaced by the files they link to, relative to the root."""
    def real(match: re.Match) -> str:
        return os.path.relpath(os.path.realpath(ROOT / match.group(0)), ROOT)

    return re.sub(r"\.import/gridmarket/[^\s:]+", real, report)


def test_ruff_is_configured_with_the_required_rules_at_120_columns():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["ruff"]
    assert config["line-length"] == 120
    assert set(config["lint"]["select"]) >= REQUIRED_RULES
    assert set(config["lint"].get("ignore", [])) <= {"E501", "B905"}


def test_ruff_reports_nothing():
    done = _run("-m", "ruff", "check", "--output-format", "concise", ".")
    assert done.returncode == 0, f"ruff check . found:\n{done.stdout}{done.stderr}"


def test_mypy_reports_nothing():
    tree = _run(str(ROOT / "tools" / "import_tree.py"))
    assert tree.returncode == 0, tree.stderr
    done = _run("-m", "mypy")
    assert done.returncode == 0, f"mypy found:\n{_real_paths(done.stdout)}{done.stderr}"
    assert "Success: no issues found" in done.stdout
