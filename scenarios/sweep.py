"""Parameter sweeps: a grid of scenario overrides, one result file per run, resumable.

``run_sweep(config, grid, out)`` runs :func:`scenarios.experiment.compare` for
every point of the Cartesian product of ``grid`` (parameter name -> values),
writing ``out/runs/<run_id>.json`` atomically when a run finishes. A re-run
skips every run whose file exists (resume after a crash or a kill), then
writes the combined table ``out/sweep.csv`` (one row per run and interaction
model, with the grid values and the seed). Runs go through a local process
pool (``workers``; 1 = in this process).

Grid syntax (``parse_grid``): ``name=v1,v2,...`` or ``name=a..b`` (integers,
inclusive); ``model=mcmf,stable`` picks one interaction model per run. Times
are seconds.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import pandas as pd

from market.errors import InvalidInput
from scenarios.config import ScenarioConfig, overridable, suggest, with_overrides
from scenarios.experiment import compare
from scenarios.results import write_atomic

__all__ = ["parse_grid", "point_id", "run_point", "run_sweep"]

_RANGE = re.compile(r"^(-?\d+)\.\.(-?\d+)$")


def _value(text: str):
    text = text.strip()
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    if text.lower() in ("none", "inf"):
        return None
    return text


def parse_grid(specs: Sequence[str]) -> dict[str, list]:
    """``["alpha=0,0.5", "seed=1..3"]`` -> ``{"alpha": [0, 0.5], "seed": [1, 2, 3]}``.

    >>> parse_grid(["alpha=0,0.5,1", "seed=1..3", "model=mcmf"])
    {'alpha': [0, 0.5, 1], 'seed': [1, 2, 3], 'model': ['mcmf']}
    """
    grid: dict[str, list] = {}
    names = overridable() + ["model"]
    for spec in specs:
        name, sep, values = spec.partition("=")
        name = name.strip()
        if not sep or not name or not values.strip():
            raise InvalidInput(f"bad grid {spec!r}: expected NAME=v1,v2,... or NAME=a..b")
        if name not in names:
            raise InvalidInput(f"bad grid {spec!r}: unknown parameter {name!r}{suggest(name, names)}")
        if name in grid:
            raise InvalidInput(f"bad grid {spec!r}: {name!r} given twice")
        m = _RANGE.match(values.strip())
        if m:
            lo, hi = int(m[1]), int(m[2])
            if hi < lo:
                raise InvalidInput(f"bad grid {spec!r}: empty range {lo}..{hi}")
            grid[name] = list(range(lo, hi + 1))
        else:
            parts = [v for v in values.split(",")]
            if any(not p.strip() for p in parts):
                raise InvalidInput(f"bad grid {spec!r}: empty value in {values!r}")
            grid[name] = [_value(p) for p in parts]
    return grid


def point_id(scenario: str, point: Mapping) -> str:
    """``quickstart-alpha0.5-seed3`` (file-name safe)."""
    parts = [scenario] + [f"{k.removeprefix('workload.')}{v}" for k, v in point.items()]
    return re.sub(r"[^A-Za-z0-9._=+-]", "_", "-".join(parts))


def _configure(config: ScenarioConfig, point: Mapping) -> ScenarioConfig:
    values = dict(point)
    if "model" in values:
        values["models"] = (values.pop("model"),)
    return with_overrides(config, values)


def run_point(config: ScenarioConfig, point: dict, path: str) -> str:
    """Run one grid point and write its rows to ``path`` atomically; returns the path."""
    runs = compare(_configure(config, point))
    rows = [{**{f"grid.{k}": v for k, v in point.items()}, **r.summary} for r in runs]
    write_atomic(Path(path), json.dumps({"point": point, "rows": rows}, indent=1, default=str) + "\n")
    return path


def run_sweep(
    config: ScenarioConfig,
    grid: Mapping[str, Sequence],
    out: str | Path,
    *,
    workers: int = 1,
    progress: Callable[[str, str], None] | None = None,
) -> pd.DataFrame:
    """Run every point of ``grid`` not already done in ``out``; return the combined table.

    ``progress(run_id, status)`` is called with status ``skipped`` or ``done``.
    Every point is checked (``with_overrides``) before any run starts.
    """
    if not isinstance(workers, int) or workers < 1:
        raise InvalidInput(f"workers must be an int >= 1, got {workers!r}")
    out = Path(out)
    names = list(grid)
    points = [dict(zip(names, combo)) for combo in itertools.product(*(grid[n] for n in names))]
    for point in points:
        _configure(config, point)  # bad values fail here, before hours of work
    spec = {"scenario": config.to_dict(), "grid": {k: list(v) for k, v in grid.items()}}
    runs_dir = out / "runs"
    runs_dir.mkdir(parents=True, exist_ok=True)
    spec_path = out / "sweep.json"
    text = json.dumps(spec, indent=1, default=str) + "\n"
    if spec_path.exists() and spec_path.read_text(encoding="utf-8") != text:
        raise InvalidInput(f"{out}: holds a different sweep (see {spec_path}); choose another --out")
    write_atomic(spec_path, text)
    todo = []
    for point in points:
        rid = point_id(config.name, point)
        path = runs_dir / f"{rid}.json"
        if path.exists():
            if progress:
                progress(rid, "skipped")
        else:
            todo.append((rid, point, str(path)))
    if workers == 1:
        for rid, point, path in todo:
            run_point(config, point, path)
            if progress:
                progress(rid, "done")
    elif todo:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = {pool.submit(run_point, config, point, path): rid for rid, point, path in todo}
            for fut in as_completed(futures):
                fut.result()
                if progress:
                    progress(futures[fut], "done")
    rows = []
    for point in points:
        doc = json.loads((runs_dir / f"{point_id(config.name, point)}.json").read_text(encoding="utf-8"))
        rows += doc["rows"]
    table = pd.DataFrame(rows)
    write_atomic(out / "sweep.csv", table.to_csv(index=False))
    return table
