"""Service-level agreement desks: every provider offers a contract for each job, the broker signs the cheapest.

``sla`` contracts for the job's estimate, ``sla-predict`` for its predicted run time; overbooking
providers, re-offers, overruns and settlement are described in :mod:`gridmarket.agents.trading`. The
contract arithmetic (offers, penalties, books, settlement) is :mod:`gridmarket.sla`'s. Times are
integer seconds; prices SU.
"""

from __future__ import annotations

import numpy as np

from gridmarket.agents.desks.base import PerJobDesk, outcome
from gridmarket.agents.desks.slabook import SLABook
from gridmarket.agents.messages import Agreement, Reserve
from gridmarket.agents.provider import ResourceProvider
from gridmarket.job import Job
from gridmarket.pricing import BASE_RATE, SECONDS_PER_HOUR
from gridmarket.pricing.state import base_profile
from gridmarket.reservation import Reservation
from gridmarket.sla import (
    SLA,
    PenaltySchedule,
    SLARequest,
    book_plan,
    honours,
    make_room,
    overrun_charge,
    predict_runtime,
    quote_sla,
    settle,
)
from gridmarket.valuation import Valuation

__all__ = ["SLA_COLUMNS", "PredictedSLADesk", "SLADesk", "sla_penalty"]


def sla_penalty(valuation: Valuation) -> PenaltySchedule:
    """The penalties a provider accepts for a job: the value its user loses (SU).

    Late by ``x`` s after the window, the job ends ``x`` s after its deadline at the latest and its
    value falls by ``value * x / grace`` (:class:`gridmarket.valuation.Valuation`): that is the rate,
    ``value * 3600 / grace`` SU per hour, capped at the whole value; a job that never runs costs the
    provider its value. Value-based penalties as in D. Irwin, L. Grit, J. Chase, "Balancing risk
    and reward in a market-based task service" (HPDC 2004), where a task's value function
    continues below zero into a penalty; here it is bounded by the value.

    >>> sla_penalty(Valuation(10.0, 7200, 3600))
    PenaltySchedule(rate_per_hour=10.0, cap=10.0, violation=10.0)
    """
    return PenaltySchedule(rate_per_hour=valuation.value * SECONDS_PER_HOUR / valuation.grace, cap=valuation.value,
                           violation=valuation.value)


SLA_COLUMNS = ("job_id", "provider", "earliest", "latest", "signed_start", "start", "end", "price", "penalty",
               "payment", "late", "violated", "broken", "duration", "overrun", "overrun_charge")
"""Columns of a run's SLA table (:meth:`SLADesk.settle`): times s, money SU. One row per contract signed: a
job whose contract was ``broken`` (never ran there) and re-offered has a row for each; ``duration`` is the
contracted run (s), ``overrun`` the seconds its job ran beyond it and ``overrun_charge`` what the user paid
for them."""


