"""Output folders: written whole, manifest last, one writer at a time, --force/--resume/--join checked.

Each test here is a case where a result was lost or a partial result was taken as complete.
"""

import json
import subprocess
import sys

import pandas as pd
import pytest

from gridmarket import plots
from gridmarket.errors import InvalidInput
from gridmarket.scenarios import sweep
from gridmarket.scenarios.commands import compare as compare_cli
from gridmarket.scenarios.commands.cli import main
from gridmarket.scenarios.config import load_toml_text, with_overrides
from gridmarket.scenarios.outfolder import claim
from gridmarket.scenarios.registry import get_scenario
from gridmarket.scenarios.reproductions.report import Check, Report, Row, write_report
from gridmarket.scenarios.sweep import run_sweep
from gridmarket.scenarios.sweepstore import add_run, new_session, part_files, read_runs


@pytest.fixture
def quick():
    """The quickstart scenario cut to 30 jobs and best effort: a run takes well under a second."""
    return with_overrides(get_scenario("quickstart"), {"workload.n_jobs": 30, "models": ("best-effort",)})


def test_compare_stopped_while_drawing_leaves_no_manifest_and_the_same_command_then_writes_the_folder(
        tmp_path, monkeypatch, capsys):
    out = tmp_path / "res"
    args = ["compare", "--scenario", "quickstart", "--models", "best-effort", "--out", str(out)]

    def stop(*a, **k):  # Ctrl-C after the tables, while the figures are drawn
        raise KeyboardInterrupt

    with monkeypatch.context() as m:
        m.setattr(plots, "price_history", stop)
        with pytest.raises(KeyboardInterrupt):
            compare_cli.main(args)
    assert not (out / "manifest.json").exists()  # nothing says "finished"
    assert not out.exists() or not [p for p in out.iterdir()]
    assert compare_cli.main(args) == 0  # the same command again, no --force needed
    doc = json.loads((out / "manifest.json").read_text())
    assert doc["files"]["jobs.csv"]["rows"] == len(pd.read_csv(out / "jobs.csv"))
    assert set(doc["files"]) == {p.name for p in out.iterdir()} - {"manifest.json"}


def test_an_unfinished_folder_is_named_unfinished_and_force_deletes_only_what_gridmarket_wrote(tmp_path, capsys):
    out = tmp_path / "res"
    out.mkdir()
    (out / "jobs.csv").write_text("job_id\n1\n")  # a command killed (SIGKILL) before its manifest
    args = ["compare", "--scenario", "quickstart", "--models", "best-effort", "--out", str(out)]
    assert compare_cli.main(args) == 2
    assert "holds an unfinished result (no manifest.json" in capsys.readouterr().err
    (out / "mine.txt").write_text("keep")
    assert compare_cli.main(args + ["--force"]) == 0
    assert (out / "mine.txt").read_text() == "keep"
    assert compare_cli.main(args) == 2
    assert "holds a finished result; pass --force" in capsys.readouterr().err


def test_a_second_writer_of_a_folder_is_refused_in_one_line_naming_the_folder_and_the_holder(tmp_path, capsys):
    out = tmp_path / "res"
    with claim(out):
        code = main(["compare", "--scenario", "quickstart", "--models", "best-effort", "--out", str(out)])
        err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert f"{out}: another gridmarket command is writing this folder (pid " in err
    assert not out.exists()  # the holder created it and wrote nothing; nothing is left behind


def test_two_sweeps_into_one_folder_are_not_mixed_the_second_is_refused(tmp_path, quick, monkeypatch):
    """A second sweep started while the first runs (here: from inside the first's run) is refused."""
    out = tmp_path / "sw"
    real = sweep.compare
    refusals = []

    def run_and_start_another(config, **kw):
        if not refusals:
            refusals.append("accepted")  # unless refused below
            try:
                run_sweep(quick, {"seed": [1, 2]}, out, resume=True)
            except InvalidInput as err:
                refusals[0] = str(err)
        return real(config, **kw)

    monkeypatch.setattr(sweep, "compare", run_and_start_another)
    table = run_sweep(quick, {"seed": [1, 2]}, out)
    assert len(refusals) == 1 and refusals[0].startswith(f"{out}: another gridmarket command is writing")
    assert sorted(table["grid.seed"]) == [1, 2]
    assert not (out / ".gridmarket.lock").exists()  # released: the next command may write here


