"""Pricing rules by name: what a provider charges on top of the base rate for a slot its plan can hold.

A slot of ``n`` processors for ``d`` hours costs ``n d c + f`` SU (Singh 2008, ch. 5): ``c`` is the
provider's base rate and ``f`` the fixed cost a pricing rule sets. A rule is a function
``rule(quote, plan) -> f``: ``quote`` is the slot's externality quote (:class:`~gridmarket.pricing.quotes.Quote`,
its ``fixed_cost`` the SU of delay the slot imposes on the queued jobs, Fig. 22), ``plan`` the
provider's :class:`~gridmarket.pricing.plan.ProviderPlan`, and the answer is ``f`` in SU (finite,
>= 0). Built in:

* ``"externality"`` -- Singh's adaptive pricing: ``f`` is the externality (ch. 5, Fig. 22);
* ``"flat"`` -- the base rate only (``f = 0``), the posted price of slot advertisement (ch. 3).

A rule of your own is registered with :func:`register_pricing` or named ``"package.module:function"``
wherever a pricing rule is taken (``ProviderPlan(pricing=...)``, a scenario provider's ``pricing``,
``gridmarket quote --pricing``; ``docs/extending.md``). Where a rule applies: every quote of the query
forms (17)-(19) and every sale (``reserve``); the feasible starts are the plan's and form (18)'s
choice of start stays eq. (20) on the externality. Advertised slots keep the base rate (ch. 3).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from gridmarket.errors import InvalidInput
from gridmarket.plugins import FunctionContract, Registry

__all__ = ["PRICING_RULES", "PricingRule", "apply_rule", "register_pricing", "resolve_pricing"]

PricingRule = Callable[[object, object], float]


def _externality(quote, plan) -> float:
    """Singh's adaptive price: ``f`` is the delay the slot imposes on the queued jobs (ch. 5)."""
    return quote.fixed_cost


def _flat(quote, plan) -> float:
    """The base rate only: ``f = 0`` (the posted price of advertised slots, ch. 3)."""
    return 0.0


PRICING_RULES: Registry[PricingRule] = Registry("pricing rule", FunctionContract(("quote", "plan")),
                                                {"externality": _externality, "flat": _flat})
"""Registered pricing rules by name (the live table; :func:`register_pricing` adds to it)."""


def register_pricing(name: str, rule: PricingRule | None = None):
    """Register ``rule`` under ``name`` (also a decorator: ``@register_pricing("markup")``).

    Raises ``InvalidInput`` for a name taken already, a name with a colon (those are plug-in
    names) or a rule that cannot be called as ``rule(quote, plan)``.
    """
    return PRICING_RULES.register(name, rule)


def resolve_pricing(name: str) -> PricingRule:
    """The pricing rule called ``name``: a registered one, or a plug-in ``"package.module:function"``.

    >>> resolve_pricing("flat").__name__
    '_flat'
    >>> resolve_pricing("flta")
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: unknown pricing rule 'flta' (did you mean 'flat'?); known: externality, flat, or a plug-in 'package.module:Name'
    >>> resolve_pricing("os:system")
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: pricing rule 'os:system': system(command) cannot be called with (quote, plan)
    """
    return PRICING_RULES.resolve(name)


def apply_rule(rule: PricingRule, name: str, quote, plan) -> float:
    """``f`` (SU) that ``rule`` sets for the feasible ``quote``; ``InvalidInput`` naming ``name`` if it is not finite and >= 0."""
    f = rule(quote, plan)
    if isinstance(f, bool) or not isinstance(f, (int, float)) or not math.isfinite(f) or f < 0:
        raise InvalidInput(f"pricing rule {name!r} priced the slot at {quote.start} "
                           f"({quote.procs} procs x {quote.duration} s) at f = {f!r}: expected a finite number >= 0 SU")
    return float(f)
