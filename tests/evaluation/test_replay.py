"""Replays are bit-exact, and a record that is not the game it claims fails clearly."""

from __future__ import annotations

import contextlib
import dataclasses
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cardarena.agents import BaseAgent, RandomAgent
from cardarena.envs import ENVS, make
from cardarena.envs.core import CardArenaError
from cardarena.evaluation.records import (
    MatchRecord,
    package_version,
    play_match,
    read_records,
    write_records,
)
from cardarena.evaluation.replay import ReplayError, ReplayStep, initial_text, replay


def live_game(env: str, seed: int, config: dict | None = None):
    """A game played by hand on the wrapped env in ansi mode: actions, texts, returns."""
    config = config or {}
    game = make(env, render_mode="ansi", **config)
    agents = {seat: RandomAgent(100 + i) for i, seat in enumerate(game.possible_agents)}
    game.reset(seed=seed)
    first_text = game.render()
    actions, texts, returns = [], [], {}
    for seat in game.agent_iter():
        observation, reward, terminated, truncated, _ = game.last()
        if terminated or truncated:
            returns[seat] = float(reward)
            game.step(None)
            continue
        action = agents[seat].act(observation)
        game.step(action)
        actions.append(action)
        texts.append(game.render())
    return first_text, actions, texts, returns


def recorded(env: str, seed: int, config: dict | None = None) -> MatchRecord:
    """The same game as ``live_game`` through ``play_match``."""
    seats = make(env, **(config or {})).possible_agents
    lineup = {seat: RandomAgent(100 + i) for i, seat in enumerate(seats)}
    return play_match(env, lineup, seed=seed, config=config)


@pytest.mark.parametrize("env", sorted(ENVS))
def test_replay_is_bit_exact(env, tmp_path):
    first_text, actions, texts, returns = live_game(env, seed=5)
    record = recorded(env, seed=5)
    assert record.actions == actions and record.returns == returns
    path = tmp_path / "game.jsonl"
    write_records(path, [record])
    (loaded,) = read_records(path)
    assert initial_text(loaded) == first_text
    steps = list(replay(loaded))
    assert all(isinstance(step, ReplayStep) for step in steps)
    assert [step.action for step in steps] == actions
    assert [step.text for step in steps] == texts  # every rendering, character for character
    assert all(step.description for step in steps)
    assert steps[-1].text != first_text


def test_replay_names_seats_and_actions():
    record = recorded("promise_war_v0", seed=2, config={"num_players": 3})
    state_env = make("promise_war_v0", num_players=3)
    state_env.reset(seed=2)
    for step in replay(record):
        assert step.agent == state_env.agent_selection
        assert step.description == state_env.unwrapped.game_state.action_to_string(step.action)
        state_env.step(step.action)


def test_truncated_and_illegal_games_replay():
    truncated = play_match(
        "promise_war_v0", {"player_0": "random", "player_1": "random"}, 4, {"max_tricks": 2}
    )
    assert truncated.outcome == "truncated"
    assert len(list(replay(truncated))) == truncated.steps

    class Cheater(BaseAgent):
        spec = "cheater"

        def act(self, observation):
            return int(np.flatnonzero(observation["action_mask"] == 0)[0])

    illegal = play_match("beast_wars_v0", {"maximal": "random", "predacon": Cheater()}, seed=1)
    assert illegal.outcome == "illegal_action"
    steps = list(replay(illegal))
    assert steps[-1].agent == "predacon" and steps[-1].description.startswith("illegal: ")
    assert steps[-1].text == steps[-2].text  # an illegal move changes nothing on the table
    # Claiming the illegal move was made by the other seat is caught.
    blamed = dataclasses.replace(
        illegal,
        offender="maximal",
        returns={"maximal": -1.0, "predacon": 0.0},
        ranks={"maximal": 2, "predacon": 1},
    )
    with pytest.raises(ReplayError, match="not legal for predacon"):
        list(replay(blamed))


@pytest.fixture(scope="module")
def record() -> MatchRecord:
    return recorded("ironman_war_v0", seed=8)


def tampered(record: MatchRecord, **changes) -> MatchRecord:
    return dataclasses.replace(record, **changes)


def first_illegal_swap(record: MatchRecord) -> MatchRecord:
    """The record with one action replaced by an action that is illegal at its step."""
    game = make(record.env)
    game.reset(seed=record.seed)
    for index, action in enumerate(record.actions):
        mask = game.action_mask(game.agent_selection)
        illegal = np.flatnonzero(mask == 0)
        if index >= 3 and illegal.size:
            actions = list(record.actions)
            actions[index] = int(illegal[0])
            return tampered(record, actions=actions)
        game.step(action)
    raise AssertionError("no step with an illegal action")


