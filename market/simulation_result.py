"""What one simulated machine produced: :class:`SimulationResult` (shared by every engine).

:func:`gridmarket.simulation.simulate` and :func:`gridmarket.twotier.simulate_twotier` both return it; it
lives apart from either engine so that neither imports the other to name its result.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

__all__ = ["SimulationResult"]


@dataclass(frozen=True)
class SimulationResult:
    """What one simulated machine produced.

    Attributes
    ----------
    records : pandas.DataFrame
        One row per simulated job: ``job_id, submit, start, end, procs,
        runtime, estimate, wait, user, outcome`` (``outcome`` is ``completed``
        or ``killed`` at its estimate). Times in seconds.
    summary : dict
        :func:`gridmarket.metrics.summarize` of the records.
    procs : int
        Processors of the machine.
    policy : str
        Name of the local policy.
    dropped : dict of str to int
        Jobs that were not simulated, by reason (reader drops included).
    """

    records: pd.DataFrame
    summary: dict
    procs: int
    policy: str
    dropped: dict[str, int] = field(default_factory=dict)