def test_sweep_force_in_a_folder_holding_no_sweep_deletes_none_of_its_files(tmp_path, quick):
    out = tmp_path / "sw"
    (out / "runs").mkdir(parents=True)
    (out / "runs" / "results-of-mine.json").write_text('{"mine": true}')
    with pytest.raises(InvalidInput, match=r"holds no sweep \(no sweep.json\); pass --force"):
        run_sweep(quick, {"seed": [1]}, out)
    run_sweep(quick, {"seed": [1]}, out, force=True)
    assert (out / "runs" / "results-of-mine.json").read_text() == '{"mine": true}'
    run_sweep(quick, {"seed": [1]}, out, force=True)  # now a sweep's folder: --force starts it over
    assert (out / "runs" / "results-of-mine.json").exists() and (out / "sweep.csv").exists()


@pytest.mark.parametrize("store", ["parts", "an earlier version's run files"])
@pytest.mark.parametrize("damage", ["no rows", "n_rows", "other point", "a row per model twice"])
def test_resume_runs_again_a_run_with_missing_rows_or_another_point(tmp_path, quick, damage, store):
    out = tmp_path / "sw"
    run_sweep(quick, {"seed": [1, 2]}, out)
    docs = read_runs(out / "parts")
    doc = docs["quickstart-seed2"]
    if damage == "no rows":
        doc["rows"] = []
    elif damage == "n_rows":
        doc["n_rows"] = 2
    elif damage == "a row per model twice":
        doc["rows"], doc["n_rows"] = doc["rows"] * 2, 2
    else:
        doc["point"] = {"seed": 1}
    for path in part_files(out / "parts"):
        path.unlink()
    session = new_session()
    for rid, d in docs.items():
        if store == "parts":
            if d["rows"]:
                add_run(out / "parts", rid, d, session)
        else:  # one JSON document per run in runs/, as sweeps wrote before the parts
            (out / "runs").mkdir(exist_ok=True)
            (out / "runs" / f"{rid}.json").write_text(json.dumps(d))
    seen = []
    table = run_sweep(quick, {"seed": [1, 2]}, out, resume=True, progress=lambda rid, s, *_: seen.append((rid, s)))
    assert seen == [("quickstart-seed1", "skipped"), ("quickstart-seed2", "done")]
    assert sorted(table["grid.seed"]) == [1, 2]
    assert read_runs(out / "parts")["quickstart-seed2"]["rows"]


def _report(seed: int) -> Report:
    rows = tuple(Row(f"figure {k}", 1.5 * k + seed, 2.0 * k, "s", "Fig. 1") for k in range(6))
    checks = (Check("ours is faster", True, "1 < 2"), Check("ours is cheaper", False, "3 > 2"))
    return Report("rocchetti-psp", "a seed", "small", seed, rows, checks, seconds=1.0)