def test_tampered_action_lists_fail(record):
    with pytest.raises(ReplayError, match=r"is not legal for .* tampered"):
        list(replay(first_illegal_swap(record)))
    short = record.actions[:-1]
    with pytest.raises(ReplayError, match=r"ran out after .* not over"):
        list(replay(tampered(record, actions=short, steps=len(short))))
    longer = [*record.actions, 0]
    with pytest.raises(ReplayError, match="1 action\\(s\\) remain"):
        list(replay(tampered(record, actions=longer, steps=len(longer))))
    flipped = {seat: -value for seat, value in record.returns.items()}
    ranks = {seat: 3 - rank for seat, rank in record.ranks.items()}
    with pytest.raises(ReplayError, match=r"returns .* differ"):
        list(replay(tampered(record, returns=flipped, ranks=ranks)))
    with pytest.raises(ReplayError, match="ended 'terminated' but the record says 'truncated'"):
        list(replay(tampered(record, outcome="truncated")))


def test_steps_before_the_tampered_one_are_shown(record):
    bad = first_illegal_swap(record)
    seen = []
    with pytest.raises(ReplayError):
        for step in replay(bad):
            seen.append(step)
    assert seen and [s.action for s in seen] == bad.actions[: len(seen)]


def test_another_version_fails_unless_asked(record):
    other = tampered(record, version="0.0.1")
    with pytest.raises(ReplayError, match=r"made with cardarena 0\.0\.1 but this is cardarena"):
        replay(other)  # checked at once, before any step is asked for
    assert len(list(replay(other, check_version=False))) == record.steps
    assert record.version == package_version()


def test_unbuildable_records_fail_clearly(record):
    with pytest.raises(ReplayError, match="cannot rebuild"):
        replay(tampered(record, config={"bogus": 1}))
    with pytest.raises(ReplayError, match="cannot rebuild"):
        replay(tampered(record, env="chess_v0"))
    with pytest.raises(ReplayError, match="seats"):
        replay(tampered(record, env="promise_war_v0"))
    with pytest.raises(ReplayError, match="inconsistent record"):
        replay(tampered(record, steps=1))
    assert issubclass(ReplayError, CardArenaError) and issubclass(ReplayError, ValueError)


# --- hostile records: a clean error, never another exception ---------------------------------
@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"config": {"max_rounds": 10**39}}, r"max_rounds is 1000.*; at most 1,000,000"),
        ({"config": {"deck": {"attack_1": 10**12}}}, r"deck\['attack_1'\] is 1000000000000"),
        ({"config": {"victory_cards": [[[[[[1]]]]]]}}, r"must be an integer, got \[\[\[\["),
        ({"config": {"deck": "/etc/passwd"}}, r"deck must be a dict"),
        ({"config": {"render_mode": "human", "variant": "x" * 10_000}}, r"variant must be one"),
        ({"env": "\x1b[2Jchess"}, r"cannot rebuild '\\x1b\[2Jchess'"),
        ({"config": ["not", "a", "dict"]}, r"config is not an object"),
    ],
)
def test_hostile_configs_fail_with_a_replay_error(record, changes, message):
    with pytest.raises(ReplayError, match=message) as error:
        list(replay(tampered(record, **changes)))
    assert len(str(error.value)) < 2000


@pytest.mark.parametrize("action", [-1, True, 10**39, 1.5, "0", None])
def test_hostile_actions_fail_with_a_replay_error(record, action):
    actions = [action, *record.actions[1:]]
    with pytest.raises(ReplayError, match="action 0 of the record"):
        list(replay(tampered(record, actions=actions)))


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**40), 10**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=10)
    | st.sampled_from(["beginner", "attack_1", "/etc/passwd", "deck.csv", "player_0"]),
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.dictionaries(st.sampled_from(["attack_1", "upgrade", "name", "x"]), inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    env=st.sampled_from(sorted(ENVS)),
    config=st.dictionaries(
        st.sampled_from(
            [
                "num_players",
                "deck",
                "decks",
                "max_power",
                "hand_size",
                "max_turns",
                "team_size",
                "variant",
                "victory_cards",
                "characters",
                "bogus",
            ]
        ),
        json_values,
        max_size=3,
    ),
    actions=st.lists(st.integers(0, 300), max_size=40),
    seed=st.integers(0, 10**40),
)
def test_any_record_replays_or_fails_with_a_replay_error(record, env, config, actions, seed):
    hostile = tampered(
        record, env=env, config=config, actions=actions, steps=len(actions), seed=seed
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with contextlib.suppress(ReplayError):
            list(replay(hostile))


def test_a_hostile_record_file_fails_cleanly(tmp_path, record):
    path = tmp_path / "games.jsonl"
    write_records(path, [tampered(record, config={"max_rounds": 10**30})])
    (loaded,) = read_records(path)
    with pytest.raises(ReplayError, match="max_rounds"):
        list(replay(loaded))
