"""Checks shared by every reader of an input document (state, costs, slots, workflow JSON, scenario TOML).

One message style everywhere: ``WHERE: what is wrong (got X)``, where ``WHERE``
names the file and the field (``costs.json: capacity``), and an unknown key
names the closest known one. Errors are :class:`gridmarket.errors.InvalidInput`.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping

from gridmarket.decoding import read_json  # every JSON reader decodes there; kept here for its callers
from gridmarket.errors import InvalidInput

__all__ = ["check_keys", "check_path_name", "read_json", "suggest"]


def suggest(name: str, known: Iterable[str]) -> str:
    """``" (did you mean 'x'?)"`` for the closest of ``known``, or a list of them.

    >>> suggest("capacty", ["jobs", "capacity"])
    " (did you mean 'capacity'?)"
    >>> suggest("zzz", ["jobs", "cost"])
    '; known: jobs, cost'
    """
    known = [str(k) for k in known]
    close = difflib.get_close_matches(str(name), known, n=1)
    if close:
        return f" (did you mean {close[0]!r}?)"
    return f"; known: {', '.join(known)}"


def check_keys(where: str, doc: object, allowed: Iterable[str], *, required: Iterable[str] = ()) -> Mapping:
    """``doc`` if it is an object whose keys are all ``allowed`` and include ``required``; else InvalidInput.

    >>> check_keys("costs.json", {"jobs": [], "capacty": {}}, ["jobs", "capacity"])
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: costs.json: unknown key 'capacty' (did you mean 'capacity'?)
    """
    if not isinstance(doc, Mapping):
        raise InvalidInput(f"{where}: must be an object with keys {', '.join(allowed)} (got {_kind(doc)})")
    allowed = list(allowed)
    for key in doc:
        if key not in allowed:
            raise InvalidInput(f"{where}: unknown key {key!r}{suggest(key, allowed)}")
    missing = [k for k in required if k not in doc]
    if missing:
        raise InvalidInput(f"{where}: missing key{'s' if len(missing) > 1 else ''} {', '.join(map(repr, missing))}")
    return doc


def check_path_name(where: str, name: object) -> str:
    """``name`` if it can be used as one file or folder name; else InvalidInput naming ``where``.

    Names of scenarios, providers and interaction models become parts of paths (default
    results folders, ``batsim/MODEL/PROVIDER/``), so a name must be a single path component
    that stays where it is put: not empty, not ``.`` or ``..``, without ``/``, ``\\``,
    control characters, and at most 200 characters.

    >>> check_path_name("name", "singh-var")
    'singh-var'
    >>> check_path_name("providers[0].name", "../../victim")
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: providers[0].name: '../../victim' cannot name a file or folder (no '/', '\\', \
control characters, '.' or '..', at most 200 characters)
    """
    if (not isinstance(name, str) or name in ("", ".", "..") or len(name) > 200
            or any(c in "/\\" or ord(c) < 32 or ord(c) == 127 for c in name)):
        raise InvalidInput(f"{where}: {name!r} cannot name a file or folder (no '/', '\\', control characters, "
                           "'.' or '..', at most 200 characters)")
    return name


def _kind(value: object) -> str:
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 40 else text[:37] + '...'}"
