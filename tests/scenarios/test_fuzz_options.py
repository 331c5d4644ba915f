"""Fuzzed numeric options, one family per command: any number either runs or exits 2 in one line.

Integers of any size (past int64 too), floats, nan, inf, negative values and non-numbers are given
to every numeric option of ``simulate``, ``quote``, ``advertise``, ``clear``, ``provision`` and
``viz``, and to every numeric scenario field; the command either runs (exit 0; ``provision`` 1
for a valid question without an answer) or stops with exit status 2 and one error line, never a
traceback. Workloads are tiny and memory is made to look small (so a large valid ``--jobs`` is
refused by the memory estimate instead of run); examples are few (CI derandomizes them).
"""

from dataclasses import fields
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gridmarket.validation as validation
from gridmarket.errors import InvalidInput
from gridmarket.limits import BYTES_PER_JOB
from gridmarket.scenarios.commands.cli import main
from gridmarket.scenarios.commands.run import parse_seeds
from gridmarket.scenarios.config import Parameters, ProviderConfig, WorkloadConfig, with_overrides
from gridmarket.scenarios.registry import get_scenario
from gridmarket.scenarios.sweep import parse_grid

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "examples"

NUMBERS = st.one_of(
    st.integers(),
    st.integers(-2**70, 2**70),
    st.sampled_from([0, -1, 1, 2**31, 2**53, 2**62, 2**63 - 1, 2**63, 2**64, 10**30]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([float("nan"), float("inf"), -float("inf"), 1e300, -1e300, 5e-324, 0.5]),
)
TEXTS = st.one_of(NUMBERS.map(repr), NUMBERS.map(str), st.sampled_from(["", "x", "1e", "0x10", "1_000", " 7 "]))

FAMILIES = {
    "simulate": (["simulate", "--jobs", "20", "--procs", "16"], ["--jobs", "--procs", "--seed", "--load-factor"]),
    "quote": (["quote", "--state", str(EXAMPLES / "state.json"), "--procs", "2", "--duration", "3600"],
              ["--procs", "--duration", "--start", "--earliest", "--unit-cost"]),
    "advertise": (["advertise", "--state", str(EXAMPLES / "state.json")], ["--until", "--unit-cost"]),
    "clear": (["clear", "--costs", str(EXAMPLES / "costs.json")], ["--maxq"]),
    "clear-method": (["clear", "--costs", str(EXAMPLES / "costs.json"), "--method", "stable"], ["--wt"]),
    "provision": (["provision", "--workflow", str(EXAMPLES / "workflow.json"), "--slots", str(EXAMPLES / "slots.json"),
                   "--method", "greedy"], ["--alpha", "--seed", "--population", "--generations"]),
}


def _replace(argv: list[str], option: str, value: str) -> list[str]:
    """``argv`` with ``option`` set to ``value`` (as ``--option=value``: a value such as ``-inf`` is no option)."""
    argv = list(argv)
    if option in argv:
        del argv[argv.index(option):argv.index(option) + 2]
    return [*argv, f"{option}={value}"]


@pytest.mark.parametrize("family", sorted(FAMILIES))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_numeric_options_run_or_exit_2_in_one_line(family, data, capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(validation, "physical_memory", lambda: 2000 * BYTES_PER_JOB)  # --jobs > 2000: refused
    monkeypatch.chdir(tmp_path)
    base, options = FAMILIES[family]
    option = data.draw(st.sampled_from(options))
    value = data.draw(TEXTS)
    argv = _replace(base, option, value)
    try:
        status = main(argv)
    except SystemExit as exc:  # argparse's usage error
        status = exc.code
    out, err = capsys.readouterr()
    assert "Traceback" not in err, err
    if status == 1:  # provision: a valid request no plan fits
        assert family == "provision" and out.startswith("infeasible: "), out
        return
    assert status in (0, 2), (argv, status, err)
    if status == 2:
        lines = [line for line in err.splitlines() if "error:" in line]
        assert len(lines) == 1 and "gridmarket" in lines[0], (argv, err)


@settings(max_examples=40, deadline=None)
@given(value=TEXTS)
def test_viz_port_and_timeout_parse_or_exit_2(value):
    from gridmarket.scenarios.commands.cli import _parser

    for option in ("--port", "--timeout"):
        try:
            args = _parser(["viz"]).parse_args(["viz", f"{option}={value}"])
        except SystemExit as exc:
            assert exc.code == 2
        else:
            assert 0 <= (args.port if option == "--port" else args.timeout) <= 86400


NUMERIC_FIELDS = ([f.name for f in fields(Parameters) if f.name != "price_forecasts"]
                  + [f"workload.{f.name}" for f in fields(WorkloadConfig)
                     if f.name in ("n_jobs", "procs", "load_factor", "n_users", "n_workflows", "workflow_tasks",
                                   "workflow_runtime", "workflow_procs", "workflow_data_gb")]
                  + [f"providers.{f.name}" for f in fields(ProviderConfig)
                     if f.name in ("procs", "price_per_mwh", "watts_per_proc", "overbooking")]
                  + ["seed", "duration_seconds"])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(NUMERIC_FIELDS), value=NUMBERS)
def test_numeric_scenario_fields_are_kept_or_refused_naming_the_field(name, value, monkeypatch):
    monkeypatch.setattr(validation, "physical_memory", lambda: 100_000 * BYTES_PER_JOB)
    try:
        with_overrides(get_scenario("quickstart"), {name: value})
    except InvalidInput as err:
        assert name.split(".")[-1] in str(err) and "\n" not in str(err), (name, value, str(err))


@settings(max_examples=60, deadline=None)
@given(a=NUMBERS, b=NUMBERS, sep=st.sampled_from(["..", ","]))
def test_seed_lists_and_grid_ranges_are_bounded_before_they_are_built(a, b, sep):
    text = f"{a}{sep}{b}"
    for parse in (parse_seeds, lambda t: parse_grid([f"seed={t}"])["seed"]):
        try:
            seeds = parse(text)
        except InvalidInput as err:
            assert "\n" not in str(err)
        else:
            assert len(seeds) <= 100_000
