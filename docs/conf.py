"""Sphinx configuration of gridmarket's documentation site.

Built by ``tests/test_docs.py`` with ``python -m sphinx -W --keep-going -b html docs <out>``:
every warning is an error. Tutorials in ``tutorials/`` are MyST-Markdown notebooks executed at
every build (a failing cell fails the build). By hand: ``python -m sphinx -b html docs docs/_build``.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]  # the site documents the installed package, gridmarket

project = "gridmarket"
author = "gridmarket contributors"
copyright = "gridmarket contributors"  # noqa: A001 - Sphinx's name

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_nb",
]

source_suffix = {".rst": "restructuredtext", ".md": "myst-nb"}
exclude_patterns = ["_build", "examples", "jupyter_execute", "Thumbs.db", ".DS_Store"]

# --- API reference -------------------------------------------------------------------------------
# One page per public module of gridmarket (the mechanisms), gridmarket.agents and
# gridmarket.scenarios, written into docs/generated/
# (git-ignored) by _write_api_pages below: an automodule directive and, for a package, a table of
# its modules. Private modules (a name part starting with "_", which includes the compiled
# kernels _c*.pyx) are left out. The pages are written here rather than by autosummary_generate,
# which introspects every member of every module to fill template variables these pages do not use
# (an eighth of the build's time in a profile); a page is rewritten only when its text changes, so
# two builds of one checkout do not race on the files.
API_PACKAGES = ("gridmarket", "gridmarket.agents", "gridmarket.scenarios")
# subpackages of gridmarket documented elsewhere or not at all: the live page and the data files
NOT_DOCUMENTED = ("gridmarket.viz", "gridmarket.data")
API_DIR = ROOT / "docs" / "generated"


def _public_modules(package: str) -> list[str]:
    root = importlib.import_module(package)
    names = [package]
    others = [p for p in (*API_PACKAGES, *NOT_DOCUMENTED) if p != package and p.startswith(package + ".")]
    for info in pkgutil.walk_packages(root.__path__, package + "."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        if any(info.name == p or info.name.startswith(p + ".") for p in others):
            continue  # a package of its own in the table
        names.append(info.name)
    return sorted(names)


def _api_page(name: str, children: list[str]) -> str:
    # :orphan: -- the module pages are reached through the API page's tables, not the sidebar: with
    # 125 of them in the site's toctree, furo re-renders and re-parses a 125-entry navigation tree
    # for every page, over a quarter of the build's time.
    lines = [":orphan:", "", name, "=" * len(name), "", f".. automodule:: {name}"]
    if children:
        # A package's page documents what its __init__ defines; the names it re-exports are
        # documented once, on the page of the module that defines them.
        lines += ["   :ignore-module-all:", "", ".. rubric:: Modules", "", ".. currentmodule:: None", "",
                  ".. autosummary::", ""]
        lines += [f"   {child}" for child in children]
    return "\n".join(lines) + "\n"


def _write_api_pages() -> None:
    by_package = {package: _public_modules(package) for package in API_PACKAGES}
    modules = [m for names in by_package.values() for m in names]
    pages = {}
    for name in modules:
        children = [m for m in modules if m.rpartition(".")[0] == name]
        pages[f"{name}.rst"] = _api_page(name, children)
    # Every module, by package, for the API page (docs/api.md includes it).
    index = []
    for package in API_PACKAGES:
        index += [f".. rubric:: {package}", "", ".. autosummary::", ""]
        index += [f"   {m}" for m in by_package[package]] + [""]
    API_DIR.mkdir(exist_ok=True)
    pages_txt = API_DIR / "modules.txt"  # not a source suffix: included, not built as a page
    if not pages_txt.exists() or pages_txt.read_text(encoding="utf-8") != "\n".join(index):
        pages_txt.write_text("\n".join(index), encoding="utf-8")
    for stale in set(p.name for p in API_DIR.glob("*.rst")) - set(pages):
        (API_DIR / stale).unlink(missing_ok=True)  # a module that no longer exists: its page would fail to import
    for file, text in pages.items():
        path = API_DIR / file
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")


_write_api_pages()

# The docstrings write `name` for a Python object (numpydoc's convention): link it where it resolves.
default_role = "py:obj"
autosummary_generate = False  # the tables only: the pages are written above
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "none"  # numpydoc's Parameters sections say the types
# Objects stay out of the sidebar tree: with them, every page carries a ~3,000-entry navigation tree
# and building it dominated the build time (the test builds the site on every run).
toc_object_entries = False
numpydoc_show_class_members = False  # autodoc's :members: lists them; numpydoc's tables would repeat each one
numpydoc_class_members_toctree = False


def _cache_numpydoc_template() -> None:
    """Compile numpydoc's docstring template once per build instead of once per documented object.

    numpydoc (1.11) builds a new Jinja environment and recompiles ``numpydoc_docstring.rst`` for
    every object it renders: ~1,700 compilations, a sixth of this site's build time. The template
    is the same for the whole build, so its environment keeps one compiled copy. Nothing changes
    in the output; should numpydoc's internals move, this does nothing.
    """
    try:
        from numpydoc import docscrape_sphinx
    except ImportError:
        return
    base = getattr(docscrape_sphinx, "SandboxedEnvironment", None)
    if base is None or getattr(base, "_gridmarket_cached", False):
        return

    class OnceCompiledEnvironment(base):
        _gridmarket_cached = True
        _compiled: dict = {}

        def get_template(self, name, *args, **kwargs):
            if isinstance(name, str) and not args and not kwargs:
                if name not in self._compiled:
                    self._compiled[name] = super().get_template(name)
                return self._compiled[name]
            return super().get_template(name, *args, **kwargs)

    docscrape_sphinx.SandboxedEnvironment = OnceCompiledEnvironment


_cache_numpydoc_template()

# --- MyST and notebooks --------------------------------------------------------------------------
myst_enable_extensions = ["dollarmath", "colon_fence"]
myst_heading_anchors = 3
nb_execution_mode = "force"  # every build runs every tutorial: the site shows what the code does today
nb_execution_raise_on_error = True  # a failing cell fails the build
nb_execution_timeout = 120
nb_execution_show_tb = True
nb_merge_streams = True

# --- HTML ----------------------------------------------------------------------------------------
try:
    import furo  # noqa: F401

    html_theme = "furo"
except ImportError:  # the default theme when furo is not installed
    html_theme = "alabaster"
html_title = "gridmarket"
