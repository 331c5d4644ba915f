"""Queue-wait prediction (features, clustering, ridge, replay) and SARIMA price forecasts."""

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridmarket.energy import HourlyPrices, read_prices, synthetic_prices
from gridmarket.errors import InvalidInput
from gridmarket.job import Job
from gridmarket.prediction import (
    PriceOutlook,
    QueueTotals,
    QueueWaitPredictor,
    SarimaForecaster,
    forecast_errors,
    mean_absolute_percentage_error,
    perturb_waits,
    queue_features,
    replay_wait_predictions,
    wait_prediction_errors,
)
from gridmarket.scheduling import EASYScheduler, make_scheduler
from gridmarket.simulation import MachineSimulation


def test_features_read_queue_and_running_jobs():
    s = EASYScheduler(8)
    s.submit(Job(1, 0, 6, 500, 1000), 0)
    s.schedule(0)
    s.submit(Job(2, 100, 4, 10, 50), 100)
    s.submit(Job(3, 150, 8, 10, 70), 150)
    s.schedule(150)
    f = queue_features(2, 300, s, 200)
    assert f.tolist() == [2, 300, 12, 120, 100 + 50, 6, 200, 1000]


@settings(max_examples=60, deadline=None)
@given(
    policy=st.sampled_from(["fcfs", "easy", "conservative"]),
    raw=st.lists(st.tuples(st.integers(0, 400), st.integers(1, 8), st.integers(1, 300), st.integers(0, 200)),
                 min_size=1, max_size=40),
    probes=st.lists(st.integers(0, 1500), min_size=1, max_size=8),
)
def test_kept_queue_totals_equal_the_summed_features(policy, raw, probes):
    # the metascheduler's running sums against queue_features' re-summing, at random instants, with jobs
    # appended as they arrive (how run_grid feeds a system) and early ends (runtime below the estimate)
    raw.sort()
    jobs = [Job(i, sub, procs, max(1, est - short), est)
            for i, (sub, procs, est, short) in enumerate(raw)]
    sim = MachineSimulation(make_scheduler(policy, 8), [])
    totals = QueueTotals(sim)
    started_seen = []
    k = 0
    for now in sorted(probes):
        while k < len(jobs) and jobs[k].submit <= now:
            sim.jobs.append(jobs[k])
            k += 1
        sim.run_until(now - 1)
        started_seen += totals.sync()
        assert totals.features(3, 77, now).tolist() == queue_features(3, 77, sim.scheduler, now).tolist()
    sim.run_until(None)
    started_seen += totals.sync()
    assert sorted(started_seen, key=sim.start.get) == started_seen  # newly started ids come in start order
    assert set(started_seen) == set(sim.start)
    assert totals.features(0, 0, sim.now).tolist() == [0, 0, 0, 0, 0, 0, 0, 0]


def test_kept_queue_totals_refuse_a_cancelled_job():
    sim = MachineSimulation(EASYScheduler(2), [Job(1, 0, 2, 10, 10), Job(2, 0, 2, 10, 10)])
    sim.run_until(0)
    sim.cancel(2)
    with pytest.raises(InvalidInput, match="cancelled or killed"):
        QueueTotals(sim).sync()


def test_predictor_uses_a_close_cluster_weighted_mean():
    p = QueueWaitPredictor(min_samples=3)
    rng = np.random.default_rng(0)
    for _ in range(30):  # a tight group of small jobs with ~100 s waits
        p.observe(np.array([1, 60, 0, 0, 0, 2, 10, 100]) + rng.normal(0, 0.01, 8), 100 + rng.normal(0, 5))
    for _ in range(30):  # big jobs on a loaded machine waiting ~10 h
        p.observe(np.array([64, 36000, 500, 1e6, 1e5, 120, 1e5, 1e6]) + rng.normal(0, 1, 8), 36000 + rng.normal(0, 100))
    assert p.predict(np.array([1, 60, 0, 0, 0, 2, 10, 100])) == pytest.approx(100, abs=10)
    assert p.predict(np.array([64, 36000, 500, 1e6, 1e5, 120, 1e5, 1e6])) == pytest.approx(36000, rel=0.02)
    assert p.n_cluster == 2 and p.n_ridge == 0


def test_predictor_falls_back_to_ridge_far_from_any_cluster():
    p = QueueWaitPredictor(min_samples=3, close=0.1)
    rng = np.random.default_rng(1)
    for _ in range(200):
        x = rng.uniform(0, 100, 8)
        p.observe(x, 10 * x[2] + 5 * x[5])
    q = np.full(8, 50.0)
    assert p.predict(q) == pytest.approx(750, rel=0.1)
    assert p.n_ridge == 1


