"""gridmarket: agent-based markets of HPC and grid resources.

The mechanisms (schedulers, pricing, auctions, provisioning, metascheduling)
live in the subpackages of this package; :mod:`gridmarket.agents` is the Mesa
model, :mod:`gridmarket.scenarios` the experiments and the command line,
:mod:`gridmarket.viz` the live page and :mod:`gridmarket.datasets` the registry
of the real inputs (traces, prices, workflows) and how to fetch them.
"""

from importlib import metadata as _metadata

try:
    __version__ = _metadata.version("gridmarket")
except _metadata.PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = ["__version__"]
