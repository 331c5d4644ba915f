"""``gridmarket clear``: clear one metascheduling cycle from a costs JSON (Murali & Vadhiyar, sec. 4).

JSON in (``{jobs, systems, cost, capacity[, system_cost]}``, null = incompatible), JSON out
(``{"assignment", "total_cost", "unassigned"}``) by MCMF, stable matching, or any clearing method of
:mod:`gridmarket.clearing.methods` (registered or a plug-in ``"package.module:function"``); also
runnable on its own::

    python -P -m gridmarket.scenarios.commands.clear clear --costs costs.json --method mcmf
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from gridmarket.clearing import (
    CLEARING_METHODS,
    ClearingProblem,
    CycleCosts,
    check_result,
    clear_mcmf,
    resolve_clearing,
    stable_match,
)
from gridmarket.decoding import decode_text, parse_json, read_json
from gridmarket.errors import InvalidInput
from gridmarket.plugins import is_plugin_name
from gridmarket.scenarios.options import bounded, checked, run_standalone
from gridmarket.validation import check_keys, check_number, suggest

__all__ = ["COSTS_KEYS", "DEFAULT_W_T", "METHODS", "add_clear_parser", "check_clear_method", "clear_from_json",
           "main", "run_clear"]

METHODS = ("mcmf", "stable-jobs", "stable-systems")
"""The command's own clearing methods on ``cost`` as given; any other name is a clearing method of
:mod:`gridmarket.clearing.methods` (registered, or a plug-in ``"package.module:function"``)."""

DEFAULT_W_T = 25.0
"""``--wt`` of ``gridmarket clear`` for a registry or plug-in method: the metascheduler's default (percent)."""


def check_clear_method(name: str) -> str:
    """``name`` if ``gridmarket clear`` can clear by it; else one line naming what it can.

    The command's own :data:`METHODS` first (its ``mcmf`` clears ``cost`` as given), then the
    metascheduler's clearing methods (:func:`gridmarket.clearing.resolve_clearing`: registered names such
    as ``stable``, and plug-ins ``"package.module:function"``, imported here).

    >>> check_clear_method("stable-systems"), check_clear_method("stable")
    ('stable-systems', 'stable')
    >>> check_clear_method("stabel")
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: unknown clearing method 'stabel' (did you mean 'stable'?); known: mcmf, stable-jobs, stable-systems, stable, or a plug-in 'package.module:function'
    """
    if name in METHODS:
        return name
    if is_plugin_name(name) or name in CLEARING_METHODS:
        resolve_clearing(name)  # a plug-in that cannot be imported is a one-line error here
        return name
    known = list(METHODS) + [m for m in CLEARING_METHODS if m not in METHODS]
    raise InvalidInput(f"unknown clearing method {name!r}{suggest(str(name), known)}; known: {', '.join(known)}, "
                       "or a plug-in 'package.module:function'")


COSTS_KEYS = ("jobs", "systems", "cost", "capacity", "system_cost")
"""Keys of the costs JSON of ``gridmarket clear``."""


def clear_from_json(data: dict, *, method: str = "mcmf", maxq: int | None = None, backend: str = "ortools",
                    where: str = "costs JSON", w_t: float = DEFAULT_W_T) -> dict:
    """Clear one cycle given as the CLI's JSON object; return the CLI's JSON answer.

    ``data`` = ``{"jobs": [...], "systems": [...], "cost": [[number|null, ...], ...],
    "capacity": {system: K} or [K per system], "system_cost": [[...]] (optional,
    shaped like cost)}``. ``maxq`` (if given) replaces every capacity. Null =
    incompatible. Unknown keys are refused (``where`` names the document).

    ``method``: one of :data:`METHODS`, or a clearing method of the metascheduler
    (:func:`check_clear_method`), which sees the document as one cycle's
    :class:`gridmarket.clearing.CycleCosts`: ``response`` = ``cost`` (what jobs minimise),
    ``energy`` = ``system_cost`` (what systems minimise; ``cost`` without it), ``capacity``,
    and ``w_t`` (percent); its answer is checked (:func:`gridmarket.clearing.check_result`).

    Examples
    --------
    >>> out = clear_from_json({"jobs": ["a", "b", "c"], "systems": ["X"], "cost": [[1], [2], [None]],
    ...                        "capacity": {"X": 1}})
    >>> out["assignment"], out["total_cost"], [u["job"] for u in out["unassigned"]]
    ({'a': 'X'}, 1.0, ['b', 'c'])
    """
    check_clear_method(method)
    check_number("w_t", w_t, "percent")
    check_keys(where, data, COSTS_KEYS, required=("jobs", "systems", "cost"))
    for key in ("jobs", "systems"):
        names = data[key]
        if not isinstance(names, list) or not all(isinstance(n, (str, int)) and not isinstance(n, bool)
                                                  for n in names):
            raise InvalidInput(f"{where}: {key} must be a list of names (strings or integers) (got {names!r})")
    cost = data["cost"]
    if not isinstance(cost, list) or not all(isinstance(row, list) for row in cost):
        raise InvalidInput(f"{where}: cost must be a list of rows, one per job (got {str(cost)[:60]})")
    for i, row in enumerate(cost):
        for j, v in enumerate(row):
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))):
                raise InvalidInput(f"{where}: cost[{i}][{j}] must be a number or null (got {v!r})")
            if v is not None and v >= 0:  # a negative cost has its own message (ClearingProblem)
                check_number(f"{where}: cost[{i}][{j}]", v, "clearing cost")
    capacity = data.get("capacity")
    if capacity is not None and not isinstance(capacity, (dict, list)) and (
            isinstance(capacity, bool) or not isinstance(capacity, int)):
        raise InvalidInput(f"{where}: capacity must be an object of system -> jobs per cycle, a list, or one "
                           f"integer (got {capacity!r})")
    for value in (capacity.values() if isinstance(capacity, dict) else capacity if isinstance(capacity, list)
                  else [capacity]):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise InvalidInput(f"{where}: capacity values must be integers >= 0 or null (got {value!r})")
        if value is not None:
            check_number(f"{where}: capacity", value, "jobs")
    capacity = maxq if maxq is not None else capacity
    if isinstance(capacity, list):  # the Python API's form: one capacity per system, in order
        if len(capacity) != len(data["systems"]):
            raise InvalidInput(f"{where}: capacity has {len(capacity)} entries for {len(data['systems'])} systems "
                               f"(got {capacity!r})")
        capacity = dict(zip(data["systems"], capacity))
    try:
        return _clear(data, capacity, method, backend, where, w_t)
    except InvalidInput as err:  # the problem's own checks (shapes, repeated names, costs that disagree) know no file
        raise (err if str(err).startswith(where) else InvalidInput(f"{where}: {err}")) from None


