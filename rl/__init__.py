"""Learning agents: Gymnasium environments over gridmarket's real schedulers (the optional extra ``rl``).

``pip install "gridmarket[rl]"`` adds Gymnasium and PettingZoo; nothing else in gridmarket imports
them. Importing this package registers:

- ``gridmarket/QueuePick-v0`` (:class:`QueuePickEnv`): which of the first K queued jobs a machine
  starts next, over a real batch policy (EASY backfilling by default).
- ``gridmarket/Bid-v0`` (:class:`gridmarket.rl.bid.BidEnv`): the broker of a scenario's slot auctions
  (``auction-market`` by default) reports each job's value as a factor of its valuation; reward: the
  users' surplus.
- ``gridmarket/Dispatch-v0`` (:class:`gridmarket.rl.dispatch.DispatchEnv`): the grid metascheduler of a
  scenario (``quickstart`` by default) names each cycle's job's system from the predicted waits,
  responses and electricity costs; reward: response time and electricity cost weighed by Murali's w_t.

and :func:`market_parallel_env`: a PettingZoo ``ParallelEnv`` in which several brokers report their users'
values in the same slot auctions at once (:class:`gridmarket.rl.parallel.MarketParallelEnv`).

The market environments drive the agent model, so they are imported when made, not with this package.

>>> import gymnasium as gym
>>> import gridmarket.rl
>>> [gym.spec(f"gridmarket/{name}-v0").entry_point for name in ("QueuePick", "Bid", "Dispatch")]
['gridmarket.rl.queuepick:QueuePickEnv', 'gridmarket.rl.bid:BidEnv', 'gridmarket.rl.dispatch:DispatchEnv']
"""

import gymnasium as _gym

from gridmarket.rl.queuepick import JOB_FEATURES, REWARDS, QueuePickEnv

__all__ = ["JOB_FEATURES", "REWARDS", "QueuePickEnv", "market_parallel_env"]

_gym.register(id="gridmarket/QueuePick-v0", entry_point="gridmarket.rl.queuepick:QueuePickEnv")
_gym.register(id="gridmarket/Bid-v0", entry_point="gridmarket.rl.bid:BidEnv")
_gym.register(id="gridmarket/Dispatch-v0", entry_point="gridmarket.rl.dispatch:DispatchEnv")


def market_parallel_env(scenario="auction-market", **kwargs):
    """Several brokers bidding at once in one slot-auction market: a PettingZoo ``ParallelEnv``.

    Keywords as :class:`gridmarket.rl.parallel.MarketParallelEnv` (``n_brokers``, ``mechanism``, ...).
    """
    from gridmarket.rl.parallel import MarketParallelEnv

    return MarketParallelEnv(scenario, **kwargs)
