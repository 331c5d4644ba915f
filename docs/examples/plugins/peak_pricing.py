"""Peak-hour pricing: a provider pricing rule written outside gridmarket.

Used by docs/extending.md as ``peak_pricing:peak_markup`` (with ``docs/examples/plugins`` on
PYTHONPATH). A pricing rule takes a slot's externality quote and the provider's plan and returns
the fixed cost ``f`` in SU (finite, >= 0); the slot then costs ``n d c + f``.
"""

PEAK_HOURS = range(8, 20)  # hours of the day (simulation time 0 = midnight)
MARKUP = 0.5  # share of the base charge n d c added for a slot starting in the peak


def peak_markup(quote, plan):
    """Singh's externality price, plus half the base charge for slots that start in peak hours."""
    hour = (quote.start // 3600) % 24
    base_charge = quote.procs * quote.duration / 3600 * quote.unit_cost
    return quote.fixed_cost + (MARKUP * base_charge if hour in PEAK_HOURS else 0.0)
