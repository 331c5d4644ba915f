"""Errors raised by gridmarket mechanisms.

A small hierarchy in the style of networkx's ``exception.py``: callers catch
``MarketError`` for anything gridmarket raises, ``InvalidInput`` (also a
``ValueError``) for bad data at a public boundary, ``Infeasible`` when a
well-formed request cannot be satisfied (a slot that no longer fits, a job
larger than the machine).
"""

__all__ = ["MarketError", "InvalidInput", "Infeasible"]


class MarketError(Exception):
    """Base class of every error gridmarket raises on purpose."""


class InvalidInput(MarketError, ValueError):
    """Input data or arguments are malformed; the message names the culprit."""


class Infeasible(MarketError):
    """A well-formed request cannot be satisfied by the current plan."""
