"""A sweep's results per design point: each metric's mean over seeds and its 95 % interval.

A sweep's combined table (``sweep.csv``) has one row per run and interaction model; the rows that
differ only in their seed are one design point. :func:`point_table` reduces them to one row per
design point and metric (long form: ``mean``, ``low``, ``high``, ``n`` seeds and the interval's
``method``, :func:`gridmarket.scenarios.intervals.interval_of`); :func:`format_points` prints it
wide, one block per topic of :mod:`gridmarket.vocabulary` with a legend line and the interval
methods named. Metrics keep their units (seconds, SU, ...).
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from gridmarket.scenarios.intervals import interval_of
from gridmarket.vocabulary import by_topic, is_metric, legend, legend_lines, metric

__all__ = ["design_points", "format_points", "point_table", "points_markdown", "winners"]

_COLUMNS = ["metric", "n", "mean", "low", "high", "method"]


def design_points(table: pd.DataFrame) -> list[str]:
    """The columns that tell a sweep's design points apart: ``model`` and the ``grid.*`` columns but the seed."""
    return ["model"] + [c for c in table.columns if c.startswith("grid.") and c not in ("grid.seed", "grid.model")]


def point_table(table: pd.DataFrame, metrics: Sequence[str] | None = None) -> pd.DataFrame:
    """One row per design point and metric: ``mean``, ``low``, ``high`` over its ``n`` seeds, by ``method``.

    ``metrics`` defaults to every column of ``table`` that :mod:`gridmarket.vocabulary` knows but the
    run's wall-clock ``seconds``. Design points keep their first appearance's order.

    >>> t = pd.DataFrame({"model": ["a"] * 4, "seed": [1, 2, 3, 4], "mean_wait": [0.0, 0.0, 0.0, 100.0]})
    >>> print(point_table(t).drop(columns="method").to_string(index=False))
    model    metric  n  mean  low  high
        a mean_wait  4  25.0  0.0  75.0
    """
    keys = design_points(table)
    if metrics is None:
        metrics = [c for c in table.columns if is_metric(c) and c != "seconds" and c not in keys]
    rows = []
    for key, group in table.groupby(keys, sort=False, dropna=False):
        point = dict(zip(keys, key if isinstance(key, tuple) else (key,)))
        for name in metrics:
            s = interval_of(name, group[name].tolist())
            rows.append({**point, "metric": name, "n": s.n, "mean": s.mean, "low": s.low, "high": s.high,
                         "method": s.method})
    return pd.DataFrame(rows, columns=keys + _COLUMNS)


def _cell(name: str, mean: float, low: float, high: float) -> str:
    m = metric(name)
    if low != low:  # one seed: no interval
        return m.format(mean)
    return f"{m.format(mean)} [{m.format(low)}, {m.format(high)}]"


def _wide(points: pd.DataFrame, names: Sequence[str]) -> pd.DataFrame:
    """Design points as rows, one ``mean [low, high]`` cell per metric of ``names`` (labelled), ``n`` seeds."""
    keys = [c for c in points.columns if c not in _COLUMNS]
    part = points[points["metric"].isin(names)]
    rows = []
    for key, group in part.groupby(keys, sort=False, dropna=False):
        row = {k.removeprefix("grid."): v for k, v in zip(keys, key if isinstance(key, tuple) else (key,))}
        row["seeds"] = int(group["n"].max())
        by = {r.metric: r for r in group.itertuples(index=False)}
        for name in names:
            r = by.get(name)
            row[metric(name).label] = "-" if r is None else _cell(name, r.mean, r.low, r.high)
        rows.append(row)
    return pd.DataFrame(rows)


def _methods(points: pd.DataFrame, names: Sequence[str]) -> str:
    """Which interval method each metric of ``names`` used (metrics with one seed have none)."""
    part = points[points["metric"].isin(names) & (points["n"] > 1)]
    by: dict[str, list[str]] = {}
    for name, method in dict(zip(part["metric"], part["method"])).items():
        by.setdefault(method, []).append(metric(name).label)
    return "; ".join(f"{method}: {', '.join(labels)}" for method, labels in by.items())


def format_points(points: pd.DataFrame, metrics: Sequence[str] | None = None) -> str:
    """:func:`point_table`'s rows as text: per topic, a row per design point, ``mean [low, high]`` per metric.

    Each block ends with its legend (label = name (unit), better) and the interval method of its metrics.
    """
    names = list(dict.fromkeys(points["metric"])) if metrics is None else [
        m for m in metrics if m in set(points["metric"])]
    blocks = []
    for topic, group in by_topic(names):
        text = _wide(points, group).to_string(index=False)
        methods = _methods(points, group)
        blocks.append(f"[{topic}]\n{text}\n{legend_lines(group)}" + (f"\n  95 % interval over seeds, {methods}" if methods else ""))
    return "\n\n".join(blocks)


def points_markdown(points: pd.DataFrame, title: str) -> str:
    """:func:`point_table`'s rows as Markdown: a section per topic, each table with its legend and interval method."""
    out = [f"# {title}", "", "Mean over seeds [95 % interval] per design point.", ""]
    for topic, group in by_topic(list(dict.fromkeys(points["metric"]))):
        wide = _wide(points, group)
        out += [f"## {topic}", "", "| " + " | ".join(map(str, wide.columns)) + " |",
                "|" + "---|" * len(wide.columns)]
        out += ["| " + " | ".join(map(str, row)) + " |" for row in wide.itertuples(index=False)]
        methods = _methods(points, group)
        out += ["", legend(group) + ".", *([f"95 % interval over seeds, {methods}."] if methods else []), ""]
    return "\n".join(out)


def winners(points: pd.DataFrame, *, x: str = "grid.workload.load_factor",
            metrics: Sequence[str] = ("social_welfare", "users_surplus", "provider_revenue")) -> pd.DataFrame:
    """Per value of ``x`` and metric, the model with the highest mean over seeds and that mean.

    ``points`` is :func:`point_table`'s long table of a sweep over the model and ``x``. The first column is
    named after ``x``'s last part (``load_factor``). A second model whose 95 % interval contains the winner's
    mean is named as tied (``tied`` column).
    """
    rows = []
    for name in metrics:
        part = points[points["metric"] == name]
        for value, g in part.groupby(x, sort=True):
            g = g.sort_values("mean", ascending=False)
            best = g.iloc[0]
            tied = [r.model for r in g.iloc[1:].itertuples() if r.low <= best["mean"] <= r.high]
            rows.append({x.split(".")[-1]: value, "metric": name, "winner": best["model"], "mean": best["mean"],
                         "low": best["low"], "high": best["high"], "tied": ", ".join(tied)})
    return pd.DataFrame(rows)
