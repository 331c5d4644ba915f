"""Decoding input documents: bytes to text to JSON or TOML, checked before anything is built from them.

Every reader of a document a user hands gridmarket (state, costs, slots and workflow JSON, scenario
TOML, sweep files, price CSV, SWF/GWF traces) gets its text and its parsed value here, so that one
set of rules holds for all of them:

- the bytes must be UTF-8; a UTF-8 byte order mark (as some editors write) is dropped, a UTF-16/32
  one is named, and any other undecodable byte is reported by its offset and line;
- JSON is standard JSON (RFC 8259): a key given twice in one object is refused (the standard leaves
  its meaning open, and Python would keep the last silently), and so are ``NaN``, ``Infinity`` and a
  number too large for a float (``1e400``, which Python would read as infinity);
- nesting deeper than :data:`MAX_DEPTH` is refused before the parser runs, since the parsers recurse
  once per level and would otherwise stop with Python's ``RecursionError``;
- numbers the parser cannot hold (an integer of more than 4300 digits) are a clear error too.

Errors are :class:`gridmarket.errors.InvalidInput` with one line: ``FILE[:LINE]: what is wrong``.
Offsets are in bytes from the start of the file, lines count from 1. The depth check is a linear
scan of the text (numpy over the brackets left once strings are removed), so a large WfFormat
instance pays about 30 ms a megabyte on top of the parse (measured: 40 ms for a 1.2 MB WfInstance whose
parse takes 23 ms).
"""

from __future__ import annotations

import codecs
import json
import math
import re
import tomllib
from collections import deque
from os import PathLike
from pathlib import Path
from typing import Any

import numpy as np

from gridmarket.errors import InvalidInput

__all__ = ["MAX_DEPTH", "decode_text", "parse_json", "parse_toml", "read_bytes", "read_json", "read_text",
           "read_toml"]

MAX_DEPTH = 64
"""Deepest nesting of arrays and objects (tables) a document may have.

Every gridmarket document is at most five levels deep (a WfFormat instance:
``workflow.specification.tasks[].parents[]``); 64 leaves room for anything real while keeping
the parsers, and every walk over the parsed value, far from Python's recursion limit (1000).
"""

_BOMS = ((codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"),
         (codecs.BOM_UTF16_LE, "UTF-16"), (codecs.BOM_UTF16_BE, "UTF-16"))
# A JSON string, escapes included: its brackets are text, not structure.
_JSON_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
# TOML strings (multi-line first) and comments, whose brackets are not structure.
_TOML_SKIP = re.compile(r"'''[\s\S]*?'''|\"\"\"(?:[^\\]|\\[\s\S])*?\"\"\"|\"[^\"\\\n]*(?:\\.[^\"\\\n]*)*\"|'[^'\n]*'"
                        r"|#[^\n]*")
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def read_bytes(path: str | PathLike[str], what: str = "document") -> bytes:
    """The bytes of the file ``path``; InvalidInput naming the file if it cannot be read.

    >>> read_bytes("no/such/file.toml", "scenario")
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: no/such/file.toml: cannot read scenario: No such file or directory
    """
    try:
        return Path(path).read_bytes()
    except OSError as err:
        raise InvalidInput(f"{path}: cannot read {what}: {err.strerror or err}") from None


def decode_text(raw: bytes, where: str, what: str = "document", *, errors: str = "strict") -> str:
    """``raw`` decoded as UTF-8, without a leading UTF-8 byte order mark.

    Parameters
    ----------
    raw : bytes
    where : str
        The file's name, for messages.
    what : str
        What the file holds (``"scenario"``), for messages.
    errors : {"strict", "replace"}
        ``"strict"`` refuses an undecodable byte, naming its offset and line; ``"replace"``
        puts U+FFFD in its place (for job logs, whose comment lines may hold any byte).

    Raises
    ------
    InvalidInput
        A UTF-16/32 byte order mark, or (strict) a byte that is not UTF-8.

    Examples
    --------
    >>> decode_text(b"\\xef\\xbb\\xbfname = 1", "a.toml")
    'name = 1'
    >>> decode_text(b'name = "\\xff"', "a.toml", "scenario")
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: a.toml:1: scenario is not UTF-8 text (invalid start byte 0xff at byte offset 8)
    """
    for bom, name in _BOMS:
        if raw.startswith(bom):
            raise InvalidInput(f"{where}: {what} is {name} text (it starts with a {name} byte order mark); "
                               "save it as UTF-8")
    if raw.startswith(codecs.BOM_UTF8):
        raw = raw[len(codecs.BOM_UTF8):]
    try:
        return raw.decode("utf-8", errors=errors)
    except UnicodeDecodeError as err:
        line = raw.count(b"\n", 0, err.start) + 1
        raise InvalidInput(f"{where}:{line}: {what} is not UTF-8 text ({err.reason} 0x{raw[err.start]:02x} "
                           f"at byte offset {err.start})") from None


def read_text(path: str | PathLike[str], what: str = "document") -> str:
    """The UTF-8 text of the file ``path`` (:func:`read_bytes`, then :func:`decode_text`)."""
    return decode_text(read_bytes(path, what), str(path), what)


def _too_deep(where: str, what: str, line: int | None = None) -> InvalidInput:
    at = f"{where}:{line}" if line is not None else where
    return InvalidInput(f"{at}: {what} is nested more than {MAX_DEPTH} levels deep")


def _check_bracket_depth(text: str, skip: re.Pattern[str], where: str, what: str) -> None:
    """Refuse ``text`` if its brackets (outside what ``skip`` matches) nest deeper than MAX_DEPTH."""
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return  # cannot be deeper: the common case of a small document costs nothing more
    brackets = _NOT_BRACKET.sub("", skip.sub("", text))
    if not brackets:
        return
    codes = np.frombuffer(brackets.encode("ascii"), dtype=np.uint8)
    depth = np.cumsum(np.where((codes == ord("[")) | (codes == ord("{")), 1, -1))
    if depth.max() > MAX_DEPTH:
        raise _too_deep(where, what)


def _value_depth(value: object) -> int:
    """Nesting depth of lists and dicts in ``value``, walked without recursion."""
    deepest = 0
    todo: deque[tuple[object, int]] = deque([(value, 0)])
    while todo:
        node, depth = todo.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list):
            children = node
        else:
            continue
        depth += 1
        if depth > MAX_DEPTH:
            return depth
        deepest = max(deepest, depth)
        todo.extend((child, depth) for child in children)
    return deepest


