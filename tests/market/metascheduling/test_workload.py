"""The synthetic grid workload of sec. 4.3.1: per-system Lublin streams with Tsafrir estimates."""

import numpy as np
import pytest

from gridmarket.energy import GridSystem, xsede_systems
from gridmarket.errors import InvalidInput
from gridmarket.metascheduling import grid_workload


def test_rate_load_and_limits_follow_the_parameters():
    systems = xsede_systems()[:3]
    jobs = grid_workload(systems, days=4, rng=np.random.default_rng(0), offered_load=0.6)
    by = {s.name: s for s in systems}
    assert [j.id for j in jobs] == list(range(1, len(jobs) + 1))
    assert all(a.submit <= b.submit for a, b in zip(jobs, jobs[1:]))
    for name, system in by.items():
        mine = [j for j in jobs if j.site == name]
        assert len(mine) == pytest.approx(3.22 * 24 * 4, rel=0.3)
        assert all(j.procs <= system.cores and j.runtime <= j.estimate <= system.max_walltime for j in mine)
        load = sum(j.procs * j.runtime for j in mine) / (system.cores * 4 * 86400)
        assert 0.3 < load <= 0.61  # capping at the wall-time limit only lowers it


def test_same_seed_same_workload():
    s = xsede_systems()[4:6]
    assert grid_workload(s, days=1, rng=np.random.default_rng(5)) == grid_workload(s, days=1, rng=np.random.default_rng(5))


def test_too_few_jobs_for_tsafrir_fall_back_to_the_walltime_with_a_warning():
    tiny = GridSystem("tiny", 64, 3 * 86400, 10.0, 10.0)
    with pytest.warns(UserWarning, match="tiny: Tsafrir estimates unavailable"):
        jobs = grid_workload([tiny], days=1, rng=np.random.default_rng(3), jobs_per_hour=0.5, offered_load=1.0)
    assert all(j.estimate == tiny.max_walltime for j in jobs)


@pytest.mark.parametrize("kwargs,match", [({"days": 0}, "days"), ({"days": 1, "offered_load": 2}, "offered_load")])
def test_bad_parameters_are_rejected(kwargs, match):
    with pytest.raises(InvalidInput, match=match):
        grid_workload(xsede_systems()[:1], rng=np.random.default_rng(0), **kwargs)


def test_max_procs_bounds_each_systems_job_sizes_and_lowers_its_load():
    systems = xsede_systems()[:2]  # Blacklight 4096 cores, Darter 11968
    kwargs = {"days": 4, "mean_runtime": 8.8 * 3600, "min_runtime": 1800}
    capped = grid_workload(systems, rng=np.random.default_rng(1), max_procs={"Darter": 128}, **kwargs)
    whole = grid_workload(systems, rng=np.random.default_rng(1), **kwargs)
    darter = [j.procs for j in capped if j.site == "Darter"]
    assert max(darter) <= 128 < max(j.procs for j in whole if j.site == "Darter")
    assert sum(darter) < sum(j.procs for j in whole if j.site == "Darter")


@pytest.mark.parametrize("max_procs, match", [
    ({"Nowhere": 8}, r"max_procs names unknown system 'Nowhere'; systems are \['Blacklight'\]"),
    ({"Blacklight": 0}, r"max_procs\['Blacklight'\] must be an int in \[1, 4096\] \(its cores\), got 0"),
    ({"Blacklight": 5000}, r"max_procs\['Blacklight'\] must be an int in \[1, 4096\] \(its cores\), got 5000"),
])
def test_bad_max_procs_is_named(max_procs, match):
    with pytest.raises(InvalidInput, match=match):
        grid_workload(xsede_systems()[:1], days=1, rng=np.random.default_rng(0), max_procs=max_procs)
