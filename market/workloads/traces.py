"""One entry point for every trace format: the reader is chosen by the file's name.

``.json`` is a Batsim workload (:func:`gridmarket.workloads.batsim_json.read_batsim_workload`), ``.gwf`` a
Grid Workloads Archive log (:func:`gridmarket.workloads.gwf.read_gwf`), anything else a Standard Workload
Format log (:func:`gridmarket.workloads.swf.read_swf`); a ``.gz`` after the name is read directly. Every
command and scenario field that takes a trace path reads it here. Times are integer seconds.
"""

from __future__ import annotations

from os import PathLike
from pathlib import Path

from gridmarket.workloads.batsim_json import read_batsim_workload
from gridmarket.workloads.gwf import read_gwf
from gridmarket.workloads.swf import read_swf
from gridmarket.workloads.workload import Workload

__all__ = ["TRACE_FORMATS", "read_trace"]

#: What a trace path may name, for help texts and messages.
TRACE_FORMATS = "SWF, GWF or Batsim JSON (.swf, .gwf, .json; .gz read directly)"


def read_trace(path: str | PathLike[str]) -> Workload:
    """The workload in the trace file ``path``, read by the reader its suffix names (see the module).

    Jobs are in ``(submit, id)`` order with submits rebased to start at 0 s; the readers' ``InvalidInput``
    names the file, the line or field.

    >>> read_trace("no/such/trace.json")
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: no/such/trace.json: cannot read Batsim workload: No such file or directory
    """
    suffix = Path(Path(path).name.removesuffix(".gz")).suffix
    if suffix == ".json":
        return read_batsim_workload(path)
    if suffix == ".gwf":
        return read_gwf(path)
    return read_swf(path)
