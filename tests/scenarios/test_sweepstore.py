"""A sweep's run store: few Parquet parts, each rewritten whole; a failed write loses no earlier run."""

import pytest

from gridmarket.scenarios import sweepstore
from gridmarket.scenarios.sweepstore import add_run, is_part, new_session, part_files, read_runs


def _doc(k: int) -> dict:
    return {"point": {"seed": k, "alpha": 0.5 * k}, "n_rows": 2,
            "rows": [{"model": "mcmf", "seed": k, "mean_wait": 1.5 * k}, {"model": "stable", "seed": k, "x": None}]}


def test_runs_fill_parts_of_at_most_runs_per_part_and_read_back_whole(tmp_path, monkeypatch):
    monkeypatch.setattr(sweepstore, "RUNS_PER_PART", 2)
    session = new_session()
    for k in range(5):
        add_run(tmp_path, f"run-{k}", _doc(k), session)
    assert len(part_files(tmp_path)) == 3 and all(is_part(p) for p in part_files(tmp_path))
    assert read_runs(tmp_path) == {f"run-{k}": _doc(k) for k in range(5)}


def test_a_failed_write_keeps_the_earlier_runs_and_stores_no_run_twice(tmp_path, monkeypatch):
    session = new_session()
    add_run(tmp_path, "a", _doc(1), session)
    real = sweepstore.write_atomic

    def full_disk(path, data):
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr(sweepstore, "write_atomic", full_disk)
    with pytest.raises(OSError):
        add_run(tmp_path, "b", _doc(2), session)
    assert read_runs(tmp_path) == {"a": _doc(1)}
    monkeypatch.setattr(sweepstore, "write_atomic", real)
    add_run(tmp_path, "b", _doc(2), session)  # retried in the same process
    assert read_runs(tmp_path) == {"a": _doc(1), "b": _doc(2)}


def test_a_newer_session_copy_of_a_run_wins_and_a_foreign_file_is_no_part(tmp_path):
    add_run(tmp_path, "a", {**_doc(1), "n_rows": 3}, "s1")  # an incomplete copy, as an edit leaves
    add_run(tmp_path, "a", _doc(1), "s2")  # the resume's re-run
    assert read_runs(tmp_path) == {"a": _doc(1)}
    (tmp_path / "mine.parquet").write_bytes(b"PAR1 not really")
    assert not is_part(tmp_path / "mine.parquet")
    assert read_runs(tmp_path) == {"a": _doc(1)}  # the unreadable file is logged and skipped
