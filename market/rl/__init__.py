"""Learning agents: Gymnasium environments over gridmarket's real schedulers (the optional extra ``rl``).

``pip install "gridmarket[rl]"`` adds Gymnasium and PettingZoo; nothing else in gridmarket imports
them. Importing this package registers:

- ``gridmarket/QueuePick-v0`` (:class:`QueuePickEnv`): which of the first K queued jobs a machine
  starts next, over a real batch policy (EASY backfilling by default).

>>> import gymnasium as gym
>>> import gridmarket.rl
>>> gym.spec("gridmarket/QueuePick-v0").entry_point
'gridmarket.rl.queuepick:QueuePickEnv'
"""

import gymnasium as _gym

from gridmarket.rl.queuepick import JOB_FEATURES, REWARDS, QueuePickEnv

__all__ = ["JOB_FEATURES", "REWARDS", "QueuePickEnv"]

_gym.register(id="gridmarket/QueuePick-v0", entry_point="gridmarket.rl.queuepick:QueuePickEnv")
