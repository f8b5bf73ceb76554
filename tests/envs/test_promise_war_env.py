"""promise_war_v0 through the PettingZoo API: checkers, registry, docs, hidden information,
determinism, rewards and bad input."""

from __future__ import annotations

import random

import numpy as np
import pettingzoo
import pytest
from helpers import random_playout, recorded_game, strict_api_test
from pettingzoo.test import seed_test

from cardarena.envs import ENVS, make, make_raw, promise_war_v0
from cardarena.envs.core import IllegalActionError, InvalidConfigError
from cardarena.envs.promise_war.env import observation_layout


@pytest.mark.parametrize("num_players", [2, 3, 6])
def test_pettingzoo_api_test(num_players):
    strict_api_test(promise_war_v0.env(num_players=num_players))


@pytest.mark.parametrize("num_players", [2, 3, 6])
def test_pettingzoo_seed_test(num_players):
    seed_test(lambda: promise_war_v0.env(num_players=num_players), num_cycles=500)


def test_registry_and_pettingzoo_make():
    assert ENVS["promise_war_v0"] is promise_war_v0
    env = pettingzoo.make("aec", "cardarena/promise_war-v0", num_players=4)
    env.reset(seed=0)
    assert env.possible_agents == [f"player_{i}" for i in range(4)]
    assert make("promise_war_v0").unwrapped.metadata["name"] == "promise_war_v0"
    with pytest.raises(InvalidConfigError, match=r"unknown env .nope.; available: .*promise"):
        make("nope")


def test_docstring_table_matches_the_real_spaces():
    env = promise_war_v0.raw_env()
    doc = promise_war_v0.__doc__
    for row in observation_layout(env.game).table_rows():
        assert row in doc, f"docstring lacks or contradicts: {row}"
    obs_box = env.observation_space("player_0")["observation"]
    assert f"| Observation Shape  | {obs_box.shape}" in doc
    assert f"| Action Shape       | Discrete({env.action_space('player_0').n})" in doc
    assert f"`agents= {env.possible_agents}`" in doc
    n, powers = 2, 11
    assert obs_box.shape == (powers * (n + 4) + 7 * n + 4,)  # the formula the docstring gives


def test_observation_encodes_what_the_player_sees():
    env = promise_war_v0.raw_env(num_players=3)
    env.reset(options={"decks": [[5, 1, 1, 4], [3, 2, 2], [9, 8]]})
    env.step(5)  # player_0 picks face down
    view = env.layout.view(env.observe("player_1")["observation"])
    assert view["hand"][[2, 3]].tolist() == [2, 1]
    assert view["hand_sizes"].tolist() == [3, 2, 2]  # player_1, player_2, player_0
    assert view["has_picked"].tolist() == [0, 0, 1]
    assert view["own_pick"].sum() == 0
    mine = env.layout.view(env.observe("player_0")["observation"])
    assert mine["own_pick"][5] == 1 and mine["own_deck"][4] == 1
    env.step(3)
    env.step(9)
    view = env.layout.view(env.observe("player_1")["observation"])
    assert view["victory_sizes"].tolist() == [0, 3, 0]  # player_2 won 5, 3, 9
    revealed = view["last_revealed"].reshape(3, 11)
    assert [int(np.argmax(r)) for r in revealed] == [3, 9, 5]


def test_mask_is_zero_for_agents_not_to_act():
    env = promise_war_v0.raw_env(num_players=3)
    env.reset(seed=3)
    assert env.observe("player_0")["action_mask"].any()
    assert not env.observe("player_1")["action_mask"].any()
    assert env.observe("player_1")["action_mask"].dtype == np.int8


def _midgame(seed: int, num_players: int):
    env = promise_war_v0.raw_env(num_players=num_players)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(int(rng.integers(0, 20))):
        mask = env.observe(env.agent_selection)["action_mask"]
        if env.terminations[env.agent_selection]:
            break
        env.step(int(rng.choice(np.flatnonzero(mask))))
    return env


