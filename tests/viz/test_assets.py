"""``gridmarket viz`` without the CDN: a filled asset cache is used, an empty one is filled from npm
when npm is there, and otherwise the command stops in one line saying how to fill it, before any address."""

from pathlib import Path

import pytest

from gridmarket.errors import InvalidInput
from gridmarket.scenarios.commands.cli import main
from gridmarket.viz import server
from gridmarket.viz.server import ASSET_PACKAGES, asset_cache, missing_assets


def _fill(cache: Path, specs=ASSET_PACKAGES) -> None:
    for spec in specs:
        (cache / spec).mkdir(parents=True, exist_ok=True)
        (cache / spec / "package.json").write_text("{}")


def _never(*args):
    raise AssertionError("not to be called")


@pytest.fixture
def empty_default(tmp_path, monkeypatch):
    default = tmp_path / "default-cache"
    monkeypatch.setattr(server, "DEFAULT_ASSET_CACHE", default)
    return default


def test_a_complete_cache_is_used_without_asking_the_cdn(tmp_path, empty_default):
    given = tmp_path / "given"
    _fill(given)
    assert asset_cache({"SOLARA_ASSETS_PROXY_CACHE_DIR": str(given)}, cdn_answers=_never, fill=_never) == given
    _fill(empty_default)
    assert asset_cache({}, cdn_answers=_never, fill=_never) == empty_default


def test_with_the_cdn_answering_an_incomplete_cache_needs_nothing(tmp_path, empty_default):
    _fill(empty_default, ASSET_PACKAGES[:3])
    assert missing_assets(empty_default) == list(ASSET_PACKAGES[3:])
    assert asset_cache({}, cdn_answers=lambda: True, fill=_never) is None
    given = tmp_path / "given"
    assert asset_cache({"SOLARA_ASSETS_PROXY_CACHE_DIR": str(given)}, cdn_answers=lambda: True, fill=_never) == given


def test_offline_the_cache_is_filled_once_and_used(empty_default):
    filled = []

    def fill(cache):
        filled.append(cache)
        _fill(cache)

    assert asset_cache({}, cdn_answers=lambda: False, fill=fill) == empty_default
    assert filled == [empty_default]


@pytest.mark.parametrize("why, fills", [("npm is not installed", False), ("npm ERR! network", True)])
def test_offline_without_a_way_to_fill_it_is_one_line_naming_the_cache_and_the_command(empty_default, why, fills):
    def fill(cache):
        if fills:  # a fill that got part of the way
            _fill(cache, ASSET_PACKAGES[:2])
        return why

    lacking = len(ASSET_PACKAGES) - (2 if fills else 0)
    with pytest.raises(InvalidInput, match=(
            rf"cdn.jsdelivr.net, which does not answer, and the asset cache {empty_default} lacks {lacking} of "
            rf"{len(ASSET_PACKAGES)} packages \({why}\): fill it where npm works with "
            rf"'bash viz/offline_assets.sh {empty_default}' and start again")):
        asset_cache({}, cdn_answers=lambda: False, fill=fill)


def test_the_command_stops_before_printing_an_address(empty_default, monkeypatch, capsys):
    monkeypatch.delenv("SOLARA_ASSETS_PROXY_CACHE_DIR", raising=False)
    monkeypatch.setattr(server, "_cdn_answers", lambda: False)
    monkeypatch.setattr(server, "_fill_cache", lambda cache: "npm is not installed")
    monkeypatch.setattr(server.asset_cache, "__kwdefaults__",
                        {"cdn_answers": server._cdn_answers, "fill": server._fill_cache})

    def popen(*args, **kwargs):
        raise AssertionError("a server was started")

    monkeypatch.setattr(server.subprocess, "Popen", popen)
    assert main(["viz", "--port", "0"]) == 2
    captured = capsys.readouterr()
    assert "http://" not in captured.out + captured.err
    errors = [line for line in captured.err.splitlines() if line.strip()]
    assert len(errors) == 1 and "bash viz/offline_assets.sh" in errors[0], errors


def test_the_asset_list_is_the_fill_script_s():
    script = Path(server.ASSET_SCRIPT).read_text()
    listed = script[script.index("for spec in") + len("for spec in"):script.index("; do")].replace("\\", " ").split()
    assert tuple(listed) == ASSET_PACKAGES


def test_the_page_opens_on_moga_where_it_fills_every_panel_and_explains_mesa_s_controls():
    """The default model fills the agents panel (a Pareto front), and the page says what Mesa's
    Render Interval and Use Threads do."""
    from gridmarket.scenarios.config import with_overrides
    from gridmarket.scenarios.registry import get_scenario
    from gridmarket.viz import app
    from gridmarket.viz.charts import agents_figure
    from gridmarket.viz.model import MarketView

    quickstart = get_scenario("quickstart")
    assert app.model_params("quickstart")["interaction_model"]["value"] == "moga"
    assert app.default_model(with_overrides(quickstart, {"workload.n_workflows": 0})) == "best-effort"
    assert app.default_model(with_overrides(quickstart, {"models": ("mcmf", "greedy")})) == "mcmf"
    view = MarketView("quickstart", "moga", compare_models=False)
    for _ in range(3):
        view.step()
    figure = agents_figure(view)
    assert [ax.get_title(loc="left") for ax in figure.axes] == ["broker: last MOGA Pareto front (chosen plan starred)"]
    assert "Render Interval redraws the charts every N steps" in app.CONTROLS_HELP
    assert "Use Threads steps the market in a background thread" in app.CONTROLS_HELP
