"""Systems table, runtime scaling, power models, price series and eq. (7) costs."""

from pathlib import Path

import numpy as np
import pytest

from gridmarket.energy import (
    GridSystem,
    HourlyPrices,
    align_to_utc,
    continue_by_repeating,
    electricity_cost,
    electricity_costs,
    fixed_prices,
    job_power_watts,
    power_factors,
    read_prices,
    read_systems,
    scale_runtime,
    scale_runtimes,
    service_unit_cost,
    synthetic_prices,
    two_price,
    xsede_systems,
)
from gridmarket.errors import InvalidInput


@pytest.fixture
def xsede():
    return {s.name: s for s in xsede_systems()}


def test_xsede_table_matches_paper_table_one(xsede):
    assert len(xsede) == 8
    assert sum(s.cores for s in xsede.values()) == 76256  # Table II
    assert xsede["Blacklight"].watts_per_core == 87.89
    assert xsede["Gordon"].gflops_per_core == 21.10
    assert xsede["Lonestar"].cores == 22656
    assert xsede["Mason"].max_walltime == 72 * 3600  # capped at three days, sec. 4.3.1


def test_systems_table_is_shipped_with_the_installed_package():
    from importlib import resources

    assert resources.files("gridmarket.data").joinpath("xsede_systems.csv").is_file()


def test_read_systems_names_line_of_bad_number():
    text = (
        "name,location,cores,watts_per_core,gflops_per_core,max_walltime_hours,utc_offset_hours,timezone,price_region\n"
        "A,X,8,20,10,24,0,UTC,R\n"
        "B,X,many,20,10,24,0,UTC,R\n"
    )
    with pytest.raises(InvalidInput, match="line 3"):
        read_systems(text)


def test_read_systems_rejects_duplicate_names():
    text = (
        "name,location,cores,watts_per_core,gflops_per_core,max_walltime_hours,utc_offset_hours,timezone,price_region\n"
        "A,X,8,20,10,24,0,UTC,R\nA,X,8,20,10,24,0,UTC,R\n"
    )
    with pytest.raises(InvalidInput, match="appears twice"):
        read_systems(text)


@pytest.mark.parametrize("field,value", [("cores", 0), ("watts_per_core", -1.0), ("gflops_per_core", float("nan"))])
def test_grid_system_validates_fields(field, value):
    kwargs = dict(name="s", cores=4, max_walltime=60, watts_per_core=10.0, gflops_per_core=5.0)
    kwargs[field] = value
    with pytest.raises(InvalidInput, match=field):
        GridSystem(**kwargs)


def test_runtime_scales_by_performance_ratio_and_round_trips_upward(xsede):
    fast, slow = xsede["Gordon"], xsede["Mason"]
    down = scale_runtime(7200, slow, fast)
    assert down == int(np.ceil(7200 * 7.43 / 21.10))
    assert scale_runtime(down, fast, slow) >= 7200
    assert scale_runtime(7200, fast, fast) == 7200
    assert scale_runtimes(np.array([7200]), np.array([7.43]), 21.10).tolist() == [down]


def test_scale_runtime_rejects_non_positive(xsede):
    with pytest.raises(InvalidInput, match="run time"):
        scale_runtime(0, xsede["Gordon"], xsede["Mason"])


def test_job_power_is_cores_times_hpl_power_per_core(xsede):
    assert job_power_watts(100, xsede["Steele"]) == pytest.approx(8375.0)
    with pytest.raises(InvalidInput, match="has 576"):
        job_power_watts(1000, xsede["Mason"])


@pytest.mark.parametrize("model,low,high", [("average", 0.6, 1.4), ("lower", 0.6, 1.0), ("higher", 1.0, 1.4)])
def test_power_models_stay_in_their_ranges(model, low, high):
    f = power_factors(5000, model, rng=np.random.default_rng(3))
    assert low <= f.min() and f.max() <= high
    assert f.mean() == pytest.approx((low + high) / 2, abs=0.02)


def test_unknown_power_model_is_rejected():
    with pytest.raises(InvalidInput, match="unknown power model 'wild'"):
        power_factors(3, "wild", rng=np.random.default_rng(0))


def test_electricity_cost_sums_hourly_prices_eq7():
    prices = HourlyPrices([10.0, 20.0, 40.0])
    # 2 kW from 0:30 to 2:30 -> 0.5 h at 10, 1 h at 20, 0.5 h at 40 = 2 kW * 45 price-h
    assert electricity_cost(2000.0, 1800, 9000, prices) == pytest.approx(2000 * 45 / 1e6)
    # additive over any split of the run
    a = electricity_cost(2000.0, 1800, 4000, prices) + electricity_cost(2000.0, 4000, 9000, prices)
    assert a == pytest.approx(electricity_cost(2000.0, 1800, 9000, prices))


def test_electricity_costs_vectorised_matches_scalar():
    rng = np.random.default_rng(0)
    prices = synthetic_prices(3, rng=rng)
    start = rng.integers(0, 3600 * 40, 50)
    end = start + rng.integers(0, 3600 * 30, 50)
    watts = rng.uniform(0, 5e4, 50)
    vec = electricity_costs(watts, start, end, prices)
    one = [electricity_cost(w, s, e, prices) for w, s, e in zip(watts, start, end)]
    assert np.allclose(vec, one)


def test_cost_past_the_series_is_an_error_not_a_silent_zero():
    with pytest.raises(InvalidInput, match="covers seconds"):
        electricity_cost(1.0, 0, 3 * 3600, HourlyPrices([1.0, 2.0]))


