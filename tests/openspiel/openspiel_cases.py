"""Configurations and helpers the OpenSpiel tests share (importable as ``openspiel_cases``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

import cardarena.openspiel  # noqa: F401 (registers the games)
from cardarena.openspiel import GAME_NAMES, SPECS

#: A shuffled inline Cardline deck (rows not sorted by value: CL-1 warns about sorted rows).
SMALL_CARDLINE_DECK = (
    "Rome:-753 Pyramid:-2560 Colosseum:80 Marathon:-490 Hastings:1066.5 Augustus:-27 Zero:0 "
    "Hagia:537 Magna:1215 Rubicon:-49 Charlemagne:800"
)

#: Per env: configurations as OpenSpiel game parameters, 3 and 4 players where allowed.
CASES: dict[str, list[dict[str, Any]]] = {
    "promise_war_v0": [
        {"decks": "1 1 2 2 3", "max_power": 3},
        {"num_players": 3, "max_power": 2, "decks": "0 0 1 1 2 2", "max_tricks": 6},
        {"num_players": 4, "max_power": 4, "decks": "1 2 3 4 4 2/1 1 3 3/4 4 4/0 1 2 3 4"},
        {},
    ],
    "ironman_war_v0": [
        {"deck": "attack_1:3 attack_5:1 upgrade:2 energy_shield:2", "max_rounds": 4},
        {"variant": "beginner"},
        {},
    ],
    "beast_wars_v0": [
        {"team_size": 3, "max_turns": 12, "first_player": "predacon"},
        {"team_selection": "random", "max_turns": 40},
        {},
    ],
    "cardline_v0": [
        {"num_players": 3, "hand_size": 2, "deck": SMALL_CARDLINE_DECK, "max_turns": 9},
        {"num_players": 4, "hand_size": 2, "deck": SMALL_CARDLINE_DECK},
        {},
    ],
}

ALL_CASES = [(env, params) for env, cases in CASES.items() for params in cases]


def case_id(case: tuple[str, dict[str, Any]]) -> str:
    env, params = case
    return f"{env}-" + ("-".join(f"{k}={v}" for k, v in sorted(params.items())) or "default")


def load(env: str, params: dict[str, Any]) -> pyspiel.Game:
    return pyspiel.load_game(GAME_NAMES[env], params)


def env_config(env: str, params: dict[str, Any]) -> dict[str, Any]:
    """The env's config for these game parameters (what ``env(...)`` takes)."""
    spec = SPECS[env]
    return spec.to_config({**spec.defaults, **params})


def random_step(state: Any, rng: np.random.Generator) -> int:
    """A chance outcome by its probability, or a uniform legal action."""
    if state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes(), strict=True)
        return int(outcomes[rng.choice(len(outcomes), p=np.asarray(probs) / sum(probs))])
    return int(rng.choice(state.legal_actions()))
