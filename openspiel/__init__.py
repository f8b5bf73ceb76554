"""cardarena's four envs as OpenSpiel games (docs/openspiel.md).

Importing this package registers, with pyspiel, one Python game per env:

| env | OpenSpiel name |
|---|---|
| ``promise_war_v0`` | ``cardarena_promise_war`` |
| ``ironman_war_v0`` | ``cardarena_ironman_war`` |
| ``beast_wars_v0`` | ``cardarena_beast_wars`` |
| ``cardline_v0`` | ``cardarena_cardline`` |

``pyspiel.load_game("cardarena_promise_war", {"num_players": 3, "decks": "1 1 2 2 3 3"})``
takes the env's config as game parameters (list-valued config in the string forms of
``cardarena.openspiel.specs``). Chance is explicit: every shuffle and draw of the rules is a
chance node (the chance protocol, ``cardarena.envs.core.chance``), so CFR, exact best
responses and exploitability can walk the tree of a small configuration.
"""

from __future__ import annotations

from typing import Any

import pyspiel

from .game import CardArenaGame, CardArenaObserver, CardArenaState, register
from .saved import load_state
from .specs import SPECS, GameSpec

for _spec in SPECS.values():
    register(_spec)

#: env name -> OpenSpiel short name.
GAME_NAMES = {name: spec.short_name for name, spec in SPECS.items()}


def load_game(env_name: str, **params: Any) -> pyspiel.Game:
    """``pyspiel.load_game`` by env name: ``load_game("cardline_v0", num_players=3)``."""
    return pyspiel.load_game(GAME_NAMES[env_name], params)


__all__ = [
    "GAME_NAMES",
    "SPECS",
    "CardArenaGame",
    "CardArenaObserver",
    "CardArenaState",
    "GameSpec",
    "load_game",
    "load_state",
]
