"""Fairness of metascheduling towards each system's users (Murali & Vadhiyar, sec. 4.6, eq. 9).

For a job submitted at system ``S_i``, ``qosScore = R_local / R_grid``: its
response time when every job runs where it was submitted (the BS baseline)
over its response time under metascheduling. A system's fairness score is the
geometric mean of the scores of the jobs submitted there; above 1 its users
gained. Times are integer seconds.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from gridmarket.errors import InvalidInput

__all__ = ["fairness_scores"]


def fairness_scores(grid: pd.DataFrame, baseline: pd.DataFrame, *, by_route: bool = False) -> pd.Series | pd.DataFrame:
    """Geometric mean of ``R_local / R_grid`` per origin system (eq. 9).

    Parameters
    ----------
    grid, baseline : pandas.DataFrame
        Per-job records with ``job_id, origin, submit, end`` (and ``routed`` in
        ``grid`` when ``by_route``), for the same jobs.
    by_route : bool
        Also split each system's score into grid-routed and local submissions
        (sec. 5.6, Expt2).

    Returns
    -------
    pandas.Series (by origin) or DataFrame (origin x {grid, local}).

    Raises
    ------
    InvalidInput
        The two runs do not hold the same jobs.

    Examples
    --------
    >>> base = pd.DataFrame({"job_id": [1, 2], "origin": ["A", "A"], "submit": [0, 0], "end": [100, 400]})
    >>> grid = base.assign(end=[50, 400])
    >>> fairness_scores(grid, base).round(4).to_dict()
    {'A': 1.4142}
    """
    for name, frame in (("grid", grid), ("baseline", baseline)):
        missing = [c for c in ("job_id", "origin", "submit", "end") if c not in frame.columns]
        if missing:
            raise InvalidInput(f"{name} records lack column(s) {missing}")
    if set(grid["job_id"]) != set(baseline["job_id"]):
        raise InvalidInput(
            f"runs hold different jobs ({len(grid)} vs {len(baseline)} records, "
            f"{len(set(grid['job_id']) ^ set(baseline['job_id']))} not shared)"
        )
    base = baseline.set_index("job_id")
    g = grid.set_index("job_id")
    r_local = (base["end"] - base["submit"]).reindex(g.index)
    r_grid = g["end"] - g["submit"]
    if (r_grid <= 0).any() or (r_local <= 0).any():
        raise InvalidInput("response times must be > 0")
    log_score = np.log(r_local / r_grid)
    if not by_route:
        return np.exp(log_score.groupby(g["origin"]).mean())
    if "routed" not in g.columns:
        raise InvalidInput("grid records lack column 'routed'")
    route = np.where(g["routed"], "grid", "local")
    return np.exp(log_score.groupby([g["origin"], route]).mean()).unstack()
