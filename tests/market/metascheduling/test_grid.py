"""The grid metascheduler: strategies end to end on a small XSEDE-like grid, fairness, bad input."""

import numpy as np
import pandas as pd
import pytest

from gridmarket.energy import GridSystem, HourlyPrices, fixed_prices, synthetic_prices, xsede_systems
from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.metascheduling import GridConfig, Site, fairness_scores, grid_workload, run_grid
from gridmarket.prediction import PriceOutlook

DAY = 86400


@pytest.fixture(scope="module")
def small_grid():
    systems = [s for s in xsede_systems() if s.name in ("Gordon", "Mason", "Blacklight")]
    sites = [
        Site(s, p, PriceOutlook(p, forecaster=None))  # perfect foresight keeps the test fast
        for s, p in zip(systems, (synthetic_prices(12, rng=np.random.default_rng(k), mean=30 + 10 * k) for k in range(3)))
    ]
    jobs = grid_workload(systems, days=1.0, rng=np.random.default_rng(3), start=3 * DAY, offered_load=0.8)
    return sites, jobs


@pytest.fixture(scope="module")
def runs(small_grid):
    sites, jobs = small_grid
    configs = [GridConfig("bs"), GridConfig("mcmf", w_t=0), GridConfig("mcmf", w_t=100), GridConfig("inst"),
               GridConfig("twoprice"), GridConfig("stable-jobs"), GridConfig("stable-systems"),
               GridConfig("mcmf", w_t=25, grid_fraction=0.5)]
    return {c.name: run_grid(jobs, sites, c, rng=np.random.default_rng(9)) for c in configs}


def test_every_strategy_runs_every_job_once_on_a_system_that_fits(small_grid, runs):
    sites, jobs = small_grid
    by_name = {s.system.name: s.system for s in sites}
    for name, result in runs.items():
        rec = result.records
        assert sorted(rec["job_id"]) == sorted(j.id for j in jobs), name
        assert (rec["start"] >= rec["dispatch"]).all() and (rec["dispatch"] >= rec["submit"]).all()
        assert (rec["procs"] <= rec["system"].map(lambda s: by_name[s].cores)).all()
        assert (rec["estimate"] <= rec["system"].map(lambda s: by_name[s].max_walltime)).all()
        assert (rec["end"] - rec["start"] <= rec["estimate"]).all()


def test_baseline_keeps_jobs_home_and_grid_strategies_migrate(runs):
    assert runs["bs"].summary["migrated"] == 0
    assert runs["mcmf-w100-maxq2"].summary["migrated"] > 0


def test_weight_trades_response_time_against_electricity_cost(runs):
    cheap, fast = runs["mcmf-w0-maxq2"].summary, runs["mcmf-w100-maxq2"].summary
    assert cheap["total_energy_cost"] < fast["total_energy_cost"]
    assert fast["mean_response"] < cheap["mean_response"]
    assert fast["mean_response"] < runs["bs"].summary["mean_response"]


def test_maxq_caps_dispatches_per_cycle(runs):
    rec = runs["mcmf-w100-maxq2"].records
    routed = rec[rec["routed"]]
    assert routed.groupby(["dispatch", "system"]).size().max() <= 2


def test_grid_fraction_routes_about_half_the_jobs(runs):
    share = runs["mcmf-w25-maxq2-fg0.5"].records["routed"].mean()
    assert 0.4 < share < 0.6


def test_energy_cost_is_eq7_of_the_actual_run(small_grid, runs):
    sites, _ = small_grid
    prices = {s.system.name: s.prices for s in sites}
    row = runs["inst-w25-maxq2"].records.iloc[7]
    expected = row["power_watts"] * prices[row["system"]].integral(int(row["start"]), int(row["end"])) / 1e6
    assert row["energy_cost"] == pytest.approx(expected)


def test_fairness_scores_are_one_for_the_baseline_itself_and_eq9_for_a_grid_run(runs):
    from scipy.stats import gmean

    bs = runs["bs"].records
    assert np.allclose(fairness_scores(bs, bs).to_numpy(), 1.0)
    # eq. 9 by an independent route: per origin, the geometric mean of R_local / R_grid (> 1: the grid served
    # the system's users faster than their own queue did); the identity above holds for the inverse ratio too
    grid = runs["mcmf-w25-maxq2-fg0.5"].records
    both = grid.merge(bs, on="job_id", suffixes=("", "_bs"))
    both["ratio"] = (both["end_bs"] - both["submit_bs"]) / (both["end"] - both["submit"])
    want = both.groupby("origin")["ratio"].apply(gmean)
    got = fairness_scores(grid, bs)
    assert got.to_dict() == pytest.approx(want.to_dict(), rel=1e-12)
    assert not np.allclose(got.to_numpy(), 1.0)  # the grid moved responses: the case tells the ratio's direction
    split = fairness_scores(grid, bs, by_route=True)
    assert set(split.columns) == {"grid", "local"}
    for (origin, routed), ratios in both.groupby(["origin", "routed"])["ratio"]:
        assert split.loc[origin, "grid" if routed else "local"] == pytest.approx(gmean(ratios), rel=1e-12)


