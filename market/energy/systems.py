"""Grid systems: cores, wall-time limit, power and performance per core, time zone.

Murali & Vadhiyar, "Metascheduling of HPC jobs in day-ahead electricity markets",
sec. 4.2 and Table I (the eight XSEDE systems). Times are integer seconds;
``max_walltime`` is in seconds, power in ``watts`` per core, performance in
GFlops per core.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources

from gridmarket.decoding import read_text
from gridmarket.errors import InvalidInput

__all__ = ["GridSystem", "XSEDE_SYSTEMS_FILE", "read_systems", "system_index", "xsede_systems"]

XSEDE_SYSTEMS_FILE = "xsede_systems.csv"
"""Path of the shipped XSEDE table inside the ``market`` package."""

_HOUR = 3600
_COLUMNS = (
    "name",
    "location",
    "cores",
    "watts_per_core",
    "gflops_per_core",
    "max_walltime_hours",
    "utc_offset_hours",
    "timezone",
    "price_region",
)


@dataclass(frozen=True, slots=True)
class GridSystem:
    """One compute system of a grid.

    Parameters
    ----------
    name : str
        Unique name, e.g. ``"Gordon"``.
    cores : int
        Processors (cores) of the system, >= 1.
    max_walltime : int
        Longest estimate the system accepts, in seconds (>= 1).
    watts_per_core : float
        HPL power per core, ``P_HPL / N`` (sec. 4.5.1), > 0.
    gflops_per_core : float
        HPL performance per core, ``Rmax / N`` (sec. 4.5.2), > 0.
    utc_offset_hours : int
        Offset of the site's local (standard) time from UTC.
    location, timezone, price_region : str
        Where the system is and which electricity market prices it.

    Examples
    --------
    >>> s = GridSystem("tiny", cores=8, max_walltime=3600, watts_per_core=20.0, gflops_per_core=10.0)
    >>> s.peak_watts
    160.0
    """

    name: str
    cores: int
    max_walltime: int
    watts_per_core: float
    gflops_per_core: float
    utc_offset_hours: int = 0
    location: str = ""
    timezone: str = "UTC"
    price_region: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise InvalidInput(f"system name must be a non-empty str, got {self.name!r}")
        for field in ("cores", "max_walltime", "utc_offset_hours"):
            value = getattr(self, field)
            if not isinstance(value, int) or isinstance(value, bool):
                raise InvalidInput(f"system {self.name!r}: {field} must be an int, got {value!r}")
        if self.cores < 1:
            raise InvalidInput(f"system {self.name!r}: cores must be >= 1, got {self.cores}")
        if self.max_walltime < 1:
            raise InvalidInput(
                f"system {self.name!r}: max_walltime must be >= 1 s, got {self.max_walltime}"
            )
        for field in ("watts_per_core", "gflops_per_core"):
            value = getattr(self, field)
            if not isinstance(value, (int, float)) or not value > 0 or value != value:
                raise InvalidInput(f"system {self.name!r}: {field} must be > 0, got {value!r}")
        if not -12 <= self.utc_offset_hours <= 14:
            raise InvalidInput(
                f"system {self.name!r}: utc_offset_hours must be in [-12, 14], "
                f"got {self.utc_offset_hours}"
            )

    @property
    def peak_watts(self) -> float:
        """HPL power of the whole system, ``P_HPL`` in watts."""
        return self.cores * self.watts_per_core


def _parse_row(row: Mapping[str, str], where: str) -> GridSystem:
    try:
        return GridSystem(
            name=row["name"].strip(),
            location=row["location"].strip(),
            cores=int(row["cores"]),
            watts_per_core=float(row["watts_per_core"]),
            gflops_per_core=float(row["gflops_per_core"]),
            max_walltime=round(float(row["max_walltime_hours"]) * _HOUR),
            utc_offset_hours=int(row["utc_offset_hours"]),
            timezone=row["timezone"].strip(),
            price_region=row["price_region"].strip(),
        )
    except (TypeError, ValueError, AttributeError) as err:
        raise InvalidInput(f"{where}: {err}") from None


def read_systems(text_or_path: str | io.TextIOBase, *, name: str = "systems") -> tuple[GridSystem, ...]:
    """Read a systems table (CSV with ``#`` comment lines) into `GridSystem` records.

    Parameters
    ----------
    text_or_path : str or text file
        CSV text, a path to a CSV file, or an open text file. Columns:
        ``name, location, cores, watts_per_core, gflops_per_core,
        max_walltime_hours, utc_offset_hours, timezone, price_region``.
    name : str
        Used in error messages when the input is text.

    Returns
    -------
    tuple of GridSystem
        In file order.

    Raises
    ------
    InvalidInput
        Missing columns, bad numbers (message names file and line), duplicate names.

    Examples
    --------
    >>> text = '''name,location,cores,watts_per_core,gflops_per_core,max_walltime_hours,utc_offset_hours,timezone,price_region
    ... A,X,8,20,10,24,0,UTC,R'''
    >>> read_systems(text)[0].max_walltime
    86400
    """
    if isinstance(text_or_path, str) and "\n" not in text_or_path:
        return read_systems(read_text(text_or_path, "systems table"), name=str(text_or_path))
    text = text_or_path if isinstance(text_or_path, str) else text_or_path.read()
    lines = [(k, line) for k, line in enumerate(text.splitlines(), 1) if line.strip() and not line.lstrip().startswith("#")]
    if not lines:
        raise InvalidInput(f"{name}: no header line")
    reader = csv.DictReader([line for _, line in lines])
    missing = [c for c in _COLUMNS if c not in (reader.fieldnames or ())]
    if missing:
        raise InvalidInput(f"{name}: missing column(s) {missing}; have {reader.fieldnames}")
    systems: list[GridSystem] = []
    seen: set[str] = set()
    for (lineno, _), row in zip(lines[1:], reader):
        system = _parse_row(row, f"{name}, line {lineno}")
        if system.name in seen:
            raise InvalidInput(f"{name}, line {lineno}: system {system.name!r} appears twice")
        seen.add(system.name)
        systems.append(system)
    return tuple(systems)


def xsede_systems() -> tuple[GridSystem, ...]:
    """The eight XSEDE systems of Table I (Murali & Vadhiyar, sec. 4.2.1), shipped with the package.

    Examples
    --------
    >>> systems = xsede_systems()
    >>> [s.name for s in systems][:3], sum(s.cores for s in systems)
    (['Blacklight', 'Darter', 'Gordon'], 76256)
    """
    text = resources.files("gridmarket.data").joinpath(XSEDE_SYSTEMS_FILE).read_text(encoding="utf-8")
    return read_systems(text, name=XSEDE_SYSTEMS_FILE)


def system_index(systems: Iterable[GridSystem]) -> dict[str, GridSystem]:
    """Systems by name; raise `InvalidInput` on a duplicate name.

    >>> sorted(system_index(xsede_systems()))[:2]
    ['Blacklight', 'Darter']
    """
    index: dict[str, GridSystem] = {}
    for system in systems:
        if system.name in index:
            raise InvalidInput(f"system {system.name!r} appears twice")
        index[system.name] = system
    return index
