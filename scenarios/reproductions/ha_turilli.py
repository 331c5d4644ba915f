"""Reproduction of Ha, Turilli, Merzky & Jha (``ha-turilli-resource-selection.txt``): sec. IV-B, Figs. 5 and 6a.

Composes :func:`gridmarket.selection.compare_selection` (RES_SELECT with the TTC
affinity vs random distribution) and :func:`gridmarket.selection.bag_of_tasks_ttc`
(the simulated execution) on the Table I systems. Times are seconds.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from gridmarket.scenarios.reproductions.report import Check, Row, register, setup_check

__all__ = ["ha_selection"]

_SIZES = (64, 128, 256, 512, 1024)  # sec. IV-B: "workloads with 64, 128, 256, 512, and 1024 tasks"
_CYCLES = 4.6e12  # cycles of one GROMACS task, compare_selection's default


@register("ha-selection", citation="Ha et al., sec. IV-B2 Fig. 6(a) (and Fig. 5)",
          summary="ILLUSTRATION (hand-set queue waits and IPCs): bag of tasks placed by the consumables cost "
                  "model + matchmaking vs random distribution")
def ha_selection(size: str, seed: int, data: Path | None):
    """Model-based resource selection against random distribution (Ha et al., sec. IV-B, Fig. 6a).

    Bags of 64 to 1024 single-core MD tasks on the simulated Table I systems
    (Bridges, Comet, SuperMIC, OSG): the model predicts each task's execution
    time by eq. 2 at the base clock, adds the expected queue wait, and
    RES_SELECT sends every task to the smallest predicted TTC; the baseline
    spreads tasks uniformly at random. Also reports eq. 2's over-prediction
    of the execution time per machine (Fig. 5).

    An illustration, not a reproduction: the queue waits (lognormal, with
    per-system means of our choosing) and the IPCs are set by hand in
    ``gridmarket.selection.TABLE_I_SYSTEMS`` (the paper measured waits over a
    month on the live machines, which no trace here records), so the
    directions follow from those inputs; the run shows the mechanism at
    work, not that the paper's finding holds.

    Every check is a set-up check (none counts toward a reproduction total): the run shows the
    mechanism at work on inputs we chose.

    Seed's direction: the model's TTC_wkd is 67-85 % lower than random
    distribution's for every workload size; the model picks SuperMIC; eq. 2
    with base clocks over-predicts the execution time by 157-171 % on the
    XSEDE machines and 7-18 % on OSG (sec. IV-A3; the abstract's 18-31 % is
    the error before the 22 % OSG instruction correction), yet selects
    better than random.

    Sizes: ``small`` 10 executions per workload size and method (under 1 s);
    ``full`` 30 (about a month of daily runs): a few seconds.
    """
    from gridmarket.selection import TABLE_I_SYSTEMS, bag_of_tasks_ttc, compare_selection

    repeats = 10 if size == "small" else 30
    rows, checks = [], []
    reductions, choices = [], []
    result: dict = {}  # the largest size's, read below
    for n_tasks, child in zip(_SIZES, np.random.SeedSequence(seed).spawn(len(_SIZES))):
        result = compare_selection(n_tasks, rng=np.random.default_rng(child), repeats=repeats, cycles=_CYCLES)
        reductions.append(100 * result["reduction"])
        choices.append(result["model_choice"])
        rows.append(Row(f"{n_tasks} tasks: TTC_wkd reduction, model vs random", reductions[-1], None, "%",
                        "Fig. 6(a): 67-85 % over 64-1024 tasks"))
    rows.append(Row("smallest reduction over the sizes", min(reductions), 67.0, "%", "Fig. 6(a), sec. IV-B2"))
    rows.append(Row("largest reduction over the sizes", max(reductions), 85.0, "%", "Fig. 6(a), sec. IV-B2"))
    over = {}
    for k, system in enumerate(TABLE_I_SYSTEMS):
        actual = bag_of_tasks_ttc([k], TABLE_I_SYSTEMS, _CYCLES, rng=np.random.default_rng(0))["tx"]
        over[system.name] = 100 * (result["predicted_tx"][system.name] / actual - 1)
        ref = ("sec. IV-A3: over-predicts by 7-18 % on OSG" if system.single_core_pilots
               else "Fig. 5: 157-171 % on XSEDE machines")
        rows.append(Row(f"{system.name}: eq. 2 over-prediction of Tx", over[system.name], None, "%", ref))
    # An illustration on hand-set inputs: every check follows from the waits and IPCs we set, so none can count
    # as a finding; they are set-up checks, reported apart from the directions of the other reproductions
    why = "an illustration on hand-set queue waits and IPCs (gridmarket.selection.TABLE_I_SYSTEMS)"
    checks.append(Check("model-based selection's TTC_wkd is 67-85 % lower than random's for every workload size "
                        "(Fig. 6a, sec. IV-B2)", all(67.0 <= r <= 85.0 for r in reductions),
                        ", ".join(f"{n}: {r:.0f} %" for n, r in zip(_SIZES, reductions))))
    checks.append(Check("the model sends the whole workload to SuperMIC (sec. IV-B2)",
                        all(set(c) == {"SuperMIC"} for c in choices), str(choices[-1])))
    hpc = [v for s, v in zip(TABLE_I_SYSTEMS, over.values()) if not s.single_core_pilots]
    checks.append(Check("eq. 2 at base clocks over-predicts Tx on every XSEDE machine (Fig. 5)", min(hpc) > 0,
                        ", ".join(f"{k}: {v:.0f} %" for k, v in over.items())))
    osg = [v for s, v in zip(TABLE_I_SYSTEMS, over.values()) if s.single_core_pilots]
    checks.append(Check("eq. 2's over-prediction on each XSEDE machine is within the paper's 157-171 % (Fig. 5)",
                        all(157 <= v <= 171 for v in hpc), ", ".join(f"{v:.0f} %" for v in hpc)))
    checks.append(Check("eq. 2's over-prediction on OSG is within the paper's 7-18 % (sec. IV-A3)",
                        all(7 <= v <= 18 for v in osg), ", ".join(f"{v:.1f} %" for v in osg)))
    checks = [setup_check(c, why) for c in checks]
    notes = ["ILLUSTRATION: queue waits are lognormal with per-system means of our choosing and the IPCs are "
             "hand-set (gridmarket.selection.TABLE_I_SYSTEMS); the directions follow from these inputs"]
    return rows, checks, {"sizes": list(_SIZES), "repeats": repeats, "cycles": _CYCLES}, notes
