"""A provider's plan as a market sees it: advertise, quote, reserve, buy and cancel slots.

Singh 2008: slot advertisement (ch. 3), adaptive externality pricing and its
query forms (ch. 5, Fig. 22, eqs. 17-19), cancellation with a penalty
(ch. 6.4, eq. 23). Times are integer seconds from simulation start; prices
are SU (processor-hours).

:class:`ProviderPlan` wraps one :class:`~gridmarket.pricing.state.ProviderState`
(running jobs, queue, reservations) and the planned starts of the queue
under the provider's local policy. It is built from a live scheduler
(:meth:`ProviderPlan.from_scheduler`, so an agent can price mid-run) or from
``state.json`` (:meth:`ProviderPlan.from_state`). Queries never change it;
:meth:`~ProviderPlan.reserve`, :meth:`~ProviderPlan.buy` and
:meth:`~ProviderPlan.cancel` change it (they say so), and leave it unchanged
when they refuse. A plan built from a scheduler is a snapshot: to make a sale
real, place the returned reservation in the scheduler
(``MachineSimulation.add_reservation``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass

from gridmarket.errors import Infeasible, InvalidInput
from gridmarket.pricing.advertisement import advertise
from gridmarket.pricing.externality import ExternalityPricer
from gridmarket.pricing.forecast import pricing_planner
from gridmarket.pricing.quotes import Quote, quote_at, quote_earliest, quote_flexible
from gridmarket.pricing.rules import apply_rule, resolve_pricing
from gridmarket.pricing.slot import BASE_RATE, PENALTY_FACTOR, SECONDS_PER_HOUR, Slot
from gridmarket.pricing.state import ProviderState, state_from_dict
from gridmarket.reservation import Reservation
from gridmarket.scheduling import LocalScheduler, policy_of
from gridmarket.scheduling.planner import Planner

__all__ = ["Booking", "ProviderPlan"]


@dataclass(frozen=True, slots=True)
class Booking:
    """A sale: the reservation placed in the plan and the priced slot it was sold as.

    Examples
    --------
    >>> b = Booking(Reservation("q1", 0, 2, 3600), Slot(0, 2, 3600, fixed_cost=5.0))
    >>> b.id, b.price, b.penalty
    ('q1', 7.0, 0.5)
    """

    reservation: Reservation
    slot: Slot

    @property
    def id(self) -> str | int:
        """The reservation's id (what :meth:`ProviderPlan.cancel` takes)."""
        return self.reservation.id

    @property
    def price(self) -> float:
        """What the buyer pays, ``n x d x c + f`` (SU)."""
        return self.slot.total_cost

    @property
    def penalty(self) -> float:
        """What cancelling costs, ``p x f`` (SU, eq. 23)."""
        return self.slot.cancellation_penalty


