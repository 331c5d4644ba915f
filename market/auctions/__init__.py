"""Auctions for slots and for processor-hours (issue 17): single-item sealed-bid and clock auctions a
provider runs for one slot (:mod:`market.auctions.single`) and double auctions between many
providers and brokers (:mod:`market.auctions.double`), with zero-intelligence-plus traders
(:mod:`market.auctions.zip`) and Gjerstad-Dickhaut traders (:mod:`market.auctions.gd`) for the
latter, mixed in one market by :mod:`market.auctions.mixed`. :mod:`market.auctions.slot` auctions a slot of a provider's plan with its
externality-priced quote as the reserve. Prices in SU."""

from market.auctions.double import Order, OrderBook, Trade, call_market
from market.auctions.gd import GDTrader, Shout, buyer_belief, gd_traders, seller_belief
from market.auctions.mixed import DayReport, mixed_market, mixed_traders
from market.auctions.single import AuctionResult, dutch, english, first_price, first_price_equilibrium_bid, vickrey
from market.auctions.zip import ZIPTrader, equilibrium, trading_day, zip_traders

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
    "zip_traders",
]
