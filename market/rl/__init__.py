"""Learning agents: Gymnasium environments over gridmarket's real schedulers (the optional extra ``rl``).

``pip install "gridmarket[rl]"`` adds Gymnasium and PettingZoo; nothing else in gridmarket imports
them. Importing this package registers:

- ``gridmarket/QueuePick-v0`` (:class:`QueuePickEnv`): which of the first K queued jobs a machine
  starts next, over a real batch policy (EASY backfilling by default).
- ``gridmarket/Bid-v0`` (:class:`gridmarket.rl.bid.BidEnv`): the broker of a scenario's slot auctions
  (``auction-market`` by default) reports each job's value as a factor of its valuation; reward: the
  users' surplus. It drives the agent model, so it is imported when made, not with this package.

>>> import gymnasium as gym
>>> import gridmarket.rl
>>> gym.spec("gridmarket/QueuePick-v0").entry_point, gym.spec("gridmarket/Bid-v0").entry_point
('gridmarket.rl.queuepick:QueuePickEnv', 'gridmarket.rl.bid:BidEnv')
"""

import gymnasium as _gym

from gridmarket.rl.queuepick import JOB_FEATURES, REWARDS, QueuePickEnv

__all__ = ["JOB_FEATURES", "REWARDS", "QueuePickEnv"]

_gym.register(id="gridmarket/QueuePick-v0", entry_point="gridmarket.rl.queuepick:QueuePickEnv")
_gym.register(id="gridmarket/Bid-v0", entry_point="gridmarket.rl.bid:BidEnv")
