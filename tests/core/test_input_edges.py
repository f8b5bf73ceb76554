"""Every front refuses out-of-range input the same way (issue 40, point 5). This file holds the
rule and the AEC env's ``step`` (``raw_env`` and ``env()``); the other fronts are tried
against the same rule in tests/vector/test_front_edges.py (``make_vec``),
tests/training/test_wrapper_edges.py (``SingleAgentEnv``, the Gymnasium ids, ``LearnerVecEnv``,
``LearnerGymVectorEnv``, ``action_masks()``), tests/web/test_web_edges.py (the JSON API's
seats and actions) and tests/agents/test_spec_edges.py (agent specs and seeds).

The rule (envs/core/actions.py; the README and docs/vector.md say it to users):

- An action is an integer: a Python ``int`` or a numpy integer of any width (``np.int8`` ...
  ``np.uint64``; a 0-d or one-element integer array too, as SB3's ``predict`` returns). A
  legal one is played exactly as the Python int of the same value.
- A bool is refused, ``np.bool_`` and bool arrays too: ``True`` is not action 1.
- A float is refused, *even a whole one*: ``1.0``, ``np.float32(3)``, a float array of whole
  numbers, and nan. Decided for every front alike: rounding would play a move the caller did
  not mean, Gymnasium's ``Discrete(n).contains(1.0)`` is False, and JSON's ``1.0`` is not an
  integer either (the learner's batch used to take whole floats; it no longer does).
- Strings, None for an agent to act, containers and other number types are refused.
- An integer out of ``0..n-1`` (``-1``, ``n``, ``2**63``, ``10**40``) is refused.
- "Refused" is ``IllegalActionError`` (the web API's JSON 400; ``InvalidConfigError`` for an
  agent spec or a seed), and after a refusal nothing has changed: observations, masks, the
  agent to act, rewards, cumulative rewards, terminations, truncations, infos, the state
  vector, and the next legal step plays as if nothing had been tried.
- An integer in range that the mask does not allow is refused the same way by ``raw_env``,
  ``make_vec`` and the learner's batch; ``env()`` documents PettingZoo's behaviour instead
  (the game ends, -1 for the offender), ``SingleAgentEnv`` its ``illegal=`` mode.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from edge_values import action_values, assert_same, intended_index, is_playable
from edge_values import aec_snapshot as snapshot
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from cardarena.envs import ENVS
from cardarena.envs.core import IllegalActionError, Outcome

NAMES = sorted(ENVS)
_PAIRS: dict[tuple[str, bool], tuple[Any, Any]] = {}


def env_pair(name: str, wrapped: bool) -> tuple[Any, Any]:
    """An env and its twin (built once per session): the twin is told only the Python int,
    so any difference is the front's doing."""
    key = (name, wrapped)
    if key not in _PAIRS:
        module = ENVS[name]
        pair = tuple(module.env() if wrapped else module.raw_env() for _ in range(2))
        for env in pair:
            env.warn_on_illegal = False  # the outcome in the infos says it
        _PAIRS[key] = pair  # type: ignore[assignment]
    return _PAIRS[key]


