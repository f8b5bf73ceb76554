"""high_card_v0: High Card, 2 players, the test suite's fifth game (docs: ``high_card.env``)."""

from .high_card import env as _module
from .high_card.env import env, raw_env

__doc__ = _module.__doc__
#: Its batched engine (``cardarena.envs.vector.make_vec``), found through this one line.
BATCHED = "fifth_game.high_card.batched:BatchedHighCard"
__all__ = ["BATCHED", "env", "raw_env"]
