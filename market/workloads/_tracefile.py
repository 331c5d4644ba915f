"""Turning the records of a job-log file into a `Workload` (shared by the SWF and GWF readers).

Private module: the readers in ``swf.py`` and ``gwf.py`` describe their line format with a
`Format`, parse it into `Columns` (`fast_numeric_columns`, else `parse_records`) and hand
them to `build_workload`, which applies one set of rules (validation, dropping, estimate
filling, rebasing) to both formats. Times are integer seconds.
"""

from __future__ import annotations

import math
import re
import warnings
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from os import PathLike
from pathlib import Path

import numpy as np

from gridmarket.decoding import decode_text, read_bytes
from gridmarket.errors import InvalidInput
from gridmarket.job import checked_jobs
from gridmarket.limits import LIMITS, Limit, physical_memory
from gridmarket.workloads.workload import Workload

__all__ = ["DroppedJobsWarning"]

#: Header key under which readers count the jobs whose estimate was filled with the runtime.
ESTIMATES_FILLED_KEY = "gridmarket.estimates_filled"
#: Header key under which readers record the seconds subtracted from every submit time.
SUBMIT_OFFSET_KEY = "gridmarket.submit_offset"

#: Reasons under which readers count dropped jobs in `Workload.dropped`.
DROP_RUNTIME = "runtime unknown or zero"
DROP_PROCS = "procs unknown or zero"

_GZIP_MAGIC = b"\x1f\x8b"
# Floats hold every integer below 2**53 exactly; larger values take the exact (slow) path.
_EXACT_FLOAT_LIMIT = 2.0**53
# "Key:" then a blank or the end, so that "; http://..." is not read as a key "http"
_HEADER_KEY = re.compile(r"([A-Za-z][\w.\-]*):(\s.*|)\Z")
_LEADING_INT = re.compile(r"\s*(-?\d+)")


class DroppedJobsWarning(UserWarning):
    """A reader left jobs out of a workload; `Workload.dropped` counts them by reason."""


# Kinds of fields, as a reader checks them.
INT = "int"  # a whole number (an integral float such as ``3600.0`` is accepted)
ID = "id"  # a whole number, or any other token, which is numbered by first appearance
TEXT = "text"  # kept as a string
NUMBER = "number"  # any finite number; checked, not kept
ANY = "any"  # not checked


@dataclass(frozen=True, slots=True)
class Format:
    """How the lines of one job-log format look.

    Parameters
    ----------
    name : str
        Format name for messages (``"SWF"``).
    comment : str
        Character that starts a comment line.
    fields : tuple of (str, str)
        ``(field name, kind)`` per column, in file order; kinds are ``INT``, ``ID``,
        ``TEXT``, ``NUMBER`` and ``ANY``.
    columns : Mapping of str to int
        Column index of each field the job record needs: ``id``, ``submit``, ``runtime``,
        ``alloc`` (allocated processors), ``req_procs``, ``req_time``, ``user``, ``group`` and,
        optionally, ``site``.
    """

    name: str
    comment: str
    fields: tuple[tuple[str, str], ...]
    columns: dict[str, int]

    @property
    def n_fields(self) -> int:
        return len(self.fields)

    def field_name(self, column: str) -> str:
        return self.fields[self.columns[column]][0]


# ----------------------------------------------------------------------------------------------
# Files and headers
# ----------------------------------------------------------------------------------------------


# columns a job is built from, and the quantity bounding each (gridmarket.limits)
_BOUNDED = {"submit": "seconds", "runtime": "seconds", "req_time": "seconds", "alloc": "processors",
            "req_procs": "processors"}

_INT64 = 2**63  # columns are int64 arrays: larger whole numbers are refused by line, not overflowed

def text_limit() -> int:
    """The most bytes of job-log text read into memory: an eighth of this machine's memory (16 GiB if unknown).

    The text, its lines and the parsed columns are held at once, so a log must leave room for a few
    copies of itself; the largest archive log (SDSC-BLUE, 243,306 jobs) is 24 MB of text.
    """
    memory = physical_memory()
    return (memory if memory is not None else 2**37) // 8


