"""The shared env core: action coercion, the wrapper stack, observation layouts, validators."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.utils.wrappers import OrderEnforcingWrapper, TerminateIllegalWrapper

from cardarena.envs import ENVS, make, make_raw, pettingzoo_id
from cardarena.envs.core import (
    IllegalActionError,
    InvalidConfigError,
    ObservationLayout,
    Piece,
    coerce_action,
    unit_scale,
)
from cardarena.envs.core.validation import check_choice, check_int, check_known_keys


@pytest.mark.parametrize("value", [3, np.int8(3), np.uint64(3), np.array(3), np.array([3])])
def test_coerce_action_accepts_integers_and_one_element_integer_arrays(value):
    assert coerce_action(value, 5, "p") == 3


@pytest.mark.parametrize(
    "value", [3.0, np.float32(3), "3", None, True, np.bool_(True), np.array([1, 2]), [3]]
)
def test_coerce_action_refuses_everything_else(value):
    with pytest.raises(IllegalActionError, match=r"must be an integer in 0\.\.4"):
        coerce_action(value, 5, "p")


def test_layout_slices_bounds_views_and_table():
    layout = ObservationLayout([Piece("a", 2, 3, "first"), Piece("b", 1, 10, "second")])
    assert layout.size == 3 and layout["b"] == slice(2, 3)
    assert layout.space().high.tolist() == [3, 3, 10]
    assert {k: v.tolist() for k, v in layout.view(np.arange(3.0)).items()} == {
        "a": [0, 1],
        "b": [2],
    }
    assert layout.table_rows() == ["| 0-1 | a | first |", "| 2 | b | second |"]
    with pytest.raises(ValueError, match="duplicate"):
        ObservationLayout([Piece("a", 1, 1, ""), Piece("a", 1, 1, "")])


def test_unit_scale_maps_high_to_one_and_leaves_zero_bounds_alone():
    box = spaces.Box(0, np.array([4.0, 0.0, 1.0], dtype=np.float32), dtype=np.float32)
    assert unit_scale(box).tolist() == [0.25, 1.0, 1.0]


def test_validators_name_key_value_and_what_is_allowed():
    with pytest.raises(InvalidConfigError, match="unknown reset option 'x'; allowed: 'a', 'b'"):
        check_known_keys({"x": 1}, ("a", "b"), "reset option")
    with pytest.raises(InvalidConfigError, match=r"n must be in 1\.\.3, got 4"):
        check_int(4, "n", 1, 3)
    for not_an_integer in (True, 2.5, "3", np.array([1, 2]), None):
        with pytest.raises(InvalidConfigError, match="n must be an integer"):
            check_int(not_an_integer, "n", 0)
    with pytest.raises(InvalidConfigError, match="mode must be one of 'a', 'b', got 'c'"):
        check_choice("c", "mode", ("a", "b"))


@pytest.mark.parametrize("name", sorted(ENVS))
def test_every_env_keeps_pettingzoo_wrapper_semantics(name):
    env = make(name)
    assert isinstance(env, OrderEnforcingWrapper)
    assert any(isinstance(layer, TerminateIllegalWrapper) for layer in _layers(env))
    with pytest.raises(AttributeError, match="cannot be accessed before reset"):
        _ = env.agents
    env.reset(seed=0)
    raw = env.unwrapped
    assert env.agents is raw.agents and env.agent_selection == raw.agent_selection
    assert env.rewards is raw.rewards and env._cumulative_rewards is raw._cumulative_rewards
    assert pettingzoo_id(name) == f"cardarena/{name[:-3]}-v0"


def _layers(env):
    while hasattr(env, "env"):
        yield env
        env = env.env


@pytest.mark.parametrize("name", sorted(ENVS))
def test_every_env_raises_on_illegal_actions_raw_and_ends_the_game_wrapped(name):
    raw = make_raw(name)
    raw.reset(seed=0)
    agent = raw.agent_selection
    illegal = int(np.flatnonzero(raw.observe(agent)["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError, match=rf"action {illegal} "):
        raw.step(illegal)
    wrapped = make(name)
    wrapped.reset(seed=0)
    wrapped.step(illegal)
    assert all(wrapped.terminations.values())
    assert wrapped.rewards[agent] == -1.0
    assert not wrapped.observe(agent)["action_mask"].any()  # C-1: finished agents act no more
    with pytest.raises(IllegalActionError, match="the only valid action is None"):
        wrapped.step(0)
