"""Build ``.import/gridmarket``: links to this checkout's folders in the installed layout.

The folders install under other names (``market/`` is ``gridmarket``, ``agents/`` is
``gridmarket.agents``: setup.py's ``PACKAGE_DIRS``), and no folder of the repository is named
``gridmarket``. Tools that find modules by walking folders need one: mypy has no package-dir
mapping and cannot follow setuptools' editable-install finder, so its configuration in
pyproject.toml points at this tree (``mypy_path``); put on ``PYTHONPATH``, the tree also makes
``import gridmarket`` load this checkout's sources ahead of whichever checkout is installed.

Run ``python tools/import_tree.py`` from anywhere (again after adding a module directly under
``market/``); it is idempotent and leaves the sources alone. The links are relative, so a moved
checkout keeps a working tree. Developer tooling: not part of the installed package.
"""

from __future__ import annotations

import ast
import contextlib
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDER = ".import"


def package_dirs(root: Path = ROOT) -> dict[str, str]:
    """setup.py's ``PACKAGE_DIRS`` (package -> folder), read without running setup.py."""
    tree = ast.parse((root / "setup.py").read_text(), filename="setup.py")
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "PACKAGE_DIRS" for t in node.targets):
            return ast.literal_eval(node.value)
    raise LookupError(f"{root / 'setup.py'}: no PACKAGE_DIRS assignment")


def _links(root: Path) -> dict[Path, Path]:
    """Link (relative to the tree's folder) -> source (relative to ``root``) for every mapped package.

    A package some other mapped package lives inside becomes a real folder holding one link per
    child of its source folder; any other package is one link to its folder.
    """
    mapping = package_dirs(root)
    links: dict[Path, Path] = {}
    for package, folder in mapping.items():
        where = Path(*package.split("."))
        if any(other.startswith(package + ".") for other in mapping):
            for child in sorted((root / folder).iterdir()):
                if child.name != "__pycache__":
                    links[where / child.name] = Path(folder) / child.name
        else:
            links[where] = Path(folder)
    return links


def build(root: Path = ROOT, dest: Path | None = None) -> Path:
    """Create or refresh ``dest`` (default ``root/.import``) so that it holds the package ``gridmarket``.

    Missing links are added and links that point elsewhere or at nothing are replaced or removed;
    safe to run while another run does the same. Returns ``dest``.
    """
    dest = root / FOLDER if dest is None else dest
    links = _links(root)
    for link, source in links.items():
        path = dest / link
        path.parent.mkdir(parents=True, exist_ok=True)
        target = os.path.relpath(root / source, path.parent)
        if path.is_symlink() and os.readlink(path) == target:
            continue
        if path.is_symlink():
            path.unlink(missing_ok=True)
        with contextlib.suppress(FileExistsError):  # another run made it meanwhile
            path.symlink_to(target)
    wanted = {dest / link for link in links}
    for folder, dirs, files in os.walk(dest):  # does not descend into linked folders
        for name in dirs + files:
            path = Path(folder) / name
            if path.is_symlink() and path not in wanted:
                path.unlink(missing_ok=True)
    return dest


if __name__ == "__main__":
    if len(sys.argv) > 2:
        sys.exit("usage: python tools/import_tree.py [CHECKOUT]  (default: the checkout holding this script)")
    where = build(Path(sys.argv[1]).resolve() if len(sys.argv) == 2 else ROOT)
    print(f"{where / 'gridmarket'}: the installed layout of {where.parent}")
