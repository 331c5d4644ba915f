"""Interaction models by name: which broker strategy serves the users, and whether a metascheduler clears.

An interaction model (DESIGN.md, "Interaction models to compare") is what ``compare --models``, a
scenario's ``models`` and ``sweep --grid model=...`` name. Each is an :class:`InteractionModel`: the
broker strategy that takes the users' workflows, reservation requests and (in a job market) jobs
(:mod:`gridmarket.agents.strategies`), and the clearing method of a grid metascheduler that places the jobs
users route to it each cycle (:mod:`gridmarket.clearing.methods`), or none. The built-in ones are in
:data:`INTERACTION_MODELS`; :func:`register_model` adds one.

A model may also be named ``"package.module:Name"`` (``docs/extending.md``), imported where it is
used (:mod:`gridmarket.plugins`, so in every worker of a sweep) and read by what ``Name`` is:

* an :class:`InteractionModel` -- that model (e.g. a broker of your own beside an MCMF metascheduler);
* a :class:`gridmarket.agents.strategies.BrokerStrategy` subclass -- that broker, no metascheduler;
* a function -- a clearing method: the ``mcmf`` set-up with it in place of min-cost max-flow.
"""

from __future__ import annotations

from dataclasses import dataclass

from gridmarket.agents.strategies import BrokerStrategy, resolve_strategy
from gridmarket.clearing import resolve_clearing
from gridmarket.errors import InvalidInput
from gridmarket.plugins import Contract, Registry

__all__ = ["INTERACTION_MODELS", "InteractionModel", "check_model", "register_model", "resolve_model"]


@dataclass(frozen=True, slots=True)
class InteractionModel:
    """Who serves the users in one interaction model.

    Parameters
    ----------
    description : str
        One line for tables and help.
    broker : str
        The broker strategy: a registered name (:data:`gridmarket.agents.strategies.BROKER_STRATEGIES`) or a
        plug-in ``"package.module:Name"``. ``"best-effort"``: workflows run just in time and
        reservation requests are submitted at their start.
    clearing : str or None
        The metascheduler's clearing method (``"mcmf"``, ``"stable"``, another registered one or a
        plug-in ``"package.module:function"``); None: no metascheduler, users queue every job at home.
    """

    description: str
    broker: str = "best-effort"
    clearing: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.description, str):
            raise InvalidInput(f"interaction model description must be a str, got {self.description!r}")
        if not isinstance(self.broker, str):
            raise InvalidInput(f"interaction model broker must be a strategy name, got {self.broker!r}")
        if self.clearing is not None and not isinstance(self.clearing, str):
            raise InvalidInput(f"interaction model clearing must be a clearing method name or None, "
                               f"got {self.clearing!r}")

    def check(self) -> InteractionModel:
        """``self`` if its broker strategy and clearing method resolve (plug-ins are imported); else InvalidInput."""
        resolve_strategy(self.broker)
        if self.clearing is not None:
            resolve_clearing(self.clearing)
        return self


class _ModelContract(Contract):
    """An :class:`InteractionModel` whose strategy and clearing resolve; a plug-in may also be a
    :class:`BrokerStrategy` subclass or a clearing function (module notes)."""

    def check(self, obj, where: str) -> InteractionModel:
        if not isinstance(obj, InteractionModel):
            raise InvalidInput(f"{where}: {obj!r} is not an InteractionModel")
        try:
            return obj.check()
        except InvalidInput as err:
            raise InvalidInput(f"{where}: {err}") from None

    def from_plugin(self, obj, name: str, where: str) -> InteractionModel:
        if isinstance(obj, InteractionModel):
            return self.check(obj, where)
        doc = (getattr(obj, "__doc__", None) or "").strip().splitlines()
        description = doc[0] if doc else name
        if isinstance(obj, type):
            if not issubclass(obj, BrokerStrategy):
                raise InvalidInput(f"{where}: class {obj.__qualname__} is not a subclass of "
                                   "gridmarket.agents.strategies.BrokerStrategy")
            resolve_strategy(name)  # the strategy's own contract
            return InteractionModel(description, broker=name)
        if callable(obj):
            resolve_clearing(name)  # the clearing method's own contract
            return InteractionModel(description, clearing=name)
        raise InvalidInput(f"{where}: {obj!r} is not an InteractionModel, a BrokerStrategy subclass "
                           "or a clearing function")


