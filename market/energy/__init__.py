"""Energy side of the metascheduling market: systems, power, run-time scaling, prices, costs.

After Murali & Vadhiyar, "Metascheduling of HPC jobs in day-ahead electricity
markets", secs. 4.2-4.6. Times are integer seconds from simulation start;
prices are ``price_per_mwh``; power is in ``watts``.
"""

from gridmarket.energy.electricity_cost import (
    WH_PER_MWH,
    electricity_cost,
    electricity_costs,
    service_unit_cost,
)
from gridmarket.energy.power import POWER_MODELS, job_power_watts, power_factors
from gridmarket.energy.prices import (
    HourlyPrices,
    align_to_utc,
    continue_by_repeating,
    fixed_prices,
    read_prices,
    synthetic_prices,
    two_price,
)
from gridmarket.energy.runtime_scaling import scale_factor, scale_runtime, scale_runtimes
from gridmarket.energy.systems import GridSystem, read_systems, system_index, xsede_systems

__all__ = [
    "GridSystem",
    "HourlyPrices",
    "POWER_MODELS",
    "WH_PER_MWH",
    "align_to_utc",
    "continue_by_repeating",
    "electricity_cost",
    "electricity_costs",
    "fixed_prices",
    "job_power_watts",
    "power_factors",
    "read_prices",
    "read_systems",
    "scale_factor",
    "scale_runtime",
    "scale_runtimes",
    "service_unit_cost",
    "synthetic_prices",
    "system_index",
    "two_price",
    "xsede_systems",
]
