"""Output folders: one writer at a time, complete when the manifest is there, checked when read back.

A command that writes a folder (``compare``, ``sweep``, ``run --out``) first
takes it with :func:`claim`: a lock file ``OUT/.gridmarket.lock``, held with
``fcntl.flock`` for the command's life, so a second command writing into the
same folder is refused in one line naming the folder and the holder (its pid,
host, start time and command). The kernel drops the lock when its process
dies, so a killed command leaves no stale lock to clean by hand.

Files are written whole (:mod:`gridmarket.atomicfile`) and ``manifest.json``
last: its presence means the folder is complete (a sweep writes its
``sweep.json`` first, the specification a resume must match, and its table
``sweep.csv`` last). The manifest lists every file written with its size,
SHA-256 and, for tables, its row count (:func:`file_record`); readers
(``run --join``) check them (:func:`check_files`), so a truncated or edited
file is refused, not taken as a result. Local POSIX file systems only: on
NFS ``flock`` depends on the server's lock daemon.
"""

from __future__ import annotations

import contextlib
import datetime
import errno
import fnmatch
import hashlib
import os
import shutil
import socket
import sys
from collections.abc import Collection, Iterator, Mapping
from pathlib import Path

from gridmarket.atomicfile import is_temporary
from gridmarket.decoding import read_json
from gridmarket.errors import InvalidInput

__all__ = ["LOCK_NAME", "MANIFEST_NAME", "check_files", "claim", "entries", "file_record", "remove_written"]

LOCK_NAME = ".gridmarket.lock"
MANIFEST_NAME = "manifest.json"


def entries(folder: Path) -> list[Path]:
    """The folder's entries but its lock file (which a running command holds there)."""
    return sorted(p for p in Path(folder).iterdir() if p.name != LOCK_NAME)


def _holder() -> str:
    started = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    command = " ".join(["gridmarket", *sys.argv[1:]])
    return f"pid {os.getpid()} on {socket.gethostname()} since {started}: {command[:200]}"


@contextlib.contextmanager
def claim(out: str | os.PathLike[str]) -> Iterator[Path]:
    """Context holding ``out``'s lock (creating ``out``); a second holder is refused (InvalidInput).

    Leaving the context releases the lock and removes ``out`` again if this call
    created it and nothing was written into it (a command refused or stopped early).
    """
    import fcntl

    out = Path(out)
    if out.exists() and not out.is_dir():
        raise InvalidInput(f"{out}: exists and is not a folder")
    created = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    path = out / LOCK_NAME
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as err:
            holder = os.read(fd, 4096).decode("utf-8", "replace").strip() or "another process"
            os.close(fd)
            if err.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise
            raise InvalidInput(f"{out}: another gridmarket command is writing this folder ({holder}); "
                               "wait for it to end or choose another --out") from None
        try:
            same = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)  # the holder removed the file between our open and our lock: lock the new one
    try:
        try:
            os.ftruncate(fd, 0)
            os.write(fd, (_holder() + "\n").encode("utf-8"))
        except OSError as err:  # a full disk: say which file, as every other write does
            raise OSError(err.errno, err.strerror, str(path)) from None
        yield out
    finally:
        with contextlib.suppress(OSError):
            path.unlink()  # while still holding it: a waiting opener re-checks the inode (above)
        os.close(fd)
        if created:
            with contextlib.suppress(OSError):
                if not any(out.iterdir()):
                    out.rmdir()


def file_record(path: Path, *, rows: int | None = None) -> dict:
    """``{"bytes", "sha256"[, "rows"]}`` of the file at ``path``, for a manifest's ``files``."""
    digest = hashlib.sha256()
    size = 0
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
            size += len(block)
    record = {"bytes": size, "sha256": digest.hexdigest()}
    if rows is not None:
        record["rows"] = int(rows)
    return record


def check_files(folder: Path, files: object, manifest_path: Path) -> None:
    """Check every file a manifest lists (``files``: name -> :func:`file_record`); InvalidInput naming the first bad one."""
    if not isinstance(files, Mapping) or not files:
        raise InvalidInput(f"{manifest_path}: 'files' must list the folder's files with their sizes and SHA-256")
    for name, record in files.items():
        path = Path(folder) / str(name)
        if not isinstance(record, Mapping) or not isinstance(record.get("sha256"), str):
            raise InvalidInput(f"{manifest_path}: files.{name}: expected bytes and sha256, got {record!r}")
        if not path.is_file():
            raise InvalidInput(f"{path}: missing, but {manifest_path.name} lists it (an unfinished or edited folder)")
        found = file_record(path)
        if found["bytes"] != record.get("bytes"):
            raise InvalidInput(f"{path}: {found['bytes']} bytes, {manifest_path.name} says {record.get('bytes')} "
                               "(cut short or edited since it was written)")
        if found["sha256"] != record["sha256"]:
            raise InvalidInput(f"{path}: its SHA-256 differs from the one in {manifest_path.name} "
                               "(changed since it was written)")


def remove_written(out: Path, names: Collection[str], *, manifest: str = MANIFEST_NAME) -> list[Path]:
    """Delete what a gridmarket command wrote into ``out``: the manifest first, then its listed files and
    the entries named by ``names`` (glob patterns; folders with their content), and stray temporary files.

    Files it did not write are kept. Returns the paths deleted.
    """
    out = Path(out)
    removed = []
    listed: list[str] = []
    manifest_path = out / manifest
    with contextlib.suppress(InvalidInput):  # an unreadable manifest lists nothing: only `names` are deleted
        doc = read_json(manifest_path, "manifest", allow_nan=True)
        files = doc.get("files", {}) if isinstance(doc, dict) else {}
        listed = [n for n in files if isinstance(n, str)] if isinstance(files, (dict, list)) else []
    if manifest_path.exists():
        manifest_path.unlink()  # first: from here on the folder says it is unfinished
        removed.append(manifest_path)
    root = out.resolve()
    for name in listed:
        path = (out / name).resolve()
        if path.is_relative_to(root) and path.is_file():
            path.unlink()
            removed.append(path)
            for parent in path.parents:  # the folders it was written into, once empty (batsim/MODEL/PROVIDER)
                if parent == root or any(parent.iterdir()):
                    break
                parent.rmdir()
    for path in entries(out):
        if is_temporary(path) or any(fnmatch.fnmatch(path.name, pattern) for pattern in names):
            if path.is_dir() and not path.is_symlink():  # a link is removed, never what it points to
                shutil.rmtree(path)
            else:
                path.unlink()
            removed.append(path)
    return removed
