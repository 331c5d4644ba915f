"""The paper's performance metrics: average response time and bounded slowdown (Liu et al. 2012, sec. 3.3).

Response time = end - submit. Bounded slowdown = max((end - submit) / max(e, tau), 1), where ``e``
is the job's execution time on dedicated processors — its runtime, capped at its estimate — and
``tau = 10 s`` (Feitelson et al.'s bound, sec. 3.3). On a two-tier machine ``end - start`` is not
the execution time (a bg job runs slower), so :func:`gridmarket.metrics.bounded_slowdown`, which uses
``end - start``, would flatter slowed jobs; this module divides by the dedicated runtime instead.
For one-tier EASY the two definitions coincide. Times are integer seconds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gridmarket.errors import InvalidInput

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["TAU", "paper_metrics"]

#: Seconds below which the execution time is raised in the bounded slowdown (sec. 3.3).
TAU = 10


def paper_metrics(records: pd.DataFrame, tau: int = TAU) -> dict[str, float]:
    """Mean response time and mean bounded slowdown of per-job records.

    Parameters
    ----------
    records : pandas.DataFrame
        Columns ``submit, end, runtime, estimate`` (seconds).
    tau : int
        Lower bound on the execution time, seconds.

    Returns
    -------
    dict
        ``mean_response`` (s) and ``mean_bsld``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"submit": [0, 0], "end": [5, 100], "runtime": [5, 50], "estimate": [5, 60]})
    >>> paper_metrics(df)
    {'mean_response': 52.5, 'mean_bsld': 1.5}
    """
    missing = [c for c in ("submit", "end", "runtime", "estimate") if c not in records.columns]
    if missing:
        raise InvalidInput(f"records lack column(s) {missing}")
    if records.empty:
        raise InvalidInput("no job records")
    response = (records["end"] - records["submit"]).to_numpy(dtype=float)
    execution = np.minimum(records["runtime"], records["estimate"]).to_numpy(dtype=float)
    bsld = np.maximum(response / np.maximum(execution, tau), 1.0)
    return {"mean_response": float(response.mean()), "mean_bsld": float(bsld.mean())}
