"""Files written whole or not at all: a temporary file in the same folder, flushed to disk, then renamed.

Every file gridmarket writes (per-job tables, figures, manifests, a sweep's run
files) goes through :func:`write_atomic` (the bytes are at hand) or
:func:`atomic_path` (a library writes to a path: pandas, pyarrow, matplotlib).
A stop at any instant (Ctrl-C, SIGTERM, SIGKILL, a full disk) leaves either
the previous file or the new one, never a cut one: the new content goes to a
hidden ``.NAME.*.tmp`` beside ``NAME``, is fsynced, and only then replaces
``NAME`` with ``os.replace`` (atomic on POSIX within one file system). A
failed write removes its temporary file and raises ``OSError`` naming
``NAME`` (Python's own message for a full disk names no file).
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

__all__ = ["TMP_SUFFIX", "atomic_path", "is_temporary", "save_figure", "write_atomic"]

TMP_SUFFIX = ".tmp"
"""The suffix of the temporary files (``.NAME.XXXX.tmp``), which a resumed command may delete."""


def _read_umask() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return umask


# read once, at import: setting the umask to read it is not safe while other threads create files
_UMASK = _read_umask()


def _sync_folder(folder: Path) -> None:
    """fsync ``folder`` so that a rename in it survives a crash of the machine (where the system allows it)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems do not sync folders; the rename itself is still atomic
    finally:
        os.close(fd)


def is_temporary(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is one of :func:`atomic_path`'s temporary files (left only by a killed process).

    >>> is_temporary(".jobs.csv.k2j1.tmp"), is_temporary("jobs.csv")
    (True, False)
    """
    name = Path(path).name
    return name.startswith(".") and name.endswith(TMP_SUFFIX)


def _named(err: OSError, path: Path) -> OSError:
    """``err`` with ``path`` as its file name when it has none (ENOSPC from a write names no file)."""
    if err.filename:
        return err
    if err.errno:
        return OSError(err.errno, err.strerror or str(err), str(path))  # OSError picks the subclass by errno
    return OSError(f"{path}: {err}")


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Context yielding a temporary path beside ``path``; on a clean exit it becomes ``path``.

    Write the file to the yielded path (any writer that takes a path); leaving the
    block fsyncs it and renames it to ``path``. An exception (or a stop) inside the
    block, or a failed fsync/rename, deletes the temporary file and leaves any
    previous ``path`` as it was. The new file keeps the permissions of the file it
    replaces, or gets those of an ordinary new file (``0o666`` less the umask), not
    ``mkstemp``'s ``0o600``. A symbolic link
    to a file is followed (the file it names is replaced, the link kept); a path that is
    no regular file (``/dev/stdout``, a named pipe) has nothing to replace and is yielded
    as it is, to be written in place.

    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "t.txt"
    >>> with atomic_path(target) as tmp:
    ...     _ = tmp.write_text("whole")
    >>> target.read_text()
    'whole'
    """
    path = Path(path)
    try:
        mode = os.stat(path).st_mode
    except OSError:
        mode = None  # no file yet (or a dangling link, created anew as a file)
    if mode is not None and not stat.S_ISREG(mode):
        try:
            yield path
        except OSError as err:
            raise _named(err, path) from None
        return
    if mode is not None and path.is_symlink():
        path = path.resolve()
    try:
        fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=TMP_SUFFIX)
    except OSError as err:
        raise _named(err, path) from None
    os.close(fd)
    tmp = Path(name)
    try:
        yield tmp
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())  # on disk before the rename makes it a finished file
        os.chmod(tmp, stat.S_IMODE(mode) if mode is not None else 0o666 & ~_UMASK)
        os.replace(tmp, path)
        _sync_folder(path.parent)
    except OSError as err:
        tmp.unlink(missing_ok=True)
        raise _named(err, path) from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_atomic(path: str | os.PathLike[str], data: str | bytes) -> None:
    """Write ``data`` (str as UTF-8, or bytes) to ``path`` whole or not at all (:func:`atomic_path`).

    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "t.json"
    >>> write_atomic(target, "{}\\n")
    >>> target.read_text()
    '{}\\n'
    """
    with atomic_path(path) as tmp, open(tmp, "wb") as fh:
        fh.write(data.encode("utf-8") if isinstance(data, str) else data)


def save_figure(fig, path: str | os.PathLike[str], **kwargs) -> None:
    """``fig.savefig(path, **kwargs)`` (a matplotlib figure) whole or not at all; the format from ``path``'s suffix."""
    path = Path(path)
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format=path.suffix.removeprefix(".") or "png", **kwargs)
