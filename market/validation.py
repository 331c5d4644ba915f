"""Checks shared by every reader of an input document (state, costs, slots, workflow JSON, scenario TOML).

One message style everywhere: ``WHERE: what is wrong (got X)``, where ``WHERE``
names the file and the field (``costs.json: capacity``), and an unknown key
names the closest known one. Errors are :class:`gridmarket.errors.InvalidInput`.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable, Mapping

from gridmarket.decoding import read_json  # every JSON reader decodes there; kept here for its callers
from gridmarket.errors import InvalidInput
from gridmarket.limits import BYTES_PER_JOB, LIMITS, physical_memory

__all__ = ["check_fits_memory", "check_keys", "check_number", "check_path_name", "read_json", "suggest"]


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


def check_number(where: str, value: object, quantity: str, *, low: float | None = None,
                 whole: bool | None = None) -> int | float:
    """``value`` if it is a number within ``quantity``'s bounds (:data:`gridmarket.limits.LIMITS`); else InvalidInput.

    ``low`` replaces the quantity's lowest value for this field (a slot lasts at least 1 s although
    a time may be 0; a virtual task holds 0 processors). An int quantity takes ints only, unless
    ``whole`` is False (a slot's duration may be a float number of seconds); any other takes a
    finite int or float.
    Booleans are not numbers. The message names ``where``, the bounds and the unit, and for a
    value past the upper bound the reason for it.

    >>> check_number("--duration", 3600, "seconds", low=1)
    3600
    >>> check_number("--duration", 2**63, "seconds", low=1)
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: --duration must be an int in [1, 3155760000] s (a century; an instant plus a \
queue of 10^8 such durations stays below 2^62, the compiled kernels' int64 'never'), got 9223372036854775808
    >>> check_number("parameters.alpha", float("nan"), "fraction")
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: parameters.alpha must be a number in [0.0, 1.0], got nan
    """
    limit = LIMITS[quantity]
    lo = limit.low if low is None else low
    integer = limit.integer if whole is None else whole
    unit = f" {limit.unit}" if limit.unit else ""
    kind = "an int" if integer else "a number"
    if isinstance(value, bool) or not isinstance(value, int if integer else (int, float)):
        raise InvalidInput(f"{where} must be {kind} in [{lo}, {limit.high}]{unit}, got {_kind(value)}")
    if isinstance(value, float) and not math.isfinite(value):
        raise InvalidInput(f"{where} must be {kind} in [{lo}, {limit.high}]{unit}, got {value!r}")
    if value > limit.high:
        raise InvalidInput(f"{where} must be {kind} in [{lo}, {limit.high}]{unit} ({limit.reason}), got {value!r}")
    if value < lo:
        raise InvalidInput(f"{where} must be {kind} in [{lo}, {limit.high}]{unit}, got {value!r}")
    return value


def check_fits_memory(where: str, count: int, *, bytes_each: int = BYTES_PER_JOB, what: str = "jobs") -> int:
    """``count`` if ``count`` items of ``bytes_each`` bytes fit this machine's physical memory; else InvalidInput.

    The estimate is made before anything is allocated, so a request that cannot fit is refused in
    one line (naming ``where`` and the largest count that fits) instead of growing until the
    system kills the process. Where the physical memory is unknown, nothing is refused here (the
    quantity's fixed bound in :data:`gridmarket.limits.LIMITS` still holds).

    >>> check_fits_memory("--jobs", 1000)
    1000
    """
    memory = physical_memory()
    if memory is not None and count * bytes_each > memory:
        raise InvalidInput(f"{where}: {count} {what} need about {_size(count * bytes_each)} of memory "
                           f"({bytes_each} bytes each); this machine has {_size(memory)}, room for at most "
                           f"{memory // bytes_each} {what}")
    return count


def _size(n_bytes: int) -> str:
    for unit, scale in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20)):
        if n_bytes >= scale:
            return f"{n_bytes / scale:.1f} {unit}"
    return f"{n_bytes} bytes"
