"""The registry of gridmarket's real inputs and the tiny samples shipped with it.

The registry is ``registry.toml`` (read by :mod:`gridmarket.datasets`); ``xsede_systems.csv`` is
Murali and Vadhiyar's table of the XSEDE systems (:func:`gridmarket.energy.xsede_systems`).
"""
