"""``gridmarket provision``: provision a workflow over slots by a provisioning method (Singh 2008, ch. 4, 7).

``--method`` takes any provisioning method of :mod:`gridmarket.provisioning.methods`, registered or a
plug-in ``"package.module:function"``; also runnable on its own::

    python -P -m gridmarket.scenarios.commands.provision --workflow wf.json --slots slots.json --method moga --alpha 0.5 --seed 1

Times are seconds; costs are SU.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

from gridmarket.errors import Infeasible, InvalidInput, MarketError
from gridmarket.pricing import BASE_RATE, Slot
from gridmarket.provisioning import (
    PROVISIONING_METHODS,
    ProvisioningProblem,
    check_provisioning,
    resolve_provisioning,
)
from gridmarket.scenarios.harnesses.provisioning import run_id
from gridmarket.validation import check_keys, check_number, read_json
from gridmarket.workflows import Network, read_dax, read_workflow_json

__all__ = ["add_arguments", "main", "run"]

_SLOTS_KEYS = ("slots", "resources", "release", "network")
_SLOT_KEYS = ("resource", "start", "procs", "duration", "divisible", "extensible", "unit_cost", "fixed_cost")


def _read_slots(path: Path) -> tuple[list[Slot], dict, int, Network | None]:
    doc: Any = read_json(path, "slots")  # JSON: checked key by key below
    if isinstance(doc, list):
        doc = {"slots": doc}
    check_keys(str(path), doc, _SLOTS_KEYS, required=("slots",))
    if not isinstance(doc["slots"], list):
        raise InvalidInput(f"{path}: slots must be a list of slots (got {type(doc['slots']).__name__})")
    slots = []
    for i, s in enumerate(doc["slots"]):
        where = f"{path}: slots[{i}]"
        check_keys(where, s, _SLOT_KEYS, required=("start", "procs"))
        for flag in ("divisible", "extensible"):
            if flag in s and not isinstance(s[flag], bool):
                raise InvalidInput(f"{where}.{flag}: must be true or false (got {s[flag]!r})")
        if "resource" in s and not isinstance(s["resource"], str):
            raise InvalidInput(f"{where}.resource: must be a resource name (got {s['resource']!r})")
        for key, low, what in (("start", 0, "an integer >= 0 seconds"), ("procs", 1, "an integer >= 1")):
            if isinstance(s[key], bool) or not isinstance(s[key], int) or s[key] < low:
                raise InvalidInput(f"{where}.{key}: must be {what} (got {s[key]!r})")
        check_number(f"{where}.start", s["start"], "seconds")
        check_number(f"{where}.procs", s["procs"], "processors")
        for key in ("duration", "unit_cost", "fixed_cost"):
            value = s.get(key)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                      or not 0 <= value < math.inf):
                raise InvalidInput(f"{where}.{key}: must be a finite number >= 0 (got {value!r})")
        if s.get("duration") is not None:
            check_number(f"{where}.duration", s["duration"], "seconds", whole=False)
        if s.get("unit_cost") is not None:
            check_number(f"{where}.unit_cost", s["unit_cost"], "unit cost")
        try:
            duration = s.get("duration")
            endless = duration is None  # an edge slot: divisible and extensible unless the file says otherwise
            slots.append(Slot(s["start"], s["procs"], math.inf if endless else duration,  # type: ignore[arg-type]  # an edge slot may be endless
                              s.get("unit_cost", BASE_RATE), s.get("fixed_cost", 0.0),
                              s.get("divisible", endless), s.get("extensible", endless),
                              resource=s.get("resource", "site")))
        except (TypeError, AttributeError) as exc:
            raise InvalidInput(f"{where}: is malformed ({exc})") from None
        except MarketError as exc:
            raise InvalidInput(f"{where}: {exc}") from None
    resources = doc.get("resources", {})
    if not isinstance(resources, dict):
        raise InvalidInput(f"{path}: resources must be an object of name -> {{procs}} (got {resources!r})")
    machines = {}
    for name, m in resources.items():
        check_keys(f"{path}: resources.{name}", m, ("procs",), required=("procs",))
        if isinstance(m["procs"], bool) or not isinstance(m["procs"], int) or m["procs"] < 1:
            raise InvalidInput(f"{path}: resources.{name}.procs must be an integer >= 1 (got {m['procs']!r})")
        check_number(f"{path}: resources.{name}.procs", m["procs"], "processors")
        machines[name] = m["procs"]
    for i, slot in enumerate(slots):  # a slot offers processors of one machine: never more than it has
        if slot.resource in machines and slot.procs > machines[slot.resource]:
            raise InvalidInput(f"{path}: slots[{i}].procs: {slot.procs} processors on resource {slot.resource!r}, "
                               f"whose machine has {machines[slot.resource]} (resources.{slot.resource}.procs)")
    net = doc.get("network")
    if net is not None:
        check_keys(f"{path}: network", net, ("latency", "bytes_per_second"))
        for key, value in net.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
                raise InvalidInput(f"{path}: network.{key} must be a number >= 0 (got {value!r})")
        if "latency" in net:
            check_number(f"{path}: network.latency", net["latency"], "seconds", whole=False)
    release = doc.get("release", 0)
    if isinstance(release, bool) or not isinstance(release, int) or release < 0:
        raise InvalidInput(f"{path}: release must be an integer >= 0 seconds (got {release!r})")
    check_number(f"{path}: release", release, "seconds")
    network = Network(net.get("latency", 0), net.get("bytes_per_second", math.inf)) if net else None
    return slots, machines, int(doc.get("release", 0)), network


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``provision`` (for the main CLI's subparser)."""
    from gridmarket.scenarios.options import bounded, checked

    parser.add_argument("--workflow", required=True,
                        help="workflow: gridmarket JSON {tasks, edges}, WfCommons JSON, or Pegasus DAX (.xml)")
    parser.add_argument("--slots", required=True,
                        help="slots JSON: a list (or {'slots': [...], 'resources': {name: {procs}}, 'release', "
                        "'network': {latency, bytes_per_second}}) of {resource, start, procs, duration "
                        "(null = endless), divisible, extensible, unit_cost, fixed_cost}")
    parser.add_argument("--method", default="moga", type=checked(resolve_provisioning),
                        help=f"provisioning method: {', '.join(PROVISIONING_METHODS)} or a plug-in "
                        "'package.module:function' (docs/extending.md) (default moga)")
    parser.add_argument("--alpha", type=bounded("fraction"), default=0.5, help="trade-off factor in [0, 1] (default 0.5)")
    parser.add_argument("--seed", type=bounded("seed"), default=1,
                        help="seed of the method's random draws, e.g. MOGA's (default 1)")
    parser.add_argument("--population", type=bounded("population"), default=100, help="MOGA: plans per generation (default 100)")
    parser.add_argument("--generations", type=bounded("generations"), default=10, help="MOGA: generations (default 10)")


