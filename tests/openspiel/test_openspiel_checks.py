"""(b) OpenSpiel's own consistency checks, unmodified: ``pyspiel.random_sim_test`` (the C++
checks: clone, serialization, legal actions sorted and empty for other players, the legal
mask, chance outcomes, returns in range, game length), ``GamesSimTest.sim_game`` from
open_spiel/python/tests/games_sim_test.py (pickling of game and state, clones), and the checks
of open_spiel/python/games/kuhn_poker_test.py on a tiny configuration: Python and C++
exploitability of the uniform policy agree, and CFR runs."""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import pyspiel
import pytest
from open_spiel.python import policy
from open_spiel.python.algorithms import exploitability
from open_spiel.python.algorithms.get_all_states import get_all_states
from open_spiel.python.observation import make_observation
from openspiel_cases import ALL_CASES, case_id, load, random_step

from cardarena.openspiel import GAME_NAMES, SPECS

#: A configuration whose whole tree is small (tests below walk all of it).
TINY = ("promise_war_v0", {"decks": "1 1 2", "max_power": 2})

OBSERVATION_TYPES = [
    pyspiel.IIGObservationType(perfect_recall=recall, public_info=public, private_info=private)
    for recall in (False, True)
    for public, private in (
        (True, pyspiel.PrivateInfoType.SINGLE_PLAYER),
        (False, pyspiel.PrivateInfoType.SINGLE_PLAYER),
        (True, pyspiel.PrivateInfoType.NONE),
        (True, pyspiel.PrivateInfoType.ALL_PLAYERS),
    )
]


@pytest.mark.parametrize("case", ALL_CASES, ids=case_id)
def test_random_sim_test(case: tuple[str, dict[str, Any]]) -> None:
    pyspiel.random_sim_test(load(*case), num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("env_name", sorted(SPECS))
def test_games_sim_test_sim_game(env_name: str) -> None:
    from open_spiel.python.tests import games_sim_test

    checker = games_sim_test.GamesSimTest()
    game = load(env_name, {})
    np.random.seed(36)  # sim_game samples from numpy's global generator
    checker.sim_game(game)


@pytest.mark.parametrize("env_name", sorted(SPECS))
def test_registered_with_the_env_config_as_parameters(env_name: str) -> None:
    spec = SPECS[env_name]
    game_type = pyspiel.load_game(GAME_NAMES[env_name]).get_type()
    assert game_type.short_name == spec.short_name
    assert dict(game_type.parameter_specification) == dict(spec.defaults)
    assert game_type.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    game = pyspiel.load_game(str(pyspiel.load_game(GAME_NAMES[env_name])))
    assert game.get_parameters() == dict(spec.defaults)


def test_unknown_parameter_is_refused() -> None:
    with pytest.raises(pyspiel.SpielError):
        pyspiel.load_game("cardarena_promise_war", {"num_player": 3})


@pytest.mark.parametrize("case", ALL_CASES, ids=case_id)
def test_observers_and_serialization_along_a_game(case: tuple[str, dict[str, Any]]) -> None:
    """Every observer type gives a fixed-size tensor and a string at every state; a state
    survives ``serialize`` / ``deserialize_state`` and pickling, clones are equal."""
    game = load(*case)
    observers = [make_observation(game, kind) for kind in OBSERVATION_TYPES]
    sizes = [len(o.tensor) for o in observers]
    rng = np.random.default_rng(7)
    state = game.new_initial_state()
    step = 0
    while True:
        if step % 5 == 0 or state.is_terminal():
            for observer, size in zip(observers, sizes, strict=True):
                for seat in range(game.num_players()):
                    observer.set_from(state, seat)
                    assert observer.tensor.shape == (size,)
                    assert isinstance(observer.string_from(state, seat), str)
            restored = game.deserialize_state(state.serialize())
            assert restored.history() == state.history()
            assert str(restored) == str(state)
            unpickled = pickle.loads(pickle.dumps(state))
            assert unpickled.history() == state.history()
            for seat in range(game.num_players()):
                assert unpickled.information_state_string(seat) == state.information_state_string(
                    seat
                )
                np.testing.assert_array_equal(
                    unpickled.observation_tensor(seat), state.observation_tensor(seat)
                )
        if state.is_terminal():
            break
        state.apply_action(random_step(state, rng))
        step += 1


def test_information_states_are_information_sets() -> None:
    """Over a whole tiny tree: states with one information-state string (of the player to
    act) have the same player to act and the same legal actions; the observation string of a
    seat is a function of its information state; and perfect recall holds (the string of an
    earlier decision of that seat is a prefix)."""
    game = load(*TINY)
    states = get_all_states(game, include_chance_states=False, include_terminals=False)
    seen: dict[str, tuple[int, list[int]]] = {}
    observed: dict[tuple[int, str], str] = {}
    for state in states.values():
        player = state.current_player()
        key = state.information_state_string(player)
        entry = (player, state.legal_actions())
        assert seen.setdefault(key, entry) == entry
        for seat in range(game.num_players()):
            info = state.information_state_string(seat)
            obs = state.observation_string(seat)
            assert observed.setdefault((seat, info), obs) == obs
    assert len(seen) > 1


def test_exploitability_python_and_cpp_agree_on_a_tiny_game() -> None:
    game = load(*TINY)
    python_value = exploitability.exploitability(game, policy.UniformRandomPolicy(game))
    cpp_value = pyspiel.exploitability(game, pyspiel.UniformRandomPolicy(game))
    assert python_value == pytest.approx(cpp_value)
    assert python_value > 0
    solver = pyspiel.CFRSolver(game)
    for _ in range(20):
        solver.evaluate_and_update_policy()
    assert pyspiel.exploitability(game, solver.average_policy()) < python_value


def test_tree_size_counts_a_tiny_tree() -> None:
    from cardarena.openspiel.tree_size import count_tree, measure

    result = measure(GAME_NAMES[TINY[0]], TINY[1], limit=10_000, below_deal=False)
    assert result["complete"] and result["histories"] == 278
    assert result["terminals"] + result["chance_nodes"] + result["decision_nodes"] == 278
    assert result["nash_conv_uniform"] == pytest.approx(1.5)
    assert not count_tree(load(*TINY).new_initial_state(), limit=100).complete
