"""The shared AEC adapter and its wrapper, pinned on a tiny scripted game (tests/core/fake_game)
so that every piece of PettingZoo bookkeeping is checked apart from any real game's rules."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from fake_game import HighCardEnv, env
from helpers import strict_api_test
from pettingzoo.test import seed_test
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from cardarena.envs.core import (
    ILLEGAL_ACTION,
    TERMINATED,
    TRUNCATED,
    IllegalActionError,
    InvalidConfigError,
    Outcome,
    UnknownAgentError,
)

HANDS = {"hands": [[4, 0], [1, 2], [3, 3]]}


def plain(info):
    """``info`` with its per-seat arrays as lists, for ``==``."""
    return {**info, "winners": info["winners"].tolist(), "scores": info["scores"].tolist()}


def neutral(agents):
    """The info every agent holds before the game ends (same keys and types as at the end)."""
    scores = [0.0] * len(agents)
    winners = [0] * len(agents)
    return {"outcome": Outcome.ONGOING, "scores": scores, "winners": winners, "steps": 0,
            "offender": -1, "illegal_action": -1}  # fmt: skip


def play(e, actions):
    """Step through ``actions`` (None for dead steps), recording what each agent saw."""
    seen = []
    for action in actions:
        agent = e.agent_selection
        _, reward, terminated, truncated, info = e.last()
        seen.append((agent, reward, terminated, truncated, dict(info)))
        e.step(action)
    return seen


def test_pettingzoo_checks_pass_on_the_fake_game():
    strict_api_test(env(num_players=3), num_cycles=200)
    seed_test(lambda: env(num_players=3), num_cycles=100)


def test_a_scripted_game_gets_turns_rewards_dead_steps_and_infos_right():
    e = env(num_players=3, cards=2)
    e.reset(options=HANDS)
    # round 1: 4, 1, 3 -> player_0 scores; round 2: 0, 2, 3 -> player_2 scores
    seen = play(e, [4, 1, 3, 0, 2])
    assert [s[0] for s in seen] == ["player_0", "player_1", "player_2", "player_0", "player_1"]
    quiet = neutral(e.possible_agents)
    assert all(s[1:4] == (0, False, False) and plain(s[4]) == quiet for s in seen)  # C-4
    e.step(3)  # last card: points 1, 0, 1 -> tie at the top
    assert e.rewards == {"player_0": 0.0, "player_1": -1.0, "player_2": 0.0}
    assert all(e.terminations.values()) and not any(e.truncations.values())
    expected_info = {
        **quiet,
        "outcome": TERMINATED,
        "scores": [1, 0, 1],
        "steps": 6,
    }
    assert all(plain(info) == expected_info for info in e.infos.values())
    dead = []
    for agent in e.agent_iter():
        _, reward, terminated, truncated, _ = e.last()
        dead.append((agent, reward, terminated, truncated))
        e.step(None)
    assert dead == [
        ("player_2", 0.0, True, False),
        ("player_0", 0.0, True, False),
        ("player_1", -1.0, True, False),
    ]
    assert e.agents == []


def test_a_sole_winner_is_named_and_rewards_sum_to_zero_when_zero_sum():
    e = env(num_players=2, cards=1)
    assert e.unwrapped.metadata["zero_sum"] is True
    e.reset(options={"hands": {"player_0": [3], "player_1": [1]}})
    play(e, [3, 1])
    assert e.infos["player_1"]["winners"].tolist() == [1, 0]
    assert sum(e.rewards.values()) == 0 and e.rewards["player_0"] == 1


def test_truncation_gives_zero_truncated_only_and_says_so():
    e = env(num_players=2, cards=3, max_rounds=1)
    e.reset(options={"hands": [[4, 0, 0], [1, 1, 1]]})
    play(e, [4, 1])
    assert all(e.truncations.values()) and not any(e.terminations.values())
    assert e.rewards == {"player_0": 0.0, "player_1": 0.0}
    assert plain(e.infos["player_0"]) == {
        **neutral(e.possible_agents),
        "outcome": TRUNCATED,
        "scores": [1, 0],
        "steps": 2,
    }


def test_an_illegal_action_ends_the_game_for_everyone_as_a_termination(caplog):
    e = env(num_players=3)
    e.reset(options=HANDS)
    e.step(4)
    e.step(0)  # player_1 holds 1 and 2
    assert "Illegal move" in caplog.text
    assert all(e.terminations.values()) and not any(e.truncations.values())
    assert e._cumulative_rewards == {"player_0": 0.0, "player_1": -1.0, "player_2": 0.0}
    info = e.infos["player_2"]
    assert info["outcome"] == ILLEGAL_ACTION and info["offender"] == 1
    assert info["illegal_action"] == 0 and info["steps"] == 1
    order = []
    for agent in e.agent_iter():
        order.append((agent, e.last()[1]))
        e.step(None)
    assert sorted(order) == [("player_0", 0.0), ("player_1", -1.0), ("player_2", 0.0)]


def test_the_wrapper_enforces_order_and_refuses_malformed_actions():
    e = env()
    assert isinstance(e, OrderEnforcingWrapper)
    with pytest.raises(AttributeError, match="cannot be accessed before reset"):
        _ = e.agents
    for call in (lambda: e.step(0), lambda: e.observe("player_0"), e.state, e.agent_iter):
        with pytest.raises(Exception, match=r"reset\(\) needs to be called before"):
            call()
    e.reset(options={"hands": [[1, 2], [3, 4]]})
    assert e.agents is e.unwrapped.agents and e.rewards is e.unwrapped.rewards
    for bad in (None, 1.0, True, "1", 5, -1, np.array([1, 2])):
        with pytest.raises(IllegalActionError):
            e.step(bad)
    assert e.agent_selection == "player_0" and e.unwrapped.num_steps == 0
    e.step(np.int64(1))
    e.step(np.array([3]))
    assert e.unwrapped.num_steps == 2


def test_raw_env_checks_legality_once_and_raises_with_the_legal_actions():
    raw = HighCardEnv()
    raw.reset(options={"hands": [[1, 2], [3, 4]]})
    message = r"illegal action 0 \(play 0\) for player_0; legal actions: 1 \(play 1\), 2 \(pl"
    with pytest.raises(IllegalActionError, match=message):
        raw.step(0)
    with pytest.raises(IllegalActionError, match=r"out of range: .*Discrete\(5\)"):
        raw.step(7)
    calls = []
    state = raw.game_state
    original = state.legal_action_mask

    def counting_mask():
        calls.append(1)
        return original()

    state.legal_action_mask = counting_mask
    raw.step(1)  # its mask was computed (and kept) while refusing 0 and 7 above
    assert calls == []
    raw.observe("player_1")
    raw.action_mask("player_1")
    raw.step(3)
    assert len(calls) == 1  # once per transition: observe, mask and step share it


def test_action_mask_needs_no_encoding():
    raw = HighCardEnv()
    raw.reset(seed=0)

    def boom(*_):
        raise AssertionError("action_mask encoded an observation")

    raw.encode = boom  # type: ignore[method-assign]
    assert raw.action_mask("player_0").dtype == np.int8
    assert not raw.action_mask("player_1").any()


def test_observations_have_low_bounds_and_stay_in_the_box():
    e = env(num_players=3, cards=3)
    e.reset(options={"hands": [[0, 0, 0], [4, 4, 4], [1, 1, 1]]})
    play(e, [0, 4, 1, 0, 4, 1])
    observation = e.observe("player_0")
    view = e.unwrapped.layout.view(observation["observation"])
    assert view["balance"][0] == -2
    assert view["points"].tolist() == [0, 2, 0]
    assert e.observation_space("player_0").contains(observation)
    assert e.observation_space("player_0")["observation"].low.min() == -3


def test_per_seat_pieces_are_rotated_to_the_observer():
    e = env(num_players=3)
    e.reset(options=HANDS)
    play(e, [4, 1, 3])
    for seat, agent in enumerate(e.possible_agents):
        view = e.unwrapped.layout.view(e.observe(agent)["observation"])
        expected = np.roll([1, 0, 0], -seat)
        assert view["points"].tolist() == expected.tolist()
        assert (
            np.argmax(view["last_revealed"], axis=1).tolist() == np.roll([4, 1, 3], -seat).tolist()
        )


def test_reset_options_per_player_by_list_or_dict_and_unknown_keys_warn():
    a, b = HighCardEnv(num_players=3), HighCardEnv(num_players=3)
    a.reset(options=HANDS)
    b.reset(options={"hands": dict(zip(b.possible_agents, HANDS["hands"], strict=True))})
    assert np.array_equal(a.state(), b.state())
    with pytest.warns(UserWarning, match=r"'typo'.*allowed: 'hands'"):
        a.reset(seed=1, options={"typo": 1})
    with pytest.raises(InvalidConfigError, match="missing 'player_2'"):
        a.reset(options={"hands": {"player_0": [1], "player_1": [2]}})


def test_state_shows_everything_and_lives_in_state_space():
    raw = HighCardEnv()
    raw.reset(options={"hands": [[1, 2], [3, 4]]})
    raw.step(2)
    view = raw.state_layout.view(raw.state())
    assert view["hands"].tolist() == [[0, 1, 0, 0, 0], [0, 0, 0, 1, 1]]
    assert view["picks"][0, 2] == 1 and view["to_act"].tolist() == [0, 1]
    assert raw.state_space.contains(raw.state())


def test_config_seed_and_agent_errors_name_what_was_allowed():
    with pytest.raises(InvalidConfigError, match=r"unknown config key 'card' for high_card_v0; "
                                                r"allowed: 'num_players', 'cards', 'max_rounds', "
                                                r"'render_mode'"):  # fmt: skip
        env(card=2)
    raw = HighCardEnv()
    raw.reset(seed=np.uint8(5))
    assert raw.np_random_seed == 5
    for seed in (True, np.bool_(True), -3, 1.0):
        with pytest.raises(InvalidConfigError, match="seed must be"):
            raw.reset(seed=seed)
    with pytest.raises(UnknownAgentError, match="unknown agent 'player_7'; the agents are "
                                                "player_0, player_1"):  # fmt: skip
        raw.observe("player_7")


def test_a_seeded_reset_is_remembered_by_the_next_unseeded_ones():
    def deals(seeds):
        raw = HighCardEnv(num_players=3, cards=3)
        out = []
        for seed in seeds:
            raw.reset(seed=seed)
            out.append(raw.state().tobytes())
        return out

    first = deals([5, None, None])
    assert first == deals([5, None, None])  # the generator seeded by 5 carries on
    assert first[1] != first[0] and first[2] != first[1]
    assert deals([6, None])[1] != first[1]


def test_the_wrapper_prints_as_the_env_name():
    assert str(env()) == "high_card_v0" == str(HighCardEnv())


def test_copies_keep_working_buffers():
    e = env(num_players=3)
    e.reset(options=HANDS)
    e.step(4)
    for twin in (copy.deepcopy(e), pickle.loads(pickle.dumps(e))):
        before = twin.observe("player_1")["observation"].copy()
        twin.step(1)
        after = twin.observe("player_0")["observation"]
        assert not np.array_equal(before, after)
        assert np.array_equal(after, e.unwrapped.layout.zeros()) is False
    assert e.agent_selection == "player_1"  # the original did not move
