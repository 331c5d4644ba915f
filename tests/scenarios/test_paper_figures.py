"""Paper-vs-ours figures of a reproduction: which figures, and that each draws the report's own numbers."""

import math

import pandas as pd
import pytest

from gridmarket.plots import paper_vs_ours
from gridmarket.scenarios.reproductions import Check, Report, Row, write_report
from gridmarket.scenarios.reproductions.figures import TEXT, cited, paper_figures, reference
from gridmarket.scenarios.reproductions.report import SeedsReport, write_seeds_report


def _report(seed, shift=0.0):
    rows = (Row("bs: mean response", 600.0 + shift, 633.7, "min", "Table IV, XSEDE"),
            Row("inst: mean response", 410.0 - shift, 3460.8, "min", "Table IV, XSEDE"),
            Row("cost change vs BS", -40.0 + shift, -3.0, "%", "Table IV (-$6964)"),
            Row("response change, w = 100 %", -31.0 + shift, None, "%", "Fig. 11: -48 to -49 %"),
            Row("jobs on Gordon", 64.0, None, "jobs", "sec. 5.5, Fig. 8 (utilization)"),
            Row("mean run time", 8.7 + shift / 10, 8.8, "h", "sec. 4.3.1"),
            Row("mean user estimate", 32.0, None, "h", "ours (the paper prints none)"))
    return Report("demo", "Murali & Vadhiyar, sec. 5.2 Table IV (XSEDE) and Fig. 11", "small", seed, rows,
                  (Check("x", True, control="y", control_holds=False),), seconds=1.0)


def test_figures_are_the_cited_ones_and_those_with_printed_values():
    report = _report(1)
    figures = paper_figures(report.to_frame(), name="demo", citation=report.citation, run="seed 1")
    assert [f.key for f in figures] == ["Table IV", "Fig. 11", TEXT]  # Fig. 8: neither cited nor printed
    assert [f.file_name for f in figures] == ["figure-table-iv.png", "figure-fig-11.png", "figure-text.png"]
    assert list(figures[2].rows["metric"]) == ["mean run time"]  # the text's printed value only
    assert figures[0].title.startswith("Murali & Vadhiyar, Table IV: ours beside the paper's")


@pytest.mark.parametrize("ref, key", [("Figs. 39/43/47/49: AR > VAR", "Figs. 39/43/47/49"),
                                      ("Fig. 6(a), sec. IV-B2", "Fig. 6(a)"), ("Figs. 6-7 (chart)", "Figs. 6-7"),
                                      ("Table 3: class empty", "Table 3"), ("ch. 4.7: 63 % for CTC", None)])
def test_reference_is_the_first_figure_or_table_a_row_cites(ref, key):
    assert reference(ref) == key


def test_a_citations_range_names_each_figure_inside_it():
    assert cited("Fig. 8", "Liu et al. 2012, sec. 3.4 Figs. 6-8") and cited("Figs. 6-7", "Figs. 6-8")
    assert not cited("Fig. 9", "Figs. 6-8") and not cited("Table 3", "Fig. 3") and not cited("Table I", "Table IV")


def _drawn(fig, gid):
    """The (x, y) points of the artists with ``gid``: lines' data, or the segments of an interval."""
    points = []
    for artist in fig.findobj(lambda a: a.get_gid() == gid):
        if hasattr(artist, "get_xdata"):
            points += list(zip(artist.get_xdata(), artist.get_ydata()))
        else:
            points += [tuple(seg[:, 0]) for seg in artist.get_segments()]
    return points


def test_a_seeds_figure_draws_the_summary_csv_numbers(tmp_path):
    seeds = SeedsReport(tuple(_report(s, shift=5.0 * s) for s in (1, 2, 3)))
    write_seeds_report(tmp_path, seeds)
    summary = pd.read_csv(tmp_path / "summary.csv")
    assert (tmp_path / "figure-table-iv.png").is_file() and (tmp_path / "figure-fig-11.png").is_file()
    figure = paper_figures(summary, name="demo", citation=seeds.reports[0].citation, run="seeds 1..3")[0]
    fig = paper_vs_ours(figure.rows, None, figure.title)
    table = summary[summary["metric"].isin(figure.rows["metric"])]
    assert sorted(x for x, _ in _drawn(fig, "ours")) == sorted(table["mean"])
    assert sorted(_drawn(fig, "interval")) == sorted(zip(table["ci95_low"], table["ci95_high"]))
    assert sorted(x for x, _ in _drawn(fig, "paper")) == sorted(table["seed_value"])
    assert all(low < mean < high for low, mean, high in zip(table["ci95_low"], table["mean"], table["ci95_high"]))


def test_one_runs_figure_draws_the_report_csv_numbers_and_no_interval(tmp_path):
    report = _report(1)
    write_report(tmp_path, report)
    frame = pd.read_csv(tmp_path / "report.csv")
    figure = paper_figures(frame, name="demo", citation=report.citation, run="seed 1")[0]
    fig = paper_vs_ours(figure.rows, None, figure.title)
    table = frame[frame["metric"].isin(figure.rows["metric"])]
    assert sorted(x for x, _ in _drawn(fig, "ours")) == sorted(table["ours"])
    assert _drawn(fig, "interval") == []
    assert not any(math.isnan(x) for x, _ in _drawn(fig, "paper"))


def test_a_report_citing_no_figure_and_printing_no_value_draws_none():
    """auction-market's rows quote the literature's ranges in words: no paper figure to stand beside."""
    rows = (Row("double auction: efficiency", 0.99, None, "fraction", "Cliff & Bruten 1997: ZIP markets reach 0.97-1.0"),
            Row("dbc: mean wait", 12.0, None, "s", ""))
    report = Report("auction-like", "the auction literature: Grosu & Das 2006", "small", 1, rows, (), seconds=1.0)
    assert paper_figures(report.to_frame(), name="a", citation=report.citation, run="seed 1") == []
