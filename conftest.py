"""Collection of the packages' doctests: each module is imported once, by Python's own import system.

``--import-mode=importlib`` (pyproject.toml) imports a module file pytest collects by its dotted
name, and before it the module's package, unless the module is in ``sys.modules`` already. But it
looks in ``sys.modules`` only before importing the package: when the package's ``__init__``
imports the module itself (``agents/__init__.py`` imports ``gridmarket.agents.strategies``, as most of our
``__init__`` files re-export their modules), pytest then executes the file a second time as a new
module object and puts that one in ``sys.modules``. Two copies of a module mean two copies of its
classes: ``pytest agents/strategies.py scenarios/interaction.py`` failed the ``resolve_model``
doctest with "class VARStrategy is not a subclass of gridmarket.agents.strategies.BrokerStrategy" (VARStrategy
subclassed the first BrokerStrategy, gridmarket.scenarios.interaction imported the second). Whether a run met
it depended on which file it collected first.

The folders install under other names (``market/scheduling/profile.py`` is
``gridmarket.scheduling.profile``; setup.py's ``PACKAGE_DIRS``), while pytest names a file by its
folders (``market.scheduling.profile``). So, before pytest imports a module of one of the packages
at the repository root, it is imported here by its installed name with
:func:`importlib.import_module` and entered in ``sys.modules`` under pytest's name too; pytest then
finds it there and uses that one object (``tests/test_doctest_imports.py``).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent


def _installed_as() -> dict[str, str]:
    """Folder -> the package it installs as (setup.py's ``PACKAGE_DIRS``, read by ``tools/import_tree.py``)."""
    spec = importlib.util.spec_from_file_location("_import_tree", ROOT / "tools" / "import_tree.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return {folder: package for package, folder in module.package_dirs(ROOT).items()}


INSTALLED_AS = _installed_as()


def _dotted_name(path: Path) -> str | None:
    """``agents.strategies`` for ``ROOT/agents/strategies.py`` (pytest's name); None outside the root's packages."""
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
    if name is None or name.split(".")[0] not in INSTALLED_AS:
        return
    top, _, rest = name.partition(".")
    installed = INSTALLED_AS[top] + (f".{rest}" if rest else "")
    try:
        module = importlib.import_module(installed)
    except Exception:  # noqa: BLE001 - pytest's own import of the file reports the error, on that file
        return
    sys.modules.setdefault(name, module)