@pytest.mark.parametrize("seed", range(12))
def test_hidden_information_does_not_leak(seed):
    """Swapping an opponent's hand card with one of their deck, reordering their deck and
    changing their face-down pick leaves my observation unchanged."""
    env = _midgame(seed, num_players=3)
    state = env.game_state
    me = env.agent_name_mapping[env.agent_selection]
    before = {agent: env.observe(agent)["observation"].copy() for agent in env.possible_agents}
    changed = False
    for other in range(3):
        if other == me:
            continue
        pile = state.draw_piles[other]
        held = np.flatnonzero(state.hands[other]).tolist()
        if pile and held:
            swap_in, swap_out = pile[0], held[0]
            if swap_in != swap_out:
                pile[0] = swap_out
                state.hands[other, swap_out] -= 1
                state.hands[other, swap_in] += 1
                state.deck_counts[other, swap_in] -= 1
                state.deck_counts[other, swap_out] += 1
                changed = True
        np.random.default_rng(seed).shuffle(pile)
        if state.picks[other] >= 0 and held:
            state.picks[other] = held[-1]
    my_name = env.possible_agents[me]
    assert np.array_equal(env.observe(my_name)["observation"], before[my_name])
    if changed:  # the test can fail: the opponents' own views did change
        assert any(
            not np.array_equal(env.observe(a)["observation"], before[a])
            for i, a in enumerate(env.possible_agents)
            if i != me
        )


def test_same_seed_and_actions_give_the_same_game_bit_for_bit_whatever_global_rngs_do():
    random.seed(1)
    np.random.seed(1)
    first = recorded_game(promise_war_v0.env(num_players=3), 7, disturb_global_rngs=False)
    random.seed(2)
    np.random.seed(2)
    assert recorded_game(promise_war_v0.env(num_players=3), 7, disturb_global_rngs=True) == first
    assert recorded_game(promise_war_v0.env(num_players=3), 8, disturb_global_rngs=False) != first


def test_reset_without_seed_continues_the_generator():
    env = promise_war_v0.raw_env()
    env.reset(seed=5)
    first = env.game_state.draw_piles
    env.reset()
    assert env.game_state.draw_piles != first
    env.reset(seed=5)
    assert env.game_state.draw_piles == first


def test_final_rewards_and_terminations_reach_everyone_on_the_same_step():
    """C-4: a player who sat out early still gets its reward with everyone else."""
    env = promise_war_v0.raw_env(num_players=3)
    env.reset(options={"decks": [[9, 8], [1, 1], [2]]})
    env.step(8)
    env.step(1)
    env.step(2)  # player_2 is now out of cards and sits out
    assert not any(env.terminations.values())
    env.step(9)
    env.step(1)
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0, "player_2": -1.0}
    final = random_playout(env, np.random.default_rng(0))
    assert final == {"player_0": 1.0, "player_1": -1.0, "player_2": -1.0}


def test_truncation_at_the_cap():
    env = promise_war_v0.raw_env(max_tricks=2)
    env.reset(seed=0)
    final = random_playout(env, np.random.default_rng(0))
    assert final == {"player_0": 0.0, "player_1": 0.0}
    assert env.game_state.is_truncated() and env.game_state.tricks_played == 2


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (11, r"action 11 for player_0 is out of range: .*Discrete\(11\), so 0..10"),
        (-1, "action -1 for player_0 is out of range"),
        (2.0, r"must be an integer in 0..10, got 2.0 \(float\)"),
        ("3", "must be an integer in 0..10, got '3' \\(str\\)"),
        (True, r"got True \(bool\)"),
        (None, r"got None"),
        (4, r"action 4 \(play power 4\) is illegal for player_0: legal actions are \[1, 5\]"),
    ],
)
def test_bad_actions_raise_and_nothing_is_lost(action, message):
    env = promise_war_v0.raw_env()
    env.reset(options={"decks": [[5, 1, 1], [3, 2, 2]]})
    before = env.observe("player_0")["observation"].copy()
    with pytest.raises(IllegalActionError, match=message):
        env.step(action)
    assert env.agent_selection == "player_0"
    assert np.array_equal(env.observe("player_0")["observation"], before)
    env.step(np.int64(5))  # still playable, and numpy integers are accepted
    env.step(np.array([3]))
    assert env.game_state.victory_sizes == [2, 0]


