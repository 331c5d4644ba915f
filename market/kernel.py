"""Which implementation of the scheduling kernel runs: compiled (Cython) or the pure-Python reference.

The hot loops of the availability profile (``market/scheduling/_cprofile.pyx``),
of the pricing engine (``market/pricing/_creplan.pyx``: profiles, form-18
candidates and the externality re-plan), the two-tier engine
(``market/twotier/_cengine.pyx``: KEASY, REASY, MEASY), the queue-wait predictor
(``market/prediction/_cdbscan.pyx``) and the double auction's ZIP day
(``market/auctions/_czip.pyx``) are built at
install time where a C compiler exists; each has a pure-Python reference twin
that gives the same results and is tested against it. ``GRIDMARKET_KERNEL``
chooses: ``compiled`` (default; the reference, with one warning, where the
extension was not built) or ``reference``.
"""

from __future__ import annotations

import importlib
import os
import warnings
from types import ModuleType

from gridmarket.errors import InvalidInput

__all__ = ["KERNEL", "KernelFallbackWarning", "compiled_module"]


class KernelFallbackWarning(UserWarning):
    """The compiled kernel is missing; the pure-Python reference runs instead."""


def _choice() -> str:
    choice = os.environ.get("GRIDMARKET_KERNEL", "compiled")
    if choice not in ("compiled", "reference"):
        raise InvalidInput(f"GRIDMARKET_KERNEL: expected 'compiled' or 'reference' (got {choice!r})")
    return choice


_warned = False


def compiled_module(name: str) -> ModuleType | None:
    """The compiled extension ``name`` if it is wanted and built, else ``None`` (warning once if missing)."""
    global _warned
    if _choice() == "reference":
        return None
    try:
        return importlib.import_module(name)
    except ImportError:
        if not _warned:
            _warned = True
            # warn_explicit at "line 0" of "gridmarket": one line on stderr, no source line under it
            warnings.warn_explicit(
                "the compiled scheduling kernel is not built (no C compiler at install?); "
                "running the pure-Python reference: same results, slower",
                KernelFallbackWarning, "gridmarket", 0, module="gridmarket.kernel",
            )
        return None


#: ``"compiled"`` or ``"reference"``: the kernel this process runs.
KERNEL = "compiled" if compiled_module("gridmarket.scheduling._cprofile") is not None else "reference"
