"""ironman_war_v0: Iron Man 2 Game of War, beginner and advanced (docs: ``ironman_war.env``)."""

from .core.parallel import parallel_env_factory
from .ironman_war import env as _module
from .ironman_war.env import env, raw_env

VECTOR = "cardarena.envs.ironman_war.vector:VectorIronManWar"
__doc__ = _module.__doc__
parallel_env = parallel_env_factory(env)

__all__ = ["env", "parallel_env", "raw_env"]
