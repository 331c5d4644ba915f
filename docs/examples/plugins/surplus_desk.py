"""Best surplus: a job market's trading desk written outside gridmarket.

Used by docs/extending.md as ``surplus_desk:BestSurplusDesk`` (with ``docs/examples/plugins`` on
PYTHONPATH). A desk is the broker strategy of a job market: users hand the broker every job
(``gridmarket.agents.TradingDesk`` gathers them for a trade every cycle; ``gridmarket.agents.PerJobDesk`` trades each as
it arrives). Times are integer seconds; prices and values SU.
"""

from gridmarket.agents import PerJobDesk


class BestSurplusDesk(PerJobDesk):
    """As each job arrives, buy the slot that leaves its user the most surplus: value at its end minus price.

    Every provider large enough quotes its feasible starts from now (Singh's form 19 on its plan); a
    start is worth the job's valuation at ``start + runtime`` (the user knows the job's length, as a
    DBC broker does). The largest positive surplus is bought (ties: the earlier start, then home
    first); with none, the job goes to its home queue (best effort).
    """

    name = "best-surplus"

    def trade(self, jobs, now):
        for job in jobs:
            value = self.valuations[job.id]
            best = None  # ((-surplus, start, rank), provider, start, price)
            for rank, provider in enumerate(self.home_first(job)):
                if provider.procs < job.procs:
                    continue
                plan = self.broker.query(provider.name, now, "plan")
                for quote in plan.quotes(job.procs, job.estimate, earliest=now):
                    end = quote.start + min(job.runtime, job.estimate)
                    surplus = value.utility(end) - quote.total_cost
                    key = (-surplus, quote.start, rank)
                    if surplus > 0 and (best is None or key < best[0]):
                        best = (key, provider.name, quote.start, quote.total_cost)
            if best is None:
                self.fallback(job, now)
            else:
                self.hold(job, best[1], best[2], best[3], now)
