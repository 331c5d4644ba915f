"""Named scenarios that reproduce every seed's main experiment in shape (``gridmarket run NAME``: `gridmarket.scenarios.commands.run`).

Each entry of :data:`REPRODUCTIONS` reruns one seed paper's table or figure
with the mechanisms of ``market`` and reports our figures beside the paper's
and whether the direction the paper reports holds:

* ``singh-advertisement``, ``singh-pricing``, ``singh-var``, ``singh-greedy``
  (Singh 2008, chs. 3-4, 5, 6, 7);
* ``murali-xsede``, ``murali-nordugrid`` (Murali & Vadhiyar, Table IV);
* ``ha-selection`` (Ha et al., Fig. 6a);
* ``rocchetti-psp`` (Rocchetti et al., Table 3);
* ``measy`` (Liu et al. 2012, Figs. 6-8);
* ``auction-market`` (every negotiation mechanism against the auction literature's predictions).

>>> sorted(REPRODUCTIONS)[:3]
['auction-market', 'ha-selection', 'measy']
>>> REPRODUCTIONS["ha-selection"].run("small", 1).checks[1].holds  # the model sends the whole workload to SuperMIC
True
"""

from gridmarket.scenarios.reproductions import auctions, ha_turilli, measy, murali, rocchetti, singh  # noqa: F401  (they register)
from gridmarket.scenarios.reproductions.report import (
    DATA_ENV,
    REPRODUCTIONS,
    SETUP,
    SIZES,
    Check,
    Report,
    Reproduction,
    Row,
    against_control,
    axis_range,
    controlled,
    data_file,
    default_data_dir,
    get_reproduction,
    paper_number,
    register,
    setup_check,
    write_report,
)

__all__ = [
    "DATA_ENV",
    "REPRODUCTIONS",
    "SETUP",
    "SIZES",
    "Check",
    "Report",
    "Reproduction",
    "Row",
    "against_control",
    "axis_range",
    "controlled",
    "data_file",
    "default_data_dir",
    "get_reproduction",
    "paper_number",
    "register",
    "setup_check",
    "write_report",
]
