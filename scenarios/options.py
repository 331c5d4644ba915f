"""Command-line helpers shared by the subcommands: option types and the ``python -m`` entry.

A policy option takes a registered name or a plug-in ``"package.module:Name"``
(:mod:`gridmarket.plugins`), so its valid values cannot be an argparse ``choices`` list; these types
check the value with the same function the library uses and turn its one-line ``InvalidInput``
into argparse's usage error (exit status 2).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Iterator

from gridmarket.errors import InvalidInput, MarketError

__all__ = ["bounded", "checked", "output_named", "run_standalone"]


def checked(check: Callable[[str], object]) -> Callable[[str], str]:
    """An argparse ``type`` that runs ``check(value)`` and keeps ``value``; InvalidInput -> usage error.

    >>> from gridmarket.scheduling import resolve_policy
    >>> checked(resolve_policy)("easy")
    'easy'
    >>> checked(resolve_policy)("esay")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: unknown policy 'esay' (did you mean 'easy'?); known: conservative, easy, fcfs, psp, psp-slurm, slots, or a plug-in 'package.module:Name'
    """

    def parse(value: str) -> str:
        try:
            check(value)
        except InvalidInput as err:
            raise argparse.ArgumentTypeError(str(err)) from None
        return value

    parse.__name__ = getattr(check, "__name__", "value")
    return parse


def bounded(quantity: str, *, low: float | None = None) -> Callable[[str], int | float]:
    """An argparse ``type``: the number in the text, within ``quantity``'s bounds (:mod:`gridmarket.limits`).

    An int quantity takes integers only; any other a finite number. A value out of bounds is
    argparse's usage error (exit status 2) naming the bounds, via
    :func:`gridmarket.validation.check_number`.

    >>> bounded("processors")("16")
    16
    >>> bounded("processors")("1e30")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected an integer, got '1e30'
    >>> bounded("fraction")("nan")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be a number in [0.0, 1.0], got nan
    """
    from gridmarket.limits import LIMITS
    from gridmarket.validation import check_number

    integer = LIMITS[quantity].integer

    def parse(text: str) -> int | float:
        try:
            value: int | float = int(text) if integer else float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {'an integer' if integer else 'a number'}, "
                                             f"got {text!r}") from None
        try:
            return check_number("", value, quantity, low=low)
        except InvalidInput as err:
            raise argparse.ArgumentTypeError(str(err).lstrip()) from None

    parse.__name__ = quantity
    return parse


class _NamedOutput:
    """Standard output whose write errors name it: a full disk's error names no file on its own.

    ``OSError(errno, strerror, "standard output")`` keeps the subclass the errno picks, so a closed
    pipe is still a ``BrokenPipeError``.
    """

    def __init__(self, stream) -> None:
        self._stream = stream

    def _named(self, err: OSError) -> OSError:
        if err.filename is not None or err.errno is None:
            return err
        return OSError(err.errno, err.strerror, "standard output")

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except OSError as err:
            raise self._named(err) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as err:
            raise self._named(err) from None

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


@contextlib.contextmanager
def output_named() -> Iterator[None]:
    """Context in which a failed write to standard output names it (``OSError.filename``), flushed at the end.

    A full disk's ``OSError`` from a write names no file, so ``gridmarket quote > out.json`` on a full
    disk said only "No space left on device"; inside this context it says which output failed. The
    flush on leaving reports the error as the command's, before the interpreter's exit would.
    """
    stdout = sys.stdout
    sys.stdout = _NamedOutput(stdout)  # stands in for the stream everywhere
    try:
        yield
        sys.stdout.flush()
    finally:
        sys.stdout = stdout


def run_standalone(add_subcommands, argv: list[str] | None, description: str) -> int:
    """Parse ``argv`` for the subcommands ``add_subcommands`` adds and run one (``python -m`` entry)."""
    parser = argparse.ArgumentParser(prog="gridmarket", description=description)
    add_subcommands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    try:
        with output_named():
            return args.run(args)
    except (MarketError, OSError) as err:
        print(f"gridmarket: error: {err}", file=sys.stderr)
        return 2
