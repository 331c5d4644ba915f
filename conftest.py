"""Collection of the packages' doctests: each module is imported once, by Python's own import system.

``--import-mode=importlib`` (pyproject.toml) imports a module file pytest collects by its dotted
name, and before it the module's package, unless the module is in ``sys.modules`` already. But it
looks in ``sys.modules`` only before importing the package: when the package's ``__init__``
imports the module itself (``agents/__init__.py`` imports ``agents.strategies``, as most of our
``__init__`` files re-export their modules), pytest then executes the file a second time as a new
module object and puts that one in ``sys.modules``. Two copies of a module mean two copies of its
classes: ``pytest agents/strategies.py scenarios/interaction.py`` failed the ``resolve_model``
doctest with "class VARStrategy is not a subclass of agents.strategies.BrokerStrategy" (VARStrategy
subclassed the first BrokerStrategy, scenarios.interaction imported the second). Whether a run met
it depended on which file it collected first.

So, before pytest imports a module of one of the packages at the repository root, it is imported
here with :func:`importlib.import_module`; pytest then finds it in ``sys.modules`` and uses that
one object (``tests/test_doctest_imports.py``).
"""

from __future__ import annotations

import importlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent


def _dotted_name(path: Path) -> str | None:
    """``agents.strategies`` for ``ROOT/agents/strategies.py``; None outside the root's packages."""
    parts = [] if path.name == "__init__.py" else [path.stem]
    folder = path.parent
    while (folder / "__init__.py").is_file():
        parts.insert(0, folder.name)
        folder = folder.parent
    inside_a_package = path.name == "__init__.py" or len(parts) > 1  # not setup.py, not this file
    return ".".join(parts) if inside_a_package and folder == ROOT else None


def pytest_collect_file(file_path: Path, parent) -> None:
    """Import a package module the regular way before pytest's doctest collector imports it."""
    if file_path.suffix != ".py":
        return
    name = _dotted_name(file_path.resolve())
    if name is None:
        return
    try:
        importlib.import_module(name)
    except Exception:  # noqa: BLE001 - pytest's own import of the file reports the error, on that file
        pass
