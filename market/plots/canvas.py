"""A new matplotlib figure without pyplot, and the one that says there is nothing to draw."""

from __future__ import annotations

__all__ = ["LABEL_PT", "LEGEND_PT", "TICK_PT", "TITLE_PT", "new_figure", "note_figure"]


def new_figure(size: tuple[float, float], *, dpi: float | None = None, constrained: bool = True):
    """A ``matplotlib.figure.Figure`` of ``size`` inches (Agg backend, no pyplot state)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    return Figure(figsize=size, dpi=dpi, layout="constrained" if constrained else None)


def note_figure(text: str, *, width: float = 6.5, dpi: float | None = None, fontsize: float = 11):
    """A short figure that only says ``text`` (an empty chart would say nothing)."""
    fig = new_figure((width, 1.2), dpi=dpi, constrained=False)
    ax = fig.subplots()
    ax.axis("off")
    ax.text(0.5, 0.5, text, ha="center", va="center", wrap=True, fontsize=fontsize)
    return fig


# Text sizes of the live page's charts, points. The page shows a chart about 400 px wide (a half-width grid
# cell), so a 520 px PNG (80 dpi) is drawn at ~0.75 of its size: 9 pt comes out near 7.5 px, the smallest
# that stays legible.
TICK_PT, LEGEND_PT, LABEL_PT, TITLE_PT = 9, 9, 10, 11
