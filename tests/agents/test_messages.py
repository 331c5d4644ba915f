"""Every message of a run is a typed Message, counted by the model in one place; desks write through public methods.

The job markets exchange bids, asks, offers and service-level agreements inside mechanisms of
``gridmarket`` (auctions, bargaining, contract offers); each is a :mod:`gridmarket.agents.messages`
type that :meth:`MarketModel.post` counts, so a run's message counts name only message types.
Prices a provider quotes, is paid or owes go through ``ResourceProvider.log_price``, and the rows
of runs the broker made through ``Broker.record_run`` (and ``amend_run``/``drop_run``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from gridmarket.agents import messages
from gridmarket.agents.model import BrokerSpec, MarketModel, ProviderSpec
from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.workloads.workload import Workload
from tests.agents.markets import two_site_workload

AGENTS = Path(__file__).resolve().parents[2] / "agents"

KINDS = {cls.kind for cls in vars(messages).values()
         if isinstance(cls, type) and issubclass(cls, messages.Message) and cls is not messages.Message}


@pytest.mark.parametrize("method", ["english", "double", "negotiate", "dbc-cycle", "sla"])
def test_every_kind_a_job_market_counts_is_a_message_type(method):
    sells = "auction" if method == "dbc-cycle" else "quote"
    m = MarketModel([ProviderSpec("a", 8, "conservative", sells=sells), ProviderSpec("b", 8, "easy", sells=sells)],
                    two_site_workload(), route="site", broker=BrokerSpec(method), rng=1)
    counts = m.run().messages
    assert set(counts) <= KINDS, f"kinds without a Message type: {set(counts) - KINDS}"
    assert sum(counts.values()) > 0


@pytest.mark.parametrize("method", ["sla", "sla-predict", "dbc"])
def test_a_desk_that_only_asks_and_signs_counts_one_round_per_provider_asked(method):
    """A round is one query and its answer (``negotiation_rounds`` in gridmarket.vocabulary): the SLA desk's
    request and the provider's offer are one exchange, as a DBC broker's request and the provider's quotes."""
    m = MarketModel([ProviderSpec("a", 8, "conservative"), ProviderSpec("b", 8, "easy")],
                    two_site_workload(), route="site", broker=BrokerSpec(method), rng=1)
    m.run()
    assert m.message_counts["query"] > 0 and m.negotiation_rounds == m.message_counts["query"]


def test_post_counts_copies_and_rounds_and_refuses_a_negative_count():
    m = MarketModel([ProviderSpec("a", 4)], Workload((Job(1, 0, 1, 10, 10),)), rng=0)
    m.post(messages.Bid("broker", "a", 0), copies=3, rounds=1)
    m.post(messages.Ask("a", "broker", 0), copies=0)
    assert m.message_counts == {"bid": 3} and m.negotiation_rounds == 1
    with pytest.raises(InvalidInput, match="copies must be an int >= 0, got -1"):
        m.post(messages.Bid("broker", "a", 0), copies=-1)


def test_a_provider_logs_only_known_kinds_of_price():
    m = MarketModel([ProviderSpec("a", 4)], Workload((Job(1, 0, 1, 10, 10),)), rng=0)
    provider = m.providers["a"]
    provider.log_price(5, 2.5, "paid")
    assert provider.price_log == [(5, 2.5, "paid")]
    with pytest.raises(InvalidInput, match="a: price kind must be one of quote, paid, penalty, sla-penalty, got 'bribe'"):
        provider.log_price(5, 1.0, "bribe")


def _writes(tree: ast.AST, attribute: str) -> list[int]:
    """Lines that change ``<x>.<attribute>``: a call of one of its methods, an item assignment or ``+=`` on it."""
    lines = []
    for node in ast.walk(tree):
        target = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            target = node.func.value
        elif isinstance(node, (ast.Assign, ast.AugAssign)):
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                if isinstance(t, ast.Subscript):
                    target = t.value
        if isinstance(target, ast.Attribute) and target.attr == attribute:
            lines.append(node.lineno)
    return lines


@pytest.mark.parametrize(("attribute", "owner"), [("message_counts", "model.py"), ("price_log", "provider.py"),
                                                  ("rows", "broker.py"), ("negotiation_rounds", "model.py")])
def test_only_its_owner_writes_a_counter_or_a_log(attribute, owner):
    offenders = []
    for path in sorted(AGENTS.rglob("*.py")):
        if path.name == owner and path.parent == AGENTS:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        offenders += [f"{path.relative_to(AGENTS)}:{line}" for line in _writes(tree, attribute)]
        offenders += [f"{path.relative_to(AGENTS)}:{n.lineno}" for n in ast.walk(tree)
                      if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Attribute)
                      and n.target.attr == attribute]
    assert offenders == []
