"""``gridmarket viz`` in a real headless browser: load, step, charts change, bad input, reset, play, screenshots.

Screenshots go to ``out/viz/`` (or ``$GRIDMARKET_ARTIFACTS``); with
``GRIDMARKET_VIZ_SCREENSHOT=docs/viz.png`` the README's picture is refreshed too.
"""

from __future__ import annotations

import os
import re
import shutil
import time

import pytest

from gridmarket.scenarios.registry import get_scenario

# the PNG an <img> shows, read back through a canvas: changes when the picture does, not just its blob URL
_PIXELS = """sel => {
  const img = document.querySelector(sel);
  if (!img || !img.complete || !img.naturalWidth) return null;
  const c = document.createElement('canvas');
  c.width = img.naturalWidth; c.height = img.naturalHeight;
  c.getContext('2d').drawImage(img, 0, 0);
  return c.toDataURL();
}"""
_CHANGED = f"([sel, old]) => {{ const now = ({_PIXELS})(sel); return now !== null && now !== old; }}"
GANTT, PRICES = ".gm-gantt img", ".gm-prices img"
STEP_TIMEOUT = 120_000  # ms: the first hours of every interaction model at once are the slow ones


def _pixels(page, selector):
    page.wait_for_function(f"sel => ({_PIXELS})(sel) !== null", arg=selector)
    return page.evaluate(_PIXELS, selector)


@pytest.mark.slow
def test_page_steps_redraws_rejects_bad_input_and_resets(page, artifacts):
    from playwright.sync_api import expect

    t0 = time.perf_counter()
    times = {}
    status = page.locator(".gm-status")
    step = page.get_by_role("button", name="Step")
    expect(step).to_be_enabled()
    expect(status).to_contain_text("quickstart · moga · seed 1 · t = 0 h")
    expect(page).to_have_title("gridmarket · quickstart")  # not Solara's default title
    expect(page.get_by_role("tab")).to_have_text(["Market", "Queues and agents"])  # named, not Mesa's "Page 0"
    expect(page.get_by_text(re.compile(r"^page \d+$", re.IGNORECASE))).to_have_count(0)
    gantt0, prices0 = _pixels(page, GANTT), _pixels(page, PRICES)
    times["load"] = time.perf_counter() - t0

    # --- step: the market moves an hour per click and every chart is redrawn
    for hour in (1, 2):
        step.click()
        expect(status).to_contain_text(f"t = {hour} h ({hour * 3600} s)", timeout=STEP_TIMEOUT)
        expect(step).to_be_enabled(timeout=STEP_TIMEOUT)
    page.wait_for_function(_CHANGED, arg=[GANTT, gantt0])
    page.wait_for_function(_CHANGED, arg=[PRICES, prices0])
    headers = page.locator(".gm-table thead th").all_inner_texts()
    models = list(get_scenario("quickstart").models)
    assert headers[0] == "metric" and headers[1] == "moga"  # the shown model first
    assert sorted(headers[1:]) == sorted(models)  # every interaction model in step, for the table
    expect(page.locator(".gm-table")).to_contain_text("mean wait (s)")
    page.wait_for_timeout(300)  # let the last image paint before the picture
    shot = artifacts / "viz-all-models.png"
    page.screenshot(path=str(shot), full_page=True)
    if os.environ.get("GRIDMARKET_VIZ_SCREENSHOT"):
        shutil.copyfile(shot, os.environ["GRIDMARKET_VIZ_SCREENSHOT"])
    page.get_by_role("tab", name="Queues and agents").click()
    expect(page.locator(".gm-agents img")).to_be_visible()  # the broker's Pareto front
    expect(page.locator(".gm-load img")).to_be_visible()
    expect(page.locator(".gm-table")).to_have_count(0)  # only the open tab is drawn
    expect(status).to_contain_text("t = 2 h")  # the status line stays above the tabs
    page.wait_for_timeout(300)
    page.screenshot(path=str(artifacts / "viz-queues-and-agents.png"), full_page=True)
    page.get_by_role("tab", name="Market").click()
    times["2 steps, all models"] = time.perf_counter() - t0 - times["load"]

    # --- bad input: rejected with a message on Reset, the page stays alive
    seed = page.get_by_label("seed")
    seed.fill("abc")
    seed.press("Enter")
    page.get_by_role("button", name="Reset").click()
    message = page.get_by_text("Invalid control value: seed must be an int >= 0, got 'abc'")
    expect(message).to_be_visible()
    step.click()  # Mesa re-enables Step on Reset; stepping a view without a market does nothing
    expect(step).to_be_disabled()
    expect(message).to_be_visible()

    # --- change controls and reset: another model and seed, one model only
    seed.fill("2")
    seed.press("Enter")
    page.locator(".v-select", has_text="interaction model").locator(".v-input__slot").click()  # vuetify 2
    page.get_by_role("option", name="mcmf", exact=True).click()
    page.get_by_text("run every model for the table").click()
    page.get_by_role("button", name="Reset").click()
    expect(status).to_contain_text("quickstart · mcmf · seed 2 · t = 0 h")
    expect(page.locator(".gm-table thead th")).to_have_count(2)
    expect(step).to_be_enabled()

    # --- play, then pause
    page.get_by_role("button", name="▶").click()
    expect(status).to_contain_text(re.compile(r"t = ([3-9]|\d\d+) h"), timeout=STEP_TIMEOUT)
    page.get_by_role("button", name="❚❚").click()
    expect(step).to_be_enabled(timeout=STEP_TIMEOUT)
    page.get_by_role("tab", name="Queues and agents").click()
    expect(page.locator(".gm-agents img")).to_be_visible()  # the metascheduler's dispatches
    page.wait_for_timeout(300)
    page.screenshot(path=str(artifacts / "viz-mcmf.png"), full_page=True)
    times["bad input, reset, play"] = time.perf_counter() - t0 - sum(times.values())

    assert page.errors == []
    print("\n" + ", ".join(f"{k} {v:.1f} s" for k, v in times.items()))
