"""``gridmarket viz [SCENARIO]``: serve the SolaraViz page (:mod:`gridmarket.viz.app`) on loopback and print its address.

The page is served by ``solara run gridmarket.viz.app`` in a child process, in
production mode, without opening a browser, without asking PyPI for a newer
Solara and with Solara's telemetry off. The server binds 127.0.0.1 unless
``--host`` names another address; a non-loopback address coming only from
the environment (``$HOST`` or ``$SOLARA_HOST``, which ``solara run`` would
otherwise obey) is refused, so a page that runs models is never exposed to a
network by accident: the page has no authentication (whoever reaches it runs
models, and the plug-ins a scenario names). The child runs as ``python -P``,
so no module in the folder the command starts from is imported.

Offline machines: Solara fetches the page's JavaScript through a proxy to the
jsDelivr CDN, caching it in ``SOLARA_ASSETS_PROXY_CACHE_DIR``. Without the CDN
and without a filled cache the page stays blank, so before starting the
server :func:`asset_cache` checks: a complete cache (``$SOLARA_ASSETS_PROXY_CACHE_DIR``,
else ``.solara-cdn`` beside ``viz/``) is used; else, when the CDN does not
answer, the cache is filled from the npm registry by ``viz/offline_assets.sh``
if npm is present, and otherwise the command stops in one line saying how to
fill it. With the CDN reachable nothing is needed.
"""

from __future__ import annotations

import argparse
import errno
import ipaddress
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from gridmarket.errors import InvalidInput
from gridmarket.plugins import is_plugin_name
from gridmarket.scenarios.config import INTERACTION_MODELS, check_model, suggest
from gridmarket.scenarios.options import bounded
from gridmarket.scenarios.registry import get_scenario, scenario_names

__all__ = ["ASSET_PACKAGES", "DEFAULT_PORT", "add_subcommand", "asset_cache", "is_loopback", "missing_assets",
           "resolve_host", "run_viz", "solara_command"]

DEFAULT_PORT = 8765
DEFAULT_SCENARIO = "quickstart"
READY_TIMEOUT = 120.0
"""Seconds to wait for the server's first page before giving up."""


ASSET_PACKAGES = ("@widgetti/solara-vuetify-app@10.1.1", "requirejs@2.3.6", "font-awesome@4.5.0", "vega@5",
                  "vega-lite@5", "vega-embed@6", "@widgetti/vue-grid-layout@2.3.13-alpha.2")
"""What the page asks Solara's CDN proxy for (the list of ``viz/offline_assets.sh``), as ``package@version``."""
ASSET_SCRIPT = Path(__file__).resolve().parent / "offline_assets.sh"
DEFAULT_ASSET_CACHE = ASSET_SCRIPT.parent.parent / ".solara-cdn"
CDN_PROBE = "https://cdn.jsdelivr.net/npm/requirejs@2.3.6/package.json"
CACHE_ENV = "SOLARA_ASSETS_PROXY_CACHE_DIR"


def missing_assets(cache: Path) -> list[str]:
    """The packages of :data:`ASSET_PACKAGES` that ``cache`` lacks (a package is there with its ``package.json``)."""
    return [spec for spec in ASSET_PACKAGES if not (cache / spec / "package.json").is_file()]


def _cdn_answers(timeout: float = 5.0) -> bool:
    try:
        with urllib.request.urlopen(urllib.request.Request(CDN_PROBE, method="HEAD"), timeout=timeout) as reply:
            return reply.status == 200
    except (OSError, urllib.error.URLError, ValueError):
        return False


