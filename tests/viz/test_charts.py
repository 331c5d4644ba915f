"""Chart data of the page (prices, load, Pareto front, dispatches) and the figures drawn from it."""

import io
from types import SimpleNamespace

import pytest

from gridmarket.viz.charts import (
    agents_figure,
    dispatch_data,
    gantt_figure,
    load_data,
    load_figure,
    pareto_data,
    price_data,
    price_figure,
)
from gridmarket.viz.model import MarketView

H = 3600


@pytest.fixture(scope="module")
def best_effort():
    view = MarketView("quickstart", "best-effort", compare_models=False)
    for _ in range(3):
        view.step()
    return view


@pytest.fixture(scope="module")
def mcmf():
    view = MarketView("quickstart", "mcmf", compare_models=False)
    for _ in range(2):
        view.step()
    return view


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def test_electricity_prices_cover_a_day_back_and_twelve_hours_ahead_per_site(best_effort):
    data = price_data(best_effort)["electricity"]
    assert set(data["site"]) == set(best_effort.market.providers)
    north = data[data["site"] == "north"]
    assert north["time"].min() == 0 and north["time"].max() == (3 + 12 - 1) * H  # now = 3 h
    prices = best_effort.market.providers["north"].prices
    assert north["price_per_mwh"].tolist() == [float(prices.price_at(t)) for t in north["time"]]


def test_slot_prices_come_from_the_price_log_up_to_now(best_effort):
    provider = best_effort.market.providers["south"]
    log = getattr(provider, "price_log", None)
    if log is None:
        pytest.skip("providers keep no price_log in this version of agents/")
    log.extend([(600, 12.5, "quote"), (1200, 10.0, "paid"), (99 * H, 1.0, "paid")])  # the last is in the future
    try:
        slots = price_data(best_effort)["slots"]
        mine = slots[slots["site"] == "south"].tail(2)
        assert mine[["time", "su", "kind"]].values.tolist() == [[600, 12.5, "quote"], [1200, 10.0, "paid"]]
    finally:
        del log[-3:]


def test_load_data_has_one_row_per_provider_and_step(best_effort):
    data = load_data(best_effort)
    assert len(data) == 4 * 3  # samples at 0, 1, 2 and 3 h
    assert data["utilization"].between(0, 1).all()
    last = data[data["time"] == 3 * H].set_index("provider")
    for name, p in best_effort.market.providers.items():
        assert last.loc[name, "busy"] == p.busy and last.loc[name, "queued"] == len(p.queue)


def test_dispatches_per_site_and_cycle_cover_every_job_the_metascheduler_sent(mcmf):
    meta = mcmf.market.metascheduler
    data = dispatch_data(mcmf.market)
    assert data["jobs"].sum() == len(meta.predicted_wait) > 0
    assert (data["cycle"] % meta.spec.cycle == 0).all()
    assert set(data["site"]) <= set(mcmf.market.providers)


def test_without_a_dispatch_log_the_dispatches_are_read_off_the_providers_jobs(mcmf, monkeypatch):
    meta = mcmf.market.metascheduler
    logged = dispatch_data(mcmf.market)
    if hasattr(meta, "dispatch_log"):
        monkeypatch.delattr(meta, "dispatch_log")
    assert dispatch_data(mcmf.market).equals(logged)


def test_dispatch_log_is_preferred_when_the_metascheduler_keeps_one():
    meta = SimpleNamespace(dispatch_log=[(600, "a", 2), (600, "b", 1), (1200, "a", 3)], predicted_wait={})
    data = dispatch_data(SimpleNamespace(metascheduler=meta, providers={}))
    assert data.values.tolist() == [[600, "a", 2], [600, "b", 1], [1200, "a", 3]]


def test_no_metascheduler_means_no_dispatch_rows(best_effort):
    assert dispatch_data(best_effort.market).empty


def test_pareto_data_marks_the_chosen_plan():
    broker = SimpleNamespace(last_front=[(10.0, 7200), (12.0, 3600)], last_choice=1, method="moga")
    data = pareto_data(SimpleNamespace(brokers={"broker": broker}))
    assert data.values.tolist() == [["broker", 0, 10.0, 7200.0, False], ["broker", 1, 12.0, 3600.0, True]]
    assert pareto_data(SimpleNamespace()).empty  # a market without brokers


@pytest.mark.parametrize("figure", [gantt_figure, price_figure, load_figure, agents_figure])
def test_figures_draw_for_each_kind_of_market(figure, best_effort, mcmf):
    for view in (best_effort, mcmf):
        assert _png(figure(view)).startswith(b"\x89PNG")


def test_figures_of_a_dead_view_show_its_message():
    view = MarketView("quickstart", "best-effort", seed="x")
    for figure in (gantt_figure, price_figure, load_figure, agents_figure):
        texts = [t.get_text() for ax in figure(view).axes for t in ax.texts]
        assert texts == [view.error]


def test_gantt_changes_as_the_market_moves():
    view = MarketView("quickstart", "best-effort", compare_models=False)
    view.step()
    first = _png(gantt_figure(view))
    view.step()
    assert _png(gantt_figure(view)) != first


def test_sla_penalties_are_drawn_as_their_own_markers():
    """An SLA penalty a provider paid back (price_log kind ``sla-penalty``) is in the slot data and drawn with a
    down-triangle, apart from the paid prices; the overbooked market of tests/agents/test_sla_desk.py."""
    from gridmarket.agents.model import BrokerSpec, MarketModel, ProviderSpec
    from gridmarket.job import Job
    from gridmarket.valuation import Valuation
    from gridmarket.workloads.workload import Workload

    jobs = (Job(1, 10, 4, H, 2 * H, site="a"), Job(2, 20, 4, H, H, site="a"), Job(3, 30, 4, H, 2 * H, site="a"))
    vals = {1: Valuation(10.0, 10 + 3 * H, 3 * H), 2: Valuation(6.0, 20 + H + 1800, 3 * H),
            3: Valuation(9.0, 30 + H + 720, 600)}
    m = MarketModel([ProviderSpec("a", 4, "conservative", overbooking=2.0)], Workload(jobs), route="site",
                    broker=BrokerSpec("sla", cycle=60), valuations=vals, rng=0)
    m.run()
    view = SimpleNamespace(market=m, now=4 * H, error=None)
    slots = price_data(view)["slots"]
    assert slots[slots["kind"] == "sla-penalty"][["time", "su"]].values.tolist() == [[1290, 9.0], [3620, 1.0]]
    fig = price_figure(view)
    marks = {c.get_label(): c.get_paths()[0].vertices.shape for c in fig.axes[0].collections}
    assert set(marks) == {"a paid", "a sla-penalty"} and marks["a paid"] != marks["a sla-penalty"]
