"""ironman_war_v0: Iron Man 2 Game of War, beginner and advanced (docs: ``ironman_war.env``)."""

from .ironman_war import env as _module
from .ironman_war.env import env, raw_env

BATCHED = "cardarena.envs.ironman_war.batched:BatchedIronManWar"
__doc__ = _module.__doc__
__all__ = ["env", "raw_env"]
