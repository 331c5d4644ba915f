"""What one simulated machine produced: :class:`SimulationResult` (shared by every engine).

:func:`gridmarket.simulation.simulate` and :func:`gridmarket.twotier.simulate_twotier` both return it; it
lives apart from either engine so that neither imports the other to name its result.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["SimulationResult"]


class SimulationResult:
    """What one simulated machine produced.

    Attributes
    ----------
    records : pandas.DataFrame
        One row per simulated job: ``job_id, submit, start, end, procs,
        runtime, estimate, wait, user, outcome`` (``outcome`` is ``completed``
        or ``killed`` at its estimate). Times in seconds. Built from :attr:`columns`
        when first read: a caller that only writes or summarises them never loads pandas.
    columns : mapping of str to numpy array
        The same records, column by column.
    summary : dict
        :func:`gridmarket.metrics.summarize` of the records.
    procs : int
        Processors of the machine.
    policy : str
        Name of the local policy.
    dropped : dict of str to int
        Jobs that were not simulated, by reason (reader drops included).
    """

    __slots__ = ("_columns", "_records", "dropped", "policy", "procs", "summary")
    _columns: dict[str, Any] | None
    _records: pd.DataFrame | None

    def __init__(self, records: pd.DataFrame | Mapping[str, Any], summary: dict, procs: int, policy: str,
                 dropped: dict[str, int] | None = None) -> None:
        if isinstance(records, Mapping):
            self._columns, self._records = dict(records), None
        else:
            self._columns, self._records = None, records
        self.summary, self.procs, self.policy = summary, procs, policy
        self.dropped = {} if dropped is None else dropped

    @property
    def records(self) -> pd.DataFrame:
        if self._records is None:
            import pandas as pd

            self._records = pd.DataFrame(self._columns)
        return self._records

    @property
    def columns(self) -> Mapping[str, Any]:
        if self._columns is None:
            frame = self.records
            self._columns = {name: frame[name].to_numpy() for name in frame.columns}
        return self._columns

    def __repr__(self) -> str:
        jobs = len(next(iter(self.columns.values()), ()))
        return f"SimulationResult(policy={self.policy!r}, procs={self.procs}, jobs={jobs}, dropped={self.dropped})"
