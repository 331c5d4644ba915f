"""Doctest collection imports each module of the packages once (the root conftest.py).

Without it, ``--import-mode=importlib`` executes a module file a second time when the module's
package imports it while pytest imports the package first: the first file collected decides, so
``pytest agents/strategies.py scenarios/interaction.py`` had two BrokerStrategy classes and failed
the ``resolve_model`` doctest. Run in a fresh pytest process, since this session has imported
everything already.
"""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# one module of each package whose __init__ re-exports its modules, each collected before its package
FIRST_COLLECTED = ["agents/strategies.py", "market/pricing/plan.py", "market/scheduling/easy.py",
                   "market/provisioning/moga.py", "scenarios/interaction.py"]

# after collection: every class or function a module of ours holds must be the one its own module defines now
CHECK = textwrap.dedent('''
    import sys
    import types


    def pytest_collection_finish(session):
        ours = {n: m for n, m in list(sys.modules.items())
                if n.split(".")[0] in ("gridmarket", "market", "agents", "scenarios", "viz")}
        stale = []
        for name, module in ours.items():  # a file's folder name must be an alias of its installed module
            if not name.startswith("gridmarket") and module.__name__ != name:
                continue
            if not name.startswith("gridmarket"):
                stale.append(f"{name} (loaded from its folder, not as gridmarket)")
        for name, module in ours.items():
            for attr, value in list(vars(module).items()):
                home = getattr(value, "__module__", None)
                if isinstance(value, (type, types.FunctionType)) and home in ours and "." not in value.__qualname__:
                    if getattr(ours[home], value.__qualname__, value) is not value:
                        stale.append(f"{name}.{attr}")
        print("STALE:", sorted(stale))
''')


def test_collecting_a_module_before_its_package_imports_it_once(tmp_path):
    (tmp_path / "stale_check.py").write_text(CHECK)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "stale_check", "-rA", *FIRST_COLLECTED],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
    )
    assert "STALE: []" in proc.stdout, proc.stdout[-3000:]
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "PASSED scenarios/interaction.py::gridmarket.scenarios.interaction.resolve_model" in proc.stdout