class SLADesk(PerJobDesk):
    """Service-level agreements per job as it arrives: every provider offers, the cheapest is signed (module notes).

    ``book``: every contract signed and where it stands, with the run's counts
    (:class:`gridmarket.agents.desks.slabook.SLABook`).
    """

    name = "sla"
    predicts = False
    """Contract for the job's estimate (``sla``) or for its predicted run time (``sla-predict``)."""

    def __init__(self, broker) -> None:
        super().__init__(broker)
        self.book = SLABook()

    @property
    def waiting(self) -> set[int | str]:
        """The jobs sold under a contract their machine could not yet hold (the running summary counts them)."""
        return self.book.waiting

    # ------------------------------------------------------------- signing
    def duration(self, job: Job, now: int) -> int:
        """Seconds to contract for: the job's estimate (its kill limit)."""
        return job.estimate

    def _planned_run(self, job: Job, duration: int) -> int:
        """The run the broker plans the deadline with: the contract's duration when it predicts, else the run
        the job will have (the ``sla`` model's broker knows it, as ``dbc``'s does)."""
        return duration if self.predicts else max(1, min(job.runtime, job.estimate))

    def _request(self, job: Job, now: int) -> SLARequest | None:
        """The job's request at ``now``: a start in ``[now, deadline - run]``, at most its value; None when past."""
        v = self.valuations[job.id]
        duration = self.duration(job, now)
        latest = v.deadline - self._planned_run(job, duration)  # a later start ends after the deadline
        if latest < now:
            return None
        return SLARequest(job.id, job.procs, duration, now, latest, max_price=v.value)

    def _offers(self, job: Job, request: SLARequest, now: int, exclude: str | None = None,
                firm: bool = False) -> tuple[SLA, bool] | None:
        """The cheapest offer among the providers (but ``exclude``): ``(contract, held)``, or None. ``firm``: each
        provider signs on its plan, not its book (only starts its machine can hold).

        The broker asks the providers that can still win, best bound first (:meth:`_candidates`): a contract
        costs at least its processor-hours at the base rate and starts no earlier than the machine's earliest
        start, so once an offer beats a provider's bound (price, start, then home-first rank) that provider is
        not asked (its plan is not built)."""
        b = self.broker
        v = self.valuations[job.id]
        best = None
        for bound, rank, p in self._candidates(job, request, now, exclude, firm):
            if best is not None and bound > best[:3]:
                break  # this provider and every later one cannot beat the offer in hand
            plan = b.query(p.name, now, "plan")
            # the provider signs on its book: the plan itself unless it overbooks (gridmarket.sla.book_plan)
            book = plan if firm else book_plan(plan, p.overbooking, self.book.pending(p.name))
            contract = quote_sla(book, request, provider=p.name, penalty=sla_penalty(v))
            # the provider's offer (one or none) answers the query above: one exchange, one round (counted there)
            self.model.post(Agreement(p.name, b.name, now, contract), copies=int(contract is not None))
            if contract is not None:
                offer = (contract.price, contract.start, rank, contract, book, plan)
                if best is None or offer[:3] < best[:3]:
                    best = offer
        if best is None:
            return None
        _, _, _, contract, book, plan = best
        # on its own plan a signed contract is honoured by construction (quote_sla)
        return contract, book is plan or honours(plan, contract)

    def _candidates(self, job: Job, request: SLARequest, now: int, exclude: str | None,
                    firm: bool) -> list[tuple[tuple, int, ResourceProvider]]:
        """``((least price SU, earliest start s, rank), rank, provider)`` of every provider that may offer, in
        bound order; rank is the home-first order that breaks ties between equal offers.

        The least price is the contract's processor-hours at the base rate under externality pricing
        (``f`` >= 0; 0 under another rule), the earliest start the machine's
        (:meth:`~gridmarket.agents.provider.ResourceProvider.earliest_start`); a provider that signs on an
        overbooked book may sign earlier than its machine can hold, so its bound is the request's window.
        """
        base = request.procs * (request.duration / SECONDS_PER_HOUR) * BASE_RATE  # Slot.total_cost with f = 0
        first = max(request.earliest, now)
        found = []
        for rank, p in enumerate(self.home_first(job)):
            if p.procs < job.procs or p.name == exclude:
                continue
            least = base if p.pricing == "externality" else 0.0
            start = first if (not firm and p.overbooking > 1) else p.earliest_start(request.procs, request.duration, now)
            if start is None or start > request.latest:
                continue  # no start in the window: it cannot sign
            found.append(((least, start, rank), rank, p))
        found.sort(key=lambda c: c[0])
        return found

    def trade(self, jobs: list[Job], now: int) -> None:
        for job in jobs:
            request = self._request(job, now)
            best = None if request is None else self._offers(job, request, now)
            if best is None:
                self.fallback(job, now)
                continue
            self.n_won += 1
            self._sign(job, *best, now)

    def _sign(self, job: Job, contract: SLA, held: bool, now: int) -> None:
        self.book.sign(job.id, contract, held=held)  # not held: the machine cannot hold it as planned now
        if held:
            self._hold_contract(job, contract, contract.start, now)
        else:
            self._wait(job, contract, now)

    def _wait(self, job: Job, contract: SLA, now: int) -> None:
        """A contract its machine cannot hold as signed: the provider looks at its signed start."""
        if self.book.wait(job.id, contract, now):
            self.broker.later(contract.start, lambda: self._honour(job, contract))
        else:
            self._honour(job, contract)

    # ------------------------------------------------------------- running
    def _hold_contract(self, job: Job, contract: SLA, start: int, now: int) -> None:
        """Hold ``[start, start + duration)`` on the contract's provider; the job runs in it (killed at its
        estimate, as every job), the rest returns when it ends early, and an overrun is met at the end."""
        b = self.broker
        provider = self.model.providers[contract.provider]
        rid, first = self.book.new_hold(job.id)
        self.model.send(Reserve(b.name, contract.provider, now, Reservation(rid, start, contract.procs,
                                                                            contract.duration)))
        if first:
            provider.log_price(now, contract.price, "paid")
        run = min(job.runtime, job.estimate)
        row = b.record_run(job.id, contract.provider, job.submit, start, start + run, job.procs, job.runtime, job.user,
                           contract.price, "job", None, estimate=job.estimate, outcome=outcome(job))
        self.book.keep(rid, job, row)
        if run < contract.duration:  # the rest of the window returns when the job ends
            b.later(max(start + run, now), lambda: self._release(provider, rid))
        elif run > contract.duration:  # still running when the contract ends
            b.later(start + contract.duration, lambda: self._overrun(job, contract, rid))

    def _release(self, provider, rid: str) -> None:
        if self.book.holds(rid):  # not moved off the machine since
            provider.end_reservation(rid)

    def _overrun(self, job: Job, contract: SLA, rid: str) -> None:
        """The job runs on past its contract, to its estimate: the provider makes room for it by moving the
        contracts not yet started that stand in the way (:func:`gridmarket.sla.make_room`); they start late or
        are broken like overbooked ones. With no room (reservations it cannot move) the job is killed."""
        if not self.book.holds(rid):  # moved off the machine since
            return
        now = int(self.model.time)
        provider = self.model.providers[contract.provider]
        row = self.book.row(rid)
        extension = Reservation(f"sla-over-{job.id}", now, contract.procs, row["end"] - now)
        state = provider.state(now)
        movable = [r.id for r in state.reservations if r.start >= now and (
            self.book.holds(r.id) or str(r.id).startswith("sla-wait-"))]
        out = make_room(state, extension, movable)
        if out is None:
            self.broker.amend_run(row, end=now, outcome="killed")
            return
        moved = [m for m in (self._displace(provider, rid) for rid in out) if m is not None]
        provider.place(extension)
        self.book.overrun(job.id, extension.duration)
        for other in moved:  # each looks at its signed start (now or later) with the overrun on the machine
            self._wait(other, self.book.contracts[other.id], now)

    def _displace(self, provider, rid: str) -> Job | None:
        """Move a held contract (or a waiting contract's held start) off the machine for an overrun; the
        moved contract's job (None for a held start: its contract looks again at its next look)."""
        provider.end_reservation(rid)
        if rid.startswith("sla-wait-"):
            return None
        job, row = self.book.displace(rid)
        self.broker.drop_run(row)
        self.model.post(Agreement(provider.name, self.broker.name, int(self.model.time),
                                  self.book.contracts[job.id]))  # the provider tells the broker its contract moves
        return job

    def _honour(self, job: Job, contract: SLA) -> None:
        """Start a contract's job now if the machine can hold it; else hold the machine's earliest start for it
        and look again in a cycle (running jobs may end before their estimates). When the machine has no start
        left with value for the user, the broker re-enters the market (:meth:`_reoffer`); failing that the
        provider looks again while a look is left, then breaks the contract (module notes)."""
        if not self.book.is_waiting(job.id, contract):
            return  # broken and re-signed since
        now = int(self.model.time)
        self.book.look(contract)
        provider = self.model.providers[contract.provider]
        wait_id = f"sla-wait-{job.id}"
        if wait_id in provider.machine.scheduler.reservations:  # the start held last time: free it to look again
            provider.end_reservation(wait_id)
        state = provider.state(now)
        if honours(state, contract, start=now):
            if self.book.start(job.id, contract, now):  # later than signed
                self.model.post(Agreement(provider.name, self.broker.name, now, contract))  # of the later start
            if now > contract.latest:
                provider.log_price(now, contract.penalty.lateness_penalty(now - contract.latest), "sla-penalty")
            self._hold_contract(job, contract, now, now)
            return
        start = base_profile(state).earliest_start(contract.procs, contract.duration, now)
        v = self.valuations[job.id]
        last = v.deadline + v.grace - self._planned_run(job, contract.duration) - 1  # a later start is worth nothing
        if start <= last:  # hold the machine's earliest start, and look for an earlier one in a cycle
            provider.place(Reservation(wait_id, start, contract.procs, contract.duration))
            self.broker.later(min(start, now + self.cycle), lambda: self._honour(job, contract))
        elif self._reoffer(job, contract, now):
            return
        elif now + self.cycle <= last:  # only jobs ending before their estimates can save it: look again
            self.broker.later(now + self.cycle, lambda: self._honour(job, contract))
        else:
            self._break(contract, now)
            self.fallback(job, now)
            self.n_fallback -= 1  # it was sold: the home queue runs it after the breach

    def _break(self, contract: SLA, now: int, *, reoffered: bool = False) -> None:
        """The provider breaks ``contract``: it will pay the violation penalty at settlement."""
        self.book.break_contract(contract, reoffered=reoffered)
        provider = self.model.providers[contract.provider]
        self.model.post(Agreement(provider.name, self.broker.name, now, contract))  # the provider tells of the breach
        provider.log_price(now, contract.penalty.violation, "sla-penalty")

    def _reoffer(self, job: Job, contract: SLA, now: int) -> bool:
        """A contract its provider can no longer run while the job has value: the broker asks the other providers
        for a new contract that starts in time (:meth:`_request` from now), one their plans can honour (a broker
        let down once takes no overbooked start). Signing one breaks the old contract (its provider pays the
        violation penalty); True then."""
        request = self._request(job, now)
        best = None if request is None else self._offers(job, request, now, exclude=contract.provider, firm=True)
        if best is None:
            return False
        self._break(contract, now, reoffered=True)
        self._sign(job, *best, now)
        return True

    # ------------------------------------------------------------- settling
    def settle(self, records):
        """Settle every contract against its job's row of ``records`` (start, end s); the rows pay the settlement.

        Returns ``(records, table)``: the records with each contract's ``cost`` set to its payment
        (price less penalty, SU) plus what an overrun costs the user (the base rate for each
        processor-hour past the contract, :func:`gridmarket.sla.overrun_charge`), and one row per contract
        (:data:`SLA_COLUMNS`). A contract broken by its provider, or whose job has no row on its
        provider, never ran: the provider pays the violation penalty, which the job's own row (where it
        ran: under a contract re-offered elsewhere, or in its home queue) carries as a negative charge
        beside what it paid there.
        """
        import pandas as pd

        rows = []
        records = records.copy()
        ids, sites = records["job_id"].to_numpy(), records["site"].to_numpy()
        starts, ends = records["start"].to_numpy(), records["end"].to_numpy()
        cost = records["cost"].to_numpy(dtype=float, copy=True)
        first: dict = {}  # job id -> position of its first job row
        first_at: dict = {}  # (job id, site) -> position of its first job row there
        for pos in np.flatnonzero((records["kind"] == "job").to_numpy()).tolist():
            first.setdefault(ids[pos], pos)
            first_at.setdefault((ids[pos], sites[pos]), pos)
        entries = [(c, False) for _, c in sorted(self.book.contracts.items())] + [(c, True) for c in self.book.superseded]
        for contract, broken in entries:  # current contracts set their rows' cost; broken ones then add to it
            job_id = contract.job_id
            at = first_at.get((job_id, contract.provider))
            start: int | None = None
            end: int | None = None
            if at is not None and not broken:
                start, end = int(starts[at]), int(ends[at])
            s = settle(contract, start, end)
            over, charge = 0, 0.0
            if at is not None and start is not None and end is not None:
                over = max(0, end - start - contract.duration)
                charge = overrun_charge(contract, end - start, BASE_RATE)
                cost[at] = s.payment + charge
            elif (elsewhere := first.get(job_id)) is not None:
                cost[elsewhere] += s.payment
            rows.append({"job_id": job_id, "provider": contract.provider, "earliest": contract.earliest,
                         "latest": contract.latest, "signed_start": contract.start, "start": start, "end": end,
                         "price": contract.price, "penalty": s.penalty, "payment": s.payment, "late": s.late,
                         "violated": s.violated, "broken": broken, "duration": contract.duration, "overrun": over, "overrun_charge": charge})
        records["cost"] = cost
        rows.sort(key=lambda r: (r["job_id"], not r["broken"]))  # by job, a broken contract before its successor
        table = pd.DataFrame(rows, columns=list(SLA_COLUMNS))
        if not rows:  # typed even when no contract was signed, so masks such as table["broken"] select nothing
            table = table.astype({"job_id": "int64", "violated": bool, "broken": bool})
        return records, table


