"""Named objects and plug-ins ``"package.module:Name"``: the one registry every seam uses.

A name with a colon is imported where it is used (``importlib.import_module`` on the part before
the colon, then the attribute path after it), so every process that builds the object — the main
one, a local worker pool under any start method, a Dask worker — imports the plug-in itself, as
long as its package is importable there (installed, or on ``PYTHONPATH``). The convention is the
one of Python entry points (``module:attr``). A name without a colon is looked up in the
:class:`Registry` of the kind asked for (e.g. :data:`gridmarket.scheduling.POLICIES`).

Every registry is a :class:`Registry`: a name names one object for the whole process (a duplicate is
refused), and every object — registered or imported — is checked against the contract of its kind
before it is used (:class:`ClassContract`: a subclass of the right base whose methods accept the
calls the base's callers make; :class:`FunctionContract`: a function callable as the seam calls it).
Importing a plug-in runs its module: a scenario that names one is code (``docs/extending.md``).
"""

from __future__ import annotations

import difflib
import importlib
import inspect
import re
from collections.abc import Callable, Iterable, Iterator, MutableMapping
from typing import Any, TypeGuard, overload

from gridmarket.errors import InvalidInput

__all__ = ["ClassContract", "Contract", "FunctionContract", "InstanceContract", "Registry", "is_plugin_name",
           "load_plugin"]

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

    Anything the module raises while it is imported — ``SystemExit`` from a module that calls
    ``sys.exit`` included — is reported in one line, so a plug-in cannot end the command silently.

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
    except (Exception, SystemExit) as err:  # the plug-in's own failure (sys.exit too), reported in one line
        raise InvalidInput(f"{kind} {name!r}: cannot import {module_name!r} ({type(err).__name__}: {err})") from None
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise InvalidInput(f"{kind} {name!r}: module {module_name!r} has no {attr!r}") from None
    if base is not None and not (isinstance(obj, type) and issubclass(obj, base)):
        raise InvalidInput(f"{kind} {name!r}: {obj!r} is not a subclass of {_qualified(base)}")
    return obj


# ---- contracts: what an object of a kind must be before it is used ----

class Contract:
    """What an object of one kind must be; :meth:`check` returns the object to use or raises one line."""

    accepts_plugins = True

    def check(self, obj: Any, where: str) -> Any:  # pragma: no cover - every contract overrides it
        """``obj`` (or what it stands for) if it keeps the contract; ``InvalidInput`` starting with ``where``."""
        raise NotImplementedError

    def from_plugin(self, obj: Any, name: str, where: str) -> Any:
        """What the object imported as plug-in ``name`` stands for; by default :meth:`check` of it."""
        return self.check(obj, where)


def _call_text(params: Iterable[str], keywords: Iterable[str]) -> str:
    return ", ".join([*params, *(f"{k}=..." for k in keywords)])


def _signature(fn: Any) -> inspect.Signature | None:
    try:
        return inspect.signature(fn)
    except (TypeError, ValueError):  # a builtin without a text signature
        return None


def _accepts(sig: inspect.Signature, n_args: int, keywords: Iterable[str]) -> bool:
    dummy = object()
    try:
        sig.bind(*([dummy] * n_args), **{k: dummy for k in keywords})
    except TypeError:
        return False
    return True