def _too_large(path: str | PathLike[str], how: str, limit: int) -> InvalidInput:
    return InvalidInput(f"{path}: the job log {how} more than {limit} bytes, an eighth of this machine's memory "
                        "(its text and parsed columns must fit at once); split it or read it on a larger machine")


def _gunzip(raw: bytes, path: str | PathLike[str], limit: int) -> bytes:
    """``raw`` decompressed (every gzip member), refused once it passes ``limit`` bytes, before it is all held."""
    out: list[bytes] = []
    size = 0
    while raw:
        stream = zlib.decompressobj(16 + zlib.MAX_WBITS)  # a gzip member
        try:
            chunk = stream.decompress(raw, limit - size + 1)
            if not stream.unconsumed_tail and not stream.eof:
                chunk += stream.flush()
        except zlib.error as exc:
            raise InvalidInput(f"{path}: not a readable gzip file ({exc})") from None
        size += len(chunk)
        if size > limit:
            raise _too_large(path, "decompresses to", limit)
        if not stream.eof:
            raise InvalidInput(f"{path}: not a readable gzip file (the compressed stream ends early)")
        out.append(chunk)
        raw = stream.unused_data.lstrip(b"\0")  # gzip pads members with zeros at times
    return b"".join(out)


def read_text(path: str | PathLike[str], what: str = "job log", *, errors: str = "replace") -> str:
    """Whole file as text; gzip files (by ``.gz`` suffix or magic bytes) are decompressed.

    Decoded by :func:`gridmarket.decoding.decode_text` (a UTF-8 byte order mark dropped, UTF-16
    refused), by default with undecodable bytes replaced: archive logs carry free text in their
    comment lines (a JSON workload is read with ``errors="strict"``: its ids are text).
    A log whose text would pass :func:`text_limit` is refused in one line before it is held whole
    (a gzip file that decompresses to gigabytes, by accident or on purpose).
    """
    limit = text_limit()
    try:
        if Path(path).stat().st_size > limit:
            raise _too_large(path, "holds", limit)
    except OSError:
        pass  # read_bytes names what is wrong with the path
    raw = read_bytes(path, what)
    if Path(path).suffix == ".gz" or raw[:2] == _GZIP_MAGIC:
        raw = _gunzip(raw, path, limit)
    return decode_text(raw, str(path), what, errors=errors)


def parse_header(lines: Sequence[str], comment: str) -> dict[str, str]:
    """``Key: value`` comment lines as a dict.

    A key line has at most one blank between the comment character and ``Key:``. Repeated keys
    (``Note``, ``Queue``) and continuation lines (comment lines without a key, such as the
    indented URL under ``Information:``) are appended to the value on a new line. Comment text
    before the first key is kept under ``Comment``.
    """
    header: dict[str, str] = {}
    last_key = "Comment"
    for line in lines:
        if comment not in line:  # fast rejection of data lines
            continue
        stripped = line.lstrip()
        if not stripped.startswith(comment):
            continue
        body = stripped[len(comment) :]
        candidate = body[1:] if body[:1].isspace() else body
        match = _HEADER_KEY.match(candidate) if not candidate[:1].isspace() else None
        if match:
            key, text = match.group(1), match.group(2).strip()
        else:
            key, text = last_key, body.strip()
            if not text:
                continue
        header[key] = f"{header[key]}\n{text}" if key in header else text
        last_key = key
    return header


def max_procs_from_header(header: dict[str, str], path: str) -> int | None:
    """Leading integer of ``MaxProcs``, else of ``MaxNodes``; ``None`` if neither (or ``-1``)."""
    for key in ("MaxProcs", "MaxNodes"):
        if key not in header:
            continue
        value = header[key].split("\n", 1)[0]
        match = _LEADING_INT.match(value)
        if match is None:
            raise InvalidInput(f"{path}: header {key} is {value!r}, not a processor count")
        n = int(match.group(1))
        if n == -1:
            continue
        if n < 1:
            raise InvalidInput(f"{path}: header {key} is {value!r}; a machine has >= 1 processor")
        return n
    return None


