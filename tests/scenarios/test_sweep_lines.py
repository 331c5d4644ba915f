"""A sweep over one numeric parameter drawn as lines, and its winners per point (the auction market's load sweep)."""

import pandas as pd

from gridmarket.plots import metric_lines
from gridmarket.scenarios.pointtable import point_table, winners


def _table():
    rows = []
    for load in (1.0, 10.0):
        for seed in (1, 2, 3):
            rows.append({"grid.workload.load_factor": load, "model": "a", "seed": seed,
                         "social_welfare": 10.0 + seed, "users_surplus": 5.0, "provider_revenue": 5.0 + seed,
                         "mean_response": 100.0 * load})
            rows.append({"grid.workload.load_factor": load, "model": "b", "seed": seed,
                         "social_welfare": (20.0 if load == 1.0 else 5.0) + seed, "users_surplus": 4.0 + seed,
                         "provider_revenue": 16.0, "mean_response": 50.0 * load})
    return pd.DataFrame(rows)


def test_winners_by_hand_and_ties_inside_an_interval():
    w = winners(point_table(_table())).set_index(["load_factor", "metric"])
    assert w.loc[(1.0, "social_welfare"), "winner"] == "b" and w.loc[(10.0, "social_welfare"), "winner"] == "a"
    assert w.loc[(1.0, "social_welfare"), "mean"] == 22.0
    # b's surplus 5, 6, 7 (mean 6) beats a's constant 5; a's interval is the point 5: no tie
    assert (w.loc[(1.0, "users_surplus"), "winner"], w.loc[(1.0, "users_surplus"), "tied"]) == ("b", "")
    # revenue: b's constant 16 beats a's 6, 7, 8
    assert w.loc[(10.0, "provider_revenue"), "winner"] == "b"


def test_lines_are_drawn_to_a_png(tmp_path):
    fig = metric_lines(point_table(_table()), tmp_path / "lines.png", "t")
    assert (tmp_path / "lines.png").stat().st_size > 1000
    assert len(fig.axes) == 4 and fig.axes[0].get_xscale() == "log"
