"""The vector front at its own bounds and in its own words: batch sizes, seat and game
indices, the messages that name a refused value, which seat's view a row shows, and the
batch's read-only views. Written for the mutants of envs/vector/front.py that the front's
other tests let through (docs/mutation/envs.vector.front.md)."""

from __future__ import annotations

import re
import types

import numpy as np
import pytest

from cardarena.envs import ENVS
from cardarena.envs.core import IllegalActionError, InvalidConfigError
from cardarena.envs.vector import make_vec
from cardarena.envs.vector.front import (
    MAX_ENVS,
    action_array,
    check_num_envs,
    has_vector,
    vector_rules_class,
)

ENV = "ironman_war_v0"


def test_a_batch_holds_one_to_max_envs_games():
    assert MAX_ENVS == 1 << 20
    assert check_num_envs(1) == 1 and check_num_envs(np.int64(MAX_ENVS)) == MAX_ENVS
    for wrong in (0, MAX_ENVS + 1, -1):
        with pytest.raises(InvalidConfigError, match=rf"num_envs must be in 1\.\.{MAX_ENVS}"):
            check_num_envs(wrong)
    assert make_vec(ENV, 1, seed=0).reset().observation.shape[0] == 1


def test_the_batch_arrays_refuse_writes():
    batch = make_vec(ENV, 2, seed=0).reset()
    for name in ("observation", "action_mask", "current_player", "rewards", "terminated"):
        with pytest.raises(ValueError, match="read-only"):
            getattr(batch, name)[0] = 0


def test_an_env_without_a_vector_engine_is_named_with_those_that_have_one(monkeypatch):
    monkeypatch.setitem(ENVS, "plain_v0", types.SimpleNamespace())
    assert not has_vector("plain_v0") and has_vector(ENV) and not has_vector("nothing_v0")
    with pytest.raises(InvalidConfigError, match=r"has no vector engine; envs with one: .*iron"):
        vector_rules_class("plain_v0")
    odd = types.SimpleNamespace(VECTOR="cardarena.envs.vector.front:make_vec")
    monkeypatch.setitem(ENVS, "odd_v0", odd)
    with pytest.raises(InvalidConfigError, match="is not a VectorRules class"):
        vector_rules_class("odd_v0")


class _Refusing:
    """An object numpy cannot turn into an array: ``__array__`` raises ``error``."""

    def __init__(self, error: type[Exception]) -> None:
        self.error = error

    def __array__(self, *args: object, **kwargs: object) -> np.ndarray:
        raise self.error("no array")


@pytest.mark.parametrize("error", [TypeError, ValueError, OverflowError])
def test_actions_numpy_cannot_read_are_refused_as_actions(error):
    with pytest.raises(IllegalActionError, match="actions must be an integer array: no array"):
        action_array(_Refusing(error), 1)


def test_actions_are_named_as_given_and_a_scalar_is_refused_by_shape():
    array, given = action_array(actions=[3], num_envs=1)  # keywords, as documented
    assert array.tolist() == [3] and given == [3]
    with pytest.raises(IllegalActionError, match=r"must have shape \(1,\)"):
        action_array(3, 1)
    with pytest.raises(IllegalActionError, match=r"got dtype float64 \(e\.g\. 1\.5\)"):
        action_array(np.array([1.5, 2.5]), 2)


def test_an_unseeded_batch_draws_its_own_seed():
    seeds = {make_vec(ENV, 1).seed for _ in range(3)}
    assert all(isinstance(s, int) and 0 <= s < 2**64 for s in seeds) and len(seeds) == 3


def test_a_refused_action_is_named_in_range_or_out_of_it():
    """Promise War's first move: action 0 is illegal (a bound of the naming test), as is
    another; -1 and n are out of range."""
    venv = make_vec("promise_war_v0", 1, seed=0)
    batch = venv.reset()
    n = venv.num_actions
    illegal = np.flatnonzero(~batch.action_mask[0])
    assert illegal[0] == 0 and illegal.size > 1
    for action in (0, int(illegal[-1])):
        name = re.escape(venv.state_of(0).action_to_string(action))
        with pytest.raises(IllegalActionError, match=rf"illegal action {action} \({name}\)"):
            venv.step([action])
    for out in (n, -1):
        with pytest.raises(
            IllegalActionError, match=rf"action {out} \(out of range 0\.\.{n - 1}\)"
        ):
            venv.step([out])


def test_each_row_is_the_view_of_the_seat_to_act_or_of_the_last_mover():
    """Checked against the reference env at every step of random games, seat 0 included,
    and after a game ends (the last mover's view)."""
    venv = make_vec(ENV, 3, seed=5)
    raw = venv.raw_env
    batch = venv.reset()
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(120):
        mask = batch.action_mask.copy()
        movers = batch.current_player.copy()
        actions = [int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in mask]
        batch = venv.step(actions)
        for game in range(3):
            state = venv.state_of(game)
            seat = int(batch.current_player[game])
            if seat < 0:
                seat = int(movers[game])  # the game just ended: who moved last sees it
                ended += 1
            raw.set_state(state)
            expected = raw.observe(raw.possible_agents[seat])["observation"]
            np.testing.assert_array_equal(batch.raw_observation[game], expected)
    assert ended > 0


def test_a_finished_game_set_into_a_slot_shows_seat_zeros_view():
    venv = make_vec(ENV, 2, seed=1)
    venv.reset()
    raw = venv.raw_env
    raw.reset(seed=3)
    rng = np.random.default_rng(1)
    while raw.agents:
        observation, _, terminated, truncated, _ = raw.last()
        done = terminated or truncated
        raw.step(None if done else int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    final = raw.game_state.clone()
    batch = venv.set_state(1, final)
    raw.set_state(final)
    assert batch.current_player[1] == -1
    np.testing.assert_array_equal(
        batch.raw_observation[1], raw.observe(raw.possible_agents[0])["observation"]
    )


def test_seats_and_game_indices_are_checked_at_both_ends():
    venv = make_vec(ENV, 2, seed=0)
    venv.reset()
    players = venv.num_players
    assert venv.observe(np.array([0, players - 1])).shape == (2, venv.observation_size)
    for seats in ([0, players], [-1, 0], [0]):
        with pytest.raises(
            InvalidConfigError, match=rf"seats must be 2 seat numbers in 0\.\.{players - 1}"
        ):
            venv.observe(np.array(seats))
    assert venv.state_of(np.int64(1)) is not None
    for game in (-1, 2):
        with pytest.raises(InvalidConfigError, match=r"game index must be in 0\.\.1, got"):
            venv.state_of(game)
    for game in (True, 1.0):
        with pytest.raises(InvalidConfigError, match="game index must be an integer"):
            venv.state_of(game)
