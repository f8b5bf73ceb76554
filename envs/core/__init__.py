"""Shared environment core: the AEC adapter and its wrapper, errors, observation layouts,
validators, and the loaders every game's config and reset options go through."""

from .actions import coerce_action
from .aec import (
    ILLEGAL_ACTION,
    TERMINATED,
    TRUNCATED,
    GameAECEnv,
    check_seed,
    env_metadata,
)
from .errors import (
    CardArenaError,
    IllegalActionError,
    InvalidConfigError,
    UnknownAgentError,
    has_module,
    install_hint,
)
from .game import NO_PLAYER, CheckedActions, Game, GameState, RulesState
from .infos import INFO_KEYS, NO_OFFENDER, Outcome, Seat
from .observation import ObservationBuffer, ObservationLayout, ObservationScaler, Piece
from .options import check_reset_options, per_player
from .tables import Column, Table, load_table
from .wrappers import GameWrapper, wrap

__all__ = [
    "ILLEGAL_ACTION",
    "INFO_KEYS",
    "NO_OFFENDER",
    "NO_PLAYER",
    "TERMINATED",
    "TRUNCATED",
    "CardArenaError",
    "CheckedActions",
    "Column",
    "Game",
    "GameAECEnv",
    "GameState",
    "GameWrapper",
    "IllegalActionError",
    "InvalidConfigError",
    "ObservationBuffer",
    "ObservationLayout",
    "ObservationScaler",
    "Outcome",
    "Piece",
    "RulesState",
    "Seat",
    "Table",
    "UnknownAgentError",
    "check_reset_options",
    "check_seed",
    "coerce_action",
    "env_metadata",
    "has_module",
    "install_hint",
    "load_table",
    "per_player",
    "wrap",
]
