"""Ctrl-C (SIGINT) and SIGTERM on the command line: stop the workers, keep what finished, say how to resume.

:func:`install` turns SIGTERM into :class:`Terminated`, a ``KeyboardInterrupt``,
so both signals unwind through the same ``finally`` blocks: executors cancel
the runs not yet started and :func:`stop_workers` ends the running ones; files
are written atomically (temporary file and rename, :mod:`gridmarket.atomicfile`),
so none is left half written, and a results folder's manifest comes last: a
stop before it deletes what was written (:func:`gridmarket.scenarios.results.write_results`),
so no unfinished folder looks finished. A command may attach a hint (:func:`with_hint`) that the CLI prints
in its one line; the exit status is 130 for SIGINT and 143 for SIGTERM.
"""

from __future__ import annotations

import multiprocessing
import signal

__all__ = ["Terminated", "exit_status", "install", "stop_workers", "with_hint"]


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread like Ctrl-C's ``KeyboardInterrupt``."""


def _raise_terminated(signum, frame):
    raise Terminated()


def install() -> None:
    """Make SIGTERM raise :class:`Terminated` in this (main) thread."""
    signal.signal(signal.SIGTERM, _raise_terminated)


def stop_workers() -> None:
    """Terminate this process's worker processes (a pool's runs in progress) and reap them."""
    for child in multiprocessing.active_children():
        child.terminate()
    for child in multiprocessing.active_children():
        child.join(timeout=5)


def with_hint(exc: KeyboardInterrupt, hint: str) -> KeyboardInterrupt:
    """``exc`` carrying ``hint`` (what was kept, how to resume) for the CLI's one line."""
    exc.gridmarket_hint = hint  # type: ignore[attr-defined]  # read back with getattr by message()
    return exc


def exit_status(exc: KeyboardInterrupt) -> int:
    """130 (128 + SIGINT) or 143 (128 + SIGTERM), as shells report them."""
    return 128 + (signal.SIGTERM if isinstance(exc, Terminated) else signal.SIGINT)


def message(exc: KeyboardInterrupt) -> str:
    """The CLI's one line for an interrupted command."""
    what = "terminated" if isinstance(exc, Terminated) else "interrupted"
    hint = getattr(exc, "gridmarket_hint", "")
    return f"gridmarket: {what}{'; ' + hint if hint else ''}"