class FunctionContract(Contract):
    """A function the seam calls as ``fn(<params>, <keywords>=...)``: a plain callable that is no class.

    Parameters
    ----------
    params : tuple of str
        The positional arguments the seam passes, by the names the docs give them.
    keywords : tuple of str
        The keyword arguments the seam passes.
    accepts_plugins : bool
        Whether ``"package.module:Name"`` resolves to an imported function (False: registered names only).

    >>> c = FunctionContract(("quote", "plan"))
    >>> c.check(lambda quote, plan: 0.0, "pricing rule 'zero'")(1, 2)
    0.0
    >>> import os
    >>> c.check(os.system, "pricing rule 'os:system'")
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: pricing rule 'os:system': system(command) cannot be called with (quote, plan)
    """

    def __init__(self, params: tuple[str, ...], keywords: tuple[str, ...] = (), *, accepts_plugins: bool = True) -> None:
        self.params, self.keywords, self.accepts_plugins = params, keywords, accepts_plugins

    def check(self, obj: Any, where: str) -> Any:
        call = _call_text(self.params, self.keywords)
        if isinstance(obj, type) or not callable(obj):
            raise InvalidInput(f"{where}: {obj!r} is not a function of ({call})")
        sig = _signature(obj)
        name = getattr(obj, "__name__", type(obj).__name__)
        if sig is None:
            raise InvalidInput(f"{where}: the signature of {name} cannot be read, so it cannot be checked "
                               f"against ({call})")
        if not _accepts(sig, len(self.params), self.keywords):
            raise InvalidInput(f"{where}: {name}{_plain(sig)} cannot be called with ({call})")
        return obj


def _plain(sig: inspect.Signature) -> str:
    """A signature without annotations, defaults kept: what a one-line error can show."""
    return str(sig.replace(parameters=[p.replace(annotation=p.empty) for p in sig.parameters.values()],
                           return_annotation=inspect.Signature.empty))


def _method_kind(cls: type, name: str) -> str:
    raw = inspect.getattr_static(cls, name, None)
    if isinstance(raw, staticmethod):
        return "static"
    if isinstance(raw, classmethod):
        return "class"
    return "instance"


def _as_called(cls: type, name: str) -> inspect.Signature | None:
    """The signature of ``cls``'s method ``name`` as a caller sees it (no ``self``/``cls``)."""
    if name == "__init__":
        return _signature(cls)
    sig = _signature(getattr(cls, name))
    if sig is None or _method_kind(cls, name) != "instance":
        return sig  # a classmethod is bound already; a staticmethod has no first argument
    params = list(sig.parameters.values())
    if params and params[0].kind in (params[0].POSITIONAL_ONLY, params[0].POSITIONAL_OR_KEYWORD):
        params = params[1:]
    return sig.replace(parameters=params)


