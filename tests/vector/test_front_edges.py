"""The vector front (``make_vec``'s ``step``) against the rule of tests/core/test_input_edges.py:
one game's action is tried with every value at its bounds, given in a list (elements of any
type) and in an array (every numpy dtype); an integer that is legal is played exactly as the
same int64 array plays it, anything else raises ``IllegalActionError`` and leaves every batch
array and every game's generator as they were. ``action == num_actions`` is the bound the
issue found open: it is in both catalogues."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from edge_values import (
    INT_TYPES,
    action_values,
    assert_same,
    bound_integers,
    intended_index,
    is_playable,
)
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from vector_checks import random_legal_actions, vector_env_names

from cardarena.envs.core import IllegalActionError
from cardarena.envs.vector import make_vec

NAMES = vector_env_names()
GAMES = 4
ARRAY_TYPES = (*INT_TYPES, np.float32, np.float64, np.bool_, object)
_PAIRS: dict[str, tuple[Any, Any]] = {}


def batch_pair(name: str) -> tuple[Any, Any]:
    """A batch and its twin (built once): the twin is given only int64 arrays."""
    if name not in _PAIRS:
        _PAIRS[name] = (make_vec(name, GAMES, seed=0), make_vec(name, GAMES, seed=0))
    return _PAIRS[name]


def position(venv: Any, seed: int, moves: int) -> Any:
    """``seed``'s games after ``moves`` random legal steps, at least one game not over."""
    batch = venv.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        batch = venv.step(random_legal_actions(batch.action_mask, rng))
    if batch.done.all():
        batch = venv.step(np.zeros(GAMES, np.int64))  # every game dealt anew
    return batch


def snapshot(venv: Any, batch: Any) -> dict[str, Any]:
    """Every batch array as the client holds it, and every game's generator."""
    fields = ("observation", "action_mask", "current_player", "rewards", "terminated",
              "truncated", "raw_observation")  # fmt: skip
    state = {field: np.array(getattr(batch, field), copy=True) for field in fields}
    state["generators"] = venv.rules.rng.copy()
    return state


def base_actions(batch: Any, seed: int) -> list[int]:
    """A legal action for every game (0 in a game that has just ended)."""
    return random_legal_actions(batch.action_mask, np.random.default_rng(seed + 1)).tolist()


def check_step(name: str, seed: int, moves: int, game: int, actions: Any, index: Any) -> str:
    """``actions`` (``game``'s entry tried, meaning ``index`` or None when the rule refuses
    it) played as its int64 twin, or refused with nothing moved; what happened."""
    venv, twin = batch_pair(name)
    batch = position(venv, seed, moves)
    position(twin, seed, moves)
    before = snapshot(venv, batch)
    base = base_actions(batch, seed)
    if index is not None:
        played = venv.step(actions)
        base[game] = index
        expected = twin.step(np.array(base, np.int64))
        assert_same(snapshot(twin, expected), snapshot(venv, played), "played")
        return "played"
    with pytest.raises(IllegalActionError):
        venv.step(actions)
    assert_same(before, snapshot(venv, batch), "after a refusal")
    after = venv.step(np.array(base, np.int64))
    expected = twin.step(np.array(base, np.int64))
    assert_same(snapshot(twin, expected), snapshot(venv, after), "the step after a refusal")
    return "refused"


def live_game(batch: Any, pick: int) -> int:
    live = np.flatnonzero(~batch.done)
    return int(live[pick % live.size])


def in_list(name: str, seed: int, moves: int, pick: int, value: Any) -> str:
    """``value`` as one game's entry of a Python list of ints."""
    venv, _ = batch_pair(name)
    batch = position(venv, seed, moves)
    game = live_game(batch, pick)
    actions: list[Any] = base_actions(batch, seed)
    actions[game] = value
    mask = np.asarray(batch.action_mask[game])
    index = intended_index(value) if is_playable(value, mask) else None
    return check_step(name, seed, moves, game, actions, index)


def in_array(name: str, seed: int, moves: int, pick: int, value: int, dtype: Any) -> str:
    """The integer ``value`` as one game's entry of an array of ``dtype`` (skipped where the
    dtype cannot hold the actions)."""
    venv, _ = batch_pair(name)
    batch = position(venv, seed, moves)
    game = live_game(batch, pick)
    values = base_actions(batch, seed)
    values[game] = value
    if dtype in INT_TYPES:
        info = np.iinfo(dtype)
        if not all(info.min <= v <= info.max for v in values):
            return "not representable"
    with np.errstate(over="ignore"):  # 2**63 as float32: a float array, refused anyway
        actions = np.array(values, dtype=dtype)
    integral = dtype in INT_TYPES or dtype is object
    mask = np.asarray(batch.action_mask[game])
    index = value if integral and is_playable(value, mask) else None
    return check_step(name, seed, moves, game, actions, index)


