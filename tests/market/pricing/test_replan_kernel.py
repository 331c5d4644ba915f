"""The compiled externality re-plan (``_creplan.pyx``) against the pure-Python ``reference_replan``.

Same total delay and same new starts for every slot on every drawn provider
state, with and without collecting the starts; the inputs stay unchanged.
(``test_externality.py`` checks the prices of whichever runs against planning twice.)
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from market.errors import Infeasible
from market.pricing.externality import ExternalityPricer, reference_replan

from .strategies import provider_states, slot_requests

compiled = pytest.importorskip("market.pricing._creplan", reason="the compiled kernel is not built here")


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_compiled_replan_equals_reference_for_every_colliding_slot(data):
    state = data.draw(provider_states())
    engine = ExternalityPricer(state, "conservative")._backfill()
    for _ in range(6):
        start, procs, duration = data.draw(slot_requests(state))
        if start < state.now:
            continue
        k = engine.first_collision(start, procs, duration)
        if k is None:
            continue
        times, free = engine.prefixes[k]
        before = (times.copy(), free.copy())
        args = (times, free, start, procs, duration, k, engine.greedy, engine.old, engine.procs, engine.est,
                engine.keep_owes, engine.owed[k], engine.now)
        for collect in (False, True):
            try:
                want = reference_replan(*args, collect)
            except (Infeasible, IndexError) as exc:
                with pytest.raises(type(exc)):
                    compiled.replan(*args, collect)
                continue
            assert compiled.replan(*args, collect) == want
        assert (times, free) == before


def test_the_drawn_states_do_collide(monkeypatch):
    """The comparison above is not vacuous: most drawn states give colliding slots that re-plan."""
    runs = []
    monkeypatch.setitem(globals(), "reference_replan", lambda *a: runs.append(a) or _reference(*a))
    test_compiled_replan_equals_reference_for_every_colliding_slot()
    assert len(runs) >= 100


_reference = reference_replan
