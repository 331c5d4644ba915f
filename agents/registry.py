"""The agent classes a market is built from, selectable by name: providers and users.

A scenario names its providers' class (``providers[].agent``) and its users' class
(``workload.user_agent``): a registered name (:data:`PROVIDER_AGENTS`: ``provider``;
:data:`USER_AGENTS`: ``user``) or a class written outside gridmarket, ``"package.module:Name"``
(a subclass of :class:`gridmarket.agents.ResourceProvider` / :class:`gridmarket.agents.User`), imported where the market
is built (:mod:`gridmarket.plugins`), so in every worker process of a sweep. A subclass keeps its
base's constructor and message protocol and changes what it decides (``docs/extending.md``).
"""

from __future__ import annotations

from gridmarket.agents.provider import ResourceProvider
from gridmarket.agents.user import User
from gridmarket.plugins import ClassContract, Registry

__all__ = ["PROVIDER_AGENTS", "USER_AGENTS", "register_provider_agent", "register_user_agent",
           "resolve_provider_agent", "resolve_user_agent"]

PROVIDER_AGENTS: Registry[type[ResourceProvider]] = Registry("provider agent", ClassContract(ResourceProvider),
                                                           {"provider": ResourceProvider})
"""Provider agent classes by name (the live table; :func:`register_provider_agent` adds to it)."""

USER_AGENTS: Registry[type[User]] = Registry("user agent", ClassContract(User), {"user": User})
"""User agent classes by name (the live table; :func:`register_user_agent` adds to it)."""


def register_provider_agent(name: str, cls: type[ResourceProvider]) -> type[ResourceProvider]:
    """Make provider class ``cls`` selectable as ``name``; ``InvalidInput`` for a taken name or a non-provider."""
    return PROVIDER_AGENTS.register(name, cls)


def register_user_agent(name: str, cls: type[User]) -> type[User]:
    """Make user class ``cls`` selectable as ``name``; ``InvalidInput`` for a taken name or a non-user."""
    return USER_AGENTS.register(name, cls)


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
    return PROVIDER_AGENTS.resolve(name)


def resolve_user_agent(name: str | type[User]) -> type[User]:
    """The user class of a registered name, a ``"package.module:Name"`` plug-in, or a class.

    >>> resolve_user_agent("user").__name__
    'User'
    """
    return USER_AGENTS.resolve(name)
