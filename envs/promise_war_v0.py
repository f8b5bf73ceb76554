"""promise_war_v0: War! for Promise TCG decks, 2 to 8 players (docs: ``promise_war.env``)."""

from .promise_war import env as _module
from .promise_war.env import env, raw_env

BATCHED = "cardarena.envs.promise_war.batched:BatchedPromiseWar"

__doc__ = _module.__doc__
__all__ = ["env", "raw_env"]
