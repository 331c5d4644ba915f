"""Runtime scaling between systems by performance per core.

Murali & Vadhiyar, sec. 3.1 and sec. 4.5.2: a job's estimated run time on
system ``S_i`` is carried to ``S_j`` as ``ERT_j = ERT_i * ppc_i / ppc_j``,
where ``ppc`` is HPL performance per core (GFlops). Times are integer seconds.
"""

from __future__ import annotations

import math

import numpy as np

from gridmarket.energy.systems import GridSystem
from gridmarket.errors import InvalidInput

__all__ = ["scale_factor", "scale_runtime", "scale_runtimes"]


def scale_factor(source: GridSystem, target: GridSystem) -> float:
    """``scale_ij = ppc_i / ppc_j``: multiply a run time on ``source`` by it to get one on ``target``.

    >>> from gridmarket.energy.systems import GridSystem
    >>> slow = GridSystem("slow", 8, 3600, 20.0, 10.0)
    >>> fast = GridSystem("fast", 8, 3600, 20.0, 20.0)
    >>> scale_factor(slow, fast)
    0.5
    """
    return source.gflops_per_core / target.gflops_per_core


def scale_runtime(seconds: int, source: GridSystem, target: GridSystem) -> int:
    """A run time (or estimate) of ``seconds`` on ``source``, carried to ``target``.

    Parameters
    ----------
    seconds : int
        Run time on ``source``, >= 1.
    source, target : GridSystem

    Returns
    -------
    int
        ``ceil(seconds * ppc_source / ppc_target)``, at least 1; exactly
        ``seconds`` when the two systems have the same performance per core.

    Notes
    -----
    Sec. 4.5.2: applications are assumed to scale like HPL, whose run time is
    dominated by O(N^3) computation, so only per-core performance is used.
    Rounding up keeps a scaled estimate an upper bound on the scaled run time.

    Examples
    --------
    >>> from gridmarket.energy.systems import xsede_systems
    >>> s = {x.name: x for x in xsede_systems()}
    >>> scale_runtime(3600, s["Mason"], s["Gordon"])  # 3600 * 7.43 / 21.10
    1268
    """
    if not isinstance(seconds, (int, np.integer)) or isinstance(seconds, bool) or seconds < 1:
        raise InvalidInput(f"run time must be an int >= 1 s, got {seconds!r}")
    if source.gflops_per_core == target.gflops_per_core:
        return int(seconds)
    # the product is rounded to 1e-9 s first so that an exact ratio is not pushed up by float error
    return max(1, math.ceil(round(seconds * source.gflops_per_core / target.gflops_per_core, 9)))


def scale_runtimes(seconds: np.ndarray, source_ppc: np.ndarray, target_ppc: float) -> np.ndarray:
    """Vectorised `scale_runtime`: many jobs (each with its source's ppc) onto one target.

    >>> scale_runtimes(np.array([3600, 100]), np.array([10.0, 20.0]), 20.0).tolist()
    [1800, 100]
    """
    seconds = np.asarray(seconds)
    scaled = np.ceil(np.round(seconds * (np.asarray(source_ppc, float) / float(target_ppc)), 9))
    return np.maximum(scaled, 1).astype(np.int64)
