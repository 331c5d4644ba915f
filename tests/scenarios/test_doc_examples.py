"""The example input files in docs/examples/ and the README / docs/market.md commands that use them.

The documents are parsed as CommonMark (markdown-it-py), so a broken fence that
swallows prose shows up as a "command" that does not run. Every command naming
an example file runs as written, from the repository's root, and ends with
status 0; the `state.json` shown in docs/market.md is the file itself.
"""

import json
import re
import shlex
from pathlib import Path

import pytest

from gridmarket.scenarios.commands.cli import main

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", ROOT / "docs" / "market.md", ROOT / "docs" / "extending.md", ROOT / "docs" / "formats.md"]


def _bash_blocks(doc: Path) -> list[str]:
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").parse(doc.read_text(encoding="utf-8"))
    return [t.content for t in tokens if t.type == "fence" and t.info.strip() == "bash"]


def _commands() -> list[str]:
    found = []
    for doc in DOCS:
        for block in _bash_blocks(doc):
            for line in block.splitlines():
                if line.startswith("gridmarket ") and "docs/examples/" in line:
                    found.append(line.split("  #")[0].strip())
    return found


def test_bash_blocks_hold_only_commands_and_comments():
    """A fence left open turns the prose after it into a bash block (README lines 55-83 once did)."""
    programs = {"gridmarket", "python", "bash", "pip", "source", "git", "cd", "mkdir", ".venv/bin/python",
                ".venv/bin/gridmarket"}
    for doc in DOCS:
        for block in _bash_blocks(doc):
            for line in block.splitlines():
                words = line.split()
                while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):  # VAR=value before the program
                    words = words[1:]
                continuation = line.startswith("    ")
                assert not words or continuation or words[0] in programs or words[0].startswith("#"), \
                    f"{doc.name}: not a command: {line!r}"


def test_the_docs_name_every_example_file():
    named = {m for c in _commands() for m in re.findall(r"docs/examples/\S+", c)}
    present = {f"docs/examples/{p.name}" for pattern in ("*.json", "*.csv")
               for p in (ROOT / "docs" / "examples").glob(pattern)}
    assert named == present


@pytest.mark.parametrize("command", _commands())
def test_documented_command_runs_as_written(command, monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(ROOT)
    # a command that writes a folder (sweep --out) writes it here, not into the checkout
    command = re.sub(r"--out \S+", f"--out {tmp_path / 'out'}", command)
    assert main(shlex.split(command)[1:]) == 0
    out = capsys.readouterr().out
    assert out.strip()


def test_market_doc_shows_the_example_state_file():
    text = (ROOT / "docs" / "market.md").read_text(encoding="utf-8")
    shown = re.search(r"`state.json` \(this one is `docs/examples/state.json`\):\n\n```json\n(.*?)```", text,
                      flags=re.DOTALL)
    assert shown is not None
    assert json.loads(shown.group(1)) == json.loads((ROOT / "docs" / "examples" / "state.json").read_text())


def test_formats_doc_shows_the_example_costs_file_and_names_every_format_file():
    text = (ROOT / "docs" / "formats.md").read_text(encoding="utf-8")
    shown = re.search(r"## `costs.json`.*?```json\n(.*?)```", text, flags=re.DOTALL)
    assert shown is not None
    assert json.loads(shown.group(1)) == json.loads((ROOT / "docs" / "examples" / "costs.json").read_text())
    for name in ("state.json", "costs.json", "slots.json", "workflow.json"):
        assert f"docs/examples/{name}" in text, name
    assert "docs/example-scenario.toml" in text


def test_the_wfcommons_example_is_read_as_its_tasks_files_and_cores_say():
    """docs/examples/wfcommons-workflow.json (WfFormat 1.5): cores, whole-second runtimes, file bytes on edges."""
    from gridmarket.workflows import read_wfformat, read_workflow_json

    path = ROOT / "docs" / "examples" / "wfcommons-workflow.json"
    graph = read_wfformat(path)
    assert {t: (d["procs"], d["runtime"]) for t, d in graph.nodes(data=True)} == {
        "split_ID01": (1, 600), "align_ID02": (2, 3600), "align_ID03": (2, 3241), "merge_ID04": (1, 1800)}
    assert sorted((a, b, d["data_bytes"]) for a, b, d in graph.edges(data=True)) == [
        ("align_ID02", "merge_ID04", 500_000_000), ("align_ID03", "merge_ID04", 500_000_000),
        ("split_ID01", "align_ID02", 2_000_000_000), ("split_ID01", "align_ID03", 2_000_000_000)]
    same = read_workflow_json(path)  # what provision --workflow and workload.workflow_files read
    assert dict(same.nodes(data=True)) == dict(graph.nodes(data=True))
    from gridmarket.datasets import data_root

    schema = data_root() / "workflows" / "wfformat-schema-1.5.json"  # $GRIDMARKET_DATA, else the cache
    if schema.is_file():  # the registered WfFormat schema, where it has been fetched
        jsonschema = pytest.importorskip("jsonschema")
        jsonschema.validate(json.loads(path.read_text()), json.loads(schema.read_text()))


def test_the_psp_example_state_plans_the_accurate_users_later_job_first():
    """docs/examples/state_psp.json: user 2 at 10 % accuracy waits behind user 1's later job (Rocchetti sec. 3)."""
    from gridmarket.pricing.forecast import forecast
    from gridmarket.pricing.state import ProviderState, read_state

    state = read_state(ROOT / "docs" / "examples" / "state_psp.json")
    assert forecast(state, "psp") == {3: 300, 2: 500}
    forgetful = ProviderState(now=state.now, procs=state.procs, running=state.running, queue=state.queue)
    assert forecast(forgetful, "psp") == {2: 300, 3: 500}  # with no history, arrival order
    assert "docs/examples/state_psp.json" in (ROOT / "docs" / "formats.md").read_text(encoding="utf-8")
