"""Sphinx configuration of gridmarket's documentation site (issue 16).

Built by ``tests/test_docs.py`` with ``python -m sphinx -W --keep-going -b html docs <out>``:
every warning is an error. Tutorials in ``tutorials/`` are MyST-Markdown notebooks executed at
every build (a failing cell fails the build).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

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

# .rst first: autosummary writes its generated API pages with the first suffix.
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb"}
exclude_patterns = ["_build", "examples", "jupyter_execute", "Thumbs.db", ".DS_Store"]
templates_path = ["_templates"]

# --- API reference -------------------------------------------------------------------------
# autosummary writes the API pages into docs/generated/ (git-ignored); start from an empty folder so
# the page of a module that no longer exists cannot linger (an orphan page is a warning, an error here).
shutil.rmtree(ROOT / "docs" / "generated", ignore_errors=True)
autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_member_order = "bysource"
# Objects stay out of the sidebar tree: with them, every page carries a ~3,000-entry navigation tree
# and building it dominated the build time (the test builds the site on every run).
toc_object_entries = False
autodoc_typehints = "none"  # numpydoc's Parameters sections say the types
numpydoc_show_class_members = False  # autodoc's :members: lists them; numpydoc's tables would repeat each one
numpydoc_class_members_toctree = False

# --- MyST and notebooks ------------------------------------------------------------------------
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