def test_uncapped_ridge_extrapolates_a_queue_longer_than_any_seen_and_the_cap_stops_at_the_longest_wait():
    # waits grow with the queued work (feature 3); a queue twice the longest seen predicts about twice the wait
    rng = np.random.default_rng(4)
    capped, free = QueueWaitPredictor(min_samples=3, close=0.1), QueueWaitPredictor(min_samples=3, close=0.1, cap=False)
    for _ in range(300):
        x = rng.uniform(0, 100, 8)
        for p in (capped, free):
            p.observe(x, 60 * x[3])
    q = np.full(8, 50.0)
    q[3] = 200.0
    assert capped.predict(q) == pytest.approx(max(capped._y), rel=1e-9) and max(capped._y) < 6000
    assert free.predict(q) == pytest.approx(12000, rel=0.05)
    assert free.n_ridge == capped.n_ridge == 1
    with pytest.raises(InvalidInput, match="cap must be a bool"):
        QueueWaitPredictor(cap="no")


def test_a_ridge_answer_below_zero_is_zero_or_the_nearest_history_jobs_wait():
    # waits fall with feature 3; a query past the history's range gets a negative ridge answer, which
    # "zero" clips and "nearest" replaces by the wait of the history job nearest in scaled Manhattan distance
    rng = np.random.default_rng(5)
    zero = QueueWaitPredictor(min_samples=3, close=0.1)
    nearest = QueueWaitPredictor(min_samples=3, close=0.1, nonpositive="nearest")
    X = rng.uniform(0, 100, (300, 8))
    y = 6000 - 60 * X[:, 3] + rng.uniform(0, 50, 300)
    for x, w in zip(X, y):
        for p in (zero, nearest):
            p.observe(x, w)
    q = np.full(8, 50.0)
    q[3] = 250.0
    assert zero.predict(q) == 0.0 and zero.n_ridge == 1
    scale = X.std(axis=0)
    brute = y[int(np.argmin(np.abs(X / scale - q / scale).sum(axis=1)))]
    assert nearest.predict(q) == pytest.approx(brute, rel=1e-12) and brute > 0
    inside = np.full(8, 50.0)  # a positive ridge answer is the same under both readings
    assert nearest.predict(inside) == pytest.approx(zero.predict(inside)) and zero.predict(inside) > 0
    with pytest.raises(InvalidInput, match="nonpositive must be"):
        QueueWaitPredictor(nonpositive="clip")


def test_batched_predictions_equal_one_at_a_time_and_the_ridge_equals_sklearns_predict():
    # predict_many computes distances in blocks of rows and the ridge's dot product itself
    p = QueueWaitPredictor(min_samples=3, close=0.5, refit_every=10_000)
    rng = np.random.default_rng(2)
    for _ in range(300):
        x = rng.uniform(0, 100, 8)
        p.observe(x, 10 * x[2] + 5 * x[5] + rng.normal(0, 20))
    centre = np.full(8, 30.0)
    for _ in range(40):  # a tight group: queries near it take the cluster branch
        p.observe(centre + rng.normal(0, 0.01, 8), 500 + rng.normal(0, 5))
    rows = np.vstack([rng.uniform(0, 100, (100, 8)), centre + rng.normal(0, 0.01, (50, 8))])
    batch = p.predict_many(rows)
    assert batch.tolist() == [p.predict(r) for r in rows]
    assert p.n_ridge > 0 and p.n_cluster > 0  # both branches ran
    model = p._model[0]
    scale = p._x[: len(p)].std(axis=0)
    q = rows[0] / scale
    ours = float((q[None, :] @ model.coef_.T + model.intercept_)[0])
    assert ours == float(model.predict(q[None, :])[0])


def test_predictor_without_history_predicts_zero_and_keeps_only_its_window():
    p = QueueWaitPredictor(history=5)
    assert p.predict(np.zeros(8)) == 0.0
    for w in range(10):
        p.observe(np.zeros(8), w)
    assert len(p) == 5


def test_predictor_rejects_bad_settings_and_negative_waits():
    with pytest.raises(InvalidInput, match="history"):
        QueueWaitPredictor(history=0)
    with pytest.raises(InvalidInput, match="wait"):
        QueueWaitPredictor().observe(np.zeros(8), -1)


def test_perturbation_adds_one_to_p_hours():
    w = perturb_waits(np.full(2000, 600.0), 6, rng=np.random.default_rng(4))
    assert (w >= 600 + 3600).all() and (w <= 600 + 6 * 3600).all()
    with pytest.raises(InvalidInput, match="threshold"):
        perturb_waits(np.zeros(2), 0.5, rng=np.random.default_rng(0))


def test_replay_on_synthetic_jobs_predicts_known_waits():
    # every 1000 s: A fills the machine for 300 s; B arrives 100 s later and waits 200 s
    jobs = []
    for k in range(60):
        jobs += [Job(2 * k + 1, 1000 * k, 4, 300, 300), Job(2 * k + 2, 1000 * k + 100, 4, 100, 100)]
    frame = replay_wait_predictions(jobs, procs=4).iloc[20:]
    assert frame["wait"].tolist() == [0, 200] * 50
    assert np.abs(frame["predicted"] - frame["wait"]).max() < 1


