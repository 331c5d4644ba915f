"""Objects named ``"package.module:Name"``: how a scenario or a command option names a plug-in.

A name with a colon is imported where it is used (``importlib.import_module`` on the part before
the colon, then the attribute path after it), so every process that builds the object — the main
one, a local worker pool under any start method, a Dask worker — imports the plug-in itself, as
long as its package is importable there (installed, or on ``PYTHONPATH``). The convention is the
one of Python entry points (``module:attr``). A name without a colon is looked up in the
registry of the kind asked for (e.g. :data:`gridmarket.scheduling.POLICIES`).
"""

from __future__ import annotations

import importlib
import re
from typing import Any, TypeGuard, overload

from gridmarket.errors import InvalidInput

__all__ = ["FunctionRegistry", "is_plugin_name", "load_plugin", "register_class"]

_SPEC = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")


def is_plugin_name(name: object) -> TypeGuard[str]:
    """Whether ``name`` has the ``"package.module:Name"`` form.

    >>> is_plugin_name("mypkg.policies:SJF"), is_plugin_name("easy"), is_plugin_name("a:")
    (True, False, False)
    """
    return isinstance(name, str) and bool(_SPEC.match(name))


@overload
def load_plugin[T](name: str, *, kind: str, base: type[T]) -> type[T]: ...
@overload
def load_plugin(name: str, *, kind: str, base: None = None) -> Any: ...


def load_plugin(name: str, *, kind: str, base: type | None = None) -> Any:
    """Import the object ``"package.module:Name"``; with ``base``, it must be a subclass of it.

    Raises
    ------
    InvalidInput
        One line naming ``kind`` and ``name``: a malformed name, a module that cannot be imported
        (with Python's reason), a missing attribute, or an object of the wrong kind.

    Examples
    --------
    >>> load_plugin("gridmarket.scheduling.easy:EASYScheduler", kind="policy").name
    'easy'
    >>> load_plugin("gridmarket.scheduling:nothing", kind="policy")
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: policy 'gridmarket.scheduling:nothing': module 'gridmarket.scheduling' has no 'nothing'
    """
    if not is_plugin_name(name):
        raise InvalidInput(f"{kind} {name!r}: a plug-in is named 'package.module:Name'")
    module_name, _, attr = name.partition(":")
    try:
        obj = importlib.import_module(module_name)
    except Exception as err:  # the plug-in's own import error, reported in one line
        raise InvalidInput(f"{kind} {name!r}: cannot import {module_name!r} ({type(err).__name__}: {err})") from None
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise InvalidInput(f"{kind} {name!r}: module {module_name!r} has no {attr!r}") from None
    if base is not None and not (isinstance(obj, type) and issubclass(obj, base)):
        raise InvalidInput(f"{kind} {name!r}: {obj!r} is not a subclass of {base.__module__}.{base.__name__}")
    return obj


def register_class(table: dict, kind: str, name: str, cls: type) -> type:
    """Add ``cls`` to the registry ``table`` under ``name``, refusing a name another class holds.

    The rule of every class registry (scheduling policies, broker strategies, agent classes): a name
    names one class for the whole process, so a subclass that inherits its base's ``name`` cannot
    silently replace the base everywhere. Registering the very class again is a no-op (a module
    imported twice), and so is a class of the same module and qualified name (a reloaded module or a
    re-run notebook cell defines its class anew; the new definition replaces the old one).

    Raises ``InvalidInput`` naming ``name`` and both classes.

    >>> table = {}
    >>> class Easy: ...
    >>> class Cautious(Easy): ...
    >>> register_class(table, "policy", "easy", Easy) is register_class(table, "policy", "easy", Easy)
    True
    >>> register_class(table, "policy", "easy", Cautious)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: policy 'easy' is already registered to ...Easy; ...Cautious needs a name of its own
    """
    taken = table.get(name)
    if taken is not None and taken is not cls and _qualified(taken) != _qualified(cls):
        raise InvalidInput(f"{kind} {name!r} is already registered to {_qualified(taken)}; "
                           f"{_qualified(cls)} needs a name of its own")
    table[name] = cls
    return cls


def _qualified(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


class FunctionRegistry:
    """Functions of one ``kind`` by name, and plug-ins ``"package.module:function"`` of that kind.

    Used by the clearing methods (:mod:`gridmarket.clearing.methods`) and the pricing rules
    (:mod:`gridmarket.pricing.rules`); ``functions`` is the live name -> function table.

    >>> r = FunctionRegistry("rule", {"one": lambda: 1}, "a function of nothing")
    >>> r.resolve("one")(), r.resolve("gridmarket.plugins:is_plugin_name")("a:b")
    (1, True)
    >>> r.resolve("two")
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: unknown rule 'two' (known: one, or a plug-in 'package.module:function')
    """

    def __init__(self, kind: str, functions: dict, what: str) -> None:
        self.kind, self.functions, self.what = kind, functions, what

    def register(self, name: str, fn=None):
        """Add ``fn`` under ``name`` (also a decorator); ``InvalidInput`` for a taken or colon name, or no callable."""

        def add(f):
            if not isinstance(name, str) or not name or ":" in name:
                raise InvalidInput(f"{self.kind} name must be a non-empty str without ':', got {name!r}")
            if name in self.functions:
                raise InvalidInput(f"{self.kind} {name!r} is already registered")
            if not callable(f):
                raise InvalidInput(f"{self.kind} {name!r}: {f!r} is not callable")
            self.functions[name] = f
            return f

        return add if fn is None else add(fn)

    def resolve(self, name: str):
        """The function called ``name``: registered, or a plug-in imported where this runs."""
        if is_plugin_name(name):
            fn = load_plugin(name, kind=self.kind)
            if not callable(fn):
                raise InvalidInput(f"{self.kind} {name!r}: {fn!r} is not {self.what}")
            return fn
        if name not in self.functions:
            raise InvalidInput(f"unknown {self.kind} {name!r} (known: {', '.join(self.functions)}, "
                               "or a plug-in 'package.module:function')")
        return self.functions[name]
