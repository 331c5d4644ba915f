"""The figures of gridmarket: one drawing of each kind, used by the command line, the live page and the docs.

Every function takes plain data (per-job records, price logs, a sweep's or a reproduction's table) and
draws it with ``matplotlib.figure.Figure`` (no pyplot state, so the live page's sessions share no current
figure); ``path`` given, the figure is also written whole (:func:`gridmarket.atomicfile.save_figure`).
Axis titles and units come from :mod:`gridmarket.vocabulary`, model colours from :func:`model_colour`.
Times are seconds in the data and hours on the axes; costs are SU (processor-hours).

- :func:`gantt`: one provider's schedule (Singh 2008, Fig. 1/20), its blocks placed on processor rows and
  drawn by :func:`assign_rows` and :func:`draw_blocks` (which the live page's plan view uses too);
- :func:`price_history`: slot prices over time per interaction model (Singh 2008, ch. 5); :func:`live_prices`:
  the live page's slot and electricity prices around now;
- :func:`queues`: queue length and utilization per provider over time;
- :func:`pareto_front`: MOGA's last Pareto set and the eq. (15) choice (Singh 2008, Fig. 13);
- :func:`metric_by_model`, :func:`model_bars`, :func:`metric_lines`, :func:`message_table`: metrics per
  interaction model, with the 95 % intervals over seeds the caller computed;
- :func:`paper_vs_ours`: our figures over seeds beside a seed paper's printed values.

matplotlib is imported when a figure is drawn, not with this package.
"""

from gridmarket.plots.blocks import PLAN_KINDS, PlanBlock, assign_rows, draw_blocks
from gridmarket.plots.colours import MODEL_COLOURS, model_colour
from gridmarket.plots.gantt import gantt
from gridmarket.plots.models import message_table, metric_by_model, metric_lines, model_bars
from gridmarket.plots.paper import paper_vs_ours
from gridmarket.plots.pareto import draw_pareto, pareto_front
from gridmarket.plots.prices import live_prices, price_history
from gridmarket.plots.queues import queues

__all__ = ["MODEL_COLOURS", "PLAN_KINDS", "PlanBlock", "assign_rows", "draw_blocks", "draw_pareto", "gantt",
           "live_prices", "message_table", "metric_by_model", "metric_lines", "model_bars", "model_colour",
           "paper_vs_ours", "pareto_front", "price_history", "queues"]