@pytest.mark.data("traces/SDSC-SP2-1998-4.2-cln.swf.gz")
def test_wait_prediction_error_on_replayed_sdsc_sp2_trace(data_dir):
    from gridmarket.workloads import read_swf

    w = read_swf(data_dir / "traces" / "SDSC-SP2-1998-4.2-cln.swf.gz")
    jobs = list(w.jobs[10000:11200])
    jobs = [replace(j, submit=j.submit - jobs[0].submit) for j in jobs]
    frame = replay_wait_predictions(jobs, procs=w.max_procs)
    e = wait_prediction_errors(frame)
    naive = np.abs(frame["wait"] - frame["wait"].expanding().mean().shift(fill_value=0)).mean()
    assert e["jobs"] == 1200
    assert e["aae"] < 0.9 * naive  # better than the running mean of past waits
    assert e["within_1h"] > 0.5


# ---------------------------------------------------------------- prices
def test_mape_floors_near_zero_prices():
    assert mean_absolute_percentage_error(np.array([0.0]), np.array([0.5])) == 50.0
    with pytest.raises(InvalidInput):
        mean_absolute_percentage_error(np.array([1.0]), np.array([1.0, 2.0]))


def test_sarima_learns_a_daily_pattern():
    t = np.arange(24 * 4)
    rng = np.random.default_rng(2)
    series = 50 + 15 * np.sin(2 * np.pi * t / 24) + rng.normal(0, 0.5, t.size)
    f = SarimaForecaster().forecast(series[:72], 24)
    assert mean_absolute_percentage_error(series[72:], f) < 5


def test_sarima_fits_each_history_once_and_keeps_the_fitted_forecast(monkeypatch):
    from gridmarket.prediction import price_forecast

    monkeypatch.setattr(price_forecast, "_FITS", {})
    fits = []
    real_fit = SarimaForecaster._fit
    monkeypatch.setattr(SarimaForecaster, "_fit", lambda self, h, n: fits.append(n) or real_fit(self, h, n))
    t = np.arange(24 * 3)
    history = 50 + 15 * np.sin(2 * np.pi * t / 24) + np.random.default_rng(4).normal(0, 0.5, t.size)
    first = SarimaForecaster().forecast(history, 24)
    again = SarimaForecaster().forecast(history.copy(), 24)  # another forecaster, an equal history: no new fit
    assert fits == [24] and np.array_equal(first, again)
    again[:] = 0  # the kept forecast is not handed out to be changed
    assert np.array_equal(SarimaForecaster().forecast(history, 24), first)
    shifted = SarimaForecaster().forecast(history + 1.0, 24)
    other_settings = SarimaForecaster(maxiter=10).forecast(history, 24)
    assert fits == [24, 24, 24] and not np.array_equal(shifted, first)
    assert other_settings.shape == (24,)


def test_sarima_rejects_short_or_nan_history():
    with pytest.raises(InvalidInput, match="at least"):
        SarimaForecaster().forecast(np.ones(30), 24)
    with pytest.raises(InvalidInput, match="NaN"):
        SarimaForecaster().forecast(np.r_[np.ones(71), np.nan], 24)


def test_outlook_knows_today_and_forecasts_tomorrow():
    actual = synthetic_prices(6, rng=np.random.default_rng(3))

    class Flat:
        def forecast(self, history, horizon):
            return np.full(horizon, -1.0)

    outlook = PriceOutlook(actual, forecaster=Flat())
    view = outlook.view(3 * 86400 + 5 * 3600)  # 05:00 on day 3: known until midnight
    assert np.array_equal(view.prices[: 4 * 24], actual.prices[: 4 * 24])
    assert (view.prices[4 * 24:] == -1.0).all() and view.n_hours == 8 * 24
    with pytest.raises(InvalidInput, match="3 days of history"):
        outlook.view(3600)


def test_outlook_respects_local_midnight():
    actual = HourlyPrices(np.arange(24 * 5.0), start=np.datetime64("2014-06-01T19", "h"))
    outlook = PriceOutlook(actual, forecaster=None)
    assert outlook.known_until(0) == 5  # 19:00 local -> midnight 5 hours later


@pytest.mark.data("prices/nordpool_system_2013-2018_epftoolbox.csv")
def test_sarima_mape_on_real_nordpool_prices(data_dir):
    series = read_prices(data_dir / "prices" / "nordpool_system_2013-2018_epftoolbox.csv",
                         start="2014-01-01", end="2014-01-12")
    report = forecast_errors(series, n_days=5)
    assert report["mape"] < 15  # the paper reports 8 % (ERCOT, June 2014)
