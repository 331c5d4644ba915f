"""The Gantt data of a provider's plan (Singh 2008, Fig. 1, 20, 21) and its processor rows."""

from collections import Counter

import pytest

from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.reservation import Reservation
from gridmarket.scheduling import ConservativeScheduler, EASYScheduler, SlotScheduler
from gridmarket.simulation import MachineSimulation
from gridmarket.viz.plan import PlanBlock, assign_rows, machine_plan

H = 3600
FIG1 = [(2, 3 * H), (4, H), (1, 2 * H), (3, 2 * H)]  # A, B, C, D of Fig. 1 / Fig. 20


def _machine(scheduler, jobs=FIG1):
    m = MachineSimulation(scheduler, [Job(i, 0, n, d, d) for i, (n, d) in enumerate(jobs)])
    m.run_until(0)
    return m


def _busy(blocks, t):
    return sum(b.procs for b in blocks if b.start <= t < b.end)


@pytest.mark.parametrize("scheduler", [SlotScheduler, ConservativeScheduler])
def test_fig1_plan_is_running_queued_and_the_five_advertised_slots(scheduler):
    blocks = machine_plan(_machine(scheduler(5)), 0, window=(0, 8 * H))
    kinds = Counter(b.kind for b in blocks)
    assert kinds == {"running": 2, "queued": 2, "advertised": 5}
    queued = {b.label: (b.start // H, b.end // H) for b in blocks if b.kind == "queued"}
    assert queued == {"1": (3, 4), "3": (4, 6)}
    for t in range(0, 8 * H, 600):  # busy + free = the machine at every instant of the window
        assert _busy(blocks, t) == 5


def test_easy_queue_is_a_forecast_and_its_free_capacity_is_not_advertised():
    blocks = machine_plan(_machine(EASYScheduler(5)), 0, window=(0, 8 * H))
    kinds = {b.kind for b in blocks}
    assert "queued" not in kinds and "advertised" not in kinds
    assert {b.label for b in blocks if b.kind == "projected"} == {"1", "3"}
    assert all(_busy(blocks, t) == 5 for t in range(0, 8 * H, 600))


def test_easy_queue_is_drawn_where_easy_itself_would_start_it_not_in_queue_order():
    # 4 procs; R1 2 x 100, R2 1 x 20, R3 1 x 30 run; queued: H 4 x 10 (shadow 100), B 2 x 60, C 1 x 70.
    # Queue order would put B at 30 and C at 110; EASY backfills C at 20 (it ends by the shadow time),
    # so B, not protected, waits for H: B at 110.
    m = _machine(EASYScheduler(4), [(2, 100), (1, 20), (1, 30), (4, 10), (2, 60), (1, 70)])
    blocks = machine_plan(m, 0, window=(0, 4 * H))
    projected = {b.label: b.start for b in blocks if b.kind == "projected"}
    assert projected == {"3": 100, "4": 110, "5": 20}
    assert all(_busy(blocks, t) == 4 for t in range(0, 4 * H, 5))


def test_reservation_is_drawn_and_the_queue_is_replanned_around_it_fig21():
    m = _machine(ConservativeScheduler(5))
    m.add_reservation(Reservation("r1", start=3 * H, procs=3, duration=H))
    blocks = machine_plan(m, 0, window=(0, 8 * H))
    (res,) = [b for b in blocks if b.kind == "reservation"]
    assert (res.start, res.end, res.procs, res.label) == (3 * H, 4 * H, 3, "r1")
    assert all(_busy(blocks, t) == 5 for t in range(0, 8 * H, 600))


def test_ended_jobs_show_before_now_only_and_running_jobs_to_their_estimate():
    m = MachineSimulation(EASYScheduler(4), [Job(1, 0, 2, 600, 1200), Job(2, 0, 2, 3000, 3600)])
    m.run_until(1800)
    blocks = {b.label: b for b in machine_plan(m, 1800, window=(0, 4 * H))}
    assert (blocks["1"].kind, blocks["1"].start, blocks["1"].end) == ("done", 0, 600)
    assert (blocks["2"].kind, blocks["2"].end) == ("running", 3600)  # planned end = start + estimate


def test_window_must_contain_now():
    with pytest.raises(InvalidInput, match="must contain now"):
        machine_plan(_machine(EASYScheduler(5)), 100, window=(200, 300))


def test_assign_rows_never_puts_two_blocks_on_one_processor_at_once():
    blocks = machine_plan(_machine(SlotScheduler(5)), 0, window=(0, 8 * H))
    placed = assign_rows(blocks, 5)
    assert [b for b, _ in placed] == blocks
    for b, rows in placed:
        assert len(rows) == b.procs and len(set(rows)) == len(rows)
        assert all(0 <= r < 5 for r in rows)
    for t in range(0, 8 * H, 300):
        used = [r for b, rows in placed if b.start <= t < b.end for r in rows]
        assert len(used) == len(set(used)) == 5


def test_assign_rows_gives_an_overfull_block_the_rows_there_are():
    placed = assign_rows([PlanBlock("running", 0, 10, 2, "a"), PlanBlock("running", 0, 10, 2, "b")], 3)
    assert [rows for _, rows in placed] == [[0, 1], [2]]


@pytest.mark.parametrize("kwargs, match", [
    ({"kind": "bogus"}, "unknown kind"),
    ({"end": 0}, "must be after start"),
    ({"procs": 0}, "procs must be >= 1"),
])
def test_plan_block_rejects_bad_values(kwargs, match):
    values = {"kind": "running", "start": 0, "end": 10, "procs": 1, **kwargs}
    with pytest.raises(InvalidInput, match=match):
        PlanBlock(**values)


class _SJF(EASYScheduler):
    """EASY over a queue kept shortest-estimate first (docs/examples/plugins/sjf_policy.py), unregistered."""

    name = "sjf"

    def submit(self, job, now):
        super().submit(job, now)
        self.queue.pop()
        self.queue.append(job)
        self.queue.sort(key=lambda j: (j.estimate, j.submit, j.id))


def test_a_plug_in_policy_queue_is_drawn_where_the_policy_itself_would_start_it():
    # 4 procs; R1 2 x 100, R2 1 x 20, R3 1 x 30 start at 0; at 1 arrive H 4 x 10, B 2 x 60, C 1 x 70 (SJF's
    # order is theirs). SJF's own forward run: H holds the shadow at 100, C backfills at 20 (ends by 100), B
    # waits for H: B at 110. Queue order at earliest starts would put B at 30 and C at 110.
    jobs = [Job(i, t, n, d, d) for i, (t, n, d) in
            enumerate([(0, 2, 100), (0, 1, 20), (0, 1, 30), (1, 4, 10), (1, 2, 60), (1, 1, 70)])]
    m = MachineSimulation(_SJF(4), jobs)
    m.run_until(1)
    blocks = machine_plan(m, 1, window=(0, 4 * H))
    projected = {b.label: b.start for b in blocks if b.kind == "projected"}
    assert projected == {"3": 100, "4": 110, "5": 20}
    assert all(_busy(blocks, t) == 4 for t in range(1, 4 * H, 5))


def test_a_policy_that_cannot_run_forward_keeps_queue_order_at_earliest_starts():
    from gridmarket.scheduling import make_scheduler

    sched = make_scheduler("psp", 4)  # PSP ranks users: pricing refuses to run it forward
    m = MachineSimulation(sched, [Job(i, 0, n, d, d, user=i) for i, (n, d) in
                                  enumerate([(2, 100), (1, 20), (1, 30), (4, 10), (2, 60), (1, 70)])])
    m.run_until(0)
    blocks = machine_plan(m, 0, window=(0, 4 * H))
    projected = {b.label: b.start for b in blocks if b.kind == "projected"}
    queue = [j.id for j in sched.queue]
    assert sorted(projected) == sorted(str(j) for j in queue)
    assert all(_busy(blocks, t) == 4 for t in range(0, 4 * H, 5))
