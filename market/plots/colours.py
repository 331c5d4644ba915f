"""The fixed colour of each interaction model, the same in every figure."""

from __future__ import annotations

import zlib

__all__ = ["MODEL_COLOURS", "model_colour"]

MODEL_COLOURS = {
    "best-effort": "#4d4d4d", "mcmf": "#1f77b4", "stable": "#9ecae1", "grand": "#17becf",
    "moga": "#2ca02c", "greedy": "#98df8a", "var": "#8c564b", "combined": "#c49c94",
    "first-price": "#ff7f0e", "vickrey": "#ffbb78", "english": "#d62728", "dutch": "#ff9896",
    "double": "#9467bd", "double-gd": "#c5b0d5", "negotiate": "#bcbd22", "dbc": "#e377c2",
    "dbc-cycle": "#f7b6d2", "sla": "#393b79", "sla-predict": "#8c8fdf",
}  # fmt: skip
"""One colour per registered interaction model, the same in every figure: a family shares a hue (the
metaschedulers blue, the provisioning brokers green, the reservations brown, the auctions orange and red)."""

_OTHER_COLOURS = ("#637939", "#b5cf6b", "#8c6d31", "#e7ba52", "#843c39", "#d6616b", "#7b4173", "#ce6dbd",
                  "#5254a3", "#cedb9c")


def model_colour(model: str) -> str:
    """The colour of interaction model ``model`` in every figure (:data:`MODEL_COLOURS`).

    A model outside the table (a plug-in) takes a colour of a second palette chosen by a checksum
    of its name, so it too keeps its colour from one figure and one run to the next.

    >>> model_colour("mcmf"), model_colour("mcmf") == model_colour("mcmf")
    ('#1f77b4', True)
    """
    if model in MODEL_COLOURS:
        return MODEL_COLOURS[model]
    return _OTHER_COLOURS[zlib.crc32(str(model).encode()) % len(_OTHER_COLOURS)]
