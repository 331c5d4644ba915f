"""Hand-checked timelines of KEASY, REASY and MEASY (Liu et al. 2012, secs. 2.2.2, 2.3; Figs. 1-4 in spirit).

Every job's traits are fixed (no fg loss, beta = 1, the bg progress is ``beta * u * (1 - u_fg)``)
so each timeline can be worked out by hand; the arithmetic is in each test's docstring.
"""

import numpy as np
import pytest

from gridmarket.job import Job
from gridmarket.simulation import simulate
from gridmarket.twotier import JobTraits, simulate_twotier


def traits(usage, beta=1.0, loss=0.0):
    usage = tuple(usage)
    return JobTraits(usage, usage, beta, loss)


def run(jobs, procs, policy, fixed, **kw):
    return simulate_twotier(jobs, procs=procs, policy=policy, rng=np.random.default_rng(0),
                            traits=fixed, validate=True, **kw)


def rows(result):
    return result.records.set_index("job_id")


FIVE = [
    Job(1, 0, 2, 10, 10),
    Job(2, 0, 5, 6, 6),
    Job(3, 0, 3, 8, 8),
    Job(4, 0, 1, 4, 4),
]
FIVE_TRAITS = {1: traits([0.5] * 2), 2: traits([1.0] * 5), 3: traits([0.5] * 3), 4: traits([1.0])}


@pytest.mark.parametrize("policy", ["keasy", "reasy", "measy"])
def test_five_processor_example_runs_j4_in_background_and_swaps_j2(policy):
    """Five processors, all jobs at 0 (estimates exact).

    t=0: J1 (2 procs) starts by FCFS on P0-1. J2 (5) is the blocked head: shadow 10 (J1's end),
    extra 3 + 2 - 5 = 0. J3 (3 procs, 8 s) ends by 10: backfilled on P2-4. J4 (1 proc) fits no
    idle fg VM. Step 3, SJF: J4 (est. 4) goes to the bg VM of P0 (fg usage 0.5): rate
    1 * 1.0 * 0.5 = 0.5, so it ends at 8; J2 (5 procs) finds only 4 bg VMs.
    t=8: J3 and J4 end. J2 still needs 5 fg VMs (3 idle); Step 3 puts it in the 5 bg VMs (P2-4
    behind empty fg VMs, P0-1 behind J1 at 0.5): rate min(1, 0.5) = 0.5.
    t=10: J1 ends; J2 has done 1 s; its own processors' fg VMs are all idle: priorities swap and
    it runs the 5 s left at full speed: ends 15.
    EASY, for comparison: J4 cannot backfill (8 + 4 > 10, no extra) and runs after J2: J2 ends
    16, J4 ends 20.
    """
    r = rows(run(FIVE, 5, policy, FIVE_TRAITS))
    assert r.loc[[1, 2, 3, 4], "start"].tolist() == [0, 8, 0, 0]
    assert r.loc[[1, 2, 3, 4], "end"].tolist() == [10, 15, 8, 8]
    assert r.loc[4, "finished_in"] == "bg" and r.loc[2, "finished_in"] == "fg"
    assert r.loc[2, "swaps"] == 1 and r.loc[2, "fg_start"] == 10
    assert r["kills"].sum() == 0 and r["migrations"].sum() == 0
    easy = simulate(FIVE, procs=5, policy="easy").records.set_index("job_id")
    assert easy.loc[[2, 4], "end"].tolist() == [16, 20]


THREE = [Job(1, 0, 2, 100, 100), Job(2, 0, 1, 30, 30), Job(3, 0, 1, 60, 60)]
THREE_TRAITS = {1: traits([0.5, 0.5]), 2: traits([0.5]), 3: traits([1.0])}


def test_keasy_kills_a_background_job_and_restarts_it_on_other_processors():
    """Three processors. t=0: J1 (P0-1) and J2 (P2) fill the fg tier; J3 goes to the bg VM of
    P0 behind J1: rate 1 * 1.0 * 0.5 = 0.5. t=30: J2 ends, J3 (15 s done) is the head and fits
    the idle fg VM of P2, but its own P0 is busy: KEASY kills it (15 s wasted) and restarts it
    there from the beginning: ends 30 + 60 = 90."""
    r = rows(run(THREE, 3, "keasy", THREE_TRAITS))
    assert r.loc[3, ["start", "last_start", "fg_start", "end", "kills"]].tolist() == [0, 30, 30, 90, 1]
    assert r.loc[3, "wasted"] == pytest.approx(15.0)
    assert r.loc[1, "end"] == 100 and r.loc[2, "end"] == 30


def test_measy_migrates_the_background_job_keeping_its_progress():
    """Same start as the KEASY case; at t=30 MEASY migrates J3 to P2 instead: frozen for the
    migration cost (5 s), then 60 - 15 = 45 s left at full speed: ends 30 + 5 + 45 = 80."""
    r = rows(run(THREE, 3, "measy", THREE_TRAITS, migration_cost=5))
    assert r.loc[3, ["start", "fg_start", "end", "migrations", "kills"]].tolist() == [0, 30, 80, 1, 0]
    assert r.loc[3, "wasted"] == 0


def test_measy_migration_cost_delays_the_end_one_for_one():
    ends = [rows(run(THREE, 3, "measy", THREE_TRAITS, migration_cost=c)).loc[3, "end"] for c in (0, 20, 40)]
    assert ends == [75, 95, 115]


