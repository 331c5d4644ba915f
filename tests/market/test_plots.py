"""gridmarket.plots: each figure draws its data, and nothing else (areas, counts, colours)."""

import pandas as pd
import pytest

from gridmarket import plots


def _area(collection) -> float:
    """Total area of a PolyCollection's polygons (hours x processors)."""
    total = 0.0
    for path in collection.get_paths():
        xs, ys = path.vertices[:4, 0], path.vertices[:4, 1]
        total += (xs.max() - xs.min()) * (ys.max() - ys.min())
    return total


def test_gantt_draws_each_record_s_processor_hours_in_its_kind_s_colour(tmp_path):
    records = pd.DataFrame({"job_id": [1, 2, 3, 4, 5], "start": [0, 0, 3600, 1800, 7200],
                            "end": [3600, 7200, 5400, 1800, 10800], "procs": [2, 1, 3, 4, 1],
                            "kind": ["job", "task", "job", "job", "reservation"]})
    fig = plots.gantt(records, 4, tmp_path / "g.png", "t")
    assert (tmp_path / "g.png").stat().st_size > 1000
    drawn = {c.get_gid(): _area(c) for c in fig.axes[0].collections}
    # job 4 ran no time and is not drawn; job 1: 2 procs x 1 h, job 3: 3 x 0.5 h
    assert drawn == pytest.approx({"job": 2 * 1 + 3 * 0.5, "task": 1 * 2, "reservation": 1 * 1})


def test_queues_draws_one_line_per_provider_in_each_panel():
    samples = pd.DataFrame({"time": [0, 3600, 0, 3600], "provider": ["a", "a", "b", "b"], "queued": [1, 2, 0, 5],
                            "utilization": [0.5, 1.0, 0.0, 0.25]})
    top, bottom = plots.queues(samples).axes
    assert [list(line.get_ydata()) for line in top.get_lines()] == [[1, 2], [0, 5]]
    assert [list(line.get_ydata()) for line in bottom.get_lines()] == [[0.5, 1.0], [0.0, 0.25]]


def test_a_model_keeps_its_colour_and_a_plug_in_gets_a_stable_one():
    assert plots.model_colour("mcmf") == plots.MODEL_COLOURS["mcmf"]
    assert plots.model_colour("my-plugin") == plots.model_colour("my-plugin")
    assert plots.model_colour("my-plugin") not in plots.MODEL_COLOURS.values()