INTERACTION_MODELS: Registry[InteractionModel] = Registry("interaction model", _ModelContract(), {
    "best-effort": InteractionModel("users submit every job to their home provider's local queue (no market)"),
    "mcmf": InteractionModel("a metascheduler clears grid jobs each cycle by min-cost max-flow (Murali & Vadhiyar, "
                             "eqs. 4-6)", clearing="mcmf"),
    "stable": InteractionModel("a metascheduler clears grid jobs each cycle by stable matching, jobs proposing "
                               "(sec. 3.3.2)", clearing="stable"),
    "moga": InteractionModel("advertisement + MOGA: a broker buys advertised slots for workflows by MOGA and eq. 15 "
                             "(Singh ch. 3-4)", broker="moga"),
    "greedy": InteractionModel("adaptive pricing + greedy: providers quote externality prices, a broker buys task by "
                               "task (Singh ch. 5, 7)", broker="greedy"),
    "var": InteractionModel("virtual advance reservations: reservation requests become jobs submitted early (Singh "
                            "ch. 6, Fig. 33)", broker="var"),
    "combined": InteractionModel("priced reservation raced by a VAR job, the cheaper kept (Singh ch. 6.4, Fig. 45)",
                                 broker="combined"),
    "first-price": InteractionModel("providers auction slots every cycle, reserve = externality quote; the broker "
                                    "bids the symmetric equilibrium shaded bid; losers go best effort",
                                    broker="first-price"),
    "vickrey": InteractionModel("second-price sealed-bid slot auctions, reserve = externality quote; truthful bids",
                                broker="vickrey"),
    "english": InteractionModel("ascending-clock slot auctions, reserve = externality quote; bidders stay in up to "
                                "their value", broker="english"),
    "dutch": InteractionModel("descending-clock slot auctions, reserve = externality quote; equilibrium stop prices",
                              broker="dutch"),
    "double": InteractionModel("a continuous double auction every cycle among ZIP traders for slots starting in the "
                               "cycle: providers ask from externality reserves, the broker bids from job values",
                               broker="double"),
    "double-gd": InteractionModel("the double auction of 'double' among Gjerstad-Dickhaut traders (belief-based "
                                  "expected-surplus maximisers, Gjerstad & Dickhaut 1998) instead of ZIP",
                                  broker="double-gd"),
    "negotiate": InteractionModel("as each job arrives the broker bargains with each provider in turn by alternating "
                                  "offers over price and start (Faratin time-dependent tactics); the first deal is "
                                  "bought", broker="negotiate"),
    "dbc": InteractionModel("as each job arrives a deadline-and-budget-constrained broker (Nimrod-G cost-time "
                            "optimisation) buys the cheapest quoted slot that ends by the job's deadline within its "
                            "value", broker="dbc"),
    "dbc-cycle": InteractionModel("the dbc broker gathering the jobs that arrive within a cycle and buying them "
                                  "together, earliest deadline first (Nimrod-G's scheduling events); an auctioning "
                                  "provider's slot goes to the highest of the cycle's bids at second price",
                                  broker="dbc-cycle"),
    "sla": InteractionModel("as each job arrives every provider offers a service-level agreement its plan can honour "
                            "(start window from the job's deadline, value-based penalties); the broker signs the "
                            "cheapest and it is settled after the run", broker="sla"),
    "sla-predict": InteractionModel("the sla market with contracts for each job's predicted run time (the mean of its "
                                    "user's last two, Tsafrir et al. 2007) instead of its estimate: a job that runs "
                                    "longer overruns, the provider moves the contracts in its way (late or broken) "
                                    "and the user pays the extra at the base rate", broker="sla-predict"),
    "grand": InteractionModel("a greedy broker buys priced slots for workflows and reservations while an MCMF "
                              "metascheduler clears the other jobs across sites by electricity price (no seed studied "
                              "the two together)", broker="greedy", clearing="mcmf"),
})
"""Interaction models by name (the live table: :func:`register_model` adds to it; ``gridmarket.scenarios.commands.compare``)."""


def register_model(name: str, model: InteractionModel) -> InteractionModel:
    """Make ``model`` selectable as ``name`` in this process (a scenario's ``models``, ``compare --models``).

    Its broker strategy and clearing method are checked now. A name registered here is unknown to
    worker processes that do not register it too; a plug-in name (module notes) is not.

    Raises
    ------
    InvalidInput
        ``name`` empty, with a colon (those are plug-in names) or taken; ``model`` not an
        :class:`InteractionModel`, or naming an unknown strategy or clearing method.
    """
    return INTERACTION_MODELS.register(name, model)


def resolve_model(name: str) -> InteractionModel:
    """The interaction model called ``name``: registered, or a plug-in ``"package.module:Name"`` (module notes).

    >>> grand = resolve_model("grand")
    >>> grand.broker, grand.clearing
    ('greedy', 'mcmf')
    >>> resolve_model("gridmarket.clearing.methods:_stable").clearing
    'gridmarket.clearing.methods:_stable'
    >>> resolve_model("gridmarket.agents.reservations:VARStrategy").broker
    'gridmarket.agents.reservations:VARStrategy'
    >>> resolve_model("gridmarket.job:Job")
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: interaction model 'gridmarket.job:Job': class Job is not a subclass of gridmarket.agents.strategies.BrokerStrategy
    """
    if not isinstance(name, str):
        raise InvalidInput(INTERACTION_MODELS.unknown(name))
    return INTERACTION_MODELS.resolve(name)


def check_model(name: object, where: str = "models") -> str:
    """``name`` if it names an interaction model (:func:`resolve_model`); else one line starting with ``where``.

    A plug-in is imported here: a missing module or object is refused now, not in a worker.

    >>> check_model("mcmf"), check_model("gridmarket.clearing.methods:_stable")
    ('mcmf', 'gridmarket.clearing.methods:_stable')
    >>> check_model("mcfm")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gridmarket.errors.InvalidInput: models: unknown interaction model 'mcfm' (did you mean 'mcmf'?); known: ...
    """
    if not isinstance(name, str):
        shown = repr(name)
        raise InvalidInput(f"{where}: an interaction model is named by a string, got "
                           f"{shown if len(shown) <= 40 else shown[:37] + '...'}")
    try:
        resolve_model(name)
    except InvalidInput as exc:
        raise InvalidInput(f"{where}: {exc}") from None
    return name