def _fill_cache(cache: Path) -> str | None:
    """Run ``viz/offline_assets.sh cache``; None when it worked, else its last error line."""
    if shutil.which("npm") is None:
        return "npm is not installed"
    print(f"gridmarket viz: the CDN does not answer; filling the asset cache {cache} from npm "
          "(viz/offline_assets.sh, once)", file=sys.stderr, flush=True)
    done = subprocess.run(["bash", str(ASSET_SCRIPT), str(cache)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        lines = (done.stderr.strip() or done.stdout.strip() or f"exit status {done.returncode}").splitlines()
        return lines[-1]
    return None


def asset_cache(environ=None, *, cdn_answers=_cdn_answers, fill=_fill_cache) -> Path | None:
    """The asset cache the page should be served from, or None to let Solara fetch from the CDN.

    ``$SOLARA_ASSETS_PROXY_CACHE_DIR`` if set, else ``.solara-cdn`` beside ``viz/``: used when
    complete (:func:`missing_assets`). An incomplete one is used only when the CDN does not
    answer (``cdn_answers()``), after ``fill(cache)`` (npm, ``viz/offline_assets.sh``) completed it.

    Raises
    ------
    InvalidInput
        The CDN does not answer and the cache cannot be filled: one line naming the cache, what
        it lacks and the command that fills it (the page would be blank).
    """
    environ = os.environ if environ is None else environ
    given = environ.get(CACHE_ENV)
    cache = Path(given) if given else DEFAULT_ASSET_CACHE
    if not missing_assets(cache):
        return cache
    if cdn_answers():
        return Path(given) if given else None
    why = fill(cache)
    lacking = missing_assets(cache)
    if why is None and not lacking:
        return cache
    raise InvalidInput(
        f"the page's JavaScript comes from cdn.jsdelivr.net, which does not answer, and the asset cache {cache} "
        f"lacks {len(lacking)} of {len(ASSET_PACKAGES)} packages ({why or 'not filled'}): fill it where npm works "
        f"with 'bash viz/offline_assets.sh {cache}' and start again")


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (127.0.0.0/8, ::1).

    >>> [is_loopback(h) for h in ("127.0.0.1", "localhost", "::1", "0.0.0.0", "192.168.1.5")]
    [True, True, True, False, False]
    """
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def resolve_host(host: str | None, environ=None) -> str:
    """The address to bind: ``host`` if given explicitly, else 127.0.0.1.

    Raises
    ------
    InvalidInput
        No ``--host`` was given but ``$HOST`` / ``$SOLARA_HOST`` name a
        non-loopback address: serving there needs an explicit ``--host``.

    Examples
    --------
    >>> resolve_host(None, {}), resolve_host("0.0.0.0", {})
    ('127.0.0.1', '0.0.0.0')
    >>> resolve_host(None, {"HOST": "0.0.0.0"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: refusing to serve on non-loopback address '0.0.0.0' from $HOST: ...
    """
    if host is not None:
        if not host.strip():
            raise InvalidInput("--host must not be empty")
        return host
    environ = os.environ if environ is None else environ
    for name in ("HOST", "SOLARA_HOST"):
        value = environ.get(name)
        if value and not is_loopback(value):
            raise InvalidInput(f"refusing to serve on non-loopback address {value!r} from ${name}: the page runs "
                               f"models for whoever reaches it; pass --host {value} to mean it")
    return "127.0.0.1"


def _free_port(host: str) -> int:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family) as s:
        s.bind((host.strip("[]"), 0))
        return s.getsockname()[1]


def _check_bind(host: str, port: int) -> None:
    """InvalidInput unless this machine can serve on ``host``:``port`` (port 0: any free port).

    Three causes, three messages: ``host`` is not an address or a known name (``999.1.1.1``), it
    is not an address of this machine, or the port is taken (by another server, or another
    gridmarket viz).
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family) as s:
        try:
            s.bind((host.strip("[]"), port))
        except socket.gaierror as err:
            raise InvalidInput(f"--host {host}: not an IP address or a known host name ({err.strerror})") from None
        except OSError as err:
            if err.errno == errno.EADDRINUSE:
                raise InvalidInput(f"--port {port}: the port is in use on {host}; choose another "
                                   "(--port 0 picks a free one)") from None
            raise InvalidInput(f"--host {host}: cannot serve there ({err.strerror}; an address of this machine, "
                               "e.g. 127.0.0.1 or 0.0.0.0)") from None


def _url(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    return f"http://{shown}:{port}/"


# Solara warns at every page load that is not on https or "localhost" (12 lines about embedding the page
# in an iframe, which gridmarket never does); its session cookie falls back to samesite=lax and works.
SOLARA_COOKIE_WARNING = "ignore:Cookies with samesite=none require https"


def _quiet_warnings(existing: str) -> str:
    """``PYTHONWARNINGS`` for the Solara child: the user's filters plus one that drops the cookie warning."""
    return ",".join(part for part in (existing, SOLARA_COOKIE_WARNING) if part)


def solara_command(host: str, port: int) -> list[str]:
    """The ``solara run`` command line that serves :mod:`gridmarket.viz.app` (production, no browser, no version check).

    ``-P``: the child does not put the working folder on ``sys.path`` (``python -m`` would), so a
    ``solara.py`` or any module lying in the folder the command starts from is never imported.
    """
    return [sys.executable, "-P", "-m", "solara", "run", "gridmarket.viz.app", "--host", host, "--port", str(port),
            "--production", "--no-open", "--no-check-version"]


def _wait_ready(proc: subprocess.Popen, url: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            raise InvalidInput(f"the Solara server exited with status {proc.returncode} before serving {url} "
                               "(its messages are above)")
        try:
            with urllib.request.urlopen(url, timeout=2) as reply:
                if reply.status == 200:
                    return
        except (OSError, urllib.error.URLError):
            pass
        if time.monotonic() > deadline:
            raise InvalidInput(f"the Solara server did not answer at {url} within {timeout:g} s")
        time.sleep(0.2)


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def run_viz(args: argparse.Namespace) -> int:
    """Check the scenario and the address, start the server, print its address, serve until interrupted."""
    get_scenario(args.scenario)  # a bad name or file fails here, in the terminal, not in the page
    if args.model is not None and is_plugin_name(args.model):
        check_model(args.model, "--model")  # the page's process imports it again, from the same PYTHONPATH
    elif args.model is not None and args.model not in INTERACTION_MODELS:
        raise InvalidInput(f"unknown interaction model {args.model!r}{suggest(args.model, INTERACTION_MODELS)}")
    host = resolve_host(args.host)
    _check_bind(host, 0)  # an address this machine has, before any warning about serving on it
    if not is_loopback(host):
        print(f"gridmarket viz: warning: serving on {host}: anyone who reaches this address can run models",
              file=sys.stderr)
    if args.port:
        _check_bind(host, args.port)  # else another server's page would answer our readiness probe
    cache = asset_cache()  # before any address is printed: a page without its JavaScript is blank
    port = args.port or _free_port("127.0.0.1" if not is_loopback(host) else host)
    env = {**os.environ, "SOLARA_TELEMETRY_MIXPANEL_ENABLE": "False", "GRIDMARKET_VIZ_SCENARIO": args.scenario,
           "PYTHONWARNINGS": _quiet_warnings(os.environ.get("PYTHONWARNINGS", ""))}
    if cache is not None:
        env[CACHE_ENV] = str(cache)
    if args.model is not None:
        env["GRIDMARKET_VIZ_MODEL"] = args.model
    probe = "127.0.0.1" if host in ("0.0.0.0", "::", "[::]") else host
    proc = subprocess.Popen(solara_command(host, port), env=env)

    def on_term(signum, frame):  # a supervisor's SIGTERM stops the child too
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        _wait_ready(proc, _url(probe, port), args.timeout)
        print(f"gridmarket viz: {args.scenario} at {_url(host, port)} (Ctrl-C stops the server)", flush=True)
        return proc.wait()
    except KeyboardInterrupt:
        return 0
    finally:
        _stop(proc)
        signal.signal(signal.SIGTERM, previous)


def add_subcommand(subparsers) -> None:
    """Add ``viz`` to the main CLI's subparsers (it sets ``run``)."""
    names = ", ".join(scenario_names())
    p = subparsers.add_parser(
        "viz",
        help="watch a market live in the browser (Mesa SolaraViz on 127.0.0.1)",
        description="Serve a page that steps SCENARIO's market an hour at a time: each provider's plan as a "
        "Gantt chart, slot and electricity prices, queues and utilization, the broker's Pareto front or the "
        "metascheduler's dispatches, and running metrics per interaction model. Prints the address to open. "
        "Offline (no cdn.jsdelivr.net): the page's JavaScript is served from a cache filled by "
        "viz/offline_assets.sh (.solara-cdn, or $SOLARA_ASSETS_PROXY_CACHE_DIR), filled at the first start when "
        "npm is present.",
    )
    p.add_argument("scenario", nargs="?", default=DEFAULT_SCENARIO,
                   help=f"a registered scenario ({names}) or a scenario .toml file (default {DEFAULT_SCENARIO})")
    p.add_argument("--model", help="interaction model shown first (default moga where the scenario runs it on "
                   "workflows: it fills every panel; else best-effort); a plug-in "
                   "'package.module:Name' too (docs/extending.md)")
    p.add_argument("--port", type=bounded("port"), default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0 = a free one)")
    p.add_argument("--host", help="address to bind (default 127.0.0.1; the page has no authentication: any other "
                   "address lets whoever reaches it run models)")
    p.add_argument("--timeout", type=bounded("timeout"), default=READY_TIMEOUT,
                   help=f"seconds to wait for the server to answer (default {READY_TIMEOUT:g})")
    p.set_defaults(run=run_viz)
