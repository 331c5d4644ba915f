"""Job power draw from HPL power per core, with the +/-40 % power models.

Murali & Vadhiyar, sec. 4.5.1: a job on ``n`` of a system's ``N`` cores draws
``P_J = n * (P_HPL / N)`` watts. Sec. 5.8 varies this by a per-job factor drawn
uniformly from -40 %..+40 % (``average``), -40 %..0 (``lower``) or 0..+40 %
(``higher``) of HPL's power. Power in ``watts``.
"""

from __future__ import annotations

import numpy as np

from gridmarket.energy.systems import GridSystem
from gridmarket.errors import InvalidInput

__all__ = ["POWER_MODELS", "job_power_watts", "power_factors"]

POWER_MODELS: dict[str, tuple[float, float]] = {
    "hpl": (0.0, 0.0),
    "average": (-0.4, 0.4),
    "lower": (-0.4, 0.0),
    "higher": (0.0, 0.4),
}
"""Power model name -> (low, high) relative deviation from HPL power (sec. 5.8)."""


def job_power_watts(procs: int, system: GridSystem, factor: float = 1.0) -> float:
    """Power drawn by a job on ``procs`` cores of ``system``: ``procs * P_HPL / N * factor``.

    Parameters
    ----------
    procs : int
        Cores the job uses, 1..``system.cores``.
    system : GridSystem
    factor : float, default 1.0
        Multiplier from a power model (see `power_factors`), > 0.

    Raises
    ------
    InvalidInput
        ``procs`` outside 1..cores or a non-positive factor.

    Examples
    --------
    >>> from gridmarket.energy.systems import xsede_systems
    >>> gordon = xsede_systems()[2]
    >>> round(job_power_watts(16, gordon), 2)
    354.72
    """
    if not 1 <= procs <= system.cores:
        raise InvalidInput(f"job needs {procs} cores; system {system.name!r} has {system.cores}")
    if not factor > 0:
        raise InvalidInput(f"power factor must be > 0, got {factor!r}")
    return procs * system.watts_per_core * factor


def power_factors(n_jobs: int, model: str = "hpl", *, rng: np.random.Generator) -> np.ndarray:
    """One power multiplier per job, uniform on the model's range around HPL (sec. 5.8).

    Parameters
    ----------
    n_jobs : int
        Number of jobs, >= 0.
    model : {"hpl", "average", "lower", "higher"}
    rng : numpy.random.Generator

    Returns
    -------
    numpy.ndarray of float
        ``1 + U(low, high)`` per job; all ones for ``hpl`` (no draw is made).

    Examples
    --------
    >>> f = power_factors(1000, "lower", rng=np.random.default_rng(0))
    >>> bool(f.min() >= 0.6 and f.max() <= 1.0)
    True
    """
    if model not in POWER_MODELS:
        raise InvalidInput(f"unknown power model {model!r}; known: {', '.join(POWER_MODELS)}")
    if not isinstance(rng, np.random.Generator):
        raise InvalidInput(f"rng must be a numpy.random.Generator, got {rng!r}")
    low, high = POWER_MODELS[model]
    if low == high == 0.0:
        return np.ones(n_jobs)
    return 1.0 + rng.uniform(low, high, size=n_jobs)
