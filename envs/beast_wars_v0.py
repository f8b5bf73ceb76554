"""beast_wars_v0: Beast Wars Transformers Mutating Card Game, maximal vs predacon (docs:
``beast_wars.env``)."""

from .beast_wars import env as _module
from .beast_wars.env import env, raw_env
from .core.parallel import parallel_env_factory

__doc__ = _module.__doc__
parallel_env = parallel_env_factory(env)

__all__ = ["env", "parallel_env", "raw_env"]
VECTOR = "cardarena.envs.beast_wars.vector:VectorBeastWars"
