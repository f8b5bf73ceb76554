"""cardline_v0: Cardline, Marvel edition and user decks, 2 to 8 players (docs: ``cardline.env``)."""

from .cardline import env as _module
from .cardline.env import env, raw_env
from .core.parallel import parallel_env_factory

__doc__ = _module.__doc__
VECTOR = "cardarena.envs.cardline.vector:VectorCardline"
parallel_env = parallel_env_factory(env)

__all__ = ["env", "parallel_env", "raw_env"]