def position(env: Any, seed: int, moves: int) -> None:
    """``seed``'s deal after up to ``moves`` random legal moves, a player still to act."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        mask = env.action_mask(env.agent_selection)
        env.step(int(rng.choice(np.flatnonzero(mask))))
        selected = env.agent_selection
        if not env.agents or env.terminations[selected] or env.truncations[selected]:
            env.reset(seed=seed)  # that game ended: its first decision instead
            return


def check_step(name: str, wrapped: bool, seed: int, moves: int, value: Any) -> str:
    """The rule for one ``value`` at one position (module docstring); what happened."""
    env, twin = env_pair(name, wrapped)
    position(env, seed, moves)
    position(twin, seed, moves)
    agent = env.agent_selection
    mask = env.action_mask(agent).astype(bool)
    index = intended_index(value)
    before = snapshot(env)
    if is_playable(value, mask):
        env.step(value)
        twin.step(index)
        assert_same(snapshot(twin), snapshot(env), f"{value!r} played as {index}")
        return "played"
    if wrapped and index is not None and 0 <= index < len(mask):
        env.step(value)  # in range, not legal: env() ends the game (documented)
        info = env.infos[agent]
        assert (info["outcome"], info["offender"], info["illegal_action"]) == (
            Outcome.ILLEGAL_ACTION,
            env.possible_agents.index(agent),
            index,
        )
        assert env.rewards[agent] == -1.0 and all(env.terminations.values())
        twin.step(index)
        assert_same(snapshot(twin), snapshot(env))
        return "ended the game"
    with pytest.raises(IllegalActionError):
        env.step(value)
    assert_same(before, snapshot(env), f"state after refusing {value!r}")
    legal = int(np.flatnonzero(mask)[-1])
    env.step(legal)
    twin.step(legal)
    assert_same(snapshot(twin), snapshot(env), f"the step after refusing {value!r}")
    return "refused"


def bounds_catalogue(num_actions: int, legal: int, illegal: int | None) -> list[Any]:
    """The values the issue names, at every bound, each always tried (Hypothesis adds more)."""
    values: list[Any] = [-1, 0, num_actions - 1, num_actions, num_actions + 1, 2**63, 10**40]
    values += [-(2**63), 2**64, legal, np.array(legal), np.array([legal])]
    values += [np.int64(legal), np.uint64(legal), np.int64(num_actions), np.uint64(2**64 - 1)]
    values += [np.int8(legal)] if legal < 128 else [np.int16(legal)]
    values += [np.int8(-1), np.uint8(num_actions % 256)]
    values += [1.0, 0.5, float("nan"), float("inf"), float(legal), np.float32(legal)]
    values += [True, False, np.bool_(True), np.bool_(False), np.array(True)]
    values += [str(legal), "", "1", None, [legal], np.array(float(legal))]
    values += [] if illegal is None else [illegal, np.int64(illegal)]
    return values


@pytest.mark.parametrize("wrapped", [False, True], ids=["raw_env", "env"])
@pytest.mark.parametrize("name", NAMES)
def test_every_bound_is_played_or_refused_by_the_rule(name, wrapped):
    env, _ = env_pair(name, wrapped)
    position(env, 7, 3)
    mask = env.action_mask(env.agent_selection).astype(bool)
    illegal = np.flatnonzero(~mask)
    values = bounds_catalogue(
        len(mask), int(np.flatnonzero(mask)[0]), int(illegal[0]) if illegal.size else None
    )
    for value in values:
        check_step(name, wrapped, 7, 3, value)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(NAMES),
    wrapped=st.booleans(),
    seed=st.integers(0, 2**16),
    moves=st.integers(0, 12),
    data=st.data(),
)
def test_any_value_is_played_or_refused_by_the_rule(name, wrapped, seed, moves, data):
    env, _ = env_pair(name, wrapped)
    position(env, seed, moves)
    mask = env.action_mask(env.agent_selection).astype(bool)
    value = data.draw(action_values(len(mask), np.flatnonzero(mask).tolist()), label="action")
    event(check_step(name, wrapped, seed, moves, value))


@pytest.mark.parametrize("wrapped", [False, True], ids=["raw_env", "env"])
@pytest.mark.parametrize("name", NAMES)
def test_an_agent_whose_game_is_over_takes_none_and_nothing_else(name, wrapped):
    """PettingZoo's dead step: only None, whatever else looks like "no action" (0, False,
    nan, an empty array) is refused and changes nothing."""
    env, _ = env_pair(name, wrapped)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    while not env.terminations[env.agent_selection] and not env.truncations[env.agent_selection]:
        env.step(int(rng.choice(np.flatnonzero(env.action_mask(env.agent_selection)))))
    before = snapshot(env)
    for value in (0, False, np.int64(0), float("nan"), np.array([], np.int64), "", -1):
        with pytest.raises(IllegalActionError, match="only valid action is None"):
            env.step(value)
        assert_same(before, snapshot(env))
    leaving = env.agent_selection
    env.step(None)
    assert leaving not in env.agents


@pytest.mark.parametrize("wrapped", [False, True], ids=["raw_env", "env"])
@pytest.mark.parametrize("name", NAMES)
def test_a_bool_is_refused_where_the_int_it_casts_to_is_legal(name, wrapped):
    """``True`` is not action 1 even when 1 is legal (nor ``False`` action 0): positions are
    searched where the cast would play, so a front that casts is caught, not excused."""
    env, _ = env_pair(name, wrapped)
    found: set[bool] = set()
    places = ((seed, moves) for seed in range(10) for moves in range(0, 60, 3))
    for seed, moves in places:
        position(env, seed, moves)
        mask = env.action_mask(env.agent_selection).astype(bool)
        for flag in {False, True} - found:
            if mask[int(flag)]:
                found.add(flag)
                for value in (flag, np.bool_(flag), np.array([flag])):
                    assert check_step(name, wrapped, seed, moves, value) == "refused"
        if len(found) == 2:
            return
    assert found, f"no position of {name} where action 0 or 1 is legal"
