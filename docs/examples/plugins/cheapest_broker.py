"""Cheapest first: a broker strategy written outside gridmarket, and an interaction model using it.

Used by docs/extending.md as ``cheapest_broker:CheapestFirst`` and ``cheapest_broker:CHEAPEST_GRID``
(with ``docs/examples/plugins`` on PYTHONPATH). A broker strategy is a subclass of
``gridmarket.agents.BrokerStrategy``: the broker calls ``plan_workflow`` for every workflow a user submits and
``reserve`` for every advance-reservation request. Times are integer seconds; prices SU.
"""

import math

from gridmarket.agents import BrokerStrategy, WorkflowPlan
from gridmarket.errors import Infeasible
from gridmarket.provisioning import provision_greedy
from gridmarket.scenarios.interaction import InteractionModel


class CheapestFirst(BrokerStrategy):
    """Buy every workflow task and every reservation at the lowest price on offer, however late it ends.

    Workflows: task by task in HEFT order, the cheapest quote of any provider (greedy provisioning
    at alpha = 1, Singh Fig. 51, whatever the scenario's alpha). Reservations: the wanted window is
    priced at every provider large enough (form 17) and the cheapest is bought, home first on a tie.
    """

    name = "cheapest-first"
    needs_plans = True  # it prices slots on the providers' plans

    def plan_workflow(self, wf):
        try:
            plan = provision_greedy(wf.graph, self.broker.quoting(wf.submit), alpha=1.0, release=wf.submit,
                                    network=self.broker.network)
        except Infeasible:
            return None  # some task got no quote: the workflow runs best effort
        placed = [p for p in plan.placements.values() if p.resource is not None]  # not the virtual tasks
        return WorkflowPlan(placed, plan.prices)

    def reserve(self, request, home):
        job = request.job
        offers = []
        for rank, provider in enumerate(self.broker.providers()):
            if provider.procs < job.procs:
                continue
            plan = self.broker.query(provider.name, job.submit, "plan")
            f = plan.price(request.start, job.procs, job.estimate).fixed_cost
            if math.isfinite(f):
                offers.append((f, provider is not home, rank, provider))
        if not offers:
            return False  # nobody sells the window: the job is submitted at its start
        f, _, _, provider = min(offers)
        self.broker.reserve_at(request, provider, f)
        return True


CHEAPEST_GRID = InteractionModel("a cheapest-first broker beside an MCMF metascheduler",
                                 broker="cheapest_broker:CheapestFirst", clearing="mcmf")
