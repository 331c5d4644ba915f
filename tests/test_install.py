"""The install's guard: an older Python gets one sentence naming the version needed (issue 16)."""

import runpy
import sys
from pathlib import Path

import pytest

SETUP = Path(__file__).resolve().parents[1] / "setup.py"


def test_setup_refuses_python_older_than_3_12_with_a_sentence(monkeypatch):
    monkeypatch.setattr(sys, "version_info", (3, 11, 2, "final", 0))
    monkeypatch.setattr(sys, "version", "3.11.2 (main) [GCC]")
    with pytest.raises(SystemExit) as exc:
        runpy.run_path(str(SETUP), run_name="not_main")
    assert str(exc.value).startswith("gridmarket needs Python 3.12 or newer")
    assert "3.11.2" in str(exc.value)
