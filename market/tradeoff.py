"""The trade-off choice: one candidate of several by a user's factor α (Singh 2008, eq. 15, eq. 20, Fig. 51).

Times are integer seconds (a start, a finish or a makespan), costs are SU. The thesis uses one rule
three times, each time "a linear normalized objective function" of a time and a cost weighted by the
user's trade-off factor α in [0, 1]:

* eq. 15 (ch. 4.6), a resource plan from MOGA's Pareto set: minimise ``α·AC_nr + (1 − α)·SC_nr``,
  ``AC_nr = (AC − AC_min) / (AC_max − AC_min)``, likewise ``SC_nr`` -- "the costs are normalized using
  the minimum and maximum value of the allocation and scheduling costs from the Pareto-optimal set";
* eq. 20 (ch. 5.3), a start from a list of quotes: "the following metric was minimized
  ``{α × f_nr + (1 − α) × s_nr}``", ``f`` the price and ``s`` the start, normalised by the list's
  minimum and maximum;
* Fig. 51 (ch. 7.1), a quote for one task of a workflow: "One <start time, price> tuple is then
  selected from this combined set that minimizes a linear normalized objective function of the finish
  time of the task and its cost based on a user supplied trade off factor α [0,1]".

:func:`choose_by_tradeoff` is that rule, with the one tie rule and the one error every caller
(``gridmarket.pricing.choose``, ``ParetoSet.select``, ``provision_greedy``) answers with.
"""

from __future__ import annotations

from collections.abc import Sequence

from gridmarket.errors import Infeasible, InvalidInput

__all__ = ["check_alpha", "choose_by_tradeoff"]


def check_alpha(alpha: object) -> float:
    """``alpha`` as a float if it is a number in [0, 1]; else ``InvalidInput`` naming it.

    >>> check_alpha(1)
    1.0
    >>> check_alpha(1.5)
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: trade-off factor alpha must be in [0, 1], got 1.5
    """
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 <= alpha <= 1:
        raise InvalidInput(f"trade-off factor alpha must be in [0, 1], got {alpha!r}")
    return float(alpha)


def choose_by_tradeoff(times: Sequence[float], costs: Sequence[float], alpha: float, *, what: str = "candidate") -> int:
    """Index of the candidate minimising ``α·cost_nr + (1 − α)·time_nr`` (Singh 2008, eqs. 15, 20; Fig. 51).

    Parameters
    ----------
    times : sequence of int or float
        Each candidate's time, seconds: the start (eq. 20), the task's finish (Fig. 51) or the plan's
        makespan (eq. 15). Finite.
    costs : sequence of float
        Each candidate's cost, SU: ``f`` (eq. 20), the quote's price (Fig. 51) or the plan's allocation
        cost (eq. 15). Finite; as long as ``times``.
    alpha : float
        The user's trade-off factor in [0, 1]: 1 weighs cost only, 0 time only.
    what : str
        What a candidate is, for the message when there is none (``"quote"``, ``"resource plan"``).

    Returns
    -------
    int
        Index into ``times``/``costs``.

    Raises
    ------
    InvalidInput
        ``alpha`` is not a number in [0, 1] (checked first), or ``times`` and ``costs`` differ in length.
    Infeasible
        No candidate: ``no feasible <what> to choose from``.

    Notes
    -----
    ``x_nr = (x − x_min) / (x_max − x_min)`` over the candidates; a quantity whose max equals its min
    normalises to 0 (the thesis leaves 0/0 open; every candidate is then equally good on it). Tie rule
    (the thesis gives none): the earlier time, then the lower cost, then the first candidate. O(n).

    Examples
    --------
    Table 3 of the thesis: slot X of Fig. 21 costs 6, 8, 10, 0, 0 and 0 SU at the instants t1 to t6
    (drawn without numbers; here 1 h apart). α = 0 takes t1, α = 1 the earliest free start, t4; at
    α = 0.5, t1 scores 0.5 x 0.6 = 0.3 and t4 0.5 x 0.6 = 0.3 -- a tie, to the earlier, t1; at α = 0.7,
    t1 scores 0.42 and t4 0.18:

    >>> h = 3600
    >>> starts, prices = [h, 2 * h, 3 * h, 4 * h, 5 * h, 6 * h], [6.0, 8.0, 10.0, 0.0, 0.0, 0.0]
    >>> [choose_by_tradeoff(starts, prices, a) for a in (0.0, 0.5, 0.7, 1.0)]
    [0, 0, 3, 3]

    Equal scores go to the earlier time (both score 0.5 here) ...

    >>> choose_by_tradeoff([0, h], [10.0, 0.0], 0.5)
    0

    ... and, at one time, to the cheaper:

    >>> choose_by_tradeoff([h, h], [5.0, 3.0], 0.0)
    1
    """
    alpha = check_alpha(alpha)
    n = len(times)
    if len(costs) != n:
        raise InvalidInput(f"trade-off choice: {n} times but {len(costs)} costs")
    if n == 0:
        raise Infeasible(f"no feasible {what} to choose from")
    t_min = min(times)
    t_span = max(times) - t_min
    c_min = min(costs)
    c_span = max(costs) - c_min
    best, best_key = 0, None
    for i in range(n):
        t, c = times[i], costs[i]
        c_nr = (c - c_min) / c_span if c_span > 0 else 0.0
        t_nr = (t - t_min) / t_span if t_span > 0 else 0.0
        key = (alpha * c_nr + (1 - alpha) * t_nr, t, c)
        if best_key is None or key < best_key:
            best, best_key = i, key
    return best
