"""Layer rules of DESIGN.md: ``market`` is pure and never imports Mesa."""

import subprocess
import sys


def test_market_imports_without_mesa_agents_or_scenarios():
    code = (
        "import sys, market, market.simulation, market.scheduling, market.workloads, market.metrics, "
        "market.batsim, market.energy, market.clearing, market.prediction, market.selection, "
        "market.metascheduling, market.pricing, market.provisioning, market.workflows, market.twotier\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('mesa', 'agents', 'scenarios'))\n"
        "print(bad)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
