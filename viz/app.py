"""The SolaraViz page of ``gridmarket viz``: a market stepped live in the browser.

``solara run gridmarket.viz.app`` serves the module-level ``page``; ``gridmarket viz``
(:mod:`gridmarket.viz.server`) starts it and names the scenario in the environment
(``GRIDMARKET_VIZ_SCENARIO``, ``GRIDMARKET_VIZ_MODEL``). The page shows Mesa's
controls (step, play/pause, reset) and the scenario's (scenario, interaction
model, α, w_t, load factor, reservation fraction, seed), which apply on
Reset; a Gantt chart of each provider's plan (Singh 2008, Fig. 1, 20, 21);
slot and electricity prices; queue length and utilization; the broker's
last Pareto front or the metascheduler's dispatches; and a table of running
metrics per interaction model, on two named tabs (:data:`PAGES`: "Market",
"Queues and agents") under a status line. One step advances the market by
``step_seconds`` (one hour). The module-level model is shared by every
browser session until one of them presses Reset.
"""

from __future__ import annotations

import html
import math
import os

import sklearn.cluster  # noqa: F401 - see below
import sklearn.linear_model  # noqa: F401
import solara
import solara.lab
from mesa.visualization import SolaraViz
from mesa.visualization.utils import update_counter

from gridmarket.scenarios.config import INTERACTION_MODELS
from gridmarket.scenarios.registry import get_scenario, scenario_names
from gridmarket.viz.charts import agents_figure, gantt_figure, load_figure, price_figure
from gridmarket.viz.model import DEFAULT_HORIZON_SECONDS, DEFAULT_STEP_SECONDS, MarketView
from gridmarket.viz.summary import SUMMARY_FIELDS
from gridmarket.vocabulary import is_metric, metric

__all__ = ["MODEL_ENV", "PAGES", "SCENARIO_ENV", "MarketPage", "NamedPages", "make_page", "model_params", "summary_html"]

# sklearn (the wait predictor's DBSCAN and ridge) is imported above, when the server starts, so that the
# first Step of a model predicting waits does not pay its import (about 1 s).

SCENARIO_ENV = "GRIDMARKET_VIZ_SCENARIO"
MODEL_ENV = "GRIDMARKET_VIZ_MODEL"

_CSS = """
.gm-table { overflow-x: auto; max-width: 100%; }
.gm-table table { border-collapse: collapse; font-size: 11px; }
.gm-table th, .gm-table td { border-bottom: 1px solid #ddd; padding: 2px 4px; text-align: right; white-space: nowrap; }
.gm-table th:first-child, .gm-table td:first-child { text-align: left; }
.gm-table td.gm-error { color: #b71c1c; white-space: normal; text-align: left; }
.gm-chart img { max-width: 100%; height: auto; }
.gm-help { font-size: 11px; color: #555; }
"""


def default_model(config) -> str:
    """The model a page shows first: ``moga`` where the scenario runs it on workflows, as it fills every panel.

    A MOGA broker provisions the workflows over advertised slots (Pareto front in the agents panel,
    slot prices in the prices panel) while the other jobs queue at home (Gantt, load); without
    workflows or without ``moga`` among the scenario's models: ``best-effort``, else its first model.
    """
    workflows = config.workload.n_workflows > 0 or len(config.workload.workflow_files) > 0
    if "moga" in config.models and workflows:
        return "moga"
    return "best-effort" if "best-effort" in config.models else config.models[0]


CONTROLS_HELP = (
    "Mesa's controls: Play Interval is the pause between steps while playing (ms); Render Interval "
    "redraws the charts every N steps (a step is one simulated hour); Use Threads steps the market "
    "in a background thread so the page stays responsive (raise Play Interval if charts are skipped). "
    "Reset applies the controls below them."
)
"""Shown under the status line: what the controls Mesa's SolaraViz adds mean for this page."""


