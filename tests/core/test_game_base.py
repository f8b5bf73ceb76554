"""The env layer written once (issue 17, point 5): one legality check for the rules, the raw
env and the wrapper; the wrapper drives the raw env through public hooks only; every game's
state shares ``RulesState``; each game's pieces come from one list per viewer."""

from __future__ import annotations

import ast
import inspect

import numpy as np
import pytest

from cardarena.envs import ENVS, make, make_raw
from cardarena.envs.core import IllegalActionError, wrappers
from cardarena.envs.core.game import RulesState, clone_state, copy_generator, legal_index


def _illegal(mask: np.ndarray) -> int:
    return int(np.flatnonzero(~mask.astype(bool))[0])


def _with_an_illegal_action(name: str):
    """A raw env of ``name`` at its first decision where some action is illegal."""
    raw = make_raw(name)
    raw.reset(seed=0)
    rng = np.random.default_rng(0)
    while raw.legal_mask().all():
        raw.step(int(rng.choice(np.flatnonzero(raw.legal_mask()))))
    return raw


@pytest.mark.parametrize("name", sorted(ENVS))
def test_rules_and_raw_env_raise_the_same_message_from_the_one_check(name):
    raw = _with_an_illegal_action(name)
    action = _illegal(raw.legal_mask())
    with pytest.raises(IllegalActionError) as by_check:
        legal_index(raw.game_state, action, raw.legal_mask())
    with pytest.raises(IllegalActionError) as by_rules:
        raw.game_state.clone().apply_action(action)
    with pytest.raises(IllegalActionError) as by_env:
        raw.step(action)
    assert str(by_check.value) == str(by_rules.value) == str(by_env.value)
    assert "legal actions:" in str(by_env.value)
    legal = int(np.flatnonzero(raw.legal_mask())[0])
    assert legal_index(raw.game_state, np.int64(legal), raw.legal_mask()) == legal


def test_the_wrapper_uses_only_public_methods_of_the_raw_env():
    tree = ast.parse(inspect.getsource(wrappers))
    private = {
        node.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "raw"
        and node.attr.startswith("_")
    }
    assert not private, f"GameWrapper reaches into the raw env: {sorted(private)}"


@pytest.mark.parametrize("name", sorted(ENVS))
def test_an_illegal_action_through_the_wrapper_ends_the_game(name):
    raw = _with_an_illegal_action(name)
    env = make(name)
    env.warn_on_illegal = False
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    while env.unwrapped.legal_mask().all():
        env.step(int(rng.choice(np.flatnonzero(env.unwrapped.legal_mask()))))
    offender = env.agent_selection
    env.step(_illegal(raw.legal_mask()))
    assert all(env.terminations.values()) and env.rewards[offender] == -1.0
    with pytest.raises(IllegalActionError, match="only valid action is None"):
        env.step(0)
    env.step(None)


SHIPPED = sorted(name for name, m in ENVS.items() if m.__name__.startswith("cardarena.envs."))


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_state_is_a_rules_state_and_clones_are_independent(name):
    raw = make_raw(name)
    raw.reset(seed=3)
    state = raw.game_state
    assert isinstance(state, RulesState)
    twin = state.clone()
    assert type(twin) is type(state) and twin.legal_actions() == state.legal_actions()
    rng = np.random.default_rng(1)
    while not (twin.is_terminal() or twin.is_truncated()):
        twin.apply_action(int(rng.choice(twin.legal_actions())))
    assert not (state.is_terminal() or state.is_truncated())
    assert np.array_equal(state.legal_action_mask(), raw.legal_mask())


def test_clone_state_copies_what_changes_and_shares_what_is_named():
    class Thing:
        pass

    thing = Thing()
    thing.table = np.zeros(3)
    thing.piles = [[1, 2], [3]]
    thing.rng = np.random.default_rng(5)
    thing.shared = np.ones(2)
    twin = clone_state(thing, {"shared"})
    twin.table[0] = 1
    twin.piles[0].append(9)
    assert thing.table[0] == 0 and thing.piles == [[1, 2], [3]]
    assert twin.shared is thing.shared
    assert twin.rng.integers(1000) == thing.rng.integers(1000)
    fork = copy_generator(thing.rng)
    assert fork.random() == thing.rng.random()
