"""The live page with a two-tier provider: every chart draws, the summary counts its jobs."""

from gridmarket.viz.charts import agents_figure, gantt_figure, load_figure, price_figure
from gridmarket.viz.model import MarketView


def test_a_market_with_a_measy_site_steps_and_every_chart_draws(tmp_path):
    toml = tmp_path / "tt.toml"
    toml.write_text('name = "tt"\nmodels = ["best-effort", "mcmf"]\n[workload]\nn_jobs = 120\nprocs = 32\n'
                    'load_factor = 20.0\n[[providers]]\nname = "two"\nprocs = 32\npolicy = "measy"\n'
                    '[[providers]]\nname = "one"\nprocs = 32\npolicy = "easy"\n')
    view = MarketView(str(toml), "mcmf", compare_models=True)
    for _ in range(4):
        view.step()
    assert view.error is None
    assert type(view.market.providers["two"]).__name__ == "TwoTierProvider"
    titles = [ax.get_title(loc="left") for ax in gantt_figure(view).axes]
    assert titles[0].startswith("two: measy, 32 procs")
    for figure in (price_figure, load_figure, agents_figure):
        assert figure(view).axes
    rows = {r["model"]: r for r in view.summaries()}
    assert rows["mcmf"]["started"] > 0 and rows["best-effort"]["started"] > 0
