"""The SLA desk's book: every contract it signed and where each stands (module notes of :mod:`gridmarket.sla`).

One record keeps the contracts, the holds on the machines, the contracts waiting for a start and the
counts the run reports, and its methods change them together, so a contract cannot be current and
broken, or waiting and held, at once. Times are integer seconds.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from gridmarket.job import Job
from gridmarket.reservation import Reservation
from gridmarket.sla import SLA

__all__ = ["SLABook"]


@dataclass(slots=True)
class _Hold:
    """A contract held on its machine: the job that runs in it and the broker's row of that run."""

    job: Job
    row: dict


@dataclass(slots=True)
class SLABook:
    """The contracts of one SLA desk.

    ``contracts``: job id -> its current :class:`gridmarket.sla.SLA`; ``superseded``: the contracts their
    providers broke (the job re-offered to the market or sent home); ``unplaced``: provider -> the
    contracts not on its machine whose signed start has not come (reservations of its book, by id);
    ``waiting``: the jobs of contracts not yet started nor broken that their machine could not hold as
    signed; ``overruns``: job id -> s run past the contract. Counters: ``n_overbooked`` contracts signed
    that the machine could not hold at their signed start, ``n_displaced`` held contracts moved off the
    machine to make room for another job's overrun, ``n_rebooked`` contracts that started later than
    signed, ``n_reoffered`` broken contracts re-signed with another provider, ``n_overruns`` jobs let run
    past their contract; ``n_broken`` and ``broken`` (the jobs with a broken contract) derive from
    ``superseded``.
    """

    contracts: dict[int | str, SLA] = field(default_factory=dict)
    superseded: list[SLA] = field(default_factory=list)
    unplaced: dict[str, dict[int | str, Reservation]] = field(default_factory=dict)
    waiting: set[int | str] = field(default_factory=set)
    overruns: dict[int, int] = field(default_factory=dict)
    n_overbooked: int = 0
    n_rebooked: int = 0
    n_displaced: int = 0
    n_reoffered: int = 0
    n_overruns: int = 0
    # the contracts held on their machines, by reservation id: one record per hold, so the job, its
    # reservation and its row cannot disagree (a hold moved off the machine is removed whole)
    _holds: dict[str, _Hold] = field(default_factory=dict)
    _n_holds: dict[int, int] = field(default_factory=dict)  # job id -> holds so far (each gets its own id)

    @property
    def n_broken(self) -> int:
        """Contracts broken by their providers."""
        return len(self.superseded)

    @property
    def broken(self) -> set[int | str]:
        """The jobs with a broken contract."""
        return {c.job_id for c in self.superseded}

    # ------------------------------------------------------------- signing and waiting
    def sign(self, job_id: int, contract: SLA, *, held: bool) -> None:
        """``contract`` becomes the job's; ``held``: its machine holds it at its signed start (else overbooked)."""
        self.contracts[job_id] = contract
        if not held:
            self.n_overbooked += 1

    def wait(self, job_id: int, contract: SLA, now: int) -> bool:
        """The job's contract waits for a start; True when its signed start is later (its book keeps it until then)."""
        self.waiting.add(job_id)
        if contract.start <= now:
            return False
        self.unplaced.setdefault(contract.provider, {})[contract.reservation_id] = Reservation(
            contract.reservation_id, contract.start, contract.procs, contract.duration)
        return True

    def pending(self, provider: str) -> Iterable[Reservation]:
        """The contracts of ``provider``'s book that are not on its machine yet."""
        return self.unplaced.get(provider, {}).values()

    def is_waiting(self, job_id: int, contract: SLA) -> bool:
        """Whether ``contract`` is still the job's and waits for a start (not started, broken or re-signed)."""
        return self.contracts.get(job_id) is contract and job_id in self.waiting

    def look(self, contract: SLA) -> None:
        """Its signed start has come (or the provider looks again): off the book's unplaced contracts."""
        self.unplaced.get(contract.provider, {}).pop(contract.reservation_id, None)

    def start(self, job_id: int, contract: SLA, now: int) -> bool:
        """A waiting contract starts at ``now``; True when that is later than signed (rebooked)."""
        self.waiting.discard(job_id)
        late = now > contract.start
        self.n_rebooked += late
        return late

    def break_contract(self, contract: SLA, *, reoffered: bool = False) -> None:
        """Its provider breaks ``contract`` (``reoffered``: the broker signs another for the job now)."""
        self.waiting.discard(contract.job_id)
        self.look(contract)
        self.superseded.append(contract)
        if self.contracts.get(contract.job_id) is contract:
            del self.contracts[contract.job_id]
        self.n_reoffered += reoffered

    # ------------------------------------------------------------- holds on the machines
    def new_hold(self, job_id: int) -> tuple[str, bool]:
        """The reservation id of the job's next hold, and whether it is its first."""
        k = self._n_holds.get(job_id, 0)
        self._n_holds[job_id] = k + 1
        return (f"auction-{job_id}" if k == 0 else f"auction-{job_id}-{k}"), k == 0

    def keep(self, rid: str, job: Job, row: dict) -> None:
        """The hold ``rid`` runs ``job``, recorded in the broker's ``row``."""
        self._holds[rid] = _Hold(job, row)

    def holds(self, rid: str) -> bool:
        """Whether ``rid`` is a contract still held on its machine."""
        return rid in self._holds

    def row(self, rid: str) -> dict:
        """The broker's row of the run held by ``rid``."""
        return self._holds[rid].row

    def held_rows(self) -> Iterator[dict]:
        """The broker's rows of every run still held."""
        return (h.row for h in self._holds.values())

    def displace(self, rid: str) -> tuple[Job, dict]:
        """The hold ``rid`` moves off its machine for another job's overrun: its job and row."""
        hold = self._holds.pop(rid)
        self.n_displaced += 1
        return hold.job, hold.row

    def overrun(self, job_id: int, seconds: int) -> None:
        """The job runs ``seconds`` past its contract."""
        self.n_overruns += 1
        self.overruns[job_id] = seconds
