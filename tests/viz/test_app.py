"""The SolaraViz page rendered without a browser: controls, Step, Reset, error panels, the summary table."""

import ipyvuetify as v
import pytest
import solara

from gridmarket.scenarios.registry import get_scenario
from gridmarket.viz import app
from gridmarket.viz.model import MarketView


def _texts(widget) -> list[str]:
    """Every string in the widget tree, grid items included (GridDraggable keeps them in ``items``)."""
    out = []
    for child in list(getattr(widget, "children", None) or []) + list(getattr(widget, "items", None) or []):
        if isinstance(child, str):
            out.append(child)
        elif hasattr(child, "keys"):
            out.extend(_texts(child))
    return out


def _html(widget) -> list[str]:
    out = []
    for child in list(getattr(widget, "children", None) or []) + list(getattr(widget, "items", None) or []):
        if hasattr(child, "keys"):
            inner = getattr(child, "unsafe_innerHTML", None)
            if inner:
                out.append(inner)
            out.extend(_html(child))
    return out


@pytest.fixture
def rendered():
    """The page for a fast single-model view, rendered in an AppLayout as ``solara run`` does."""
    params = {**app.model_params("quickstart", "best-effort"), "compare_models": {"type": "Checkbox", "value": False,
                                                                     "label": "run every model for the table"}}
    view = MarketView(**{k: (p["value"] if isinstance(p, dict) else p) for k, p in params.items()})
    model = solara.reactive(view)
    page = app.MarketPage(model, params, "test")
    box, rc = solara.render(solara.AppLayout(children=[page]), handle_error=False)
    return model, box, rc


def _status(box) -> str:
    (line,) = [t for t in _texts(box) if t.startswith("quickstart · ")]
    return line


def test_model_params_offer_every_registered_model_and_scenario():
    params = app.model_params("quickstart")
    from gridmarket.scenarios.config import INTERACTION_MODELS

    assert params["interaction_model"]["values"] == list(INTERACTION_MODELS)
    assert "quickstart" in params["scenario_name"]["values"]
    assert params["seed"] == {"type": "InputText", "value": str(get_scenario("quickstart").seed), "label": "seed"}
    assert params["load_factor"]["value"] == get_scenario("quickstart").workload.load_factor


def test_step_advances_the_market_and_redraws(rendered):
    model, box, rc = rendered
    assert " · t = 0 h (0 s) · " in _status(box)
    rc.find(v.Btn, children=["Step"]).widget.click()
    rc.find(v.Btn, children=["Step"]).widget.click()
    assert model.value.now == 7200
    assert " · t = 2 h (7200 s) · " in _status(box)
    (table,) = [h for h in _html(box) if h.startswith("<table>")]
    assert "<th>best-effort</th>" in table and "mean wait (s)" in table


def test_invalid_seed_shows_a_message_after_reset_and_a_valid_one_recovers(rendered):
    model, box, rc = rendered
    seed = rc.find(v.TextField, label="seed").widget
    seed.v_model = "abc"
    seed.fire_event("focusout", None)
    rc.find(v.Btn, children=["Reset"]).widget.click()
    assert model.value.error == "Invalid control value: seed must be an int >= 0, got 'abc'"
    assert model.value.error in _texts(box)
    seed.v_model = "4"
    seed.fire_event("focusout", None)
    rc.find(v.Btn, children=["Reset"]).widget.click()
    assert model.value.error is None and model.value.controls.seed == 4
    assert "seed 4" in _status(box)


def test_model_exception_shows_an_error_panel_not_a_dead_page(rendered, monkeypatch):
    model, box, rc = rendered

    def explode(t):
        raise RuntimeError("scheduler on fire")

    monkeypatch.setattr(model.value.market, "run_until", explode)
    rc.find(v.Btn, children=["Step"]).widget.click()
    texts = _texts(box)
    assert "The best-effort model raised before t = 3600 s: RuntimeError: scheduler on fire" in texts
    assert "traceback" in texts
    assert rc.find(v.Btn, children=["Step"]).widget.disabled  # stopped, Reset still works
    rc.find(v.Btn, children=["Reset"]).widget.click()
    assert model.value.error is None


def test_a_failing_chart_shows_its_own_error_panel():
    def broken(model):
        raise KeyError("gone")

    view = MarketView("quickstart", "best-effort", compare_models=False)
    box, _ = solara.render(solara.Column(children=[app._chart(broken, "gantt")(view)]), handle_error=False)
    assert "gantt failed: KeyError: 'gone'" in _texts(box)


def test_page_shows_named_tabs_not_mesas_numbered_ones(rendered):
    """Mesa labels its own tabs "Page 0", "Page 1"; the page names its tabs and draws only the open one."""
    model, box, rc = rendered
    names = [t.widget.children[0] for t in rc.find(v.Tab)]
    assert names == [name for name, _ in app.PAGES] == ["Market", "Queues and agents"]
    assert not [t for t in _texts(box) if t.startswith("Page ")]
    rc.find(v.Btn, children=["Step"]).widget.click()
    assert [h for h in _html(box) if h.startswith("<table>")]  # the Market tab's metrics, redrawn after a step
    tabs = rc.find(v.Tabs).widget
    tabs.v_model = 1
    assert not [h for h in _html(box) if h.startswith("<table>")]  # the Queues and agents tab: no metrics table
    assert " · t = 1 h (3600 s) · " in _status(box)  # the status line stays above every tab


def test_summary_html_escapes_and_marks_errors():
    html = app.summary_html([{"model": "<m>", "status": "error: boom <b>", "mean_wait": float("nan")}])
    assert "<th>&lt;m&gt;</th>" in html and "class='gm-error'>error: boom &lt;b&gt;</td>" in html
    assert "<td>–</td>" in html


def test_summary_table_rows_are_the_vocabulary_s_full_names_units_and_decimals():
    from html import escape

    from gridmarket.vocabulary import metric

    html = app.summary_html([{"model": "mcmf", "status": "running", "mean_wait": 1234.5678, "utilization": 0.5,
                              "delivered_su": 12.0, "negotiation_rounds": 3}])
    for key in ("mean_wait", "utilization", "delivered_su", "negotiation_rounds", "started"):
        assert f">{metric(key).heading}</th>" in html, key
    assert ">mean wait (s)</th><td>1235</td>" in html and ">utilization (share)</th><td>0.500</td>" in html
    assert f'title="{escape(metric("mean_wait").definition)}"' in html  # the definition on hover