def model_params(scenario_name: str = "quickstart", interaction_model: str | None = None) -> dict:
    """SolaraViz ``model_params``: the scenario's controls at its own values, and the fixed step sizes.

    The interaction models are read from ``gridmarket.scenarios.config.INTERACTION_MODELS``
    when the page is built, followed by the scenario's and ``interaction_model``'s plug-ins
    (``"package.module:Name"``); the seed is a text field checked on Reset.
    """
    config = get_scenario(scenario_name)
    models = list(INTERACTION_MODELS)
    models += [m for m in config.models if m not in models]  # the scenario's plug-ins
    if interaction_model is None:
        interaction_model = default_model(config)
    elif interaction_model not in models:  # a plug-in given on the command line
        models.append(interaction_model)
    names = scenario_names()
    if scenario_name not in names:
        names.append(scenario_name)
    par, load = config.parameters, config.workload.load_factor
    return {
        "scenario_name": {"type": "Select", "value": scenario_name, "values": names, "label": "scenario"},
        "interaction_model": {"type": "Select", "value": interaction_model, "values": models,
                              "label": "interaction model"},
        "alpha": {"type": "SliderFloat", "value": par.alpha, "min": 0.0, "max": 1.0, "step": 0.05,
                  "label": "trade-off α"},
        "w_t": {"type": "SliderFloat", "value": par.w_t, "min": 0.0, "max": 100.0, "step": 5.0,
                "label": "w_t (% response time)"},
        "load_factor": {"type": "SliderFloat", "value": load, "min": 0.1, "max": max(20.0, 2 * load), "step": 0.1,
                        "label": "load factor"},
        "reservation_fraction": {"type": "SliderFloat", "value": par.reservation_fraction, "min": 0.0, "max": 1.0,
                                 "step": 0.05, "label": "reservation fraction"},
        "seed": {"type": "InputText", "value": str(config.seed), "label": "seed"},
        "compare_models": {"type": "Checkbox", "value": True, "label": "run every model for the table"},
        "step_seconds": DEFAULT_STEP_SECONDS,
        "horizon_seconds": DEFAULT_HORIZON_SECONDS,
    }


def _cell(value, key: str = "") -> str:
    """A value as the table shows it: a metric's decimals (:mod:`gridmarket.vocabulary`), "–" when missing."""
    if isinstance(value, float) and math.isnan(value):
        return "–"
    if is_metric(key) and isinstance(value, int | float):
        return html.escape(metric(key).format(value))
    return html.escape(str(value))


def summary_html(rows: list[dict]) -> str:
    """The running metrics as an HTML table: one column per interaction model, one row per metric."""
    head = "".join(f"<th>{html.escape(r['model'])}</th>" for r in rows)
    body = []
    for key, label in SUMMARY_FIELDS.items():
        if key == "model":
            continue
        cells = []
        for r in rows:
            value = r.get(key, math.nan)
            error = key == "status" and str(value).startswith("error")
            cells.append(f"<td class='gm-error'>{_cell(value)}</td>" if error else f"<td>{_cell(value, key)}</td>")
        hint = f' title="{html.escape(metric(key).definition, quote=True)}"' if is_metric(key) else ""
        body.append(f"<tr><th{hint}>{html.escape(label)}</th>{''.join(cells)}</tr>")
    return f"<table><thead><tr><th>metric</th>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def status_line(view: MarketView) -> str:
    """One line: scenario, shown model, market time, jobs ended."""
    if view.controls is None or view.market is None:
        return "no market: see the message below"
    c = view.controls
    ended = sum(len(p.machine.end) for p in view.market.providers.values())
    state = "running" if view.running else ("stopped" if view.error else "finished")
    return (f"{c.scenario_name} · {c.interaction_model} · seed {c.seed} · t = {view.now / 3600:g} h "
            f"({view.now} s) · {ended} jobs ended · {state} · last step {view.last_step_seconds:.1f} s "
            f"for {len(view.markets)} model(s)")


