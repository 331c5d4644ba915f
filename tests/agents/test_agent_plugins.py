"""Provider and user agents as plug-ins: ``providers[].agent``, ``workload.user_agent``.

docs/extending.md's section "Provider and user agents of your own" run as written: the files shown
are the files shipped, the command runs (and fails in one line without PYTHONPATH), and each
example does what the page says: off-peak users hold daytime jobs until 20:00, the near-slots
provider advertises only slots starting within six hours while a built-in one shows more.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from gridmarket.agents import (
    PROVIDER_AGENTS,
    Query,
    ResourceProvider,
    User,
    register_provider_agent,
    resolve_provider_agent,
    resolve_user_agent,
)
from gridmarket.errors import InvalidInput
from gridmarket.scenarios.config import ProviderConfig, WorkloadConfig, with_overrides
from gridmarket.scenarios.experiment import build_inputs, build_market, run_model
from gridmarket.scenarios.registry import get_scenario

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "extending.md"
PLUGINS = ROOT / "docs" / "examples" / "plugins"
SCENARIO = PLUGINS / "agents-scenario.toml"
BIN = Path(sys.executable).parent
DAY, EVENING = 86400, 20 * 3600


def _section_fences(info: str) -> list[str]:
    from markdown_it import MarkdownIt

    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("## Provider and user agents of your own"):text.index("## Not pluggable yet")]
    tokens = MarkdownIt("commonmark").parse(section)
    return [t.content for t in tokens if t.type == "fence" and t.info.strip() == info]


def _env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env.update(extra)
    return env


@pytest.fixture
def plugins_on_path(monkeypatch):
    monkeypatch.syspath_prepend(str(PLUGINS))


def test_the_doc_shows_the_shipped_agent_files():
    assert _section_fences("python") == [(PLUGINS / "offpeak_user.py").read_text(encoding="utf-8"),
                                         (PLUGINS / "near_slots_provider.py").read_text(encoding="utf-8")]


def test_the_documented_command_runs_and_without_pythonpath_fails_in_one_line(tmp_path):
    (command,) = [c for block in _section_fences("bash") for c in block.splitlines() if c.strip()]
    command = re.sub(r"--out \S+", f"--out {shlex.quote(str(tmp_path / 'out'))}", command)
    done = subprocess.run(command, shell=True, cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert re.search(r"\n *best-effort +\d+", done.stdout) and re.search(r"\n +moga +\d+", done.stdout)
    bare = command.replace("PYTHONPATH=docs/examples/plugins ", "").replace("/out", "/out2")
    failed = subprocess.run(bare, shell=True, cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=120)
    assert failed.returncode == 2
    errors = [line for line in failed.stderr.splitlines() if "error" in line]
    assert errors == [f"gridmarket: error: {SCENARIO.relative_to(ROOT)}: providers[0]: provider 'near': provider "
                      "agent 'near_slots_provider:NearSlotsProvider': cannot import 'near_slots_provider' "
                      "(ModuleNotFoundError: No module named 'near_slots_provider')"]


def _peak(submit: int) -> bool:
    return 8 * 3600 <= submit % DAY < EVENING


def test_off_peak_users_hold_daytime_jobs_until_20h_and_their_records_keep_the_submit(plugins_on_path):
    config = with_overrides(get_scenario(str(SCENARIO)), {"models": ("best-effort",)})
    workload = build_inputs(config)[0]
    submitted = {j.id: j.submit for j in workload.jobs}
    run = run_model(config, "best-effort")
    jobs = run.records[run.records["kind"] == "job"]
    peak = jobs[jobs["submit"].map(_peak)]
    assert len(peak) >= 50  # the workload spans the day: the hold has work to do
    assert (peak["start"] >= peak["submit"] // DAY * DAY + EVENING).all()
    assert dict(zip(jobs["job_id"], jobs["submit"])) == {j: submitted[j] for j in jobs["job_id"]}
    assert (jobs["wait"] == jobs["start"] - jobs["submit"]).all()
    # the same market with gridmarket's own users starts some daytime jobs before 20:00
    plain_run = run_model(with_overrides(config, {"workload.user_agent": "user"}), "best-effort")
    plain = plain_run.records[(plain_run.records["kind"] == "job") & plain_run.records["submit"].map(_peak)]
    assert (plain["start"] < plain["submit"] // DAY * DAY + EVENING).sum() >= 20
    assert run.summary["mean_wait"] > plain_run.summary["mean_wait"]  # the hold counts in the wait


def test_the_near_slots_provider_advertises_only_slots_starting_within_six_hours(plugins_on_path):
    config = with_overrides(get_scenario(str(SCENARIO)), {"models": ("moga",), "workload.user_agent": "user"})
    workload, prices, requests, rng = build_inputs(config)
    market = build_market(config, "moga", workload, prices, rng=rng, requests=requests)
    assert type(market.providers["near"]).__name__ == "NearSlotsProvider"
    assert type(market.providers["far"]) is ResourceProvider
    market.run_until(4 * 3600)
    now = int(market.time)
    shown = {name: market.providers[name].receive(Query("broker", name, now, "advertise")).payload
             for name in ("near", "far")}
    assert shown["near"] and all(s.start < now + 6 * 3600 for s in shown["near"])
    everything = market.providers["near"].plan(now).advertise()
    assert shown["near"] == [s for s in everything if s.start < now + 6 * 3600]
    assert len(shown["near"]) < len(everything)  # the cut removed slots: the plug-in changed the answer
    assert any(s.start >= now + 6 * 3600 for s in shown["far"])  # a built-in provider shows its far future


def test_agent_names_resolve_register_and_fail_in_one_line():
    assert resolve_provider_agent("provider") is ResourceProvider and resolve_user_agent("user") is User
    with pytest.raises(InvalidInput, match=r"unknown user agent 'usr' \(did you mean 'user'\?\)"):
        WorkloadConfig(user_agent="usr")
    with pytest.raises(InvalidInput, match=r"provider 'a': provider agent 'gridmarket.agents.user:User': .* is not a subclass "
                                           r"of gridmarket.agents.provider.ResourceProvider"):
        ProviderConfig("a", 4, agent="gridmarket.agents.user:User")

    class Quiet(ResourceProvider):
        pass

    try:
        register_provider_agent("quiet", Quiet)
        assert ProviderConfig("a", 4, agent="quiet").agent == "quiet"
        with pytest.raises(InvalidInput, match="provider agent 'quiet' is already registered"):
            register_provider_agent("quiet", type("Other", (ResourceProvider,), {}))
    finally:
        PROVIDER_AGENTS.pop("quiet", None)


@pytest.mark.parametrize("executor", [["--workers", "2"], ["--executor", "dask", "--workers", "1"]],
                         ids=["forkserver-pool", "dask"])
def test_a_sweep_s_workers_import_the_agent_plugins(tmp_path, executor):
    """Each worker process imports the plug-ins itself (it inherits only PYTHONPATH); the grid's rows differ."""
    if "dask" in executor:
        pytest.importorskip("distributed")
    done = subprocess.run(
        [str(BIN / "gridmarket"), "sweep", str(SCENARIO), "--grid", "model=best-effort",
         "--grid", "workload.user_agent=user,offpeak_user:OffPeakUser", *executor, "--out", str(tmp_path / "sw")],
        cwd=tmp_path, env=_env(PYTHONPATH=str(PLUGINS)), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    import pandas as pd

    table = pd.read_csv(tmp_path / "sw" / "sweep.csv").set_index("grid.workload.user_agent")
    assert sorted(table.index) == ["offpeak_user:OffPeakUser", "user"]
    assert table.loc["offpeak_user:OffPeakUser", "mean_wait"] > 5 * table.loc["user", "mean_wait"]