class _DuplicateKey(Exception):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (math.inf, -math.inf):  # the literal is JSON, but no float holds it: refused like Infinity
        raise ValueError(f"the number {text[:40]} is too large for a float")
    return value


def _line_of(text: str, key: str) -> int | None:
    """The line of the second ``"key":`` in ``text`` (where a repeated key most likely is), or None."""
    found = [m.start() for m in re.finditer(re.escape(json.dumps(key)) + r"\s*:", text)]
    return text.count("\n", 0, found[1]) + 1 if len(found) > 1 else None


def parse_json(text: str, where: str, what: str = "document", *, allow_nan: bool = False) -> Any:
    """The value of the JSON ``text`` (the file ``where``), under this module's rules.

    ``allow_nan`` admits ``NaN`` and ``Infinity``, for files gridmarket wrote itself with Python's
    ``json`` (a sweep's run files carry NaN for a metric a model does not measure).

    >>> parse_json('{"procs": 4, "procs": 8}', "state.json", "state")
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: state.json:1: key 'procs' appears twice in one object
    >>> parse_json("[" * 65 + "]" * 65, "deep.json")
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: deep.json: document is nested more than 64 levels deep
    """
    _check_bracket_depth(text, _JSON_TOKEN, where, what)
    try:
        if allow_nan:
            return json.loads(text, object_pairs_hook=_unique_keys)
        return json.loads(text, object_pairs_hook=_unique_keys, parse_constant=_no_constant, parse_float=_finite_float)
    except json.JSONDecodeError as err:
        raise InvalidInput(f"{where}:{err.lineno}: not JSON: {err.msg}") from None
    except _DuplicateKey as err:
        key = str(err.args[0])
        line = _line_of(text, key)
        raise InvalidInput(f"{where}{'' if line is None else f':{line}'}: key {key!r} appears twice in one "
                           "object") from None
    except RecursionError:  # brackets the depth check could not see (text it cannot tokenize)
        raise _too_deep(where, what) from None
    except ValueError as err:  # NaN, Infinity, an integer too long to convert
        raise InvalidInput(f"{where}: not JSON: {err}") from None


def parse_toml(text: str, where: str, what: str = "document") -> dict[str, Any]:
    """The table of the TOML ``text`` (the file ``where``), under this module's rules.

    TOML itself refuses a key given twice. Dotted keys (``a.b.c = 1``) nest without brackets,
    so the depth is checked again on the parsed value.

    >>> parse_toml('seed = 1\\nseed = 2\\n', "s.toml", "scenario")
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: s.toml: not TOML: Cannot overwrite a value (at line 2, column 9)
    """
    _check_bracket_depth(text, _TOML_SKIP, where, what)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise InvalidInput(f"{where}: not TOML: {err}") from None
    except RecursionError:
        raise _too_deep(where, what) from None
    except ValueError as err:  # an integer too long to convert
        raise InvalidInput(f"{where}: not TOML: {err}") from None
    if _value_depth(doc) > MAX_DEPTH:
        raise _too_deep(where, what)
    return doc


def read_json(path: str | PathLike[str], what: str = "document", *, allow_nan: bool = False) -> Any:
    """The JSON value in the file ``path``; InvalidInput naming the file (and the line) if it cannot be read.

    >>> read_json("no/such/file.json", "slots")
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: no/such/file.json: cannot read slots: No such file or directory
    """
    return parse_json(read_text(path, what), str(path), what, allow_nan=allow_nan)


def read_toml(path: str | PathLike[str], what: str = "document") -> dict[str, Any]:
    """The table in the TOML file ``path``; InvalidInput naming the file if it cannot be read."""
    return parse_toml(read_text(path, what), str(path), what)