def run(args: argparse.Namespace) -> int:
    """Provision the workflow on the slots by ``--method`` and print the plan (and any Pareto set it chose from).

    The method's answer is checked against the slots (:func:`gridmarket.provisioning.check_provisioning`)
    before it is printed. Exit status 0 with a plan; 1 with one line "infeasible: ..." when no plan
    fits the slots (a valid question without an answer); 2 for bad input or a method's invalid answer.
    """
    wf_path = Path(args.workflow)
    workflow = read_dax(wf_path) if wf_path.suffix.lower() in (".xml", ".dax") else read_workflow_json(wf_path)
    slots, machines, release, network = _read_slots(Path(args.slots))
    if not slots:
        raise InvalidInput(f"{args.slots}: the slot set is empty")
    method = resolve_provisioning(args.method)
    try:
        problem = ProvisioningProblem(workflow, tuple(slots), machines, release, network, args.alpha,
                                      args.population, args.generations)
        result = method(problem, rng=np.random.default_rng(args.seed))
    except Infeasible as exc:
        print(f"infeasible: {exc}")
        return 1
    except InvalidInput as exc:  # the two files disagree (a task no slot's resource can run, ...): name both
        raise InvalidInput(f"{args.workflow} with {args.slots}: {exc}") from None
    result = check_provisioning(result, problem, args.method)
    if result.front is not None:
        chosen = (result.allocation_cost, result.finish(release) - release)
        print(f"{run_id(args.method, 'cli', args.alpha, args.seed)}: {len(result.front)} Pareto plans, "
              f"{result.n_evaluations} plans evaluated")
        print("Pareto set (allocation cost SU, makespan s):")
        marked = False
        for p in result.front.plans:
            mark = ""
            if not marked and p.makespan == chosen[1] and math.isclose(p.allocation_cost, chosen[0], abs_tol=1e-9):
                mark, marked = "  <- chosen", True
            print(f"  {p.allocation_cost:12.3f}  {p.makespan:10}  slots {list(p.slots)}{mark}")
    print("plan (task, resource, start, end):")
    for t, pl in result.placements.items():
        if pl.resource is not None:
            print(f"  {t}  {pl.resource}  {pl.start}  {pl.end}")
    print("bought: " + ", ".join(f"{key}: {price:.3f} SU" for key, price in result.charges.items()))
    print(f"makespan (s): {result.finish(release) - release}")
    print(f"allocation cost (SU): {result.allocation_cost:.3f}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -P -m gridmarket.scenarios.commands.provision`` (``provision`` options); returns the exit status."""
    parser = argparse.ArgumentParser(prog="gridmarket provision", description=__doc__.splitlines()[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return run(args)
    except (MarketError, OSError) as err:
        print(f"gridmarket provision: error: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
