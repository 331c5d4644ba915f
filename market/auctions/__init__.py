"""Auctions for slots and for processor-hours: single-item sealed-bid and clock auctions a
provider runs for one slot (:mod:`gridmarket.auctions.single`) and double auctions between many
providers and brokers (:mod:`gridmarket.auctions.double`), with zero-intelligence-plus traders
(:mod:`gridmarket.auctions.zip`) and Gjerstad-Dickhaut traders (:mod:`gridmarket.auctions.gd`) for the
latter, mixed in one market by :mod:`gridmarket.auctions.mixed`. :mod:`gridmarket.auctions.slot` auctions a slot of a provider's plan with its
externality-priced quote as the reserve. Prices in SU."""

from gridmarket.auctions.double import Order, OrderBook, Trade, call_market
from gridmarket.auctions.gd import GDTrader, Shout, buyer_belief, gd_traders, seller_belief
from gridmarket.auctions.mixed import DayReport, mixed_market, mixed_traders
from gridmarket.auctions.single import AuctionResult, dutch, english, first_price, first_price_equilibrium_bid, vickrey
from gridmarket.auctions.zip import ZIPTrader, equilibrium, trading_day, zip_market_day, zip_parameters, zip_traders

__all__ = [
    "AuctionResult",
    "DayReport",
    "GDTrader",
    "Order",
    "OrderBook",
    "Shout",
    "Trade",
    "ZIPTrader",
    "buyer_belief",
    "call_market",
    "dutch",
    "english",
    "equilibrium",
    "first_price",
    "first_price_equilibrium_bid",
    "gd_traders",
    "mixed_market",
    "mixed_traders",
    "seller_belief",
    "trading_day",
    "vickrey",
    "zip_market_day",
    "zip_parameters",
    "zip_traders",
]
