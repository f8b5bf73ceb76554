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
from .observation import (
    NETWORK_MAX_SPAN,
    ObservationBuffer,
    ObservationLayout,
    ObservationScaler,
    Piece,
    bounds_digest,
    known_scalers,
    matching_scaler,
    network_scaler,
)
from .options import check_reset_options, per_player
from .tables import Column, Table, load_table
from .wrappers import GameWrapper, wrap

__all__ = [
    "ILLEGAL_ACTION",
    "INFO_KEYS",
    "NETWORK_MAX_SPAN",
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
    "bounds_digest",
    "check_reset_options",
    "check_seed",
    "coerce_action",
    "env_metadata",
    "has_module",
    "install_hint",
    "known_scalers",
    "load_table",
    "matching_scaler",
    "network_scaler",
    "per_player",
    "wrap",
]
