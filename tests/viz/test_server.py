"""``gridmarket viz``: loopback by default, refusals before any server starts, the solara command line."""

import subprocess

import pytest

from gridmarket.errors import InvalidInput
from gridmarket.scenarios.commands.cli import main
from gridmarket.viz import server
from gridmarket.viz.server import is_loopback, resolve_host, solara_command


@pytest.fixture
def no_server(monkeypatch):
    """Fail the test if the command tries to start a process."""

    def popen(*args, **kwargs):
        raise AssertionError(f"a server was started: {args}")

    monkeypatch.setattr(subprocess, "Popen", popen)
    for name in ("HOST", "SOLARA_HOST"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("host, expected", [
    ("127.0.0.1", True), ("127.8.9.10", True), ("localhost", True), ("LOCALHOST", True), ("::1", True),
    ("[::1]", True), ("0.0.0.0", False), ("::", False), ("10.0.0.7", False), ("example.org", False),
])
def test_is_loopback(host, expected):
    assert is_loopback(host) is expected


def test_default_host_is_loopback_whatever_the_environment_says_about_loopback():
    assert resolve_host(None, {}) == "127.0.0.1"
    assert resolve_host(None, {"HOST": "localhost", "SOLARA_HOST": "127.0.0.1"}) == "127.0.0.1"


@pytest.mark.parametrize("name", ["HOST", "SOLARA_HOST"])
def test_non_loopback_host_from_the_environment_is_refused(name):
    with pytest.raises(InvalidInput, match=rf"refusing to serve on non-loopback address '0.0.0.0' from \${name}"):
        resolve_host(None, {name: "0.0.0.0"})


def test_an_explicit_host_is_obeyed():
    assert resolve_host("0.0.0.0", {"HOST": "10.1.1.1"}) == "0.0.0.0"
    with pytest.raises(InvalidInput, match="--host must not be empty"):
        resolve_host(" ", {})


def test_solara_runs_the_page_in_production_without_browser_or_version_check():
    cmd = solara_command("127.0.0.1", 9000)
    assert cmd[1:6] == ["-P", "-m", "solara", "run", "gridmarket.viz.app"]
    assert cmd[cmd.index("--host") + 1] == "127.0.0.1" and cmd[cmd.index("--port") + 1] == "9000"
    assert {"--production", "--no-open", "--no-check-version"} <= set(cmd)


@pytest.mark.parametrize("argv, message", [
    (["viz", "quikstart"], "unknown scenario 'quikstart' (did you mean 'quickstart'?)"),
    (["viz", "missing.toml"], "missing.toml: cannot read scenario"),
    (["viz", "--model", "mfcm"], "unknown interaction model 'mfcm' (did you mean 'mcmf'?)"),
    (["viz", "--host", "999.1.1.1"], "--host 999.1.1.1: not an IP address or a known host name"),
    (["viz", "--host", "192.0.2.1"], "--host 192.0.2.1: cannot serve there (Cannot assign requested address"),
])
def test_bad_arguments_fail_in_the_terminal_before_any_server(argv, message, no_server, capsys):
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_environment_host_is_refused_by_the_command(no_server, monkeypatch, capsys):
    monkeypatch.setenv("HOST", "0.0.0.0")
    assert main(["viz"]) == 2
    assert "refusing to serve on non-loopback address '0.0.0.0' from $HOST" in capsys.readouterr().err


def test_server_exiting_early_is_reported(monkeypatch, capsys):
    class Exited:
        returncode = 1

        def __init__(self, cmd, env):
            assert env["SOLARA_TELEMETRY_MIXPANEL_ENABLE"] == "False"
            assert env["GRIDMARKET_VIZ_SCENARIO"] == "quickstart"

        def poll(self):
            return self.returncode

    monkeypatch.setattr(server.subprocess, "Popen", Exited)
    monkeypatch.delenv("HOST", raising=False)
    monkeypatch.delenv("SOLARA_HOST", raising=False)
    assert main(["viz", "--port", "0"]) == 2
    assert "the Solara server exited with status 1 before serving http://127.0.0.1:" in capsys.readouterr().err


def test_the_cli_and_the_view_import_no_solara():
    import subprocess as sp
    import sys

    code = ("import sys, gridmarket.scenarios.commands.cli, viz, gridmarket.viz.server, gridmarket.viz.charts\n"
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'solara', 'ipyvue', 'ipyvuetify', 'playwright'}))")
    out = sp.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.slow
def test_a_real_server_serves_pages_without_solaras_cookie_warning(tmp_path):
    """Solara printed a 12-line samesite-cookie warning at start and at every page load on 127.0.0.1."""
    import re
    import sys
    import time
    import urllib.request

    log = tmp_path / "viz.log"
    with log.open("w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "gridmarket.scenarios.commands.cli", "viz", "--port", "0", "--timeout", "90"],
                                stdout=out, stderr=subprocess.STDOUT, text=True)
    try:
        # 100 s for the server, plus the first start's fill of the asset cache from npm when the CDN does not
        # answer and no cache was filled before (a fresh clone run without the browser test)
        deadline = time.monotonic() + 100 + (0 if not server.missing_assets(server.DEFAULT_ASSET_CACHE) else 300)
        while not (found := re.search(r" at (http://\S+) ", log.read_text())):
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.3)
        for _ in range(2):  # the warning came with every page load
            with urllib.request.urlopen(found.group(1), timeout=30) as reply:
                assert reply.status == 200
        time.sleep(1)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    text = log.read_text()
    assert "samesite" not in text.lower(), text
    assert "Warning" not in text, text
