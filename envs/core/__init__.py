"""Shared environment core: the AEC adapter, errors, observation layouts, validators."""

from .aec import GameAECEnv, coerce_action, env_metadata
from .errors import CardArenaError, IllegalActionError, InvalidConfigError
from .game import NO_PLAYER, Game, GameState
from .observation import ObservationLayout, Piece, unit_scale
from .wrappers import RejectMalformedActionWrapper, wrap

__all__ = [
    "NO_PLAYER",
    "CardArenaError",
    "Game",
    "GameAECEnv",
    "GameState",
    "IllegalActionError",
    "InvalidConfigError",
    "ObservationLayout",
    "Piece",
    "RejectMalformedActionWrapper",
    "coerce_action",
    "env_metadata",
    "unit_scale",
    "wrap",
]
