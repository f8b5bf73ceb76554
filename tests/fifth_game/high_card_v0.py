"""high_card_v0: High Card, 2 players, the test suite's fifth game (docs: ``high_card.env``)."""

from .high_card import env as _module
from .high_card.env import env, raw_env

__doc__ = _module.__doc__
#: Its vector engine (``cardarena.envs.vector.make_vec``), found through this one line.
VECTOR = "fifth_game.high_card.vector:VectorHighCard"
__all__ = ["VECTOR", "env", "raw_env"]
