"""A sweep's table per design point: the mean over seeds and its interval, printed by topic with a legend."""

import pandas as pd

from gridmarket.scenarios.intervals import bootstrap95, ci95
from gridmarket.scenarios.pointtable import format_points, point_table, points_markdown


def _table():
    return pd.DataFrame({"grid.alpha": [0, 0, 0, 1, 1, 1], "grid.seed": [1, 2, 3] * 2, "seed": [1, 2, 3] * 2,
                         "model": ["greedy"] * 6, "run_id": [f"r{k}" for k in range(6)],
                         "mean_wait": [1.0, 2.0, 3.0, 5.0, 5.0, 8.0], "users_surplus": [-1.0, 0.0, 4.0] * 2,
                         "seconds": [0.1] * 6})


def test_a_row_per_design_point_and_metric_with_the_interval_its_range_calls_for():
    points = point_table(_table())
    assert list(points["metric"]) == ["mean_wait", "users_surplus"] * 2  # not the wall-clock seconds
    assert list(points["grid.alpha"]) == [0, 0, 1, 1] and set(points["n"]) == {3}
    wait = points.iloc[0]
    assert (wait["mean"], wait["low"], wait["high"]) == bootstrap95([1.0, 2.0, 3.0])
    surplus = points.iloc[1]
    assert (surplus["mean"], surplus["low"], surplus["high"]) == ci95([-1.0, 0.0, 4.0])
    assert list(points["method"][:2]) == ["bootstrap percentile", "Student t"]


def test_the_printed_table_has_a_block_per_topic_a_legend_and_the_methods():
    text = format_points(point_table(_table()))
    assert text.index("[time]") < text.index("[market]")
    assert "wait = mean wait (s), lower is better" in text and "surplus = users' surplus (SU)" in text
    assert "95 % interval over seeds, bootstrap percentile: wait" in text
    assert "95 % interval over seeds, Student t: surplus" in text
    low, high = bootstrap95([5.0, 5.0, 8.0])[1:]
    assert f"6 [{low:.0f}, {high:.0f}]" in text


def test_the_markdown_has_a_section_per_topic():
    md = points_markdown(point_table(_table()), "t")
    assert "## time" in md and "## market" in md and "| model | alpha | seeds | wait |" in md
