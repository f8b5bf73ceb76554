"""A saved state from someone else is loaded by replaying its history, never by unpickling:
a crafted payload in the pickled part never runs, and a bad history is refused by name."""

from __future__ import annotations

import base64
import pickle

import numpy as np
import pytest

from cardarena.envs.core import InvalidConfigError
from cardarena.openspiel import load_game, load_state


class _Payload:
    """Unpickling this would create ``marker`` (the attack load_state must not run)."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


def _random_state(game, seed: int, moves: int):
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    for _ in range(moves):
        if state.is_terminal():
            break
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state


@pytest.mark.parametrize("env", ["promise_war_v0", "ironman_war_v0", "cardline_v0"])
def test_a_saved_state_loads_by_replay_to_the_same_state(env):
    game = load_game(env)
    state = _random_state(game, 1, 40)
    loaded = load_state(game, state.serialize())
    assert loaded.history() == state.history() and str(loaded) == str(state)


def test_a_crafted_pickle_in_the_saved_string_never_runs(tmp_path):
    game = load_game("promise_war_v0")
    state = _random_state(game, 2, 10)
    marker = tmp_path / "ran"
    evil = base64.b64encode(pickle.dumps({"x": _Payload(str(marker))})).decode()
    history = state.serialize().split("\n", 1)[0]
    crafted = f"{history}\nmove_number=0\n__dict__={evil}"
    loaded = load_state(game, crafted)
    assert loaded.history() == state.history() and not marker.exists()


@pytest.mark.parametrize(
    ("saved", "message"),
    [
        ("__dict__=gASV", "starts with 'history='"),
        ("history=0:zz", "is not 'player:action'"),
        ("history=5:0", "cannot be played there"),
        ("history=" + "x" * 2_000_001, "at most 2,000,000"),
    ],
)
def test_a_bad_saved_state_is_refused_by_name(saved, message):
    with pytest.raises(InvalidConfigError, match=message):
        load_state(load_game("promise_war_v0"), saved)
