"""Files written whole or not at all (gridmarket.atomicfile), and a full disk named in one line."""

import errno
import os
import stat

import pandas as pd
import pyarrow.csv
import pytest

from gridmarket.atomicfile import atomic_path, write_atomic
from gridmarket.scenarios.commands.cli import main


def _full_disk(monkeypatch):
    """Make every CSV writer write a few bytes to its file, then fail as a full disk does."""

    def partial_then_enospc(target):
        with open(target, "wb") as fh:  # what a real full disk leaves: the start of the file
            fh.write(b"job_id,su")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(pyarrow.csv, "write_csv", lambda table, out, **kw: partial_then_enospc(out.name))
    real = pd.DataFrame.to_csv
    monkeypatch.setattr(pd.DataFrame, "to_csv", lambda self, path=None, **kw: real(self, path, **kw) if path is None
                        else partial_then_enospc(path))

    def enospc(fd):  # a writer of its own (simulate's columns) meets the full disk when the file is synced
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", enospc)


def test_simulate_on_a_full_disk_keeps_the_previous_csv_and_names_the_file(tmp_path, monkeypatch, capsys):
    out = tmp_path / "jobs.csv"
    assert main(["simulate", "--jobs", "50", "--out", str(out)]) == 0
    before = out.read_bytes()
    capsys.readouterr()
    _full_disk(monkeypatch)
    assert main(["simulate", "--jobs", "60", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert out.read_bytes() == before
    assert len(err.strip().splitlines()) == 1 and "No space left on device" in err and str(out) in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["jobs.csv"]  # no temporary file left


def test_write_atomic_on_a_full_disk_keeps_the_old_file_and_names_it(tmp_path, monkeypatch):
    path = tmp_path / "manifest.json"
    write_atomic(path, "old\n")

    def fail(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", fail)
    with pytest.raises(OSError, match=r"No space left on device: '.*manifest.json'") as err:
        write_atomic(path, "new\n")
    assert err.value.errno == errno.ENOSPC and err.value.filename == str(path)
    assert path.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == ["manifest.json"]


def test_a_stop_inside_atomic_path_keeps_the_previous_file(tmp_path):
    path = tmp_path / "figure.png"
    path.write_bytes(b"old")
    with pytest.raises(KeyboardInterrupt), atomic_path(path) as tmp:
        tmp.write_bytes(b"ne")
        raise KeyboardInterrupt
    assert path.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["figure.png"]


def test_a_link_is_followed_and_a_device_written_in_place(tmp_path):
    target = tmp_path / "real.csv"
    target.write_text("old")
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    write_atomic(link, "new")
    assert link.is_symlink() and target.read_text() == "new"
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        write_atomic(fifo, "through")
        assert os.read(reader, 100) == b"through"
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)  # still the pipe, not replaced by a file


def test_a_replaced_file_keeps_its_permissions_and_a_new_one_gets_the_umasks(tmp_path):
    private = tmp_path / "private.csv"
    private.write_text("old")
    private.chmod(0o600)
    write_atomic(private, "new")
    assert stat.S_IMODE(os.stat(private).st_mode) == 0o600 and private.read_text() == "new"
    fresh = tmp_path / "fresh.csv"
    umask = os.umask(0o022)
    os.umask(umask)
    write_atomic(fresh, "x")
    assert stat.S_IMODE(os.stat(fresh).st_mode) == 0o666 & ~umask  # not mkstemp's 0o600