class PredictedSLADesk(SLADesk):
    """SLAs for the predicted run time (:func:`gridmarket.sla.predict_runtime`) instead of the estimate.

    The broker predicts each job's run time from its user's last two jobs that it has seen end, under
    a contract or in a home queue (Tsafrir, Etsion & Feitelson 2007), the estimate when there are
    none, and asks for a contract of that duration ending by the deadline (by its prediction: it
    does not know the run time, unlike ``sla``'s broker): cheaper than the padded estimate, but a
    job that runs longer overruns its contract, and the provider moves the contracts in its way
    (module notes of :mod:`gridmarket.sla`).
    """

    name = "sla-predict"
    predicts = True

    def __init__(self, broker) -> None:
        super().__init__(broker)
        self._ended: list[tuple[int, int, int, int]] = []  # (end s, job id, user, run s) of home-queue jobs seen end

    def duration(self, job: Job, now: int) -> int:
        ended = [(r["end"], r["job_id"], r["end"] - r["start"]) for r in self.book.held_rows()
                 if r["user"] == job.user and r["end"] <= now]
        ended += [(end, jid, run) for end, jid, user, run in self._ended if user == job.user and end <= now]
        return predict_runtime([run for _, _, run in sorted(ended)], job.estimate)

    def fallback(self, job: Job, now: int) -> None:
        """The home queue runs the job; the broker learns its run time when it ends."""
        super().fallback(job, now)
        run = min(job.runtime, job.estimate)
        self.broker.home(job.site, job.procs).watch(
            job.id, on_end=lambda job_id, t: self._ended.append((int(t), job_id, job.user, run)))
