"""The command line pins OpenBLAS's kernel on AVX2 x86-64 hosts (gridmarket.scenarios.commands.cli.pin_blas_kernel)."""

import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _avx2_host() -> bool:
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return False
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    flags = next((line.split(":", 1)[1].split() for line in text.splitlines() if line.startswith("flags")), [])
    return {"avx2", "fma"} <= set(flags)


_REPORT = (
    "import numpy, scipy.linalg, threadpoolctl\n"
    "print(sorted({i.get('architecture') for i in threadpoolctl.threadpool_info() if i['internal_api'] == 'openblas'}))\n"
)


def _python(code: str, **env: str) -> str:
    clean = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**clean, **env}, capture_output=True,
                          text=True, check=True)
    return done.stdout.strip().splitlines()[-1]


@pytest.mark.skipif(not _avx2_host(), reason="the pin applies to x86-64 CPUs with AVX2 and FMA")
def test_the_command_line_runs_numpy_and_scipy_on_the_pinned_kernel():
    pinned = _python("from gridmarket.scenarios.commands.cli import pin_blas_kernel\nassert pin_blas_kernel() == 'Haswell'\n" + _REPORT)
    assert pinned == "['Haswell']"
    # main() pins before the subcommand's modules load
    seen = _python("import os, contextlib, io\nfrom gridmarket.scenarios.commands.cli import main\n"
                   "with contextlib.redirect_stdout(io.StringIO()): main(['run', '--list'])\n"
                   "print(os.environ.get('OPENBLAS_CORETYPE'))")
    assert seen == "Haswell"


def test_an_explicit_kernel_or_a_loaded_numpy_is_left_alone():
    chosen = _python("from gridmarket.scenarios.commands.cli import pin_blas_kernel\nassert pin_blas_kernel() is None\n" + _REPORT,
                     OPENBLAS_CORETYPE="Sandybridge")
    assert chosen == "['Sandybridge']"
    late = _python("import numpy, os\nfrom gridmarket.scenarios.commands.cli import pin_blas_kernel\n"
                   "print(pin_blas_kernel(), os.environ.get('OPENBLAS_CORETYPE'))")
    assert late == "None None"
