"""``gridmarket report DIR``: a self-contained page with the tables, figures and provenance of a real run's folder."""

import base64
import hashlib
import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

from gridmarket.datasets import get
from gridmarket.scenarios.commands.cli import main
from gridmarket.scenarios.resultpage import DataFile

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = "samples/CTC-SP2-1996-3.1-cln-first5000.swf.gz"


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    """compare on the quickstart scenario with 40 jobs of the shipped CTC-SP2 sample, and its report."""
    out = tmp_path_factory.mktemp("report") / "res"
    trace = ROOT / "data" / SAMPLE
    assert main(["compare", "--trace", str(trace), "--jobs", "40", "--models", "best-effort,greedy",
                 "--out", str(out)]) == 0
    assert main(["report", str(out)]) == 0
    return out


def test_html_is_self_contained_with_every_figure_embedded(compared):
    page = (compared / "results.html").read_text()
    assert not re.search(r"https?://", page)
    assert not re.search(r"<(link|script)\b", page) and "@import" not in page and "url(" not in page
    sources = re.findall(r'src="([^"]*)"', page)
    pngs = sorted(compared.glob("*.png"))
    assert len(sources) == len(pngs) >= 3
    embedded = [base64.b64decode(s.removeprefix("data:image/png;base64,")) for s in sources]
    assert embedded == [p.read_bytes() for p in pngs]


def test_page_holds_the_table_and_the_provenance_the_manifest_records(compared):
    doc = json.loads((compared / "manifest.json").read_text())
    summary = pd.read_csv(compared / "summary.csv")
    for text in ((compared / "results.html").read_text(), (compared / "results.md").read_text()):
        assert all(model in text for model in summary["model"]) and "mean_wait" in text
        assert "wait = mean wait (s), lower is better" in text  # the vocabulary's legend of the table
        assert hashlib.sha256((compared / "manifest.json").read_bytes()).hexdigest() in text
        assert f"git commit {doc['git_commit']}" in text
        assert all(f"{name} {version}" in text for name, version in doc["packages"].items() if version)
        assert " ".join(doc["command"]) in text.replace("&#x27;", "'")
        assert '"name": "quickstart"' in text.replace("&quot;", '"')  # the scenario
    md = (compared / "results.md").read_text()
    assert "- **seeds**: 1" in md
    linked = re.findall(r"!\[[^]]*\]\(([^)]+)\)", md)
    assert sorted(linked) == sorted(p.name for p in compared.glob("*.png"))


def test_data_file_checksum_is_the_files_and_matches_the_registry(compared):
    md = (compared / "results.md").read_text()
    digest = hashlib.sha256((ROOT / "data" / SAMPLE).read_bytes()).hexdigest()
    assert digest == get(SAMPLE).sha256
    line = next(x for x in md.splitlines() if x.startswith("- **data: workload.trace**"))
    assert f"sha256 {digest} (matches the registry)" in line


def test_data_file_status_names_a_changed_or_unregistered_file():
    assert DataFile("workload.trace", "a.swf", "ab", "cd").status == "DIFFERS from the registry"
    assert DataFile("workload.trace", "a.swf", "ab").status == "not in the data registry"
    assert DataFile("workload.trace", "a.swf", None).status == "not found from here"


def test_a_simulate_folder_is_reported_with_its_tables_and_no_manifest(tmp_path):
    out = tmp_path / "sim"
    assert main(["simulate", "--trace", str(ROOT / "docs" / "examples" / "batsim-workload.json"), "--policy", "fcfs",
                 "--format", "batsim", "--out", str(out / "jobs.csv")]) == 0
    assert main(["report", str(out), "--out", str(tmp_path / "pages")]) == 0
    md = (tmp_path / "pages" / "results.md").read_text()
    assert "(`jobs.csv`)" in md and "(`machine_states.csv`)" in md and "has no manifest.json" in md
    assert "| 4 | batsim-workload.json | 3 | 2 | 8 | 0 | COMPLETED_WALLTIME_REACHED | 15 |" in md


@pytest.mark.parametrize("make", ["missing", "file", "empty", "edited", "bad-json"])
def test_a_bad_folder_is_one_line_and_status_2(compared, tmp_path, capsys, make):
    target = tmp_path / "x"
    if make == "file":
        target.write_text("not a folder")
    elif make == "empty":
        target.mkdir()
    elif make == "edited":
        shutil.copytree(compared, target)
        (target / "summary.csv").write_text((compared / "summary.csv").read_text().replace("greedy", "greedz"))
    elif make == "bad-json":
        target.mkdir()
        (target / "manifest.json").write_text('{"scenario": {}, "scenario": {}}')
    assert main(["report", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and str(target) in err
    if make == "edited":
        assert "summary.csv: its SHA-256 differs from the one in manifest.json" in err
    if make != "edited":
        assert not (target / "results.html").exists() if target.is_dir() else True


def test_a_sweep_folder_shows_its_runs_seeds_and_the_trace_it_read(tmp_path):
    """A two-seed sweep of a scenario file reading the Batsim sample: the runs' table, sweep.json's SHA-256, both
    seeds, and the trace's SHA-256 (not a registered file)."""
    trace = ROOT / "docs" / "examples" / "batsim-workload.json"
    scenario = tmp_path / "tiny.toml"
    scenario.write_text(f'name = "tiny"\nmodels = ["best-effort"]\n\n[workload]\nsource = "trace"\ntrace = "{trace}"\n'
                        'n_workflows = 0\n\n[[providers]]\nname = "a"\nprocs = 4\n')
    out = tmp_path / "sweep"
    assert main(["sweep", str(scenario), "--grid", "seed=1..2", "--out", str(out)]) == 0
    assert main(["report", str(out)]) == 0
    md = (out / "results.md").read_text()
    assert "(`sweep.csv`)" in md and "- **seeds**: 1, 2" in md
    assert f"sha256 {hashlib.sha256((out / 'sweep.json').read_bytes()).hexdigest()}" in md
    digest = hashlib.sha256(trace.read_bytes()).hexdigest()
    assert f"- **data: workload.trace**: {trace} — sha256 {digest} (not in the data registry)" in md
    assert len(pd.read_csv(out / "sweep.csv")) == 2 and md.count("| tiny-best-effort-") == 2


def test_a_reproduction_folder_shows_the_papers_figures_beside_ours(tmp_path):
    out = tmp_path / "repro"
    assert main(["run", "ha-selection", "--size", "small", "--out", str(out)]) == 0
    assert main(["report", str(out)]) == 0
    md = (out / "results.md").read_text()
    report = pd.read_csv(out / "report.csv")
    assert md.startswith("# ha-selection: Ha et al.") and "(`report.csv`)" in md
    assert all(metric in md for metric in report["metric"])
    assert "ILLUSTRATION" in md  # the reproduction's notes
    assert "figure-fig-6-a.png" in md and "figure-fig-5.png" in md  # the paper-vs-ours figures of `run --out`
    doc = json.loads((out / "manifest.json").read_text())
    assert f"- **code**: gridmarket {doc['packages']['gridmarket']}, git commit {doc['git_commit']}" in md