def test_reasy_keeps_the_background_job_pinned_until_its_own_fg_vm_is_idle():
    """REASY cannot move J3 at t=30 (its P0 is held by J1): it stays in the bg VM at rate 0.5,
    has done 50 s at t=100 when J1 ends, then swaps to the fg tier and finishes the last 10 s:
    ends 110. Its reservation (sec. 2.3.1): shadow = J1's end 100, extra = 1 + 2 - 1 = 2."""
    r = rows(run(THREE, 3, "reasy", THREE_TRAITS))
    assert r.loc[3, ["start", "fg_start", "end", "swaps", "kills", "migrations"]].tolist() == [0, 100, 110, 1, 0, 0]


def test_reasy_backfill_that_outlasts_the_shadow_avoids_the_pinned_heads_processor():
    """Two processors. J1 (P0, 100 s, usage 0.5) and J2 (P1, 10 s) run; J3 (1 proc) goes to the bg
    VM of P0 behind J1 (rate 0.5). t=10: J2 ends; J3 is the pinned head: shadow 100, extra
    1 + 1 - 1 = 1, its processor P0 reserved. J4 (arrives at 10, 1 proc, 500 s) outlasts the
    shadow, fits the extra VM and is dispatched to P1, never P0."""
    jobs = [Job(1, 0, 1, 100, 100), Job(2, 0, 1, 10, 10), Job(3, 0, 1, 300, 300), Job(4, 10, 1, 500, 500)]
    fixed = {1: traits([0.5]), 2: traits([0.5]), 3: traits([1.0]), 4: traits([1.0])}
    res = run(jobs, 2, "reasy", fixed)
    r = rows(res)
    assert r.loc[4, "start"] == 10 and r.loc[4, "end"] == 510 and r.loc[4, "finished_in"] == "fg"
    # J3: 50 s done by t=100 (rate 0.5 behind J1), then swaps onto P0: 250 s more, ends 350
    assert r.loc[3, ["fg_start", "end", "swaps"]].tolist() == [100, 350, 1]


@pytest.mark.parametrize("usage, in_bg", [(0.97, False), (0.95, True)])
def test_no_background_placement_behind_a_foreground_process_above_96_percent(usage, in_bg):
    jobs = [Job(1, 0, 1, 100, 100), Job(2, 0, 1, 10, 10)]
    r = rows(run(jobs, 1, "keasy", {1: traits([usage]), 2: traits([1.0])}))
    assert bool(r.loc[2, "start"] == 0) is in_bg
    if not in_bg:
        assert r.loc[2, ["start", "end"]].tolist() == [100, 110]


def test_without_usage_information_the_threshold_cannot_be_applied():
    """Sec. 3.5.1: a scheduler that sees no usage places J2 behind the 97 % fg job anyway; it
    barely advances (rate 1 * 1.0 * 0.03) until J1 ends and it swaps."""
    jobs = [Job(1, 0, 1, 100, 100), Job(2, 0, 1, 10, 10)]
    hidden = {1: JobTraits((0.97,), (None,), 1.0, 0.0), 2: JobTraits((1.0,), (None,), 1.0, 0.0)}
    r = rows(run(jobs, 1, "keasy", hidden))
    assert r.loc[2, "start"] == 0 and r.loc[2, "swaps"] == 1
    assert r.loc[2, "end"] == 107  # 3 s done by t=100, 7 s left


def test_foreground_loss_stretches_a_job_by_one_over_one_minus_loss():
    r = rows(run([Job(1, 0, 2, 1000, 1000)], 2, "keasy", {1: traits([1.0, 1.0], loss=0.04)}))
    assert r.loc[1, "end"] == 1042  # ceil(1000 / 0.96)


def test_a_job_runs_at_the_pace_of_its_slowest_background_process():
    """J1 holds P0 at usage 0.2 and P1 at 0.8 (two single-process jobs). J3 (2 processes, usage
    0.6 each, beta 0.5) goes to both bg VMs: rates 0.5*0.6*0.8 = 0.24 and 0.5*0.6*0.2 = 0.06;
    the job advances at 0.06 until the fg jobs end at 100 (6 s done), then swaps: ends 100 + 94.
    The ratio reading (the default): min(1, 0.5*0.8/0.6) = 0.667 and 0.5*0.2/0.6 = 0.1667, so
    16.67 s done by 100 and the end is 100 + ceil(83.33) = 184."""
    jobs = [Job(1, 0, 1, 100, 100), Job(2, 0, 1, 100, 100), Job(3, 0, 2, 100, 100)]
    fixed = {1: traits([0.2]), 2: traits([0.8]), 3: traits([0.6, 0.6], beta=0.5)}
    r = rows(run(jobs, 2, "keasy", fixed, bg_model="product"))
    assert r.loc[3, ["start", "fg_start", "end"]].tolist() == [0, 100, 194]
    r = rows(run(jobs, 2, "keasy", fixed))
    assert r.loc[3, ["start", "fg_start", "end"]].tolist() == [0, 100, 184]


def test_ratio_model_runs_a_low_usage_process_behind_an_empty_fg_vm_at_full_speed():
    jobs = [Job(1, 0, 2, 100, 100), Job(2, 0, 1, 50, 50)]
    # J1 holds both fg VMs of a 2-processor machine at usage 0.3; J2 (usage 0.4, beta 0.5) goes to
    # a bg VM: product 0.5*0.4*0.7 = 0.14, ratio min(1, 0.5*0.7/0.4) = 0.875
    fixed = {1: traits([0.3, 0.3]), 2: traits([0.4], beta=0.5)}
    product = rows(run(jobs, 2, "keasy", fixed, bg_model="product")).loc[2, "end"]
    ratio = rows(run(jobs, 2, "keasy", fixed, bg_model="ratio")).loc[2, "end"]
    assert product == 100 + 36  # 14 s done by 100, then 36 s in the fg tier
    assert ratio == 58  # ceil(50 / 0.875) = 58 < 100: it finishes in the bg tier
