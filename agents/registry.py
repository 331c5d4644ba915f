"""The agent classes a market is built from, selectable by name: providers and users.

A scenario names its providers' class (``providers[].agent``) and its users' class
(``workload.user_agent``): a registered name (:data:`PROVIDER_AGENTS`: ``provider``;
:data:`USER_AGENTS`: ``user``) or a class written outside gridmarket, ``"package.module:Name"``
(a subclass of :class:`gridmarket.agents.ResourceProvider` / :class:`gridmarket.agents.User`), imported where the market
is built (:mod:`gridmarket.plugins`), so in every worker process of a sweep. A subclass keeps its
base's constructor and message protocol and changes what it decides (``docs/extending.md``).
"""

from __future__ import annotations

import difflib

from gridmarket.agents.provider import ResourceProvider
from gridmarket.agents.user import User
from gridmarket.errors import InvalidInput
from gridmarket.plugins import is_plugin_name, load_plugin, register_class

__all__ = ["PROVIDER_AGENTS", "USER_AGENTS", "register_provider_agent", "register_user_agent",
           "resolve_provider_agent", "resolve_user_agent"]

PROVIDER_AGENTS: dict[str, type[ResourceProvider]] = {"provider": ResourceProvider}
"""Provider agent classes by name (the live table; :func:`register_provider_agent` adds to it)."""

USER_AGENTS: dict[str, type[User]] = {"user": User}
"""User agent classes by name (the live table; :func:`register_user_agent` adds to it)."""


def _register(table: dict, kind: str, base: type, name: str, cls: type) -> type:
    if not (isinstance(cls, type) and issubclass(cls, base)):
        raise InvalidInput(f"{kind} {cls!r} is not a subclass of {base.__module__}.{base.__name__}")
    if not isinstance(name, str) or not name or ":" in name:
        raise InvalidInput(f"{kind} name must be a non-empty str without ':', got {name!r}")
    return register_class(table, kind, name, cls)


def _resolve(table: dict, kind: str, base: type, name) -> type:
    if isinstance(name, type) and issubclass(name, base):
        return name
    if isinstance(name, str) and name in table:
        return table[name]
    if is_plugin_name(name):
        return load_plugin(name, kind=kind, base=base)
    close = difflib.get_close_matches(str(name), table, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise InvalidInput(f"unknown {kind} {name!r}{hint}; known: {', '.join(table)}, or a plug-in "
                       "'package.module:Name'")


def register_provider_agent(name: str, cls: type[ResourceProvider]) -> type[ResourceProvider]:
    """Make provider class ``cls`` selectable as ``name``; ``InvalidInput`` for a taken name or a non-provider."""
    return _register(PROVIDER_AGENTS, "provider agent", ResourceProvider, name, cls)


def register_user_agent(name: str, cls: type[User]) -> type[User]:
    """Make user class ``cls`` selectable as ``name``; ``InvalidInput`` for a taken name or a non-user."""
    return _register(USER_AGENTS, "user agent", User, name, cls)


def resolve_provider_agent(name: str | type[ResourceProvider]) -> type[ResourceProvider]:
    """The provider class of a registered name, a ``"package.module:Name"`` plug-in, or a class.

    >>> resolve_provider_agent("provider").__name__, resolve_provider_agent("gridmarket.agents.provider:ResourceProvider").__name__
    ('ResourceProvider', 'ResourceProvider')
    >>> resolve_provider_agent("gridmarket.agents.user:User")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: provider agent 'gridmarket.agents.user:User': <class 'gridmarket.agents.user.User'> is not a subclass of gridmarket.agents.provider.ResourceProvider
    >>> resolve_provider_agent("providr")
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: unknown provider agent 'providr' (did you mean 'provider'?); known: provider, or a plug-in 'package.module:Name'
    """
    return _resolve(PROVIDER_AGENTS, "provider agent", ResourceProvider, name)


def resolve_user_agent(name: str | type[User]) -> type[User]:
    """The user class of a registered name, a ``"package.module:Name"`` plug-in, or a class.

    >>> resolve_user_agent("user").__name__
    'User'
    """
    return _resolve(USER_AGENTS, "user agent", User, name)