def test_same_seed_same_run(small_grid, runs):
    sites, jobs = small_grid
    again = run_grid(jobs, sites, GridConfig("mcmf", w_t=100), rng=np.random.default_rng(9))
    pd.testing.assert_frame_equal(again.records, runs["mcmf-w100-maxq2"].records)


def test_config_names_are_readable():
    assert GridConfig("mcmf", w_t=25, maxq=None).name == "mcmf-w25-maxqinf"
    assert GridConfig("stable-jobs", maxq=2, power_model="lower").name == "stable-jobs-maxq2-lower"


@pytest.mark.parametrize("kwargs,match", [({"strategy": "greedy"}, "unknown strategy"), ({"w_t": 150}, "w_t"),
                                          ({"maxq": 0}, "maxq"), ({"grid_fraction": 2}, "grid_fraction"),
                                          ({"warmup": -1}, "warmup"), ({"warmup": True}, "warmup")])
def test_bad_config_is_rejected(small_grid, kwargs, match):
    sites, jobs = small_grid
    with pytest.raises(InvalidInput, match=match):
        run_grid(jobs[:3], sites, GridConfig(**kwargs), rng=np.random.default_rng(0))


def test_unknown_origin_system_is_rejected(small_grid):
    sites, _ = small_grid
    with pytest.raises(InvalidInput, match="unknown system 'Kraken'"):
        run_grid([Job(1, 0, 1, 10, 10, site="Kraken")], sites, GridConfig("mcmf"), rng=np.random.default_rng(0))


def test_a_job_no_system_can_run_is_reported():
    tiny = GridSystem("tiny", 4, 3600, 10.0, 10.0)
    site = Site(tiny, fixed_prices(50.0, 24 * 6), PriceOutlook(fixed_prices(50.0, 24 * 6), forecaster=None))
    job = Job(1, 3 * DAY, 1, 100, 7200, site="tiny")  # estimate beyond the wall-time limit
    with pytest.raises(InvalidInput, match="fits no system"):
        run_grid([job], [site], GridConfig("mcmf"), rng=np.random.default_rng(0))


def test_price_series_too_short_for_a_job_is_an_error():
    s = GridSystem("s", 4, 10 * 3600, 10.0, 10.0)
    short = HourlyPrices(np.full(76, 40.0))
    site = Site(s, short, PriceOutlook(short, forecaster=None))
    with pytest.raises(InvalidInput, match="past its price series"):
        run_grid([Job(1, 3 * DAY, 1, 5 * 3600, 5 * 3600, site="s")], [site], GridConfig("bs"), rng=np.random.default_rng(0))


def test_a_job_past_the_price_series_is_priced_from_the_sites_continuation():
    """Hand-checked: 4 cores x 10 W = 40 W from hour 72 to hour 77 (submitted at 3 days, 5 h run, empty machine).
    Hours 72-75 are the series' own at 40/MWh, hour 76 its continuation's first hour, 100/MWh:
    40 W x (4 x 40 + 1 x 100) price-hours / 1e6 = 0.0104. Without the continuation the run is an error."""
    s = GridSystem("s", 4, 10 * 3600, 10.0, 10.0)
    short = HourlyPrices(np.full(76, 40.0))
    after = HourlyPrices([100.0, 7.0, 7.0])
    site = Site(s, short, PriceOutlook(short, forecaster=None), continuation=after)
    job = Job(1, 3 * DAY, 4, 5 * 3600, 5 * 3600, site="s")
    rec = run_grid([job], [site], GridConfig("bs"), rng=np.random.default_rng(0)).records
    assert (int(rec["start"].iloc[0]), int(rec["end"].iloc[0])) == (72 * 3600, 77 * 3600)
    assert rec["energy_cost"].iloc[0] == pytest.approx(40 * (4 * 40 + 1 * 100) / 1e6)
    # a job ending past the continuation too is still the one-line error
    long_job = Job(1, 3 * DAY, 4, 8 * 3600, 8 * 3600, site="s")
    with pytest.raises(InvalidInput, match=r"ends at second 288000 on 's', past its price series and their "
                                           r"continuation \(284400 s\)"):
        run_grid([long_job], [site], GridConfig("bs"), rng=np.random.default_rng(0))