def _clear(data: dict, capacity, method: str, backend: str, where: str, w_t: float) -> dict:
    """:func:`clear_from_json` once the document's keys and types are checked."""
    problem = ClearingProblem.from_mapping(data["jobs"], data["systems"], data["cost"], capacity)
    if method == "mcmf":
        return clear_mcmf(problem, backend=backend).to_json()
    system_cost = data.get("system_cost")
    if system_cost is not None:
        shape = (len(data["jobs"]), len(data["systems"]))
        if not (isinstance(system_cost, list) and len(system_cost) == shape[0]
                and all(isinstance(row, list) and len(row) == shape[1] for row in system_cost)):
            raise InvalidInput(f"{where}: system_cost must be a list of {shape[0]} rows (one per job) of "
                               f"{shape[1]} numbers or null (one per system), like cost "
                               f"(got {str(system_cost)[:60]})")
        try:
            system_cost = np.array([[np.nan if v is None else v for v in row] for row in system_cost],
                                   dtype=float)
        except (TypeError, ValueError):
            raise InvalidInput(f"{where}: system_cost entries must be numbers or null "
                               f"(got {str(system_cost)[:60]})") from None
        for (i, j), v in np.ndenumerate(system_cost):
            if v >= 0:  # NaN (incompatible) compares false
                check_number(f"{where}: system_cost[{i}][{j}]", float(v), "clearing cost")
    if method in METHODS:
        return stable_match(problem, proposing=method.split("-")[1], system_cost=system_cost).to_json()
    costs = CycleCosts(list(problem.jobs), list(problem.systems), problem.cost.copy(),
                       problem.cost.copy() if system_cost is None else system_cost, list(problem.capacity), w_t)
    return check_result(resolve_clearing(method)(costs), costs, method).to_json()


def add_clear_parser(subparsers) -> argparse.ArgumentParser:
    """Register ``clear`` on the ``gridmarket`` sub-command parsers (the hook for scenarios/commands/cli.py)."""
    p = subparsers.add_parser(
        "clear",
        help="clear one metascheduling cycle (MCMF or stable matching) from a costs JSON",
        description="Read {jobs, systems, cost, capacity[, system_cost]} JSON (null = incompatible) and print "
        '{"assignment", "total_cost", "unassigned"} as JSON.',
    )
    p.add_argument("--costs", required=True, help="costs JSON file ('-' for standard input)")
    p.add_argument("--method", default="mcmf", type=checked(check_clear_method),
                   help="mcmf (min-cost max-flow on cost), stable-jobs, stable-systems (stable matching, the jobs' "
                   "or the systems' side proposing), or a clearing method of the metascheduler: "
                   f"{', '.join(m for m in CLEARING_METHODS if m not in METHODS)} or a plug-in "
                   "'package.module:function', which sees cost as the response and system_cost as the energy "
                   "(docs/extending.md) (default mcmf)")
    p.add_argument("--maxq", type=bounded("jobs"), help="jobs per system per cycle, for every system (overrides capacity)")
    p.add_argument("--backend", default="ortools", choices=("ortools", "networkx"), help="MCMF solver")
    p.add_argument("--wt", type=bounded("percent"), help="for a registry or plug-in --method: weight of cost (response) "
                   f"against system_cost (energy), percent, eq. 6 (default {DEFAULT_W_T:g})")
    p.set_defaults(run=run_clear)
    return p


def run_clear(args: argparse.Namespace) -> int:
    """Body of ``gridmarket clear``: returns the exit status."""
    if args.wt is not None and args.method in METHODS:
        raise InvalidInput(f"--wt weighs cost against system_cost for a registry or plug-in --method; "
                           f"{args.method} does not read it")
    if args.costs == "-":
        # the bytes, so that they are decoded as a file's are; a replaced stdin (a StringIO) holds text already
        raw = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode()
        data = parse_json(decode_text(raw, "standard input", "costs"), "standard input", "costs")
    else:
        data = read_json(args.costs, "costs")
    print(json.dumps(clear_from_json(data, method=args.method, maxq=args.maxq, backend=args.backend,
                                     where="standard input" if args.costs == "-" else args.costs,
                                     w_t=DEFAULT_W_T if args.wt is None else args.wt)))
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -P -m gridmarket.scenarios.commands.clear clear --costs FILE ...``; returns the exit status."""
    return run_standalone(add_clear_parser, argv, __doc__.splitlines()[0])


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
