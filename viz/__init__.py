"""The ``gridmarket viz`` page: a market stepped live in the browser (Mesa 3.5 SolaraViz).

:class:`MarketView` steps a scenario's market a fixed slice of time at a
time; :mod:`gridmarket.viz.plan` reads each provider's plan as Gantt blocks (Singh 2008,
Fig. 1, 20, 21); :mod:`gridmarket.viz.charts` turns the view into chart data and
figures; :mod:`gridmarket.viz.app` is the SolaraViz page and :mod:`gridmarket.viz.server` the
command that serves it. Importing this package does not import Solara.
"""

from gridmarket.viz.model import Controls, MarketView, parse_controls
from gridmarket.viz.plan import PLAN_KINDS, PlanBlock, assign_rows, machine_plan
from gridmarket.viz.summary import running_summary

__all__ = [
    "PLAN_KINDS",
    "Controls",
    "MarketView",
    "PlanBlock",
    "assign_rows",
    "machine_plan",
    "parse_controls",
    "running_summary",
]
