"""The MEASY results-table command: a tiny run end to end."""

import pytest

from gridmarket.scenarios.harnesses.twotier_tables import main, run_tables


def test_help_exits_cleanly(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--help"])
    assert exc.value.code == 0
    assert "--loads" in capsys.readouterr().out


def test_tiny_run_prints_every_section_and_writes_rows(tmp_path, capsys):
    out = tmp_path / "rows.csv"
    status = main(["--workloads", "jann97", "--jobs", "150", "--loads", "0.8", "--costs", "0,20,1500",
                   "--quiet", "--out", str(out)])
    assert status == 0
    text = capsys.readouterr().out
    for needle in ("EASY vs KEASY, REASY, MEASY", "no usage information", "migration cost", "MEASY migrations"):
        assert needle in text
    assert out.read_text().count("\n") == 1 + 4 + 4 + 2  # header, main, usage, two extra costs


def test_rows_share_jobs_across_policies_and_record_the_seed():
    rows = run_tables(workloads=["feitelson96"], loads=[0.6], n_jobs=120, seed=3, sections=["main"])
    assert list(rows["policy"]) == ["easy", "keasy", "reasy", "measy"]
    assert set(rows["jobs"]) == {120} and set(rows["seed"]) == {3}
    assert abs(rows["offered_load"].iloc[0] - 0.6) < 0.01


def test_unknown_workload_is_a_usage_error():
    with pytest.raises(SystemExit) as exc:
        main(["--workloads", "lublin"])
    assert exc.value.code == 2