class ProviderPlan:
    """One provider's plan: the state at ``now`` and the queue's planned starts under its policy.

    Parameters
    ----------
    state : ProviderState
        Running jobs, queue and reservations at ``state.now``.
    policy : str, scheduler class or Planner
        The provider's local policy (``conservative``, ``slots``, ``easy``, ``fcfs``, any policy
        :func:`~gridmarket.pricing.forecast.check_policy` takes), resolved once to its planner
        (:attr:`planner`).
    planned : mapping of int to int, optional
        The queue's planned starts when the scheduler keeps them and they are its planner's plan
        (conservative, slots); by default the planner plans the queue from the state.
    unit_cost : float
        Base rate ``c`` (SU per processor-hour) of every slot sold.
    penalty_factor : float
        ``p`` of every slot sold: cancelling costs ``p x f`` (default 0.1, ch. 6.4).
    pricing : str
        The pricing rule that sets ``f`` of every quote and sale (:mod:`gridmarket.pricing.rules`):
        ``"externality"`` (default, ch. 5), ``"flat"`` (base rate only), another registered rule or
        a plug-in ``"package.module:function"``.

    Examples
    --------
    The Fig. 21 state (hours; see :class:`~gridmarket.pricing.externality.ExternalityPricer`):

    >>> from gridmarket.job import Job
    >>> from gridmarket.pricing.state import RunningJob
    >>> h = 3600
    >>> state = ProviderState(0, 5, running=(RunningJob(1, 1, 0, 2*h), RunningJob(2, 3, 0, 3*h)),
    ...                       queue=(Job(3, 0, 2, 2*h, 2*h), Job(4, 0, 2, 3*h, 3*h)),
    ...                       reservations=(Reservation("R", 5*h, 2, 3*h),))
    >>> plan = ProviderPlan(state, "conservative")
    >>> plan.price(2*h, 2, 3*h).fixed_cost
    6.0
    >>> booking = plan.reserve(2*h, 2, 3*h)
    >>> booking.price, {q: t // h for q, t in plan.planned.items()}
    (12.0, {3: 3, 4: 5})
    >>> plan.cancel(booking.id), {q: t // h for q, t in plan.planned.items()}
    (0.6000000000000001, {3: 2, 4: 3})
    """

    def __init__(
        self,
        state: ProviderState,
        policy: str | type[LocalScheduler] | Planner = "conservative",
        *,
        planned: Mapping[int, int] | None = None,
        unit_cost: float = BASE_RATE,
        penalty_factor: float = PENALTY_FACTOR,
        pricing: str = "externality",
    ) -> None:
        if not isinstance(state, ProviderState):
            raise InvalidInput(f"plan: state must be a ProviderState, got {type(state).__name__}")
        self._settings(pricing_planner(policy), unit_cost, penalty_factor, pricing)
        self._set(state, planned if self.planner.plans_whole_queue else None)

    def _settings(self, planner: Planner, unit_cost: float, penalty_factor: float, pricing: str) -> None:
        self.planner = planner
        try:  # validate the prices once, through the record that carries them
            Slot(0, 1, 1, unit_cost, 0.0, penalty_factor=penalty_factor)
        except InvalidInput as err:
            raise InvalidInput(f"plan: {str(err).removeprefix('slot at 0: ')}") from None
        self.unit_cost = unit_cost
        self.penalty_factor = penalty_factor
        self.pricing = pricing
        self._rule = resolve_pricing(pricing)
        self.bookings: dict[str | int, Booking] = {}
        self._sold: set[tuple] = set()

    # ------------------------------------------------------------ construction
    @classmethod
    def from_scheduler(
        cls, scheduler, now: int, *, policy: str | type[LocalScheduler] | Planner | None = None,
        unit_cost: float = BASE_RATE, penalty_factor: float = PENALTY_FACTOR, pricing: str = "externality",
    ) -> ProviderPlan:
        """The plan of a live :class:`~gridmarket.scheduling.base.LocalScheduler` at ``now``.

        The scheduler's planner (or that of ``policy=``, to price it as another policy) plans:
        conservative and slot schedulers keep their planned starts and they are used as they are;
        any other policy, a plug-in among them, is run forward as its own class. The scheduler is
        not changed. Mid-run: ``ProviderPlan.from_scheduler(sim.scheduler, sim.now)``.
        """
        self = cls.__new__(cls)
        self._settings(pricing_planner(scheduler if policy is None else policy), unit_cost, penalty_factor, pricing)
        # the pricer reads the scheduler itself; the state record is made when first asked for
        self.pricer = ExternalityPricer.from_scheduler(scheduler, now, self.planner)
        return self

    @classmethod
    def from_state(cls, state: ProviderState | Mapping, policy: str = "conservative", **kwargs) -> ProviderPlan:
        """A plan from a :class:`ProviderState` or the ``state.json`` layout (a dict)."""
        if not isinstance(state, ProviderState):
            state = state_from_dict(state)
        return cls(state, policy, **kwargs)

    def _set(self, state: ProviderState, planned: Mapping[int, int] | None) -> None:
        self.pricer = ExternalityPricer(state, self.planner, planned=planned)

    @property
    def state(self) -> ProviderState:
        """The provider state planned on (running jobs, reservations held, queue)."""
        return self.pricer.state

    # ------------------------------------------------------------ views
    @property
    def policy(self) -> str | type[LocalScheduler]:
        """The provider's policy, by the name that resolves to it (:func:`gridmarket.scheduling.policy_of`)."""
        return policy_of(self.planner.policy)

    @property
    def now(self) -> int:
        """Current time of the plan (seconds)."""
        return self.pricer.now

    @property
    def procs(self) -> int:
        """Processors of the machine."""
        return self.pricer.procs

    @property
    def planned(self) -> dict[int, int]:
        """Planned start of each queued job (a copy)."""
        return dict(self.pricer.planned)

    @property
    def reservations(self) -> dict[str | int, Reservation]:
        """Reservations held in the plan, by id."""
        return {r.id: r for r in self.state.reservations}

    def free_steps(self) -> list[tuple[int, int]]:
        """``(time, free processors)`` steps of the plan (queued jobs counted)."""
        return self.pricer.full.steps()

    def base_steps(self) -> list[tuple[int, int]]:
        """``(time, free processors)`` steps counting running jobs and reservations only."""
        return self.pricer.base.steps()

    # ------------------------------------------------------------ market queries
    def advertise(self, *, until: int | None = None) -> list[Slot]:
        """The plan's non-delaying free slots at best-effort price (ch. 3); see :func:`~gridmarket.pricing.advertisement.advertise`."""
        return advertise(
            self.pricer.full, self.now, until=until, unit_cost=self.unit_cost, penalty_factor=self.penalty_factor
        )

    def price(self, start: int, procs: int, duration: int) -> Quote:
        """Form (17): the quote for a fixed start (infinite, with the reason, if refused)."""
        return self._priced(quote_at(self.pricer, start, procs, duration, unit_cost=self.unit_cost))

    def _priced(self, quote: Quote) -> Quote:
        """``quote`` (an externality quote) with ``f`` set by the plan's pricing rule; refusals stay refused."""
        if self.pricing == "externality" or not quote.feasible:
            return quote
        return dataclasses.replace(quote, fixed_cost=apply_rule(self._rule, self.pricing, quote, self))

    def quotes(
        self, procs: int, duration: int, *, start: int | None = None, earliest: int | None = None
    ) -> list[Quote]:
        """Form (17) with ``start``, (19) with ``earliest``, (18) otherwise.

        Form 17 returns one quote, refused or not; forms 18 and 19 only the
        feasible starts, in time order.
        """
        if start is not None and earliest is not None:
            raise InvalidInput("give start (form 17) or earliest (form 19), not both")
        if start is not None:
            return [self.price(start, procs, duration)]
        if earliest is not None:
            found = quote_earliest(self.pricer, earliest, procs, duration, unit_cost=self.unit_cost)
        else:
            found = quote_flexible(self.pricer, procs, duration, unit_cost=self.unit_cost)
        return [self._priced(q) for q in found]

    def first_quote(
        self, procs: int, duration: int, *, earliest: int, latest: int, max_price: float = math.inf
    ) -> Quote | None:
        """The first quote of form (19) from ``earliest`` that starts by ``latest`` and costs at most ``max_price``.

        The same quote as the first of ``quotes(procs, duration, earliest=earliest)`` with
        ``start <= latest`` and ``total_cost <= max_price`` (SU), or None, but pricing only the starts
        up to it: a few at a time, in time order (under EASY or FCFS each price is a forward run of
        the queue, so the later starts of a long plan are never run).

        Examples
        --------
        The Fig. 21 state (hours): 2 processors for 3 h cost 12 SU at 2 h; at most 11 SU, the
        first start is 6 h (nothing delayed, 6 SU).

        >>> from gridmarket.job import Job
        >>> from gridmarket.pricing.state import RunningJob
        >>> h = 3600
        >>> state = ProviderState(0, 5, running=(RunningJob(1, 1, 0, 2*h), RunningJob(2, 3, 0, 3*h)),
        ...                       queue=(Job(3, 0, 2, 2*h, 2*h), Job(4, 0, 2, 3*h, 3*h)),
        ...                       reservations=(Reservation("R", 5*h, 2, 3*h),))
        >>> plan = ProviderPlan(state, "conservative")
        >>> [(q.start // h, q.total_cost) for q in (plan.first_quote(2, 3*h, earliest=0, latest=9*h),
        ...                                        plan.first_quote(2, 3*h, earliest=0, latest=9*h, max_price=11))]
        [(2, 12.0), (6, 6.0)]
        >>> plan.first_quote(2, 3*h, earliest=0, latest=h) is None
        True
        """
        pricer = self.pricer
        pricer.check_size(procs, duration)
        pricer.check_start(earliest)
        if earliest > latest:
            return None
        starts = [earliest] + [t for t in pricer.instants() if earliest < t <= latest]
        i, chunk = 0, 1
        while i < len(starts):
            batch = starts[i:i + chunk]
            for start, f_ps in zip(batch, pricer.prices_ps(procs, duration, batch)):
                if f_ps is None:
                    continue
                quote = self._priced(Quote(start, procs, duration, f_ps / SECONDS_PER_HOUR, self.unit_cost, None,
                                           self.now))
                if quote.total_cost <= max_price:
                    return quote
            i += chunk
            chunk = min(2 * chunk, 64)  # batches share the compiled engine's work; the first is often the one
        return None

    def new_reservation_id(self, reservation_id: str | int | None = None) -> str | int:
        """The id a sale would hold: ``reservation_id`` (refused if held or malformed) or the first free ``"q<k>"``."""
        return self._new_id(reservation_id)

    # ------------------------------------------------------------ sales (they change the plan)
    def _new_id(self, reservation_id: str | int | None) -> str | int:
        held = {r.id for r in self.state.reservations}
        if reservation_id is not None:
            if not isinstance(reservation_id, (str, int)) or isinstance(reservation_id, bool):
                raise InvalidInput(f"reservation id must be a string or an int, got {reservation_id!r}")
            if reservation_id in held:
                raise InvalidInput(f"reservation {reservation_id!r} is already held")
            return reservation_id
        k = len(held) + 1
        while f"q{k}" in held:
            k += 1
        return f"q{k}"

    def _place(self, reservation: Reservation, slot: Slot, replan: bool) -> Booking:
        state = dataclasses.replace(self.state, reservations=(*self.state.reservations, reservation))
        if not replan:
            planned = self.pricer.planned  # the slot sits in a hole: nobody moves (fits_plan)
        elif self.planner.plans_whole_queue:
            planned = self.pricer.starts_with(reservation.start, reservation.procs, reservation.duration)
        else:
            planned = None
        self._set(state, planned)
        booking = Booking(reservation, slot)
        self.bookings[reservation.id] = booking
        return booking

    def reserve(
        self, start: int, procs: int, duration: int, *, reservation_id: str | int | None = None,
        max_price: float | None = None,
    ) -> Booking:
        """Sell the slot ``(start, procs, duration)`` at its price (the plan's pricing rule) and hold it in the plan.

        The queue is re-planned around it as the policy does (conservative:
        only if it does not fit beside the plan, like
        ``ConservativeScheduler.add_reservation``).

        Parameters
        ----------
        start, procs, duration : int
            The slot (seconds, processors, seconds).
        reservation_id : str or int, optional
            Id of the new reservation (default ``"q<k>"``).
        max_price : float, optional
            Refuse if ``f`` (SU) is above it: a quote that went stale.

        Raises
        ------
        InvalidInput
            Malformed slot, start before now, an id already held.
        Infeasible
            Running jobs or reservations hold the processors, or ``f > max_price``.
            The plan is unchanged.
        """
        f_ps = self.pricer.price_ps(start, procs, duration)
        fixed = f_ps / SECONDS_PER_HOUR
        if self.pricing != "externality":
            fixed = self._priced(Quote(start, procs, duration, fixed, self.unit_cost, None, self.now)).fixed_cost
        if max_price is not None and fixed > max_price:
            raise Infeasible(f"slot at {start} now costs f = {fixed:g} SU, above the {max_price:g} SU offered")
        reservation = Reservation(self._new_id(reservation_id), start, procs, duration)
        slot = Slot(start, procs, duration, self.unit_cost, fixed, penalty_factor=self.penalty_factor, issued=self.now)
        replan = not self.pricer.fits_plan(start, procs, duration)
        return self._place(reservation, slot, replan)

    def buy(
        self, slot: Slot, *, start: int | None = None, procs: int | None = None, duration: int | None = None,
        reservation_id: str | int | None = None,
    ) -> Booking:
        """Buy an advertised ``slot``, or the part of it Table 1 allows, as a reservation.

        Parameters
        ----------
        slot : Slot
            A slot from :meth:`advertise` (of this plan or an earlier one).
        start, procs, duration : int, optional
            The part to take (default: the whole slot); see :meth:`Slot.subslot`.
        reservation_id : str or int, optional
            Id of the new reservation.

        Raises
        ------
        InvalidInput
            Malformed request, a start before now, an id already held.
        Infeasible
            The request breaks Table 1's restrictions; the slot was already
            sold; or it is stale: the plan changed since it was issued and the
            capacity is no longer free (buying it would delay a planned job).
            The plan is unchanged.
        """
        if not isinstance(slot, Slot):
            raise InvalidInput(f"buy: expected a Slot, got {type(slot).__name__}")
        part = slot.subslot(start, procs, duration)
        key = (slot.issued, slot.start, slot.procs, slot.duration)
        self.pricer.check_size(part.procs, part.duration)
        if part.start < self.now:
            raise InvalidInput(f"slot starts at {part.start}, before now ({self.now})")
        if not self.pricer.fits_plan(part.start, part.procs, part.duration):
            # an indivisible slot is sold whole: its capacity being gone means it was sold. A slot with the
            # same fields advertised again after other sales (the same capacity, still free) passes here.
            if not slot.divisible and key in self._sold:
                raise Infeasible(f"slot at {slot.start} ({slot.procs} procs, issued at {slot.issued}) is "
                                 f"already sold")
            free = self.pricer.full.min_free(part.start, part.duration)
            raise Infeasible(
                f"slot at {part.start} issued at {slot.issued} is stale: only {max(free, 0)} of its "
                f"{part.procs} processors are still free over [{part.start}, {part.end}) in the plan at "
                f"{self.now} (sold, or the plan changed since)"
            )
        whole = self.planner.plans_whole_queue
        if not whole and self.pricer.price_ps(part.start, part.procs, part.duration):
            # a hole of the predicted plan delays nobody under EASY/FCFS either; kept as a guard
            raise Infeasible(f"slot at {part.start} issued at {slot.issued} would delay queued jobs")
        reservation = Reservation(self._new_id(reservation_id), part.start, part.procs, part.duration)
        booking = self._place(reservation, part, replan=not whole)
        if not slot.divisible:
            self._sold.add(key)
        return booking

    def cancel(self, booking: Booking | str | int) -> float:
        """Cancel a reservation sold by this plan (or given as its :class:`Booking`); return the penalty ``p x f`` (SU).

        The capacity returns to the plan and the queue is re-planned: under
        conservative backfilling each queued job, in arrival order, moves to
        its earliest start if that is earlier (the scheduler's compression:
        nobody is delayed); other policies plan the queue again.

        Raises
        ------
        InvalidInput
            Unknown reservation id (or one that was not sold through pricing).
            The plan is unchanged.

        Notes
        -----
        Singh 2008, ch. 6.4: the slot model gains a penalty factor ``p``
        (eq. 23) so that reservations are not made frivolously; the
        experiments use ``p = 0.1``.
        """
        if isinstance(booking, Booking):
            res_id = booking.id
        else:
            res_id = booking
            if res_id not in self.bookings:
                known = ", ".join(repr(k) for k in self.bookings) or "none"
                raise InvalidInput(f"unknown reservation id {res_id!r}; sold by this plan: {known}")
            booking = self.bookings[res_id]
        held = self.state.reservation(res_id)  # InvalidInput if not held
        if held != booking.reservation:
            raise InvalidInput(f"reservation {res_id!r} in the plan is not the one booked")
        state = dataclasses.replace(
            self.state, reservations=tuple(r for r in self.state.reservations if r.id != res_id)
        )
        planned = self._compress(state, held) if self.planner.plans_whole_queue else self.planner.plan(state)
        self._set(state, planned)
        self.bookings.pop(res_id, None)
        return booking.penalty

    def _compress(self, state: ProviderState, freed: Reservation) -> dict[int, int]:
        """Conservative compression after capacity is freed: queued jobs, in order, move earlier if they can."""
        profile = self.pricer.full.copy()
        a = max(freed.start, self.now)
        profile.release(a, freed.end - a, freed.procs)
        planned = dict(self.pricer.planned)
        profile.compress(list(state.queue), planned, self.now)  # the scheduler's own compression
        return planned
