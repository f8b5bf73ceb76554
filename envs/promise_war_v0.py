"""promise_war_v0: War! for Promise TCG decks, 2 to 8 players (docs: ``promise_war.env``)."""

from .core.parallel import parallel_env_factory
from .promise_war import env as _module
from .promise_war.env import env, raw_env

VECTOR = "cardarena.envs.promise_war.vector:VectorPromiseWar"

__doc__ = _module.__doc__
parallel_env = parallel_env_factory(env)

__all__ = ["env", "parallel_env", "raw_env"]
