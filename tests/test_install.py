"""The install's guard: an older Python gets one sentence naming the version needed."""

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


# A machine without a C compiler installs without the extensions (setup.py's OptionalBuildExt);
# this blocks them at import, which is what such an install looks like to the package.
_WITHOUT_EXTENSIONS = """
import importlib.abc, sys
class NoExtensions(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.startswith("gridmarket.") and name.rsplit(".", 1)[-1].startswith("_c"):
            raise ModuleNotFoundError(name)
        return None
sys.meta_path.insert(0, NoExtensions())
"""

_RUN = """
from gridmarket.kernel import KERNEL
from gridmarket.job import Job
from gridmarket.simulation import simulate
jobs = [Job(i, 10 * i, 1 + i % 3, 50 + 7 * i, 60 + 7 * i) for i in range(30)]
starts = [simulate(jobs, procs=4, policy=p).records["start"].tolist() for p in ("easy", "conservative")]
print(KERNEL, starts)
"""


def test_without_the_compiled_kernel_the_reference_runs_with_a_one_line_notice():
    import subprocess

    plain = subprocess.run([sys.executable, "-c", _RUN], capture_output=True, text=True, check=True)
    bare = subprocess.run([sys.executable, "-c", _WITHOUT_EXTENSIONS + _RUN], capture_output=True, text=True,
                          check=True)
    assert plain.stdout.split(" ", 1)[0] == "compiled"
    assert bare.stdout.split(" ", 1)[0] == "reference"
    assert bare.stdout.split(" ", 1)[1] == plain.stdout.split(" ", 1)[1]  # same schedule
    notice = bare.stderr.strip().splitlines()
    assert len(notice) == 1, bare.stderr
    assert "KernelFallbackWarning" in notice[0] and "pure-Python reference" in notice[0]
    assert plain.stderr == ""


def test_the_install_is_one_gridmarket_namespace_with_a_version(tmp_path):
    """Outside the repository, ``gridmarket`` imports and the folders' own names do not (they are generic)."""
    import subprocess
    from importlib import metadata

    probe = ("import importlib.util, gridmarket\n"
             "print(gridmarket.__version__)\n"
             "print(sorted(n for n in ('agents', 'market', 'scenarios', 'viz', 'data') "
             "if importlib.util.find_spec(n) is not None))\n"
             "print(importlib.util.find_spec('gridmarket.agents').origin)\n")
    done = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, check=True)
    version, top_level, agents_file = done.stdout.splitlines()
    assert version == metadata.version("gridmarket")
    assert top_level == "[]"
    assert Path(agents_file) == Path(__file__).resolve().parents[1] / "agents" / "__init__.py"
    cli = subprocess.run([sys.executable, "-m", "gridmarket.scenarios.commands.cli", "--version"], cwd=tmp_path,
                         capture_output=True, text=True, check=True)
    assert cli.stdout.strip() == f"gridmarket {version}"