# ----------------------------------------------------------------------------------------------
# Records
# ----------------------------------------------------------------------------------------------


@dataclass(slots=True)
class Columns:
    """The fields a job needs, one int64 array per field, in file order.

    ``line_of(row)`` gives the 1-based line number of a data row (for messages).
    """

    ints: dict[str, np.ndarray]
    sites: list[str | None] | None
    line_of: Callable[[int], int]


def data_line_numbers(lines: Sequence[str], comment: str) -> list[int]:
    """1-based numbers of the lines that hold a record (text before any comment character)."""
    return [i for i, line in enumerate(lines, 1) if line.split(comment, 1)[0].strip()]


def fast_numeric_columns(lines: Sequence[str], fmt: Format) -> Columns | None:
    """Columns via numpy's C parser, or ``None`` when the file needs the exact parser.

    Only for formats whose every field is numeric. ``None`` means something is unusual (a bad
    field count, a non-number, a non-integral or huge value); `parse_records` then finds and
    names it, or reads the file exactly.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # numpy warns on empty input; we check below
            table = np.loadtxt(lines, comments=fmt.comment, dtype=np.float64, ndmin=2)
    except ValueError:
        return None
    if table.shape[0] == 0:
        return Columns({c: np.empty(0, np.int64) for c in fmt.columns}, None, lambda r: r + 1)
    if table.shape[1] != fmt.n_fields or not np.isfinite(table).all():
        return None
    used = table[:, list(fmt.columns.values())]
    if np.abs(used).max() >= _EXACT_FLOAT_LIMIT or (used != np.floor(used)).any():
        return None
    ints = {c: table[:, i].astype(np.int64) for c, i in fmt.columns.items()}
    numbers: list[int] = []

    def line_of(row: int) -> int:
        if not numbers:
            numbers.extend(data_line_numbers(lines, fmt.comment))
        return numbers[row]

    return Columns(ints, None, line_of)


def _whole(token: str) -> int | None:
    """``token`` as an int if it is a whole number (``"3600.0"`` included), else ``None``."""
    try:
        return int(token)
    except ValueError:
        pass
    try:
        value = float(token)
    except ValueError:
        return None
    if math.isfinite(value) and value == math.floor(value):
        return int(value)
    return None


def parse_records(lines: Sequence[str], fmt: Format, path: str) -> Columns:
    """Columns by plain Python parsing; raises `InvalidInput` at the first malformed line.

    Messages name the file, the line and the field, e.g.
    ``CTC.swf line 1234: field 'run time' is 'abc', not a number``.
    """
    kinds = [kind for _, kind in fmt.fields]
    checked = [
        (i, name, kind) for i, (name, kind) in enumerate(fmt.fields) if kind in (INT, NUMBER)
    ]
    int_columns = [c for c, i in fmt.columns.items() if kinds[i] == INT]
    id_columns = [c for c, i in fmt.columns.items() if kinds[i] == ID]
    values: dict[str, list[int]] = {c: [] for c in int_columns}
    tokens_of: dict[str, list[str]] = {c: [] for c in id_columns}
    sites: list[str | None] | None = [] if "site" in fmt.columns else None
    line_numbers: list[int] = []
    for lineno, line in enumerate(lines, 1):
        tokens = line.split(fmt.comment, 1)[0].split()
        if not tokens:
            continue
        if len(tokens) != fmt.n_fields:
            raise InvalidInput(
                f"{path} line {lineno}: {len(tokens)} fields, expected {fmt.n_fields} ({fmt.name})"
            )
        for i, name, kind in checked:
            token = tokens[i]
            if kind == INT:
                whole = _whole(token)
                if whole is not None:
                    if not -_INT64 <= whole < _INT64:
                        raise InvalidInput(f"{path} line {lineno}: field {name!r} is {token!r}, out of range")
                    continue
                try:
                    value = float(token)
                except ValueError:
                    raise InvalidInput(
                        f"{path} line {lineno}: field {name!r} is {token!r}, not a number"
                    ) from None
                raise InvalidInput(
                    f"{path} line {lineno}: field {name!r} is {token!r}, "
                    f"not a whole number{' (it is not finite)' if not math.isfinite(value) else ''}"
                )
            try:
                value = float(token)
            except ValueError:
                raise InvalidInput(
                    f"{path} line {lineno}: field {name!r} is {token!r}, not a number"
                ) from None
            if not math.isfinite(value):
                raise InvalidInput(f"{path} line {lineno}: field {name!r} is {token!r}, not finite")
            if abs(value) >= _INT64:
                raise InvalidInput(f"{path} line {lineno}: field {name!r} is {token!r}, out of range")
        for column, lst in values.items():
            lst.append(_whole(tokens[fmt.columns[column]]))  # type: ignore[arg-type]  # checked above: never None
        for column, strs in tokens_of.items():
            strs.append(tokens[fmt.columns[column]])
        if sites is not None:
            site = tokens[fmt.columns["site"]]
            sites.append(None if site == "-1" else site)
        line_numbers.append(lineno)
    for column, tokens in tokens_of.items():
        values[column] = _ids(tokens)
    ints = {c: np.array(values[c], dtype=np.int64) for c in fmt.columns if c != "site"}
    return Columns(ints, sites, line_numbers.__getitem__)


def _ids(tokens: list[str]) -> list[int]:
    """Whole numbers as they are; otherwise every token but ``-1`` numbered 0, 1, ... by first
    appearance (so names such as ``user_12`` become distinct, stable ints)."""
    numbers = [_whole(t) for t in tokens]
    if None not in numbers:
        return numbers  # type: ignore[return-value]
    codes: dict[str, int] = {"-1": -1}
    return [codes.setdefault(t, len(codes) - 1) for t in tokens]


# ----------------------------------------------------------------------------------------------
# Records to workload
# ----------------------------------------------------------------------------------------------


def _first_true(mask: np.ndarray) -> int | None:
    index = int(np.argmax(mask)) if mask.size else 0
    return index if mask.size and mask[index] else None


def _check_records(cols: Columns, fmt: Format, path: str) -> None:
    """Raise `InvalidInput` for the earliest record that no reading rule can accept.

    Rules, in the order they are reported for one line: a used whole-number field below -1 or a job's
    time or size above its limit (:mod:`gridmarket.limits`), a
    negative job number, an unknown submit time, a submit time before the previous line's, a
    repeated job number.
    """
    ints = cols.ints
    ids, submit = ints["id"], ints["submit"]
    problems: list[tuple[int, int, Callable[[], str]]] = []  # (row, rule, message)

    def add(mask: np.ndarray, message: Callable[[int], str]) -> None:
        row = _first_true(mask)
        if row is not None:
            problems.append((row, len(problems), lambda: message(row)))

    def below_minus_one(column: str) -> Callable[[int], str]:
        name, col = fmt.field_name(column), ints[column]
        return lambda r: f"field {name!r} is {col[r]}; only -1 may mark an unknown value"

    def above_limit(column: str, limit: Limit) -> Callable[[int], str]:
        name, col = fmt.field_name(column), ints[column]
        return lambda r: (f"field {name!r} is {col[r]}, above the limit of {limit.high} {limit.unit} "
                          f"({limit.reason})")

    for column, index in fmt.columns.items():
        if column not in ("id", "site") and fmt.fields[index][1] == INT:
            add(ints[column] < -1, below_minus_one(column))
        if column in _BOUNDED:  # the jobs' times and sizes reach the int64 kernels
            limit = LIMITS[_BOUNDED[column]]
            add(ints[column] > limit.high, above_limit(column, limit))
    add(ids < 0, lambda r: f"field {fmt.field_name('id')!r} is {ids[r]}, not a job number")
    add(
        submit == -1,
        lambda r: (
            f"field {fmt.field_name('submit')!r} is -1 (unknown); every job needs a submit time"
        ),
    )
    if submit.size > 1:
        add(
            np.concatenate(([False], submit[1:] < submit[:-1])),
            lambda r: (
                f"submit time {submit[r]} is before the previous job's {submit[r - 1]} "
                f"(line {cols.line_of(r - 1)}); records must be in submit order"
            ),
        )
        order = np.argsort(ids, kind="stable")
        repeat = np.zeros(ids.size, dtype=bool)
        repeat[order[1:][ids[order][1:] == ids[order][:-1]]] = True
        add(
            repeat,
            lambda r: (
                f"job number {ids[r]} already appeared on line "
                f"{cols.line_of(int(np.flatnonzero(ids == ids[r])[0]))}"
            ),
        )
    if problems:
        row, _, message = min(problems, key=lambda p: (p[0], p[1]))
        raise InvalidInput(f"{path} line {cols.line_of(row)}: {message()}")


def build_workload(
    cols: Columns,
    fmt: Format,
    *,
    path: str,
    name: str,
    header: dict[str, str],
    drop_invalid: bool,
    rebase: bool,
    warn_stacklevel: int,
) -> Workload:
    """Apply the shared reading rules (see `gridmarket.workloads.swf.read_swf`) to parsed columns."""
    n_records = cols.ints["id"].size
    if n_records == 0:
        raise InvalidInput(f"{path}: no jobs (the file holds no {fmt.name} records)")
    _check_records(cols, fmt, path)
    ints = cols.ints
    runtime, alloc, req_procs = ints["runtime"], ints["alloc"], ints["req_procs"]
    procs = np.where(alloc != -1, alloc, req_procs)
    bad_runtime = runtime <= 0
    bad_procs = ~bad_runtime & (procs <= 0)
    if not drop_invalid:
        row = _first_true(bad_runtime | bad_procs)
        if row is not None:
            if bad_runtime[row]:
                what = (
                    f"field {fmt.field_name('runtime')!r} is {runtime[row]}; "
                    "a job needs a runtime of at least 1 s"
                )
            else:
                what = (
                    f"fields {fmt.field_name('alloc')!r} and {fmt.field_name('req_procs')!r} "
                    f"are {alloc[row]} and {req_procs[row]}; a job needs at least 1 processor"
                )
            raise InvalidInput(
                f"{path} line {cols.line_of(row)}: {what} (drop_invalid=True drops such jobs)"
            )
    counts = {DROP_RUNTIME: int(bad_runtime.sum()), DROP_PROCS: int(bad_procs.sum())}
    dropped = {reason: n for reason, n in counts.items() if n}
    keep = ~(bad_runtime | bad_procs)
    n_kept = int(keep.sum())
    if n_kept == 0:
        raise InvalidInput(f"{path}: all {n_records} jobs were dropped ({dropped})")

    ids = ints["id"][keep]
    submit = ints["submit"][keep]
    runtime = runtime[keep]
    procs = procs[keep]
    req_time = ints["req_time"][keep]
    filled = req_time <= 0
    estimate = np.where(filled, runtime, req_time)
    offset = int(submit[0]) if rebase else 0
    submit = submit - offset
    order = np.lexsort((ids, submit))
    sites = None
    if cols.sites is not None:
        sites = [cols.sites[r] for r in np.flatnonzero(keep)[order].tolist()]
    # every column is checked above (ids >= 0, submit >= 0 after the rebase, procs, runtime and
    # estimate >= 1), so the jobs are built without Job's per-field checks
    jobs = checked_jobs(
        ids[order].tolist(),
        submit[order].tolist(),
        procs[order].tolist(),
        runtime[order].tolist(),
        estimate[order].tolist(),
        ints["user"][keep][order].tolist(),
        ints["group"][keep][order].tolist(),
        sites,
    )

    header = dict(header)
    header[ESTIMATES_FILLED_KEY] = str(int(filled.sum()))
    header[SUBMIT_OFFSET_KEY] = str(offset)
    workload = Workload(
        jobs,
        max_procs=max_procs_from_header(header, path),
        name=name,
        dropped=dropped,
        header=header,
    )
    if dropped:
        warnings.warn(
            f"{path}: dropped {n_records - n_kept} of {n_records} jobs: {dropped}",
            DroppedJobsWarning,
            stacklevel=warn_stacklevel,
        )
    return workload