def test_service_unit_cost_orders_xsede_systems(xsede):
    flat = fixed_prices(50.0, 24)
    suc = {name: service_unit_cost(s, flat) for name, s in xsede.items()}
    assert min(suc, key=suc.get) == "Lonestar"  # cheapest per core-hour at equal prices
    assert max(suc, key=suc.get) == "Blacklight"


def test_synthetic_prices_are_seeded_and_daily_seasonal():
    a = synthetic_prices(30, rng=np.random.default_rng(5))
    b = synthetic_prices(30, rng=np.random.default_rng(5))
    assert np.array_equal(a.prices, b.prices)
    x = a.prices - a.prices.mean()
    lag24 = np.corrcoef(x[:-24], x[24:])[0, 1]
    lag12 = np.corrcoef(x[:-12], x[12:])[0, 1]
    assert lag24 > 0.5 and lag24 > lag12


def test_two_price_uses_percentiles_and_noon_to_midnight():
    p = synthetic_prices(10, rng=np.random.default_rng(2))
    tp = two_price(p)
    low, high = np.percentile(p.prices, [10, 90])
    hod = p.hours_of_day()
    assert np.allclose(tp.prices[hod >= 12], high) and np.allclose(tp.prices[hod < 12], low)


def test_align_to_utc_shifts_by_site_offset():
    s = HourlyPrices(np.arange(72.0), start=np.datetime64("2014-06-01T00", "h"))
    east = align_to_utc(s, "2014-06-02T00", -5)
    west = align_to_utc(s, "2014-06-02T00", -8)
    assert east.prices[0] == 19.0 and west.prices[0] == 16.0
    with pytest.raises(InvalidInput, match="starts at"):
        align_to_utc(s, "2014-06-01T00", -5)


def test_continue_by_repeating_repeats_the_last_period_hour_for_hour():
    # 10 hours 0..9, the last 4 (6, 7, 8, 9) repeated: hours 10..15 are 6, 7, 8, 9, 6, 7 (hand-written)
    start = np.datetime64("2018-12-24T00", "h")
    p = continue_by_repeating(HourlyPrices(np.arange(10.0), "NP", "EUR", start), 16, period_hours=4)
    assert p.prices.tolist() == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 6, 7, 8, 9, 6, 7]
    assert (p.zone, p.currency, p.start) == ("NP", "EUR", start)
    assert p.integral(9 * 3600, 11 * 3600) == 9.0 + 6.0
    week = continue_by_repeating(HourlyPrices(np.arange(2.0 * 8736)), 3 * 8736)  # default: 52 weeks
    assert week.prices[2 * 8736] == 8736.0 and week.prices[-1] == 2 * 8736 - 1.0
    with pytest.raises(InvalidInput, match="fewer than the 4 h to repeat"):
        continue_by_repeating(HourlyPrices([1.0, 2.0]), 6, period_hours=4)
    with pytest.raises(InvalidInput, match="n_hours must be"):
        continue_by_repeating(HourlyPrices(np.arange(10.0)), 5, period_hours=4)


def test_hourly_prices_reject_nan():
    with pytest.raises(InvalidInput, match="hour 1"):
        HourlyPrices([1.0, float("nan")])


def _write(tmp_path: Path, rows: list[str]) -> Path:
    path = tmp_path / "p.csv"
    path.write_text("timestamp,price,zone,currency\n" + "\n".join(rows) + "\n")
    return path


def test_read_prices_rejects_dst_duplicate_with_line(tmp_path):
    path = _write(tmp_path, ["2014-10-26T01:00:00,10,Z,EUR", "2014-10-26T02:00:00,11,Z,EUR",
                             "2014-10-26T02:00:00,13,Z,EUR", "2014-10-26T03:00:00,12,Z,EUR"])
    with pytest.raises(InvalidInput, match=r"line 4: repeated hour"):
        read_prices(path)


def test_read_prices_regularizes_duplicates_and_gaps_with_warning(tmp_path):
    path = _write(tmp_path, ["2014-10-26T01:00:00,10,Z,EUR", "2014-10-26T02:00:00,11,Z,EUR",
                             "2014-10-26T02:00:00,13,Z,EUR", "2014-10-26T04:00:00,16,Z,EUR"])
    with pytest.warns(UserWarning, match="averaged 1 repeated hour.*interpolated 1 missing"):
        p = read_prices(path, on_irregular="regularize")
    assert p.prices.tolist() == [10.0, 12.0, 14.0, 16.0]
    assert p.currency == "EUR" and p.hour_of_day0 == 1


def test_read_prices_rejects_nan_price_with_line(tmp_path):
    path = _write(tmp_path, ["2014-10-26T01:00:00,10,Z,EUR", "2014-10-26T02:00:00,,Z,EUR"])
    with pytest.raises(InvalidInput, match="line 3"):
        read_prices(path)


@pytest.mark.data("prices/pjm_comed_2013-2018_epftoolbox.csv")
def test_read_real_pjm_prices(data_dir):
    p = read_prices(data_dir / "prices" / "pjm_comed_2013-2018_epftoolbox.csv",
                    start="2014-06-01", end="2014-06-16")
    assert p.n_hours == 15 * 24 and p.currency == "USD" and p.zone == "PJM_COMED"
    assert p.hour_of_day0 == 0 and 0 < p.prices.mean() < 200


@pytest.mark.data("prices/pjm_comed_2013-2018_epftoolbox.csv")
def test_read_every_price_file_in_the_data_root(data_dir):
    for path in sorted((data_dir / "prices").glob("*.csv")):
        p = read_prices(path, start="2015-06-01", end="2015-06-08")
        assert p.n_hours == 7 * 24, path.name
