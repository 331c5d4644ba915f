"""Every trace in shared/data/traces reads, and kept + dropped jobs equal PROVENANCE.md's count."""

from __future__ import annotations

import re
import warnings

import pytest

from gridmarket.datasets import data_root
from gridmarket.workloads import DroppedJobsWarning, read_swf

DATA = data_root()  # $GRIDMARKET_DATA (tests/conftest.py sets it to a data folder beside the clone), else the cache
TRACES = DATA / "traces"

# MaxProcs (else MaxNodes) from the "Header facts" table of PROVENANCE.md
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


def provenance_counts() -> dict[str, int]:
    """File name -> record count from the trace table of PROVENANCE.md."""
    text = (DATA / "PROVENANCE.md").read_text()
    rows = re.findall(r"^\| traces/(\S+) \| ([\d,]+) \|", text, flags=re.MULTILINE)
    return {name: int(count.replace(",", "")) for name, count in rows}


TRACE_FILES = sorted(p.name for p in TRACES.iterdir()) if TRACES.is_dir() else []

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not TRACE_FILES or not (DATA / "PROVENANCE.md").is_file(),
                       reason=f"no traces and PROVENANCE.md at {DATA}"),
]


def test_provenance_lists_every_trace_file():
    assert set(TRACE_FILES) <= set(provenance_counts())


@pytest.mark.parametrize("name", TRACE_FILES)
def test_trace_reads_and_kept_plus_dropped_equals_the_record_count(name):
    records = provenance_counts()[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DroppedJobsWarning)
        w = read_swf(TRACES / name)
    assert len(w) + w.n_dropped == records
    assert w.n_dropped < 0.1 * records
    assert w.max_procs == MAX_PROCS[name]
    assert w.jobs[0].submit == 0
    assert all(j.procs >= 1 and j.runtime >= 1 and j.estimate >= 1 for j in w.jobs)
