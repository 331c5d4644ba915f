"""Command-line option types shared by the subcommands (argparse ``type=`` callables).

A policy option takes a registered name or a plug-in ``"package.module:Name"``
(:mod:`market.plugins`), so its valid values cannot be an argparse ``choices`` list; these types
check the value with the same function the library uses and turn its one-line ``InvalidInput``
into argparse's usage error (exit status 2).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from market.errors import InvalidInput

__all__ = ["checked"]


def checked(check: Callable[[str], object]) -> Callable[[str], str]:
    """An argparse ``type`` that runs ``check(value)`` and keeps ``value``; InvalidInput -> usage error.

    >>> from market.scheduling import resolve_policy
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