@pytest.mark.parametrize("cut", ["tail", "figure rows", "a figure edited"])
def test_join_refuses_a_truncated_report_csv_naming_it(tmp_path, capsys, cut):
    folders = []
    for seed in (1, 2):
        folder = tmp_path / f"s{seed}"
        folder.mkdir()
        write_report(folder, _report(seed))
        folders.append(folder)
    assert main(["run", "--join", *map(str, folders)]) == 0
    capsys.readouterr()
    csv = folders[1] / "report.csv"
    lines = csv.read_text().splitlines(keepends=True)
    if cut == "a figure edited":  # the same size: only the checksum tells
        csv.write_text(csv.read_text().replace("figure 1,3.5,", "figure 1,9.5,"))
    else:
        csv.write_text("".join(lines[:-2] if cut == "tail" else lines[:1] + lines[3:]))  # still a valid CSV
    assert main(["run", "--join", *map(str, folders)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and f"{csv}:" in err
    assert ("SHA-256 differs" if cut == "a figure edited" else "manifest.json says") in err


def test_join_refuses_a_truncated_report_of_a_manifest_without_checksums(tmp_path, capsys):
    """Reports written before manifests listed their files: the direction rows still show a cut tail."""
    folder = tmp_path / "s1"
    folder.mkdir()
    write_report(folder, _report(1))
    doc = json.loads((folder / "manifest.json").read_text())
    doc.pop("files", None)
    (folder / "manifest.json").write_text(json.dumps(doc))
    assert main(["run", "--join", str(folder)]) == 0
    csv = folder / "report.csv"
    csv.write_text("".join(csv.read_text().splitlines(keepends=True)[:-1]))
    capsys.readouterr()
    assert main(["run", "--join", str(folder)]) == 2
    assert "1 direction rows, manifest.json has 2 (cut short?)" in capsys.readouterr().err


TOML = """
name = "NAME"
models = ["best-effort"]
[[providers]]
name = "PROVIDER"
procs = 16
[workload]
source = "lublin"
n_jobs = 20
procs = 16
"""


@pytest.mark.parametrize(("name", "provider", "match"), [
    ("x", "../../../victim", r"providers\[0\]: provider name: '../../../victim' cannot name a file or folder"),
    ("x", "a/b", r"provider name: 'a/b' cannot name a file or folder"),
    ("../outside", "a", r"name: '../outside' cannot name a file or folder"),
    ("..", "a", r"name: '..' cannot name a file or folder"),
    ("a\\\\b", "a", r"name: 'a\\\\b' cannot name a file or folder"),  # TOML "a\\b": a backslash
    ("x\\n", "a", r"name: 'x\\n' cannot name a file or folder"),  # TOML "x\n": a new line
])
def test_names_that_would_leave_the_output_folder_are_refused_naming_the_field(name, provider, match):
    with pytest.raises(InvalidInput, match=match):
        load_toml_text(TOML.replace("NAME", name).replace("PROVIDER", provider))


def test_a_provider_named_with_dots_cannot_make_batsim_write_outside_out(tmp_path, capsys):
    scenario = tmp_path / "evil.toml"
    scenario.write_text(TOML.replace("NAME", "evil").replace("PROVIDER", "../../../victim"))
    out = tmp_path / "deep" / "er" / "res"
    code = main(["compare", "--scenario", str(scenario), "--batsim", "--out", str(out)])
    assert code == 2 and "cannot name a file or folder" in capsys.readouterr().err
    assert not list(tmp_path.rglob("jobs.csv"))


def test_the_viz_server_child_does_not_import_from_the_working_folder(tmp_path):
    from gridmarket.viz.server import solara_command

    marker = tmp_path / "imported"
    (tmp_path / "solara.py").write_text(f"open({str(marker)!r}, 'w').close()\nraise SystemExit(0)\n")
    cmd = solara_command("127.0.0.1", 8765)
    cmd = cmd[: cmd.index("solara") + 1] + ["--help"]  # the child's interpreter options, a quick command
    subprocess.run(cmd, cwd=tmp_path, capture_output=True, timeout=120, check=False)
    assert not marker.exists()


def test_documented_python_m_forms_keep_the_working_folder_off_sys_path():
    """``python -m`` puts the working folder first on sys.path (a module lying there shadows any); ``-P`` does not."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    files = [root / "README.md", *(root / "docs").rglob("*.md"), *(root / "scenarios").rglob("*.py"),
             *(root / "viz").rglob("*.py")]
    bad = [f"{f.relative_to(root)}:{k}" for f in files
           for k, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1) if "python -m gridmarket" in line]
    assert not bad


@pytest.mark.parametrize("executor", ["local", "dask"])
def test_the_sweep_workers_do_not_import_from_the_working_folder(tmp_path, executor):
    """multiprocessing starts workers as ``python -c``, which would import a ``struct.py`` lying in the folder."""
    if executor == "dask":
        pytest.importorskip("distributed")
    folder = tmp_path / "scenario-folder"
    folder.mkdir()
    marker = tmp_path / "imported"
    (folder / "struct.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    child = (
        "import os, sys\n"
        "del sys.path[0]  # as under the gridmarket console script: no working folder in this process\n"
        "from gridmarket.scenarios.sweep import executor_runs\n"
        "os.chdir(sys.argv[1])\n"
        f"with executor_runs(abs, [(k, (-k,)) for k in range(3)], executor={executor!r}, workers=2) as runs:\n"
        "    print(sorted(value for _, value in runs))\n"
    )
    done = subprocess.run([sys.executable, "-c", child, str(folder)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300, check=False)
    assert not marker.exists()
    assert done.returncode == 0 and done.stdout.strip() == "[0, 1, 2]", done.stderr[-2000:]


def test_force_removes_a_link_named_like_its_output_never_what_it_points_to(tmp_path):
    from gridmarket.scenarios.results import prepare_out

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "jobs.csv").write_text("keep")
    out = tmp_path / "res"
    out.mkdir()
    (out / "batsim").symlink_to(elsewhere, target_is_directory=True)
    (out / "manifest.json").write_text(json.dumps({"files": {"../elsewhere/jobs.csv": {}}}))
    prepare_out(out, force=True)
    assert (elsewhere / "jobs.csv").read_text() == "keep" and not list(out.iterdir())


def test_the_lock_of_a_killed_command_does_not_block_the_next(tmp_path):
    """The lock is the kernel's (flock), not the file: a lock file left by a SIGKILL is taken over."""
    out = tmp_path / "res"
    out.mkdir()
    (out / ".gridmarket.lock").write_text("pid 1 on gone since 2026-01-01 00:00:00 UTC: gridmarket sweep x\n")
    with claim(out):
        assert "pid 1 on gone" not in (out / ".gridmarket.lock").read_text()
    assert not (out / ".gridmarket.lock").exists() and out.is_dir()
