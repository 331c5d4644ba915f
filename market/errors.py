"""Errors raised by gridmarket mechanisms.

A small hierarchy in the style of networkx's ``exception.py``: callers catch
``MarketError`` for anything gridmarket raises, ``InvalidInput`` (also a
``ValueError``) for bad data at a public boundary, ``Infeasible`` when a
well-formed request cannot be satisfied (a slot that no longer fits, a job
larger than the machine), ``PolicyError`` when a local policy (typically a
plug-in) breaks the simulator's contract.
"""

__all__ = ["MarketError", "InvalidInput", "Infeasible", "PolicyError"]


class MarketError(Exception):
    """Base class of every error gridmarket raises on purpose."""


class InvalidInput(MarketError, ValueError):
    """Input data or arguments are malformed; the message names the culprit."""


class Infeasible(MarketError):
    """A well-formed request cannot be satisfied by the current plan."""


class PolicyError(MarketError):
    """A local policy broke the simulator's contract (over-committed the machine, started a job twice)."""