class ClassContract(Contract):
    """A subclass of ``base`` that implements ``abstract`` and keeps the call of every public method.

    Each public method of ``base`` (and ``__init__``) that the class overrides must accept the call
    the base's own signature allows: its positional parameters by position, its keyword-only ones by
    name, so a caller written against the base works with the plug-in (Liskov).

    >>> class Base:
    ...     name = ""
    ...     def schedule(self, now): raise NotImplementedError
    >>> class Ok(Base):
    ...     name = "ok"
    ...     def schedule(self, now): return []
    >>> class Wrong(Base):
    ...     name = "wrong"
    ...     def schedule(self): return []
    >>> contract = ClassContract(Base, abstract=("schedule",))
    >>> contract.check(Ok, "policy 'ok'") is Ok
    True
    >>> contract.check(Wrong, "policy 'm:Wrong'")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: policy 'm:Wrong': Wrong.schedule(self) does not accept the call Base.schedule(now)
    >>> contract.check(Base, "policy 'm:Base'")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: policy 'm:Base': Base does not define schedule(now) (...Base leaves it to subclasses)
    """

    def __init__(self, base: type, *, abstract: tuple[str, ...] = ()) -> None:
        self.base, self.abstract = base, abstract
        self.methods = ("__init__", *(m for m in sorted(dir(base)) if not m.startswith("_") and _is_method(base, m)))
        self._calls = {m: self._call_of(m) for m in self.methods}

    def _call_of(self, method: str) -> tuple[int, tuple[str, ...], str] | None:
        sig = _as_called(self.base, method)
        if sig is None:
            return None
        positional = [p.name for p in sig.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        keywords = tuple(p.name for p in sig.parameters.values() if p.kind == p.KEYWORD_ONLY)
        return len(positional), keywords, _call_text(positional, keywords)

    def check(self, obj: Any, where: str) -> Any:
        base = self.base
        if not (isinstance(obj, type) and issubclass(obj, base)):
            raise InvalidInput(f"{where}: {obj!r} is not a subclass of {_qualified(base)}")
        name = obj.__name__
        for method in self.abstract:
            if getattr(obj, method) is getattr(base, method):
                call = self._calls[method]
                raise InvalidInput(f"{where}: {name} does not define {method}({call[2] if call else '...'}) "
                                   f"({_qualified(base)} leaves it to subclasses)")
        if inspect.isabstract(obj):
            raise InvalidInput(f"{where}: {name} leaves abstract methods undefined: "
                               f"{', '.join(sorted(getattr(obj, '__abstractmethods__', ())))}")
        for method in self.methods:
            call = self._calls[method]
            if call is None or _defined_by(obj, method) is _defined_by(base, method):
                continue
            if not callable(getattr(obj, method, None)):
                raise InvalidInput(f"{where}: {name}.{method} is not a method ({_qualified(base)} calls it)")
            sig = _as_called(obj, method)
            if sig is not None and not _accepts(sig, call[0], call[1]):
                ours, theirs = ((name, base.__name__) if method == "__init__" else
                                (f"{name}.{method}", f"{base.__name__}.{method}"))
                shown = _signature(obj if method == "__init__" else getattr(obj, method)) or sig
                raise InvalidInput(f"{where}: {ours}{_plain(shown)} does not accept the call {theirs}({call[2]})")
        return obj


def _is_method(cls: type, name: str) -> bool:
    raw = inspect.getattr_static(cls, name, None)
    return isinstance(raw, (staticmethod, classmethod)) or inspect.isfunction(raw)


def _defined_by(cls: type, method: str) -> Any:
    for klass in cls.__mro__:
        if method in vars(klass):
            return vars(klass)[method]
    return None


class InstanceContract(Contract):
    """An instance of ``cls`` (registered objects that are data: interaction models, reproductions)."""

    def __init__(self, cls: type, *, accepts_plugins: bool = True) -> None:
        self.cls, self.accepts_plugins = cls, accepts_plugins

    def check(self, obj: Any, where: str) -> Any:
        if not isinstance(obj, self.cls):
            raise InvalidInput(f"{where}: {obj!r} is not a {self.cls.__name__}")
        return obj


# ---- the registry ----

def _qualified(obj: Any) -> str:
    return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', type(obj).__qualname__)}"


def _same(a: Any, b: Any) -> bool:
    """The same object, or the same class/function defined anew (a reloaded module, a re-run cell)."""
    if a is b:
        return True
    both_defs = all(isinstance(x, type) or inspect.isfunction(x) for x in (a, b))
    # two lambdas share the qualified name '<lambda>' and are not one definition
    return both_defs and _qualified(a) == _qualified(b) and "<lambda>" not in _qualified(a)


class Registry[T](MutableMapping[str, T]):
    """Objects of one ``kind`` by name, and plug-ins ``"package.module:Name"`` of that kind.

    The rule of every registry: a name names one object for the whole process, so a second object
    under a taken name is refused (a subclass that inherits its base's ``name`` cannot replace the
    base silently). Registering the very object again is a no-op (a module imported twice), and so
    is a class or function of the same module and qualified name (a reloaded module or a re-run
    notebook cell defines it anew; the new definition replaces the old one). Names are non-empty
    str without a colon (those name plug-ins). Every object, registered or imported, is checked by
    ``contract`` first. Item assignment registers (``reg[name] = obj``), so it keeps the same rules;
    ``del reg[name]`` unregisters.

    Parameters
    ----------
    kind : str
        What one object is, for messages: ``"policy"``, ``"pricing rule"``, ...
    contract : Contract
        What an object must be; ``contract.accepts_plugins`` says whether ``"package.module:Name"``
        resolves to an imported object.
    entries : mapping, optional
        The built-in objects, registered now.

    Examples
    --------
    >>> rules = Registry("rule", FunctionContract(("x",)), {"one": lambda x: 1})
    >>> rules.resolve("one")(0), rules.resolve("gridmarket.plugins:is_plugin_name")("a:b")
    (1, True)
    >>> rules.resolve("oen")
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: unknown rule 'oen' (did you mean 'one'?); known: one, or a plug-in 'package.module:Name'
    >>> rules.register("one", lambda x: 2)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: rule 'one' is already registered to ...<lambda>; ...<lambda> needs a name of its own
    """

    def __init__(self, kind: str, contract: Contract, entries: dict[str, T] | None = None) -> None:
        self.kind, self.contract = kind, contract
        self._entries: dict[str, T] = {}
        self._seen: dict[tuple, T] = {}  # (plug-in name or None, object) -> the checked object
        for name, obj in (entries or {}).items():
            self.register(name, obj)

    # Mapping: the live name -> object table
    def __getitem__(self, name: str) -> T:
        return self._entries[name]

    def __setitem__(self, name: str, obj: T) -> None:
        self.register(name, obj)

    def __delitem__(self, name: str) -> None:
        del self._entries[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"Registry({self.kind!r}: {', '.join(self._entries)})"

    def names(self) -> list[str]:
        """The registered names, sorted."""
        return sorted(self._entries)

    @overload
    def register(self, name: str, obj: None = None) -> Callable[[T], T]: ...
    @overload
    def register(self, name: str, obj: T) -> T: ...

    def register(self, name: str, obj: T | None = None) -> Any:
        """Add ``obj`` under ``name`` (also a decorator); ``InvalidInput`` for a bad or taken name or a broken contract."""

        def add(o: T) -> T:
            good_name = isinstance(name, str) and name and ":" not in name
            checked = self.contract.check(o, f"{self.kind} {name if good_name else getattr(o, '__name__', o)!r}")
            if not good_name:
                raise InvalidInput(f"{self.kind} name must be a non-empty str without ':', got {name!r}")
            taken = self._entries.get(name)
            if taken is not None and not _same(taken, checked):
                raise InvalidInput(f"{self.kind} {name!r} is already registered to {_qualified(taken)}; "
                                   f"{_qualified(checked)} needs a name of its own")
            self._entries[name] = checked
            return o

        return add if obj is None else add(obj)

    def resolve(self, name: Any) -> T:
        """The object called ``name``: registered, or a plug-in imported (once per process) and checked.

        An object that is not a str is checked and returned (a class handed in from Python).
        """
        if not isinstance(name, str):
            return self._checked((None, name), lambda: self.contract.check(name, f"{self.kind} {name!r}"))
        if name in self._entries:
            return self._entries[name]
        if self.contract.accepts_plugins and is_plugin_name(name):
            # imported every time (the module cache makes it cheap, and a module taken out of
            # sys.modules is imported anew), checked once per object
            obj = load_plugin(name, kind=self.kind)
            return self._checked((name, obj), lambda: self.contract.from_plugin(obj, name, f"{self.kind} {name!r}"))
        raise InvalidInput(self.unknown(name))

    def _checked(self, key: tuple, check: Callable[[], T]) -> T:
        """``check()``, remembered under ``key`` when it is hashable: a class or function is checked once."""
        try:
            return self._seen[key]
        except KeyError:
            result = self._seen[key] = check()
            return result
        except TypeError:  # an unhashable object: checked every time
            return check()

    def unknown(self, name: object, *, also: Iterable[str] = ()) -> str:
        """The one line for a name this registry does not know, with the closest known name.

        ``also``: names known beside this registry's (another registry a boundary resolves too).
        """
        known = sorted([*self._entries, *also])
        close = difflib.get_close_matches(str(name), known, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        plugins = ", or a plug-in 'package.module:Name'" if self.contract.accepts_plugins else ""
        return f"unknown {self.kind} {name!r}{hint}; known: {', '.join(known)}{plugins}"
