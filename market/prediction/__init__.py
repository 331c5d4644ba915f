"""Predictions a metascheduler needs: queue waits per system and day-ahead electricity prices.

Murali & Vadhiyar, secs. 3.1-3.2 and 5.1. Times are integer seconds; prices
are ``price_per_mwh``.
"""

from gridmarket.prediction.price_forecast import (
    PriceOutlook,
    SarimaForecaster,
    forecast_errors,
    mean_absolute_percentage_error,
)
from gridmarket.prediction.queue_wait import FEATURES, QueueTotals, QueueWaitPredictor, perturb_waits, queue_features
from gridmarket.prediction.wait_replay import (
    PPE_FLOOR,
    past_jobs,
    replay_wait_predictions,
    simulated_waits,
    wait_prediction_errors,
    warm_predictor,
)

__all__ = [
    "FEATURES",
    "PPE_FLOOR",
    "PriceOutlook",
    "QueueWaitPredictor",
    "SarimaForecaster",
    "forecast_errors",
    "mean_absolute_percentage_error",
    "past_jobs",
    "perturb_waits",
    "queue_features",
    "QueueTotals",
    "replay_wait_predictions",
    "simulated_waits",
    "wait_prediction_errors",
    "warm_predictor",
]
