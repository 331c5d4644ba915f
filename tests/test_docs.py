"""The documentation site builds from the sources with warnings as errors.

``python -m sphinx -W --keep-going -b html docs <tmp>``: the guides in ``docs/``, the API
reference generated from the docstrings of ``market``, ``agents`` and ``scenarios``, and the
tutorials, MyST-Markdown notebooks executed during the build (a failing cell fails it). The
rendered tutorial pages must carry their executed outputs.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("sphinx")
pytest.importorskip("myst_nb")
pytest.importorskip("numpydoc")

# page -> a pattern only an executed cell can have printed
TUTORIALS = {
    "one-machine": r"easy: mean wait +\d+ s, mean bounded slowdown +[\d.]+",
    "pricing-a-slot": r"price f = 6\.0 SU",
    "comparing-models": r"best-effort +\d+ +\d+",
    "plugin-policy": r"sjf: mean wait +\d+ s",
    "provisioning-a-workflow": r"\d+ Pareto plans from \d+ evaluated plans(?s:.*)WfCommons workflow, alpha = 0\.5: "
                               r"makespan \d+ s",
    "metascheduling-day": r"mcmf.{1,6}s electricity cost against bs: [+-]\d+\.\d%",
    "learning-agents": r"cross-entropy: mean bounded slowdown \d+\.\d\d",
}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("docs") / "html"
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-b", "html", str(ROOT / "docs"), str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=900,
    )
    assert proc.returncode == 0, f"sphinx failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}"
    return out


@pytest.mark.slow
def test_site_builds_with_expected_pages(site):
    for page in ["index", "architecture", "api", "market", "formats", "extending", "tutorials/index",
                 *(f"tutorials/{name}" for name in TUTORIALS), "generated/gridmarket.simulation"]:
        assert (site / f"{page}.html").is_file(), page
    api = (site / "generated" / "gridmarket.simulation.html").read_text(encoding="utf-8")
    assert 'id="gridmarket.simulation.simulate"' in api


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(TUTORIALS))
def test_tutorial_pages_show_executed_outputs(site, name):
    html = (site / "tutorials" / f"{name}.html").read_text(encoding="utf-8")
    assert re.search(TUTORIALS[name], html), f"{name}: no executed output matching {TUTORIALS[name]!r}"
    if name == "one-machine":
        assert re.search(r'<img[^>]+src="[^"]+\.png"', html), "the histogram was not rendered"
