"""The trading desks of the job markets, one module per market (:mod:`gridmarket.agents.trading` describes them).

Each desk is a broker strategy (:class:`gridmarket.agents.strategies.BrokerStrategy`) registered here under
its market's name, in the order of :data:`JOB_MARKETS`. Times are integer seconds; prices SU.
"""

from gridmarket.agents.desks.auction import (
    AUCTION_METHODS,
    CLOCK_STEP,
    DUTCH_OPENING,
    DutchDesk,
    EnglishDesk,
    FirstPriceDesk,
    SlotAuctionDesk,
    VickreyDesk,
)
from gridmarket.agents.desks.base import PerJobDesk, TradingDesk
from gridmarket.agents.desks.dbc import CycleDBCDesk, DBCDesk
from gridmarket.agents.desks.double import DoubleAuctionDesk, GDDoubleAuctionDesk
from gridmarket.agents.desks.negotiation import NegotiationDesk
from gridmarket.agents.desks.sla import SLA_COLUMNS, PredictedSLADesk, SLADesk, sla_penalty
from gridmarket.agents.strategies import register_strategy

__all__ = ["AUCTION_METHODS", "CLOCK_STEP", "DESKS", "DUTCH_OPENING", "JOB_MARKETS", "SLA_COLUMNS", "CycleDBCDesk",
           "DBCDesk", "DoubleAuctionDesk", "DutchDesk", "EnglishDesk", "FirstPriceDesk", "GDDoubleAuctionDesk",
           "NegotiationDesk", "PerJobDesk", "PredictedSLADesk", "SLADesk", "SlotAuctionDesk", "TradingDesk",
           "VickreyDesk", "sla_penalty"]

DESKS = (FirstPriceDesk, VickreyDesk, EnglishDesk, DutchDesk, DoubleAuctionDesk, GDDoubleAuctionDesk, NegotiationDesk,
         DBCDesk, CycleDBCDesk, SLADesk, PredictedSLADesk)
"""The built-in desks, registered as broker strategies in this order."""

JOB_MARKETS = tuple(desk.name for desk in DESKS)
"""The job-market interaction models' broker strategies: ``first-price`` ... ``sla-predict``."""

for _desk in DESKS:
    register_strategy(_desk)
