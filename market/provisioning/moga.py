"""Multi-objective genetic algorithm (MOGA) for resource plans over advertised slots.

Singh 2008, ch. 4.5 (Figure 11), after Fonseca & Fleming (1993) as presented
by Deb (2001): a plan is a bit string over the global slot set; each
generation ranks the population by domination (eq. 8), gives every rank the
average of the fitness its members would get in a linear ranking (eqs. 9-10),
divides it by a niche count in normalised objective space with
``σ_share = 0.041`` (eqs. 11-12), rescales each rank to its old total
(eq. 13), fills a mating pool by proportionate selection (eq. 14), pairs it at
random for two-point crossover and flips every bit with probability ``1/n``;
an external Pareto archive is updated with every new population. Defaults:
population 100, 10 generations (ch. 4.7).

DEAP provides the toolbox, the fitness and individual types and the archive
(:class:`deap.tools.ParetoFront`); the sharing fitness is what it lacks.
DEAP's own variation operators draw from Python's global ``random`` state, so
the two that MOGA uses are re-stated here over the caller's
``numpy.random.Generator`` (STYLE.md, "Randomness") and registered in the
toolbox in their place.

Times are seconds; costs are SU.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from deap import base, tools

from gridmarket.errors import InvalidInput
from gridmarket.provisioning.pareto import ParetoPlan, ParetoSet
from gridmarket.provisioning.schedule import PlanEvaluator

__all__ = ["SIGMA_SHARE", "MogaResult", "cx_two_point", "moga", "moga_fitness", "mut_flip_bit"]

SIGMA_SHARE = 0.041  # ch. 4.5, after eq. (11)
INF = math.inf


class _Fitness(base.Fitness):
    """Two objectives, both minimised: (allocation cost, scheduling cost)."""

    weights = (-1.0, -1.0)


class _Plan(list):
    """A bit string over the slot set with a DEAP fitness (``creator`` without its global registry)."""

    __slots__ = ("fitness", "violation")

    def __init__(self, bits=()):
        super().__init__(bits)
        self.fitness = _Fitness()
        self.violation = 0


# ----------------------------------------------------------------------------- operators
def cx_two_point(a: list, b: list, *, rng: np.random.Generator) -> tuple[list, list]:
    """Two-point crossover in place: swap ``a[i:j]`` and ``b[i:j]`` (DEAP's ``cxTwoPoint`` over ``rng``).

    The cut points are drawn as DEAP draws them: ``i`` in ``[1, n]``, ``j`` in
    ``[1, n − 1]`` moved past ``i`` (or swapped with it), so ``1 <= i < j <= n``.

    >>> a, b = [0] * 6, [1] * 6
    >>> cx_two_point(a, b, rng=np.random.default_rng(0))
    ([0, 0, 0, 0, 1, 1], [1, 1, 1, 1, 0, 0])
    """
    size = min(len(a), len(b))
    if size < 2:
        return a, b
    i = int(rng.integers(1, size, endpoint=True))
    j = int(rng.integers(1, size - 1, endpoint=True))
    if j >= i:
        j += 1
    else:
        i, j = j, i
    a[i:j], b[i:j] = b[i:j], a[i:j]
    return a, b


def mut_flip_bit(ind: list, *, indpb: float, rng: np.random.Generator) -> tuple[list]:
    """Flip every bit with probability ``indpb``, in place (DEAP's ``mutFlipBit`` over ``rng``).

    >>> mut_flip_bit([0, 0, 0, 0], indpb=1.0, rng=np.random.default_rng(0))
    ([1, 1, 1, 1],)
    """
    flips = rng.random(len(ind)) < indpb
    for i in np.flatnonzero(flips):
        ind[i] = 1 - ind[i]
    return (ind,)


# ----------------------------------------------------------------------------- fitness
def moga_fitness(
    allocation_cost: Sequence[float] | np.ndarray,
    scheduling_cost: Sequence[float] | np.ndarray,
    *,
    violation: Sequence[int] | None = None,
    sigma_share: float = SIGMA_SHARE,
) -> np.ndarray:
    """MOGA's shared fitness of a population (eqs. 8-13); higher is fitter.

    Parameters
    ----------
    allocation_cost, scheduling_cost : sequence of float
        AC and SC of each member (SC is ``inf`` for an infeasible plan).
    violation : sequence of int, optional
        Tasks an infeasible plan could not place (0 when feasible).
    sigma_share : float
        Niche radius in normalised objective space.

    Returns
    -------
    numpy.ndarray
        Shared and rescaled fitness ``F'`` of each member.

    Notes
    -----
    * Rank ``r_i = 1 + n_i``, ``n_i`` the members dominating ``i`` (eq. 8).
      Infeasible plans are handled by Deb's constrained domination (Deb 2001,
      the thesis's reference [18]): a feasible plan dominates every
      infeasible one, and infeasible plans compare on (tasks left unplaced,
      AC). Without it the empty plan (AC 0, SC ∞) would be non-dominated and
      the search would reward plans with no slots.
    * ``F_i = N − Σ_{k<r_i} μ(k) − (μ(r_i) − 1) / 2`` (eq. 10): the mean of
      the linear fitnesses N, N−1, ..., 1 handed out to the members sorted
      by rank, so they sum to ``N(N + 1) / 2``.
    * Niche count ``nc_i = Σ_{j: r_j = r_i} Sh(d_ij)``, ``Sh(d) = 1 − d / σ``
      when ``d <= σ`` else 0, ``d_ij`` the Euclidean distance of AC and SC
      each scaled by its range over the population (eq. 11; over the
      infeasible members, SC is replaced by the tasks left unplaced). A cost
      with no range adds no distance.
    * ``F'_i = F_i / nc_i`` (eq. 12), then rescaled so each rank keeps the
      total ``μ(r_i) F_i`` (eq. 13).

    O(N²) for a population of N.

    Examples
    --------
    Four plans (AC, SC): (1, 4), (4, 1) and (3, 3) dominate each other
    nowhere (rank 1); (2, 5) is dominated by (1, 4) (rank 2). So μ(1) = 3,
    F = 4 − (3 − 1) / 2 = 3 for rank 1 and F = 4 − 3 = 1 for rank 2. The
    points are far apart, so every niche count is 1 and sharing changes nothing.

    >>> moga_fitness([1, 4, 3, 2], [4, 1, 3, 5]).tolist()
    [3.0, 3.0, 3.0, 1.0]
    """
    ac = np.asarray(allocation_cost, dtype=float)
    sc = np.asarray(scheduling_cost, dtype=float)
    n = len(ac)
    if len(sc) != n:
        raise InvalidInput("allocation_cost and scheduling_cost differ in length")
    if not (isinstance(sigma_share, (int, float)) and sigma_share > 0):
        raise InvalidInput(f"sigma_share must be > 0, got {sigma_share!r}")
    if n == 0:
        return np.zeros(0)
    viol = np.zeros(n) if violation is None else np.asarray(violation, dtype=float)
    feasible = np.isfinite(sc) & (viol == 0)
    second = np.where(feasible, sc, viol)  # infeasible: compare on tasks left unplaced

    # domination matrix dom[i, j]: i dominates j (constrained domination)
    le = (ac[:, None] <= ac[None, :]) & (second[:, None] <= second[None, :])
    lt = (ac[:, None] < ac[None, :]) | (second[:, None] < second[None, :])
    same_class = feasible[:, None] == feasible[None, :]
    dom = (same_class & le & lt) | (feasible[:, None] & ~feasible[None, :])
    rank = 1 + dom.sum(axis=0)  # eq. 8

    # eqs. 9-10: average fitness of each rank
    mu = np.bincount(rank, minlength=n + 2)
    below = np.concatenate(([0], np.cumsum(mu)))  # below[r] = members with rank < r
    fit = n - below[rank] - 0.5 * (mu[rank] - 1)

    # eqs. 11-13: sharing within each rank, in objective space normalised per class
    out = fit.astype(float).copy()
    for cls in (True, False):
        members = np.flatnonzero(feasible == cls)
        if len(members) == 0:
            continue
        x, y = ac[members], second[members]
        span_x = x.max() - x.min()
        span_y = y.max() - y.min()
        nx_ = (x - x.min()) / span_x if span_x > 0 else np.zeros_like(x)
        ny_ = (y - y.min()) / span_y if span_y > 0 else np.zeros_like(y)
        r = rank[members]
        d = np.hypot(nx_[:, None] - nx_[None, :], ny_[:, None] - ny_[None, :])
        sh = np.where(d <= sigma_share, 1.0 - d / sigma_share, 0.0) * (r[:, None] == r[None, :])
        nc = sh.sum(axis=1)  # >= 1: each member shares with itself
        shared = fit[members] / nc
        for rr in np.unique(r):
            sel = r == rr
            total = shared[sel].sum()
            shared[sel] *= fit[members][sel][0] * sel.sum() / total
        out[members] = shared
    return out


# ----------------------------------------------------------------------------- the search
@dataclass(frozen=True)
class MogaResult:
    """What one MOGA run found.

    Attributes
    ----------
    front : ParetoSet
        The archive after the last generation (feasible plans only).
    n_evaluations : int
        Plans scheduled (distinct bit strings; repeats are cached).
    generations : int
        Generations run after the initial population.
    history : tuple of int
        Size of the archive after the initial population and each generation.
    """

    front: ParetoSet
    n_evaluations: int
    generations: int
    history: tuple[int, ...]


def moga(
    evaluator: PlanEvaluator,
    *,
    population: int = 100,
    generations: int = 10,
    sigma_share: float = SIGMA_SHARE,
    rng: np.random.Generator,
) -> MogaResult:
    """Search the Pareto set of resource plans over the evaluator's slot set (ch. 4.5, Figure 11).

    Parameters
    ----------
    evaluator : PlanEvaluator
        Workflow, slot set and network: gives (AC, SC) of a plan.
    population : int
        Members per generation (100 in ch. 4.7), >= 2.
    generations : int
        Generations after the initial one (10 in ch. 4.7), >= 0.
    sigma_share : float
        Niche radius (0.041, ch. 4.5).
    rng : numpy.random.Generator
        Every random draw: initial plans, selection, pairing, crossover points, mutation.

    Returns
    -------
    MogaResult
        ``front`` is empty when no feasible plan was met; ``front.select(α)``
        then raises :class:`gridmarket.errors.Infeasible`.

    Notes
    -----
    Initial plans are uniform random bit strings ("random numbers between 0
    and 2^n − 1"). Every member of the mating pool is paired (at random) and
    crossed; an odd one out is copied. Plans are cached by bit string, so
    ``n_evaluations`` counts distinct plans. The archive is a
    :class:`deap.tools.ParetoFront` that keeps one plan per (AC, SC) point
    (the first met).

    Examples
    --------
    >>> import networkx as nx
    >>> from gridmarket.pricing import Slot
    >>> g = nx.DiGraph([("a", "b")])
    >>> g.add_node("a", procs=1, runtime=3600); g.add_node("b", procs=1, runtime=3600)
    >>> slots = [Slot(0, 1, 7200, resource="m"),
    ...          Slot(7200, 1, math.inf, divisible=True, extensible=True, resource="m")]
    >>> result = moga(PlanEvaluator(g, slots), population=8, generations=3, rng=np.random.default_rng(0))
    >>> result.front.points      # slot 0 alone: 2 h, 2 SU; slot 1 alone: 4 h, 2 SU (dominated)
    [(2.0, 7200)]
    """
    for name, value, low in (("population", population, 2), ("generations", generations, 0)):
        if not isinstance(value, int) or isinstance(value, bool) or value < low:
            raise InvalidInput(f"{name} must be an int >= {low}, got {value!r}")
    n = evaluator.n_slots
    cache: dict[tuple[int, ...], tuple[float, float, int]] = {}

    def evaluate(ind: _Plan) -> tuple[float, float]:
        key = tuple(ind)
        if key not in cache:
            cache[key] = evaluator.evaluate(key)
        ac, sc, viol = cache[key]
        ind.violation = viol
        return ac, sc

    toolbox = base.Toolbox()
    toolbox.register("individual", lambda: _Plan(rng.integers(0, 2, n).tolist()))
    toolbox.register("population", tools.initRepeat, list, toolbox.individual)
    toolbox.register("evaluate", evaluate)
    toolbox.register("mate", cx_two_point, rng=rng)
    toolbox.register("mutate", mut_flip_bit, indpb=1.0 / n, rng=rng)

    def assess(pop: list[_Plan]) -> None:
        for ind in pop:
            ind.fitness.values = toolbox.evaluate(ind)

    archive = tools.ParetoFront(similar=lambda a, b: True)  # one plan per objective point

    def update(pop: list[_Plan]) -> None:
        archive.update([ind for ind in pop if ind.violation == 0 and ind.fitness.values[1] < INF])

    pop = toolbox.population(n=population)
    assess(pop)
    update(pop)
    history = [len(archive)]
    for _ in range(generations):
        values = np.array([ind.fitness.values for ind in pop])
        shared = moga_fitness(values[:, 0], values[:, 1], violation=[ind.violation for ind in pop],
                              sigma_share=sigma_share)
        picks = rng.choice(population, size=population, p=shared / shared.sum())  # eq. 14
        pool = [_Plan(pop[i]) for i in picks]
        order = rng.permutation(population)
        offspring: list[_Plan] = []
        for a, b in zip(order[0::2], order[1::2]):
            c1, c2 = toolbox.mate(pool[a], pool[b])
            offspring.extend((c1, c2))
        if population % 2:
            offspring.append(pool[order[-1]])
        for ind in offspring:
            toolbox.mutate(ind)
        pop = offspring
        assess(pop)
        update(pop)
        history.append(len(archive))
    # a plan is the slots it buys: slots of the bit string no task uses change nothing
    plans = [ParetoPlan(evaluator.schedule(list(ind)).bought, *cache[tuple(ind)][:2]) for ind in archive]
    return MogaResult(ParetoSet.of(plans), len(cache), generations, tuple(history))
