"""Query forms (17), (18), (19) and the choice rule (20) (Singh 2008, ch. 5.2-5.3)."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridmarket.errors import Infeasible, InvalidInput
from gridmarket.job import Job
from gridmarket.pricing.externality import ExternalityPricer
from gridmarket.pricing.quotes import Quote, choose, quote_at, quote_earliest, quote_flexible
from gridmarket.pricing.state import ProviderState, RunningJob
from gridmarket.reservation import Reservation

from .strategies import provider_states

H = 3600


@pytest.fixture
def pricer():
    state = ProviderState(
        0, 5,
        running=(RunningJob(1, 1, 0, 2 * H), RunningJob(2, 3, 0, 3 * H)),
        queue=(Job(3, 0, 2, 2 * H, 2 * H), Job(4, 0, 2, 3 * H, 3 * H)),
        reservations=(Reservation("R", 5 * H, 2, 3 * H),),
    )
    return ExternalityPricer(state, "conservative")


def table(quotes):
    return [(q.start // H, q.fixed_cost) for q in quotes]


def test_form17_gives_the_price_at_the_fixed_start(pricer):
    q = quote_at(pricer, 2 * H, 2, 3 * H)
    assert (q.start, q.fixed_cost, q.unit_cost, q.total_cost, q.issued) == (2 * H, 6.0, 1.0, 12.0, 0)


def test_form17_refusal_is_an_infinite_price_with_the_reason(pricer):
    q = quote_at(pricer, H, 2, 3 * H)
    assert q.fixed_cost == math.inf and not q.feasible
    assert "conflict with running jobs or reservations" in q.reason
    with pytest.raises(Infeasible, match="no slot at 3600"):
        q.slot()


def test_form18_lists_every_feasible_candidate_with_its_price_and_the_zero_tail(pricer):
    # Fig. 21 table: refused at 0 (left out), 6, 6, 8, 10 SU at 2-5 h, free from 6 h
    assert table(quote_flexible(pricer, 2, 3 * H)) == [(2, 6.0), (3, 6.0), (4, 8.0), (5, 10.0), (6, 0.0), (8, 0.0)]


def test_form19_keeps_candidates_at_or_after_the_earliest_and_adds_it_if_feasible(pricer):
    assert table(quote_earliest(pricer, 4 * H, 2, 3 * H)) == [(4, 8.0), (5, 10.0), (6, 0.0), (8, 0.0)]
    with_own = quote_earliest(pricer, 4 * H + 1800, 2, 3 * H)
    assert [(q.start, q.fixed_cost) for q in with_own[:2]] == [(4 * H + 1800, 9.0), (5 * H, 10.0)]
    assert table(quote_earliest(pricer, H, 2, 3 * H))[0] == (2, 6.0)  # 1 h itself is refused


def test_form19_earliest_in_the_past_is_invalid(pricer):
    later = ExternalityPricer(ProviderState(100, 4))
    with pytest.raises(InvalidInput, match=r"slot starts at 50, before now \(100\)"):
        quote_earliest(later, 50, 1, 10)


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_form18_is_sorted_nonempty_holds_a_free_start_and_the_earliest_feasible_one(data):
    state = data.draw(provider_states())
    policy = data.draw(st.sampled_from(["conservative", "easy"]))
    pricer = ExternalityPricer(state, policy)
    procs, duration = data.draw(st.integers(1, state.procs)), data.draw(st.integers(1, 150))
    quotes = quote_flexible(pricer, procs, duration)
    starts = [q.start for q in quotes]
    assert quotes and starts == sorted(set(starts))
    assert any(q.fixed_cost == 0 for q in quotes)
    assert all(q.fixed_cost >= 0 for q in quotes)
    earliest = pricer.base.earliest_start(procs, duration, state.now)
    assert starts[0] == earliest


def test_choose_alpha_zero_takes_the_earliest_start_whatever_its_price():
    qs = [Quote(10, 1, 1, 50.0), Quote(20, 1, 1, 5.0), Quote(30, 1, 1, 0.0)]
    assert choose(qs, 0.0).start == 10


def test_choose_alpha_one_takes_the_earliest_cheapest_start():
    qs = [Quote(10, 1, 1, 50.0), Quote(20, 1, 1, 0.0), Quote(30, 1, 1, 0.0)]
    assert choose(qs, 1.0).start == 20


@pytest.mark.parametrize("alpha, start", [(0.2, 10), (0.5, 20), (0.8, 30)])
def test_choose_minimises_eq20_with_min_max_normalisation(alpha, start):
    # scores: 10 -> alpha; 20 -> 0.4 alpha + 0.5 (1 - alpha); 30 -> 1 - alpha
    qs = [Quote(10, 1, 1, 100.0), Quote(20, 1, 1, 40.0), Quote(30, 1, 1, 0.0)]
    assert choose(qs, alpha).start == start


def test_choose_ties_go_to_the_earliest_start():
    qs = [Quote(30, 1, 1, 0.0), Quote(10, 1, 1, 10.0), Quote(20, 1, 1, 5.0)]
    assert choose(qs, 0.5).start == 10  # all three score 0.5
    assert choose([Quote(5, 1, 1, 3.0), Quote(5, 1, 1, 3.0)], 0.3).start == 5


def test_choose_skips_refused_quotes_and_refuses_an_empty_choice():
    refused = Quote(0, 1, 1, math.inf, reason="busy")
    assert choose([refused, Quote(9, 1, 1, 2.0)], 0.0).start == 9
    with pytest.raises(Infeasible, match="no feasible quote"):
        choose([refused], 0.5)


@pytest.mark.parametrize("alpha", [-0.1, 1.5, "x", True])
def test_choose_refuses_alpha_outside_0_1(alpha):
    with pytest.raises(InvalidInput, match="trade-off factor alpha must be in"):
        choose([Quote(0, 1, 1, 0.0)], alpha)