def test_power_and_load_series_cover_every_system(small_grid, runs):
    from gridmarket.metascheduling import instantaneous_load, power_over_time

    sites, _ = small_grid
    rec = runs["mcmf-w25-maxq2-fg0.5"].records
    power = power_over_time(rec)
    load = instantaneous_load(rec, {s.system.name: s.system.cores for s in sites})
    assert set(power.columns) == set(rec["system"]) == set(load.columns)
    # total energy of the series equals the jobs' watt-hours
    assert power.to_numpy().sum() == pytest.approx((rec["power_watts"] * (rec["end"] - rec["start"]) / 3600).sum())
    assert (load.to_numpy() >= 0).all()


def test_warmup_trains_the_predictors_and_leaves_the_routing_draws_alone(small_grid, runs):
    # grid_fraction 0.5: the routing trials are rng's first draws; the warm-up draws from child streams only
    sites, jobs = small_grid
    cold = runs["mcmf-w25-maxq2-fg0.5"]
    warm = run_grid(jobs, sites, GridConfig("mcmf", w_t=25, grid_fraction=0.5, warmup=500),
                    rng=np.random.default_rng(9))
    assert warm.records["routed"].tolist() == cold.records["routed"].tolist()
    routed = warm.records["routed"]
    assert not warm.records.loc[routed, "predicted_wait"].equals(cold.records.loc[routed, "predicted_wait"])
    again = run_grid(jobs, sites, GridConfig("mcmf", w_t=25, grid_fraction=0.5, warmup=500),
                     rng=np.random.default_rng(9))
    pd.testing.assert_frame_equal(warm.records, again.records)


def test_strategies_seeded_from_one_stream_do_not_depend_on_their_order():
    """Each strategy trains its predictors on the same warm-up histories, whatever ran before it
    (`stream_rng`; with `default_rng(stream)` per run the shared spawn counter gave each run others)."""
    from gridmarket.scenarios.harnesses.metascheduling import run_experiment

    configs = [GridConfig("bs"), GridConfig("mcmf", w_t=100, maxq=2, warmup=300),
               GridConfig("mcmf", w_t=25, maxq=2, warmup=300)]
    first, _ = run_experiment(days=0.5, seed=1, configs=configs)
    swapped, _ = run_experiment(days=0.5, seed=1, configs=[configs[0], configs[2], configs[1]])
    a = first.set_index("run")[["mean_response_min", "total_energy_cost", "mean_wait_ppe"]]
    b = swapped.set_index("run")[["mean_response_min", "total_energy_cost", "mean_wait_ppe"]]
    assert a.sort_index().equals(b.sort_index())


def test_lead_in_jobs_run_at_their_origin_and_are_left_out_of_the_records(small_grid, runs):
    sites, jobs = small_grid
    k = 40
    bs = run_grid(jobs, sites, GridConfig("bs", lead_in=k), rng=np.random.default_rng(9)).records
    # the same simulation as without a lead-in (BS routes nothing), its first k jobs dropped
    whole = runs["bs"].records
    assert list(bs["job_id"]) == [j.id for j in jobs[k:]]
    pd.testing.assert_frame_equal(bs.reset_index(drop=True), whole.iloc[k:].reset_index(drop=True))
    mcmf = run_grid(jobs, sites, GridConfig("mcmf", w_t=100, lead_in=k), rng=np.random.default_rng(9)).records
    assert list(mcmf["job_id"]) == [j.id for j in jobs[k:]] and mcmf["routed"].all()


@pytest.mark.parametrize("lead_in, match", [(-1, "lead_in must be an int >= 0 jobs, got -1"),
                                            (True, "lead_in must be an int >= 0 jobs, got True")])
def test_bad_lead_in_is_named(small_grid, lead_in, match):
    sites, jobs = small_grid
    with pytest.raises(InvalidInput, match=match):
        run_grid(jobs, sites, GridConfig("bs", lead_in=lead_in), rng=np.random.default_rng(0))


def test_a_lead_in_of_every_job_is_refused(small_grid):
    sites, jobs = small_grid
    with pytest.raises(InvalidInput, match=f"lead_in {len(jobs)} leaves none of the {len(jobs)} jobs to measure"):
        run_grid(jobs, sites, GridConfig("bs", lead_in=len(jobs)), rng=np.random.default_rng(0))
