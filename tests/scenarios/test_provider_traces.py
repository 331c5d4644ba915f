"""Per-provider SWF traces in a scenario: ``workload.source = "providers"``, ``providers[].trace``.

Each site's jobs come from its own trace and stay that site's: their home is its provider, its
users are its own, every trace starts at 0 s. The traces here are small SWF files written by
``gridmarket.workloads.write_swf``, so the expected homes, ids and users are known by hand.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.scenarios.config import ProviderConfig, ScenarioConfig, WorkloadConfig, load_toml_text, with_overrides
from gridmarket.scenarios.experiment import build_workload, compare
from gridmarket.workloads import DroppedJobsWarning, write_swf
from gridmarket.workloads.workload import Workload

ROOT = Path(__file__).resolve().parents[2]


def _swf(path: Path, rows: list[tuple[int, int, int, int, int]], start: int = 0) -> str:
    """Write (id, submit, procs, runtime, user) rows, submits shifted by ``start`` s; return the path."""
    jobs = tuple(Job(i, start + s, p, r, 2 * r, user=u) for i, s, p, r, u in rows)
    write_swf(Workload(jobs, max_procs=64, name=path.name), path)
    return str(path)


@pytest.fixture
def traces(tmp_path):
    # site a: users 1 and 2; site b: user 1 (a different person) and a job wider than b (16 procs)
    a = _swf(tmp_path / "a.swf", [(10, 0, 2, 100, 1), (11, 50, 4, 100, 2), (12, 200, 2, 50, 1)])
    # b's trace starts at 5000 s in its own log: it is rebased to 0 like every trace
    b = _swf(tmp_path / "b.swf", [(1, 0, 1, 80, 1), (2, 30, 16, 60, 1), (3, 100, 8, 40, 1)], start=5000)
    return a, b


def _config(a, b, **workload) -> ScenarioConfig:
    return ScenarioConfig(
        name="two-traces",
        providers=(ProviderConfig("a", 32, trace=a), ProviderConfig("b", 8, trace=b), ProviderConfig("c", 4)),
        workload=WorkloadConfig(source="providers", n_jobs=0, **workload),
        models=("best-effort", "mcmf"),
    )


def test_each_job_comes_home_to_the_provider_of_its_trace_renumbered_in_submit_order(traces):
    workload = build_workload(_config(*traces), rng=np.random.default_rng(1))
    got = [(j.id, j.submit, j.procs, j.site, j.user) for j in workload.jobs]
    # merged by (submit, provider order, trace id); b's 16-proc job is wider than b (8): the smallest
    # provider that fits is a (c, with 4, is smaller but too small); users: (a,1)=0 (a,2)=1 (b,1)=2
    assert got == [(1, 0, 2, "a", 0), (2, 0, 1, "b", 2), (3, 30, 16, "a", 2), (4, 50, 4, "a", 1),
                   (5, 100, 8, "b", 2), (6, 200, 2, "a", 0)]


def test_n_jobs_and_load_factor_apply_to_each_trace(traces):
    workload = build_workload(_config(*traces, load_factor=2.0), rng=np.random.default_rng(1))
    assert [j.submit for j in workload.jobs] == [0, 0, 15, 25, 50, 100]
    first_two = build_workload(replace(_config(*traces), workload=WorkloadConfig(source="providers", n_jobs=2)),
                               rng=np.random.default_rng(1))
    assert sorted((j.site, j.submit) for j in first_two.jobs) == [("a", 0), ("a", 30), ("a", 50), ("b", 0)]


def test_a_job_wider_than_every_provider_is_dropped_and_counted(tmp_path, traces):
    wide = _swf(tmp_path / "wide.swf", [(1, 0, 64, 10, 1), (2, 5, 1, 10, 1)])
    config = replace(_config(*traces), providers=(ProviderConfig("a", 32, trace=wide), ProviderConfig("b", 8)))
    with pytest.warns(DroppedJobsWarning, match=r"dropped 1 job\(s\) wider than the largest provider 'a'"):
        workload = build_workload(config, rng=np.random.default_rng(1))
    assert [(j.id, j.site) for j in workload.jobs] == [(2, "a")]


def test_the_market_runs_every_site_s_jobs_and_a_site_without_a_trace_serves_only_the_market(traces):
    runs = compare(_config(*traces))
    best, mcmf = runs
    assert best.summary["jobs"] == mcmf.summary["jobs"] == 6
    # best effort: every job runs at home, so the trace-less provider runs nothing
    assert sorted(best.records.groupby("site").size().items()) == [("a", 4), ("b", 2)]
    assert set(mcmf.records["job_id"]) == set(range(1, 7))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"workload": WorkloadConfig(source="providers", n_jobs=0)}, None),  # the fixture's own: fine
        ({"workload": WorkloadConfig()}, r"providers\[0\]\.trace \('.*a\.swf'\) is read only with "
                                         r"workload.source = 'providers', not 'lublin'"),
        ({"providers": (ProviderConfig("a", 32), ProviderConfig("b", 8))},
         r"workload.source = 'providers' reads each provider's own trace: give at least one provider a trace"),
    ],
)
def test_a_trace_needs_the_providers_source_and_that_source_needs_a_trace(traces, change, message):
    base = _config(*traces)
    fields_ = {"name": base.name, "providers": base.providers, "workload": base.workload, **change}
    if message is None:
        ScenarioConfig(**fields_)
    else:
        with pytest.raises(InvalidInput, match=message):
            ScenarioConfig(**fields_)


def test_a_missing_trace_is_one_line_naming_the_provider(tmp_path, traces, capsys):
    from gridmarket.scenarios.commands.cli import main

    toml = tmp_path / "s.toml"
    toml.write_text(f'name = "x"\nmodels = ["best-effort"]\n[workload]\nsource = "providers"\n'
                    f'[[providers]]\nname = "a"\nprocs = 8\ntrace = "{tmp_path / "nope.swf"}"\n')
    assert main(["compare", "--scenario", str(toml), "--out", str(tmp_path / "out")]) == 2
    err = [line for line in capsys.readouterr().err.splitlines() if "error" in line]
    assert len(err) == 1 and re.search(r"provider 'a': trace: .*nope\.swf: cannot read job log: No such file", err[0]), err


def test_the_formats_page_example_loads_and_runs_on_traces_of_its_shape(traces):
    text = (ROOT / "docs" / "formats.md").read_text(encoding="utf-8")
    block = re.search(r"Archive beside a provider without local users:\n\n```toml\n(.*?)```", text, re.DOTALL).group(1)
    config = load_toml_text(block, where="formats.md")
    assert [p.trace is not None for p in config.providers] == [True, True, False]
    assert config.workload.source == "providers" and config.workload.n_jobs == 150
    # the page names the archive's files; here two small traces stand in for them
    a, b = traces
    local = replace(config, providers=(replace(config.providers[0], trace=a), replace(config.providers[1], trace=b),
                                       config.providers[2]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DroppedJobsWarning)
        runs = compare(with_overrides(local, {"models": ("best-effort",)}))
    # kth has 100 processors: b's 16-processor job now fits at home
    assert sorted(runs[0].records.groupby("site").size().items()) == [("ctc", 3), ("kth", 3)]


def test_compare_trace_replaces_the_providers_own_traces(tmp_path, traces, capsys):
    """`compare --trace` on a scenario of per-provider traces was refused ("providers[0].trace is read only
    with workload.source = 'providers'"); the one trace now replaces theirs, and its job wider than every provider
    (64 processors, the widest has 32) is dropped and counted."""
    from gridmarket.scenarios.commands.cli import main

    a, b = traces
    toml = tmp_path / "s.toml"
    toml.write_text(f'name = "x"\nmodels = ["best-effort"]\n[workload]\nsource = "providers"\n'
                    f'[[providers]]\nname = "a"\nprocs = 32\ntrace = "{a}"\n'
                    f'[[providers]]\nname = "b"\nprocs = 8\ntrace = "{b}"\n')
    one = _swf(tmp_path / "one.swf", [(1, 0, 4, 100, 1), (2, 10, 64, 100, 1), (3, 20, 8, 50, 2), (4, 30, 1, 10, 3)])
    out = tmp_path / "out"
    with pytest.warns(DroppedJobsWarning, match=r"dropped 1 job\(s\) wider than the largest provider 'a' \(32"):
        assert main(["compare", "--scenario", str(toml), "--trace", one, "--out", str(out)]) == 0
    assert "replaces the providers' own traces" in capsys.readouterr().err
    import pandas as pd

    jobs = pd.read_csv(out / "jobs.csv")
    assert len(jobs) == 3 and sorted(jobs["procs"].tolist()) == [1, 4, 8]