@pytest.mark.parametrize("name", NAMES)
def test_every_bound_in_a_list_and_in_every_dtype(name):
    venv, _ = batch_pair(name)
    batch = position(venv, 5, 4)
    game = live_game(batch, 0)
    mask = batch.action_mask[game]
    legal = np.flatnonzero(mask).tolist()
    illegal = np.flatnonzero(~mask).tolist()[:1]
    n = venv.num_actions
    listed: list[Any] = [n, -1, n - 1, 0, 2**63, 10**40, *legal[:2], *illegal]
    listed += [np.int64(legal[0]), np.uint64(legal[0]), np.int8(min(legal[0], 127))]
    listed += [np.uint64(n), 1.0, 0.5, float("nan"), float(legal[0]), np.float32(legal[0])]
    listed += [True, False, np.bool_(True), str(legal[0]), None, np.array(legal[0])]
    for value in listed:
        in_list(name, 5, 4, 0, value)
    for dtype in ARRAY_TYPES:
        for value in (n, n - 1, -1, 0, 2**63, legal[0], *illegal):
            in_array(name, 5, 4, 0, value, dtype)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(NAMES),
    seed=st.integers(0, 2**16),
    moves=st.integers(0, 10),
    pick=st.integers(0, GAMES - 1),
    data=st.data(),
)
def test_any_entry_of_a_list_is_played_or_refused_by_the_rule(name, seed, moves, pick, data):
    venv, _ = batch_pair(name)
    batch = position(venv, seed, moves)
    mask = batch.action_mask[live_game(batch, pick)]
    value = data.draw(action_values(venv.num_actions, np.flatnonzero(mask).tolist()))
    event(in_list(name, seed, moves, pick, value))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(NAMES),
    seed=st.integers(0, 2**16),
    moves=st.integers(0, 10),
    pick=st.integers(0, GAMES - 1),
    dtype=st.sampled_from(ARRAY_TYPES),
    data=st.data(),
)
def test_any_integer_in_any_dtype_is_played_or_refused(name, seed, moves, pick, dtype, data):
    venv, _ = batch_pair(name)
    batch = position(venv, seed, moves)
    mask = batch.action_mask[live_game(batch, pick)]
    legal = np.flatnonzero(mask).tolist()
    value = data.draw(
        st.one_of(
            st.sampled_from(bound_integers(venv.num_actions, legal)),
            st.sampled_from(legal),
            st.integers(-3, venv.num_actions + 3),
        )
    )
    event(in_array(name, seed, moves, pick, value, dtype))


@pytest.mark.parametrize("name", NAMES)
def test_a_game_that_has_just_ended_ignores_any_integer_but_not_a_float(name):
    """docs/vector.md: the next step ignores that game's action, "any integer"; a float or a
    bool there is still malformed input, refused like anywhere else."""
    venv, twin = batch_pair(name)
    batch, rng = venv.reset(seed=11), np.random.default_rng(11)
    twin.reset(seed=11)
    while not batch.done.any():
        actions = random_legal_actions(batch.action_mask, rng)
        batch = venv.step(actions)
        twin.step(actions)
    ended = int(np.flatnonzero(batch.done)[0])
    base = random_legal_actions(batch.action_mask, rng).tolist()
    before = snapshot(venv, batch)
    for value in (1.0, True, "0", None):
        with pytest.raises(IllegalActionError):
            venv.step([*base[:ended], value, *base[ended + 1 :]])
        assert_same(before, snapshot(venv, batch))
    ignored = list(base)
    ignored[ended] = 10**40
    assert_same(snapshot(twin, twin.step(base)), snapshot(venv, venv.step(ignored)))


@pytest.mark.parametrize(
    "shape", [(GAMES - 1,), (GAMES + 1,), (GAMES, 1), (1, GAMES), (), (0,)], ids=str
)
def test_a_wrong_shape_is_refused_and_nothing_moves(shape):
    venv, _ = batch_pair(NAMES[0])
    batch = position(venv, 2, 3)
    before = snapshot(venv, batch)
    with pytest.raises(IllegalActionError, match=r"shape \(4,\)"):
        venv.step(np.zeros(shape, np.int64))
    assert_same(before, snapshot(venv, batch))
    for ragged in ([[0], 0, 0, 0], [np.array([0, 1]), 0, 0, 0]):
        with pytest.raises(IllegalActionError):
            venv.step(ragged)
        assert_same(before, snapshot(venv, batch))


@pytest.mark.parametrize("name", NAMES)
def test_a_big_endian_or_strided_integer_array_plays_like_int64(name):
    """What numpy hands over from a file or a slice: still integers, played as they are
    (the compiled check reads native int64-compatible arrays only)."""
    venv, twin = batch_pair(name)
    batch = position(venv, 9, 2)
    position(twin, 9, 2)
    base = np.array(base_actions(batch, 9), np.int64)
    strided = np.repeat(base, 2)[::2]
    for actions in (base.astype(">i8"), base.astype(">u2"), strided):
        position(venv, 9, 2)
        position(twin, 9, 2)
        assert_same(snapshot(twin, twin.step(base)), snapshot(venv, venv.step(actions)))
