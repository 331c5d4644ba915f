"""Every registered trace reads, and kept + dropped jobs equal the registry's record count."""

from __future__ import annotations

import warnings

import pytest

from gridmarket.datasets import registry
from gridmarket.workloads import DroppedJobsWarning, read_swf

# MaxProcs (else MaxNodes) from each file's PWA header
MAX_PROCS = {
    "CTC-SP2-1996-3.1-cln.swf.gz": 338,
    "SDSC-SP2-1998-4.2-cln.swf.gz": 128,
    "KTH-SP2-1996-2.1-cln.swf.gz": 100,
    "SDSC-BLUE-2000-4.2-cln.swf.gz": 1152,
    "HPC2N-2002-2.2-cln.swf.gz": 240,
    "LANL-CM5-1994-4.1-cln.swf.gz": 1024,
    "SDSC-Par-1996-3.1-cln.swf.gz": 400,
    "NASA-iPSC-1993-3.1-cln.swf.gz": 128,
    "LCG-2005-1.swf.gz": 24515,
    "lublin_256.swf": 256,
    "lublin-aaroh.swf": 256,
}

TRACES = [p for p in registry() if p.startswith("traces/")]

pytestmark = pytest.mark.slow


def test_every_registered_trace_has_its_header_facts_here():
    assert sorted(p.removeprefix("traces/") for p in TRACES) == sorted(MAX_PROCS)


def test_every_trace_in_the_data_root_is_registered(data_dir):
    present = {f"traces/{p.name}" for p in (data_dir / "traces").glob("*")} if (data_dir / "traces").is_dir() else set()
    assert present <= set(TRACES)


@pytest.mark.parametrize("path", [pytest.param(p, marks=pytest.mark.data(p), id=p.removeprefix("traces/"))
                                  for p in TRACES])
def test_trace_reads_and_kept_plus_dropped_equals_the_record_count(path, data_dir):
    name = path.removeprefix("traces/")
    records = registry()[path].records
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DroppedJobsWarning)
        w = read_swf(data_dir / path)
    assert len(w) + w.n_dropped == records
    assert w.n_dropped < 0.1 * records
    assert w.max_procs == MAX_PROCS[name]
    assert w.jobs[0].submit == 0
    assert all(j.procs >= 1 and j.runtime >= 1 and j.estimate >= 1 for j in w.jobs)