def _guarded(title: str, draw):
    """A component drawing ``draw(model)``, or an error panel naming ``title`` if it raises."""

    def component(model):
        try:
            return draw(model)
        except Exception as err:  # noqa: BLE001 - one broken chart must not blank the page
            return solara.Error(f"{title} failed: {type(err).__name__}: {err}")

    component.__name__ = title.replace(" ", "")
    return component


def _chart(figure_fn, name: str):
    def draw(model):
        return solara.Div(children=[solara.FigureMatplotlib(figure_fn(model), format="png")],
                          classes=["gm-chart", f"gm-{name}"])

    return _guarded(name, draw)


def _status(model: MarketView):
    """What stays above the pages: the status line, what the controls mean, and an error panel."""
    with solara.Column(classes=["gm-summary"]) as column:
        solara.Style(_CSS)
        # the browser tab's title: the scenario shown (Solara's default names no scenario)
        solara.Title("gridmarket" if model.controls is None else f"gridmarket · {model.controls.scenario_name}")
        solara.Text(status_line(model), classes=["gm-status"])
        solara.Text(CONTROLS_HELP, classes=["gm-help"])
        if model.error:
            solara.Error(model.error, classes=["gm-error-panel"])
            if model.details:
                solara.Details("traceback", children=[solara.Preformatted(model.details)])
    return column


def _table(model: MarketView):
    with solara.Column(classes=["gm-metrics"]) as column:
        if model.markets or model.failed:
            solara.HTML(tag="div", unsafe_innerHTML=summary_html(model.summaries()), classes=["gm-table"])
    return column


PAGES = (
    ("Market", ((_guarded("metrics", _table),), (_chart(gantt_figure, "gantt"), _chart(price_figure, "prices")))),
    ("Queues and agents", ((_chart(load_figure, "load"), _chart(agents_figure, "agents")),)),
)
"""The page's named tabs, each a list of rows of side-by-side panels: the running metrics per interaction model,
each provider's Gantt chart and the prices; queue length and utilization, and the broker's Pareto front or the
metascheduler's dispatches. Only the open tab is drawn."""


@solara.component
def NamedPages(model: solara.Reactive[MarketView]):
    """The status above :data:`PAGES` as named tabs, redrawn on every step and on Reset.

    Mesa 3.5's SolaraViz labels its own tabs ``Page 0``, ``Page 1``, ... with no way to name them, so the page
    gives SolaraViz no components (it then draws no tabs: only its controls) and shows these beside it.
    """
    update_counter.get()  # Mesa's step counter: a component of our own re-renders on Step through it
    view = model.value
    with solara.Column(classes=["gm-page"]) as column:
        _guarded("status", _status)(view)
        with solara.lab.Tabs(lazy=True):
            for name, rows in PAGES:
                with solara.lab.Tab(name):
                    for row in rows:
                        with solara.Columns([1] * len(row)):
                            for panel in row:
                                panel(view)
    return column


@solara.component
def MarketPage(model: solara.Reactive[MarketView], params: dict, name: str):
    """Mesa's SolaraViz controls (sidebar, app bar) for ``model`` with :class:`NamedPages` as the page's content.

    Not named ``Page``: ``solara run`` would serve a component of that name instead of the module's ``page``.
    """
    SolaraViz(model, components=[], model_params=params, name=name, play_interval=300)
    NamedPages(model)


def make_page(scenario_name: str = "quickstart", interaction_model: str | None = None):
    """The model (a ``solara.Reactive`` holding a :class:`MarketView`) and the page for ``scenario_name``.

    ``scenario_name`` is a registered name or a .toml file. The page and its controls share the reactive
    model, so the pages show the model Reset makes.
    """
    params = model_params(scenario_name, interaction_model)
    model = solara.reactive(MarketView(**{k: (v["value"] if isinstance(v, dict) else v) for k, v in params.items()}))
    return model, MarketPage(model, params, f"gridmarket · {scenario_name}")


model, page = make_page(os.environ.get(SCENARIO_ENV) or "quickstart", os.environ.get(MODEL_ENV) or None)