def test_acting_after_the_end_raises():
    env = promise_war_v0.raw_env()
    env.reset(options={"decks": [[5], [3]]})
    env.step(5)
    env.step(3)
    assert env.terminations["player_0"]
    with pytest.raises(IllegalActionError, match="the game is over for player_1: the only valid"):
        env.step(0)
    env.step(None)
    env.step(None)
    with pytest.raises(IllegalActionError, match="every agent has left"):
        env.step(None)
    with pytest.raises(IllegalActionError, match="before reset"):
        promise_war_v0.raw_env().step(0)


def test_wrapped_env_ends_the_game_with_minus_one_for_an_illegal_action(caplog):
    env = promise_war_v0.env()
    env.reset(options={"decks": [[5, 1, 1], [3, 2, 2]]})
    env.step(5)
    env.step(9)
    assert "Illegal move" in caplog.text
    assert all(env.terminations.values())
    assert env._cumulative_rewards == {"player_0": 0.0, "player_1": -1.0}
    with pytest.raises(IllegalActionError, match="out of range"):
        env2 = promise_war_v0.env()
        env2.reset(seed=0)
        env2.step(11)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_players": 1}, "num_players must be in 2..6, got 1"),
        ({"num_players": 7}, "num_players must be in 2..6, got 7"),
        ({"decks": [[1], []]}, r"decks\[1\] is empty"),
        ({"render_mode": "rgb_array"}, "render_mode must be None or one of"),
        ({"decks": [np.array([1.5]), np.array([3])]}, r"decks\[0\]\[0\] must be an integer"),
        ({"colour": "red"}, "unexpected keyword argument 'colour'"),
    ],
)
def test_bad_config_raises(kwargs, message):
    with pytest.raises((InvalidConfigError, TypeError), match=message):
        make_raw("promise_war_v0", **kwargs)


def test_fixed_decks_must_fit_the_observation_bounds():
    env = promise_war_v0.raw_env()
    with pytest.raises(InvalidConfigError, match=r"hold \[41, 1\] cards .* decks of \[40, 40\]"):
        env.reset(options={"decks": [[1] * 41, [1]]})
    roomy = promise_war_v0.raw_env(decks=[1] * 41)
    roomy.reset(options={"decks": [[1] * 41, [1]]})
    for agent in roomy.possible_agents:
        assert roomy.observation_space(agent).contains(roomy.observe(agent))


def test_bad_reset_options_leave_the_running_game_intact():
    env = promise_war_v0.raw_env()
    env.reset(seed=1)
    env.step(int(np.flatnonzero(env.observe("player_0")["action_mask"])[0]))
    before = env.observe("player_1")["observation"].copy()
    for options in ({"decks": [[1], []]}, {"seat": 1}, {"decks": [[1], [2], [3]]}, []):
        with pytest.raises(InvalidConfigError):
            env.reset(seed=2, options=options)
    assert env.agent_selection == "player_1"
    assert np.array_equal(env.observe("player_1")["observation"], before)


def test_render_ansi_and_human(capsys):
    env = promise_war_v0.raw_env(render_mode="ansi")
    env.reset(options={"decks": [[5, 1, 1], [3, 2, 2]]})
    text = env.render()
    assert "to act: player_0" in text and "player_0's hand: 1 1 5" in text
    assert "2 2 3" not in text  # the other hand stays hidden
    human = promise_war_v0.raw_env(render_mode="human")
    human.reset(options={"decks": [[5, 1, 1], [3, 2, 2]]})
    assert human.render() is None
    assert capsys.readouterr().out.strip() == text
    with pytest.raises(InvalidConfigError, match="render_mode"):
        promise_war_v0.raw_env().render()
