"""Fixtures of the real-browser test: the offline Solara assets, a ``gridmarket viz`` server, headless Chromium.

The browser is a system Chromium (``$CHROMIUM``, default Debian's ``/usr/bin/chromium``), driven by
Playwright through ``executable_path``; ``playwright install`` is not needed. Solara's JavaScript
comes from the npm registry (``viz/offline_assets.sh``, needs ``npm``). The suite never installs
system packages: where Chromium, npm or Playwright is missing, the browser test SKIPS with one line
saying what to install. ``GRIDMARKET_REQUIRE_BROWSER=1`` turns that skip into a failure; ``.ci/run``
installs Chromium and npm and sets it, so CI always runs the browser test.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROME_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-dev-shm-usage", "--disable-component-update", "--disable-default-apps",
               "--disable-extensions", "--disable-sync", "--no-first-run", "--mute-audio"]
SERVER_TIMEOUT = 120  # s for the server to print its address


HOW_TO_RUN = ("to run it, install Chromium and npm (Debian: apt-get install chromium npm; elsewhere set CHROMIUM "
              "to a Chromium or Chrome binary)")


def _unavailable(reason: str):
    """Skip (or, with ``GRIDMARKET_REQUIRE_BROWSER=1``, fail) the browser test in one line."""
    if os.environ.get("GRIDMARKET_REQUIRE_BROWSER") == "1":
        pytest.fail(f"browser test cannot run: {reason} (GRIDMARKET_REQUIRE_BROWSER=1 requires it)", pytrace=False)
    pytest.skip(f"browser test skipped: {reason}; {HOW_TO_RUN}")


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """Where screenshots go: ``$GRIDMARKET_ARTIFACTS`` or ``out/viz`` (git-ignored)."""
    path = Path(os.environ.get("GRIDMARKET_ARTIFACTS") or REPO / "out" / "viz")
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="session")
def solara_assets() -> Path:
    """The Solara CDN-proxy cache, filled from npm by ``viz/offline_assets.sh`` when incomplete."""
    cache = Path(os.environ.get("SOLARA_ASSETS_PROXY_CACHE_DIR") or REPO / ".solara-cdn")
    done = subprocess.run(["bash", str(REPO / "viz" / "offline_assets.sh"), str(cache)], capture_output=True,
                          text=True, timeout=600, check=False)
    if done.returncode != 0:
        _unavailable(f"could not fill the Solara asset cache {cache} from npm "
                     f"(viz/offline_assets.sh exited {done.returncode}: {done.stderr.strip()[-500:]})")
    return cache


class _Server:
    """A ``gridmarket viz`` process in its own process group, its output collected by a thread."""

    def __init__(self, cmd: list[str], env: dict) -> None:
        self.lines: list[str] = []
        self.url: str | None = None
        self.ready = threading.Event()
        self.proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True, start_new_session=True)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:  # keeps draining, so the server never blocks on a full pipe
            self.lines.append(line)
            found = re.search(r"^gridmarket viz: \S+ at (http://\S+) ", line)
            if found:
                self.url = found.group(1)
                self.ready.set()
        self.ready.set()

    def output(self) -> str:
        return "".join(self.lines[-60:])

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def viz_server(solara_assets):
    """``gridmarket viz quickstart --model moga`` on a free loopback port; yields (url, server), stops the group.

    The MOGA broker model fills every panel: reservations in the Gantt chart,
    slot prices, the Pareto front.
    """
    env = {k: v for k, v in os.environ.items() if k not in ("HOST", "SOLARA_HOST")}
    env["SOLARA_ASSETS_PROXY_CACHE_DIR"] = str(solara_assets)
    port = _free_port()
    started = time.perf_counter()
    server = _Server([sys.executable, "-m", "gridmarket.scenarios.commands.cli", "viz", "quickstart", "--model", "moga",
                      "--port", str(port)], env)
    try:
        if not server.ready.wait(SERVER_TIMEOUT) or server.url is None:
            pytest.fail(f"gridmarket viz printed no address within {SERVER_TIMEOUT} s "
                        f"(exit status {server.proc.poll()}):\n{server.output()}", pytrace=False)
        assert server.url == f"http://127.0.0.1:{port}/"
        print(f"\nserver up in {time.perf_counter() - started:.1f} s at {server.url}")
        yield server.url, server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def browser():
    """Headless Debian Chromium through Playwright."""
    if not Path(CHROMIUM).exists():
        _unavailable(f"no Chromium at {CHROMIUM}")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as err:
        _unavailable(f"Playwright for Python is not installed ({err}); it is in the test extra: "
                     'pip install -e ".[test]"')
    with sync_playwright() as p:
        try:
            b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROME_ARGS)
        except Exception as err:  # noqa: BLE001 - report why the browser did not start
            _unavailable(f"Chromium at {CHROMIUM} did not start: {err}")
        yield b
        b.close()


@pytest.fixture
def page(browser, viz_server):
    """A fresh browser page on the server, with page errors collected in ``page.errors``."""
    context = browser.new_context(viewport={"width": 1400, "height": 1350})
    pg = context.new_page()
    pg.set_default_timeout(60_000)
    pg.errors = []
    pg.on("pageerror", lambda err: pg.errors.append(str(err)))
    pg.goto(viz_server[0])
    yield pg
    context.close()
