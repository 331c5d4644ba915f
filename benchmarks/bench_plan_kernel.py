"""MOGA plan evaluation with the compiled slot-capacity loops and slot choice (``_cplan.pyx``) vs the pure-Python references.

Why: singh-advertisement's full size spends ~90 % in ``PlanEvaluator.evaluate``. The instance
is ``bench_provisioning.py``'s part 1: a 100-task layered workflow on the slots SDSC-SP2 advertises at
the submission of its job 1400 (slot scheduler); 300 random plans, then MOGA 100 x 10, each under both
implementations in one run, results checked identical.

    python benchmarks/bench_plan_kernel.py
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np  # noqa: E402
from datafiles import data_file  # noqa: E402

from gridmarket.provisioning import PlanEvaluator, moga  # noqa: E402
from gridmarket.provisioning import schedule as sched  # noqa: E402
from gridmarket.scenarios.harnesses.provisioning import Provider  # noqa: E402
from gridmarket.workflows import layered_workflow  # noqa: E402
from gridmarket.workloads import read_swf  # noqa: E402


def main() -> int:
    import gridmarket.provisioning._cplan as compiled

    warnings.simplefilter("ignore")
    w = read_swf(data_file("traces/SDSC-SP2-1998-4.2-cln.swf.gz", needed_by="bench_plan_kernel"))
    sdsc = Provider("sdsc", 128, w.jobs[:6000])
    wf = layered_workflow(100, depth=10, mean_procs=6, rng=np.random.default_rng(0))
    at = w.jobs[1400].submit
    slots = sdsc.advertised(at)
    ev = PlanEvaluator(wf, slots, release=at, capacity={"sdsc": 128})
    rng = np.random.default_rng(1)
    plans = [rng.integers(0, 2, len(slots)).tolist() for _ in range(300)]
    out = {}
    for name, fit, take, pick in (("reference", sched.reference_fit, sched.reference_take, sched.reference_pick),
                                  ("compiled", compiled.fit, compiled.take, compiled.pick)):
        sched._fit, sched._take, sched._pick = fit, take, pick
        t0 = time.perf_counter()
        results = [ev.evaluate(p) for p in plans]
        t_eval = time.perf_counter() - t0
        t0 = time.perf_counter()
        front = moga(ev, population=100, generations=10, rng=np.random.default_rng(1)).front.points
        t_moga = time.perf_counter() - t0
        out[name] = (results, front, t_eval, t_moga)
        print(f"{name:<9} 300 plans {t_eval:6.2f} s ({300 / t_eval:5.0f} plans/s); MOGA 100x10 {t_moga:6.2f} s",
              flush=True)
    same = out["reference"][:2] == out["compiled"][:2]
    print(f"identical evaluations and MOGA front: {same}")
    print(f"speed-up: plans {out['reference'][2] / out['compiled'][2]:.1f}x, "
          f"MOGA {out['reference'][3] / out['compiled'][3]:.1f}x")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
