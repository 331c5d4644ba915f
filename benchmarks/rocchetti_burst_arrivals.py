"""Rocchetti et al., Table 3 on Cluster FING's 1672 cores: do burst arrivals (the SLURM simulator's generator) make jobs wait?

The paper (Sec. 2.3) made its workloads with "a workload generator for SLURM ... provided with the
simulator ... with slight changes in its source code". The simulator's ``trace_builder.c`` submits jobs at a
fixed step: one job every 30 s in one version, ``-s submission_step`` (default 0: all at once) in another.
This script replays the reproduction's Sec. 5.2 workload on 1672 cores with arrivals on ``[0, SPAN)`` and
sizes either as the reproduction draws them (``trace``: 87 % sequential, Sec. 5.1) or uniform on
{1, 2, 4, 8, 16} (``uniform``), and prints the mean wait (minutes) per scenario, seed and class.

    python benchmarks/rocchetti_burst_arrivals.py SPAN {trace,uniform} [POLICY]
"""
import sys
from dataclasses import replace

import numpy as np
import pandas as pd

from gridmarket.scenarios.harnesses.psp import SCENARIOS, class_waits
from gridmarket.simulation import simulate
from gridmarket.workloads.behaviour import apply_behaviour, paper_workload

span = int(sys.argv[1])
sizes_mode = sys.argv[2]
policy = sys.argv[3] if len(sys.argv) > 3 else "psp"
out = []
for seed in (1, 2, 3):
    for child in np.random.SeedSequence(seed).spawn(4):
        wseed, *sseeds = child.spawn(1 + len(SCENARIOS))
        w = paper_workload(1000, span=span, rng=np.random.default_rng(wseed))
        if sizes_mode == "uniform":
            r = np.random.default_rng(int(wseed.generate_state(1)[0]))
            jobs = tuple(replace(j, procs=int(p)) for j, p in zip(w.jobs, r.choice([1, 2, 4, 8, 16], size=len(w.jobs))))
            w = replace(w, jobs=jobs)
        rows = {}
        for name, ss in zip(SCENARIOS, sseeds):
            jobs = apply_behaviour(w, name, n_users=None, max_estimate=864000, rng=np.random.default_rng(ss))
            rec = simulate(jobs, procs=1672, policy=policy).records
            rows[name] = class_waits(rec, by="user")
        out.append(pd.DataFrame(rows).T.assign(seed=seed))
t = pd.concat(out)
print((t.groupby([t.index, "seed"]).mean() / 60).round(0).to_string())
