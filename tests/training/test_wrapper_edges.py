"""The Gymnasium and SB3 wrappers against the rule of tests/core/test_input_edges.py:
``SingleAgentEnv`` (built on ``env()`` or on ``raw_env``, in each ``illegal=`` mode, and as
``gymnasium.make``'s registered id) and the learner's batch (``LearnerVecEnv`` for SB3,
``LearnerGymVectorEnv`` for Gymnasium). A legal integer of any numpy type is played as the
Python int (the int64 array); a malformed or out-of-range value raises ``IllegalActionError``
in every mode and leaves the observation, ``action_masks()``, the generators and the game as
they were; an integer in range that the mask does not allow does what the mode documents."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest
from edge_values import (
    INT_TYPES,
    action_values,
    aec_snapshot,
    assert_same,
    intended_index,
    is_playable,
)
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from cardarena.envs import ENVS, make_raw
from cardarena.envs.core import ILLEGAL_ACTION, IllegalActionError
from cardarena.envs.vector import has_vector
from cardarena.training.gym_registration import gym_id, register_gym_envs
from cardarena.training.single_agent import ILLEGAL_MODES, SingleAgentEnv
from cardarena.training.vector.vec_env import LearnerGymVectorEnv, LearnerVecEnv

NAMES = sorted(ENVS)
KINDS = ("env", "raw_env", "gymnasium.make")
register_gym_envs()  # the test game too, if cardarena.training was imported before it came
_BRIDGES: dict[tuple[str, str, str], tuple[Any, Any]] = {}


def bridge_pair(name: str, kind: str, illegal: str) -> tuple[Any, Any]:
    """A single-agent env and its twin, built once: the twin is given only Python ints."""
    key = (name, kind, illegal)
    if key not in _BRIDGES:

        def build() -> Any:
            if kind == "gymnasium.make":
                return gymnasium.make(gym_id(name), illegal=illegal)
            aec = name if kind == "env" else make_raw(name)
            return SingleAgentEnv(aec, illegal=illegal)

        _BRIDGES[key] = (build(), build())
    return _BRIDGES[key]


def position(env: Any, seed: int, moves: int) -> Any:
    """The learner's observation at ``seed``'s deal after up to ``moves`` legal moves."""
    observation, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        mask = env.unwrapped.action_masks()
        observation, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        if terminated or truncated:
            observation, _ = env.reset(seed=seed)
            break
    return observation


def bridge_snapshot(env: Any, observation: np.ndarray) -> dict[str, Any]:
    bridge = env.unwrapped
    return {
        "observation": np.array(observation, copy=True),
        "action_masks": bridge.action_masks(),
        "learner": bridge.learner,
        "generator": bridge.np_random.bit_generator.state,
        "aec": aec_snapshot(bridge.aec),
    }


def check_bridge(name: str, kind: str, illegal: str, seed: int, moves: int, value: Any) -> str:
    """One ``value`` at one position (module docstring); what happened."""
    env, twin = bridge_pair(name, kind, illegal)
    observation = position(env, seed, moves)
    position(twin, seed, moves)
    mask = env.unwrapped.action_masks()
    index = intended_index(value)
    before = bridge_snapshot(env, observation)
    in_range = index is not None and 0 <= index < len(mask)
    if in_range and (is_playable(value, mask) or not (illegal == "mask" and kind == "raw_env")):
        got, expected = env.step(value), twin.step(index)
        assert_same(expected, got, f"{value!r} as {index}")
        assert_same(bridge_snapshot(twin, expected[0]), bridge_snapshot(env, got[0]))
        if is_playable(value, mask):
            return "played"
        if illegal == "resample":
            assert got[4]["resampled"] is True
        else:  # the game ends with -1 for the learner
            assert got[1:4] == (-1.0, True, False) and got[4]["outcome"] == ILLEGAL_ACTION
        return f"illegal, {illegal}"
    with pytest.raises(IllegalActionError):
        env.step(value)
    assert_same(before, bridge_snapshot(env, observation), f"after refusing {value!r}")
    legal = int(np.flatnonzero(mask)[0])
    got, expected = env.step(legal), twin.step(legal)
    assert_same(expected, got, "the step after a refusal")
    return "refused"


@pytest.mark.parametrize("illegal", ILLEGAL_MODES)
@pytest.mark.parametrize("kind", KINDS)
def test_single_agent_env_at_every_bound(kind, illegal):
    name = "promise_war_v0"
    env, _ = bridge_pair(name, kind, illegal)
    position(env, 4, 2)
    mask = env.unwrapped.action_masks()
    n, legal = len(mask), int(np.flatnonzero(mask)[0])
    illegal_actions = np.flatnonzero(~mask).tolist()[:1]
    values = [-1, 0, n - 1, n, 2**63, 10**40, legal, *illegal_actions]
    values += [np.int8(legal), np.int64(legal), np.uint64(legal), np.array([legal]), np.int64(n)]
    values += [1.0, 0.5, float("nan"), float(legal), np.float32(legal), True, False]
    values += [np.bool_(True), str(legal), None]
    for value in values:
        check_bridge(name, kind, illegal, 4, 2, value)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(NAMES),
    kind=st.sampled_from(KINDS),
    illegal=st.sampled_from(ILLEGAL_MODES),
    seed=st.integers(0, 2**16),
    moves=st.integers(0, 6),
    data=st.data(),
)
def test_single_agent_env_plays_or_refuses_by_the_rule(name, kind, illegal, seed, moves, data):
    env, _ = bridge_pair(name, kind, illegal)
    position(env, seed, moves)
    mask = env.unwrapped.action_masks()
    value = data.draw(action_values(len(mask), np.flatnonzero(mask).tolist()), label="action")
    event(check_bridge(name, kind, illegal, seed, moves, value))


# --- the learner's batch: LearnerVecEnv (SB3) and LearnerGymVectorEnv (Gymnasium) ---------
VECTOR_NAMES = [name for name in NAMES if has_vector(name)]
GAMES = 4
_BATCHES: dict[tuple[str, str], tuple[Any, Any]] = {}


def batch_pair(name: str, kind: str) -> tuple[Any, Any]:
    if (name, kind) not in _BATCHES:
        build = LearnerVecEnv if kind == "sb3" else LearnerGymVectorEnv
        _BATCHES[name, kind] = (build(name, GAMES, seed=0), build(name, GAMES, seed=0))
    return _BATCHES[name, kind]


def reset(venv: Any, seed: int) -> None:
    if isinstance(venv, LearnerVecEnv):
        venv.seed(seed)
        venv.reset()
    else:
        venv.reset(seed=seed)


def vec_position(venv: Any, seed: int, moves: int) -> None:
    """``seed``'s games after ``moves`` steps, at least one with the learner to act."""
    reset(venv, seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        venv.step(_legal(venv.action_masks(), rng))
    while not venv.action_masks().any():  # every game waits for its next-step deal
        venv.step(np.zeros(GAMES, np.int64))


def _legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A legal action per game (0 where none is: a game waiting for its next-step deal)."""
    keys = np.where(masks, rng.random(masks.shape), -1.0)
    return keys.argmax(axis=1).astype(np.int64)


def vec_snapshot(venv: Any) -> dict[str, Any]:
    core = venv.core
    return {
        "observation": core.observation.copy(),
        "action_masks": venv.action_masks(),
        "learner_seats": venv.learner_seats,
        "pending": core.pending.copy(),
        "returns": core.returns.copy(),
        "lengths": core.lengths.copy(),
        "games": core.rules.rng.copy(),
        "seats": core.seat_rng.bit_generator.state,
        "opponents": core.opponent_rng.bit_generator.state,
    }


def step_result(result: tuple[Any, ...]) -> tuple[Any, ...]:
    """A step's return without the wall-clock episode time SB3's infos carry."""
    if isinstance(result[-1], list):
        infos = [{k: v for k, v in info.items() if k != "episode"} for info in result[-1]]
        return (*result[:-1], infos)
    return result


def check_vec(name: str, kind: str, seed: int, moves: int, pick: int, actions: Any) -> str:
    """``actions`` played as its int64 twin, or refused with nothing moved."""
    venv, twin = batch_pair(name, kind)
    vec_position(venv, seed, moves)
    vec_position(twin, seed, moves)
    masks = venv.action_masks()
    base = _legal(masks, np.random.default_rng(seed + 1))
    before = vec_snapshot(venv)
    game = int(np.flatnonzero(masks.any(axis=1))[pick % int(masks.any(axis=1).sum())])
    entry = actions[game] if isinstance(actions, list) else None
    if isinstance(actions, list):
        index = intended_index(entry) if is_playable(entry, masks[game]) else None
    else:
        value = actions.reshape(-1)[game]
        integral = actions.dtype.kind in "iu" and 0 <= value < masks.shape[1]
        index = int(value) if integral and masks[game, int(value)] else None
    if index is not None:
        played = venv.step(actions)
        expected = twin.step(np.where(np.arange(GAMES) == game, index, base))
        assert_same(step_result(expected), step_result(played))
        assert_same(vec_snapshot(twin), vec_snapshot(venv))
        return "played"
    with pytest.raises(IllegalActionError):
        venv.step(actions)
    assert_same(before, vec_snapshot(venv), "after a refusal")
    assert_same(step_result(twin.step(base)), step_result(venv.step(base)))
    return "refused"


def _with(base: np.ndarray, game: int, value: Any) -> list[Any]:
    actions: list[Any] = base.tolist()
    actions[game] = value
    return actions


@pytest.mark.parametrize("kind", ["sb3", "gymnasium"])
@pytest.mark.parametrize("name", VECTOR_NAMES)
def test_learner_batch_at_every_bound(name, kind):
    venv, _ = batch_pair(name, kind)
    vec_position(venv, 6, 3)
    masks = venv.action_masks()
    game = int(np.flatnonzero(masks.any(axis=1))[0])
    base = _legal(masks, np.random.default_rng(7))
    legal = int(np.flatnonzero(masks[game])[0])
    illegal = np.flatnonzero(~masks[game]).tolist()[:1]
    n = masks.shape[1]
    values: list[Any] = [n, -1, n - 1, 0, 2**63, 10**40, legal, *illegal, np.int64(legal)]
    values += [np.uint64(legal), np.uint64(n), 1.0, 0.5, float("nan"), float(legal)]
    values += [np.float32(legal), True, np.bool_(True), False, str(legal), None]
    for value in values:
        check_vec(name, kind, 6, 3, 0, _with(base, game, value))
    for dtype in (*INT_TYPES, np.float32, np.float64, np.bool_):
        for value in (legal, n, *illegal):
            row = base.copy()
            row[game] = value
            if dtype in INT_TYPES and not np.can_cast(np.min_scalar_type(row.max()), dtype):
                continue
            check_vec(name, kind, 6, 3, 0, row.astype(dtype))
    if kind == "sb3":  # SB3 may send (N, 1): taken, and checked the same
        row = base.copy()
        row[game] = legal
        check_vec(name, kind, 6, 3, 0, row.reshape(GAMES, 1))
        row[game] = n
        check_vec(name, kind, 6, 3, 0, row.reshape(GAMES, 1))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(VECTOR_NAMES),
    kind=st.sampled_from(["sb3", "gymnasium"]),
    seed=st.integers(0, 2**16),
    moves=st.integers(0, 6),
    pick=st.integers(0, GAMES - 1),
    data=st.data(),
)
def test_learner_batch_plays_or_refuses_by_the_rule(name, kind, seed, moves, pick, data):
    venv, _ = batch_pair(name, kind)
    vec_position(venv, seed, moves)
    masks = venv.action_masks()
    games = np.flatnonzero(masks.any(axis=1))
    game = int(games[pick % games.size])
    value = data.draw(action_values(masks.shape[1], np.flatnonzero(masks[game]).tolist()))
    base = _legal(masks, np.random.default_rng(seed + 1))
    event(check_vec(name, kind, seed, moves, pick, _with(base, game, value)))
