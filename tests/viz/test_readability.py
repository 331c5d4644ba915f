"""Chart text on the live page is readable at its default size: no text under 9 pt at 80 dpi.

The page shows each PNG about 400 px wide, three quarters of its 520 px: 9 pt comes out near 7.5 px.
"""

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.text import Text

from gridmarket.viz.charts import DPI, agents_figure, gantt_figure, load_figure, price_figure
from gridmarket.viz.model import MarketView


@pytest.fixture(scope="module")
def view():
    v = MarketView("quickstart", "moga", compare_models=False)
    for _ in range(2):
        v.step()
    return v


@pytest.mark.parametrize("figure", [gantt_figure, price_figure, load_figure, agents_figure])
def test_every_text_of_a_chart_is_at_least_9_pt(view, figure):
    fig = figure(view)
    FigureCanvasAgg(fig).draw()  # tick labels get their text once drawn
    texts = [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    ticks = [t for ax in fig.axes for t in ax.get_xticklabels() + ax.get_yticklabels() if t.get_text().strip()]
    assert len(ticks) >= 4 and all(t in texts for t in ticks)
    small = sorted({(t.get_text(), t.get_fontsize()) for t in texts if t.get_fontsize() < 9})
    assert not small, small
    assert fig.dpi == DPI
