"""``gridmarket quote`` and ``gridmarket advertise``: a provider's slot prices from a state file.

A thin layer over :mod:`gridmarket.pricing` (Singh 2008, ch. 3 and ch. 5). The
main CLI adds these subcommands with :func:`add_subcommands`; until it does,
``python -P -m gridmarket.scenarios.commands.quote quote ...`` runs them standalone.
"""

from __future__ import annotations

import argparse
import json
import sys

from gridmarket.errors import InvalidInput
from gridmarket.pricing import ProviderPlan, check_policy, pricing_planner, read_state, resolve_pricing
from gridmarket.scenarios.options import bounded, checked

__all__ = ["STATE_HELP", "add_subcommands", "main"]

STATE_HELP = """\
state.json holds the provider's state at one instant (times in integer seconds):
  {"now": 100, "procs": 5,
   "running": [{"id": 1, "procs": 2, "start": 0, "end": 300}],
   "queued": [{"id": 2, "submit": 50, "procs": 2, "estimate": 200}],
   "reservations": [{"start": 400, "procs": 1, "duration": 100}]}
"end" of a running job is its planned end (start + estimate); queued jobs are
served in arrival order (submit, then id); a reservation may carry an "id".
"running", "queued" and "reservations" may be omitted when empty.
"""


def _plan(args: argparse.Namespace) -> ProviderPlan:
    state = read_state(args.state)
    planner = pricing_planner(args.policy)  # the option's name, resolved once
    try:  # the state must be one the policy can plan (PSP: every job's user, a valid policy_state)
        planner.plan(state)
    except InvalidInput as err:
        raise InvalidInput(f"{args.state}: {err}") from None
    return ProviderPlan(state, planner, unit_cost=args.unit_cost, pricing=getattr(args, "pricing", "externality"))


def _quote(args: argparse.Namespace) -> int:
    plan = _plan(args)
    rows: list[dict[str, object]] = []
    for q in plan.quotes(args.procs, args.duration, start=args.start, earliest=args.earliest):
        if q.feasible:
            rows.append({"start": q.start, "price": q.fixed_cost, "total_cost": q.total_cost})
        else:
            rows.append({"start": q.start, "price": None, "total_cost": None, "reason": q.reason})
    print(json.dumps(rows, indent=1))
    return 0


def _advertise(args: argparse.Namespace) -> int:
    plan = _plan(args)
    rows = [
        {
            "start": s.start, "procs": s.procs, "duration": s.duration, "unit_cost": s.unit_cost,
            "fixed_cost": s.fixed_cost, "divisible": s.divisible, "extensible": s.extensible, "issued": s.issued,
        }
        for s in plan.advertise(until=args.until)
    ]
    print(json.dumps(rows, indent=1))
    return 0


def add_subcommands(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``quote`` and ``advertise`` subcommands (each sets ``run``) to ``subparsers``."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--state", required=True, help="the provider's state.json (layout below)")
    common.add_argument("--policy", default="conservative", type=checked(check_policy),
                        help="the provider's local policy, which plans its queue: conservative, slots, easy, fcfs, "
                        "psp, psp-slurm (jobs need 'user'; users' accuracies in 'policy_state') "
                        "or a plug-in 'package.module:Name' (default conservative)")
    common.add_argument("--unit-cost", type=bounded("unit cost"), default=1.0,
                        help="base rate c in SU per processor-hour (default 1)")
    quote = subparsers.add_parser(
        "quote",
        parents=[common],
        help="price a slot by adaptive externality pricing (Singh 2008, ch. 5)",
        description="Price a slot of --procs processors for --duration seconds on the provider of "
        "--state: its fixed cost f (SU = processor-hours) is the delay it causes to the queued jobs "
        "times their processors (Fig. 22). Prints JSON [{\"start\": s, \"price\": f, \"total_cost\": "
        "n*d*c + f}, ...]: with --start, the one start (form 17; a refused start has \"price\": null "
        "and a \"reason\"); with --earliest, the candidate starts at or after it (form 19); otherwise "
        "every candidate start (form 18). Candidates are now and every instant at which the plan's "
        "availability changes; the list always ends with a start at price 0.",
        epilog=STATE_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    quote.add_argument("--pricing", default="externality", type=checked(resolve_pricing),
                       help="pricing rule that sets f: externality (Fig. 22, default), flat (base rate only) or "
                            "a plug-in 'package.module:function' (docs/extending.md)")
    quote.add_argument("--procs", type=bounded("processors"), required=True, help="processors of the slot")
    quote.add_argument("--duration", type=bounded("seconds", low=1), required=True, help="duration of the slot (seconds)")
    when = quote.add_mutually_exclusive_group()
    when.add_argument("--start", type=bounded("seconds"), help="fixed start (seconds): form 17")
    when.add_argument("--earliest", type=bounded("seconds"), help="earliest acceptable start (seconds): form 19")
    quote.set_defaults(run=_quote)
    adv = subparsers.add_parser(
        "advertise",
        parents=[common],
        help="list the provider's non-delaying free slots at best-effort price (Singh 2008, ch. 3)",
        description="Print the free slots of the provider's plan as JSON [{\"start\", \"procs\", "
        "\"duration\", \"unit_cost\", \"fixed_cost\", \"divisible\", \"extensible\", \"issued\"}, ...]. "
        "Buying one delays no planned job. Slots bounded by a job start are indivisible and "
        "non-extensible; those reaching the end of the plan are divisible and extensible and end at "
        "--until (default: 48 h from now or the plan's end + 5 min, whichever is later).",
        epilog=STATE_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    adv.add_argument("--until", type=bounded("seconds"), help="delineation time of the advertisement (seconds)")
    adv.set_defaults(run=_advertise)


def main(argv: list[str] | None = None) -> int:
    """Run ``quote`` or ``advertise`` standalone; returns the exit status."""
    from gridmarket.scenarios.options import run_standalone

    return run_standalone(add_subcommands, argv, __doc__.splitlines()[0])


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
