"""The trade-off choice (Singh 2008, eqs. 15, 20; Fig. 51): one rule, and every caller gives its answer."""

import math

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridmarket.errors import Infeasible, InvalidInput
from gridmarket.pricing import Quote, choose
from gridmarket.provisioning import ParetoPlan, ParetoSet, provision_greedy
from gridmarket.provisioning.quotes import PriceQuote
from gridmarket.tradeoff import choose_by_tradeoff

H = 3600


class _Quoting:
    """A provider that quotes one fixed ``(start, price)`` for a 1-hour task (the greedy's protocol)."""

    def __init__(self, name, start, price):
        self.name, self.procs, self.start, self.price = name, 4, start, price

    def quotes(self, procs, duration, earliest):
        return [PriceQuote(self.start, self.price)]

    def reserve(self, start, procs, duration):
        pass


def _by_quotes(times, costs, alpha):
    quotes = [Quote(t, 1, H, c) for t, c in zip(times, costs)]
    return quotes.index(choose(quotes, alpha))


def _by_pareto_set(times, costs, alpha):
    plans = tuple(ParetoPlan((i,), c, t) for i, (t, c) in enumerate(zip(times, costs)))
    return ParetoSet(plans).select(alpha).slots[0]


def _by_greedy(times, costs, alpha):
    g = nx.DiGraph()
    g.add_node("t", procs=1, runtime=H)
    providers = [_Quoting(f"p{i}", t, c) for i, (t, c) in enumerate(zip(times, costs))]
    plan = provision_greedy(g, providers, alpha=alpha, release=0)
    return int(plan.placements["t"].resource[1:])


CALLERS = [_by_quotes, _by_pareto_set, _by_greedy]


@pytest.mark.parametrize("caller", CALLERS)
def test_every_caller_breaks_a_tie_at_one_time_by_the_lower_cost(caller):
    # two candidates at the same time, alpha 0: equal scores; the one rule takes the cheaper
    # (eq. 20's choose once took the first, Fig. 51 and eq. 15 the cheaper)
    assert caller([H, H], [5.0, 3.0], 0.0) == 1


@pytest.mark.parametrize("caller", CALLERS)
def test_every_caller_breaks_a_tie_of_scores_by_the_earlier_time(caller):
    assert caller([2 * H, H], [0.0, 10.0], 0.5) == 1


@pytest.mark.parametrize("caller", CALLERS)
def test_every_caller_refuses_alpha_outside_0_1_with_one_message(caller):
    with pytest.raises(InvalidInput, match=r"^trade-off factor alpha must be in \[0, 1\], got 1.5$"):
        caller([H], [1.0], 1.5)


def test_every_caller_refuses_an_empty_choice_as_infeasible():
    with pytest.raises(Infeasible, match="no feasible quote to choose from"):
        choose([], 0.5)
    with pytest.raises(Infeasible, match="no feasible resource plan to choose from"):
        ParetoSet(()).select(0.5)
    with pytest.raises(Infeasible, match="no feasible candidate to choose from"):
        choose_by_tradeoff([], [], 0.5)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), min_size=1, max_size=6),
       st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]))
def test_every_caller_gives_the_rules_answer(pairs, alpha):
    times = [H * t for t, _ in pairs]
    costs = [float(c) for _, c in pairs]
    expected = choose_by_tradeoff(times, costs, alpha)
    assert [caller(times, costs, alpha) for caller in CALLERS] == [expected] * len(CALLERS)


def test_table_3_by_hand():
    # Singh 2008, Table 3: slot X of Fig. 21 costs f = 6, 8, 10, 0, 0, 0 SU at t1..t6 (delays of C and D);
    # the thesis draws the instants without numbers, here 1 h apart. Normalised: f_nr = 0.6, 0.8, 1, 0, 0, 0,
    # s_nr = 0, 0.2, ..., 1. alpha 0.5: t1 scores 0.5 x 0.6 = 0.3 and t4 0.5 x 0.6 = 0.3, a tie -> the earlier,
    # t1; alpha 0.7: t1 0.42, t4 0.3 x 0.6 = 0.18 -> t4; alpha 1: the earliest of the free starts, t4.
    times, costs = [1 * H, 2 * H, 3 * H, 4 * H, 5 * H, 6 * H], [6.0, 8.0, 10.0, 0.0, 0.0, 0.0]
    assert [choose_by_tradeoff(times, costs, a) for a in (0.0, 0.5, 0.7, 1.0)] == [0, 0, 3, 3]
    assert [_by_quotes(times, costs, a) for a in (0.0, 0.5, 0.7, 1.0)] == [0, 0, 3, 3]


def test_a_quantity_without_range_normalises_to_zero():
    assert choose_by_tradeoff([H, 2 * H], [4.0, 4.0], 1.0) == 0  # costs equal: time decides the tie
    assert choose_by_tradeoff([H, H], [4.0, 2.0], 0.3) == 1
    assert not math.isnan(choose_by_tradeoff([H], [0.0], 0.5))
