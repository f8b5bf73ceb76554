"""promise_war_v0 through the PettingZoo API: checkers, registry, docs, hidden information,
determinism, rewards and bad input."""

from __future__ import annotations

import numpy as np
import pettingzoo
import pytest
from helpers import random_playout

from cardarena.envs import ENVS, make, make_raw, promise_war_v0
from cardarena.envs.core import IllegalActionError, InvalidConfigError
from cardarena.envs.promise_war.rules import TIEBREAK


def test_registry_and_pettingzoo_make():
    assert ENVS["promise_war_v0"] is promise_war_v0
    env = pettingzoo.make("aec", "cardarena/promise_war-v0", num_players=4)
    env.reset(seed=0)
    assert env.possible_agents == [f"player_{i}" for i in range(4)]
    assert make("promise_war_v0").unwrapped.metadata["name"] == "promise_war_v0"
    with pytest.raises(InvalidConfigError, match=r"unknown env .nope.; available: .*promise"):
        make("nope")


@pytest.mark.parametrize(("n", "max_power"), [(2, 10), (3, 4), (8, 10)])
def test_observation_and_state_sizes_follow_the_documented_formulas(n, max_power):
    env = promise_war_v0.raw_env(num_players=n, max_power=max_power)
    powers = max_power + 1
    assert env.observation_space("player_0")["observation"].shape == (
        powers * (2 * n + 4) + 7 * n + 4,
    )
    assert env.state_space.shape == (5 * n * powers + 8 * n + 2 * powers + 3,)


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
        (4, r"illegal action 4 \(play power 4\) for player_0; legal actions: 1 \(play"),
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


def test_rules_refuse_bad_direct_calls_like_the_env():
    """Legality lives in one place: a direct rules call gets the same IllegalActionError."""
    env = promise_war_v0.raw_env()
    env.reset(options={"decks": [[5, 1, 1], [3, 2, 2]]})
    state = env.game_state
    for action, message in [(2.0, "must be an integer"), (True, "got True"), (11, "out of range"),
                            (4, "illegal action 4")]:  # fmt: skip
        with pytest.raises(IllegalActionError, match=message):
            state.apply_action(action)
    assert state.hand_sizes == [3, 3] and state.current_player() == 0


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
    assert "Illegal move" in caplog.text  # PettingZoo's warning, on by default
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env._cumulative_rewards == {"player_0": 0.0, "player_1": -1.0}
    assert env.infos["player_0"]["offender"] == 1
    assert env.infos["player_0"]["scores"].tolist() == [0, 0]
    with pytest.raises(IllegalActionError, match="out of range"):
        env2 = promise_war_v0.env()
        env2.reset(seed=0)
        env2.step(11)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_players": 1}, "num_players must be in 2..8, got 1"),
        ({"num_players": 9}, "num_players must be in 2..8, got 9"),
        ({"decks": [[1], []]}, r"decks\['player_1'\] is empty"),
        ({"render_mode": "rgb_array"}, "render_mode must be None or one of"),
        (
            {"decks": [np.array([1.5]), np.array([3])]},
            r"decks\['player_0'\]\[0\] must be an integer",
        ),
        ({"colour": "red"}, r"unknown config key 'colour' for promise_war_v0; allowed: .num_pl"),
    ],
)
def test_bad_config_raises(kwargs, message):
    with pytest.raises(InvalidConfigError, match=message):
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
    for options in (
        {"decks": [[1], []]},
        {"decks": {"player_0": [1]}},
        {"decks": [[1], [2], [3]]},
        [],
    ):
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
    assert capsys.readouterr().out.strip() == text  # human mode prints in reset(), like
    human.step(5)  # PettingZoo's classic envs, and after every move
    assert "to act: player_1" in capsys.readouterr().out
    assert human.render() is None
    assert capsys.readouterr().out.strip()
    with pytest.warns(UserWarning, match="without specifying any render mode"):
        assert promise_war_v0.raw_env().render() is None


def reference_observation(state, seat: int) -> dict[str, np.ndarray]:
    """What ``seat`` sees, built the slow, obvious way from the rules state (not from the
    encoder's code): the optimised encoder must agree piece by piece."""
    n, powers = state.num_players, state.game.max_power + 1
    seats = [(seat + k) % n for k in range(n)]  # you first, then the following seats
    live = not (state.is_terminal() or state.is_truncated())

    def counts(cards):
        out = np.zeros(powers)
        for card in cards:
            out[card] += 1
        return out

    def one_hot(card):
        out = np.zeros(powers)
        if card is not None and card >= 0:
            out[card] = 1
        return out

    hand = [p for p in range(powers) for _ in range(int(state.hands[seat][p]))]
    return {
        "hand": counts(hand),
        "own_pick": one_hot(state.picks[seat]),
        "own_deck": counts(state.draw_piles[seat]),
        "hand_sizes": np.array([state.hands[s].sum() for s in seats]),
        "deck_sizes": np.array([len(state.draw_piles[s]) for s in seats]),
        "victory_sizes": np.array([state.victory[s].sum() for s in seats]),
        "sitting_out": np.array([state.sitting_out[s] for s in seats]),
        "in_contest": np.array([live and s in state.contenders for s in seats]),
        "has_picked": np.array([state.picks[s] >= 0 for s in seats]),
        "last_revealed": np.array([one_hot(state.last_revealed[s]) for s in seats]),
        "revealed": np.array([state.revealed[s] for s in seats]),
        "pot_face_up": np.array(state.pot_face_up),
        "pot_face_down": np.array([state.pot_face_down_by_player[s] for s in seats]),
        "phase": np.eye(2)[state.phase],
        "you_in_tiebreak": np.array(
            [live and state.phase == TIEBREAK and seat in state.contenders]
        ),
        "tricks_played": np.array([state.tricks_played]),
    }


@pytest.mark.parametrize(
    "config",
    [
        {},
        {"num_players": 3, "max_power": 2, "decks": [0, 0, 0, 1, 1, 2, 2]},  # power 0, many ties
        {"num_players": 5, "max_power": 3, "decks": [[0, 3, 3], [0, 0, 1], [3], [2, 2, 0, 1], [1]]},
    ],
)
def test_encoder_matches_the_reference_piece_by_piece_for_every_seat(config):
    env = promise_war_v0.raw_env(**config)
    rng = np.random.default_rng(1)
    tiebreaks = 0
    for seed in range(60):
        env.reset(seed=seed)
        while True:
            state = env.game_state
            tiebreaks += state.phase == TIEBREAK
            for seat, agent in enumerate(env.possible_agents):
                view = env.layout.view(env.observe(agent)["observation"])
                expected = reference_observation(state, seat)
                assert view.keys() == expected.keys()
                for piece, values in expected.items():
                    assert np.array_equal(view[piece], values.reshape(view[piece].shape)), (
                        piece, seat, view[piece], values)  # fmt: skip
            if state.is_terminal() or state.is_truncated():
                break
            env.step(int(rng.choice(np.flatnonzero(env.action_mask(env.agent_selection)))))
    assert tiebreaks > 0  # the configs reach tiebreaks, so their pieces are checked too


def test_revealed_counts_every_face_up_card_per_seat_through_chained_tiebreaks():
    """Trick: 5 5 1 (player_0 and player_1 tie); tiebreak: 2 2 (tie again); tiebreak: 9 vs 3."""
    env = promise_war_v0.raw_env(num_players=3)
    env.reset(options={"decks": [[5, 2, 9, 4, 9, 1, 1], [5, 2, 3, 6, 3, 1, 1], [1, 7, 8, 8]]})
    for power in (5, 5, 1):
        env.step(power)
    view = env.layout.view(env.observe("player_2")["observation"])
    assert view["in_contest"].tolist() == [0, 1, 1]  # player_2, player_0, player_1
    assert view["you_in_tiebreak"][0] == 0
    mine = env.layout.view(env.observe("player_0")["observation"])
    assert mine["you_in_tiebreak"][0] == 1 and mine["phase"].tolist() == [0, 1]
    env.step(2)  # player_0 face up; 9 and 4 go face down at the reveal
    env.step(2)  # player_1: 3 and 6 down, a tie again: both draw 3 fresh cards
    assert env.game_state.phase == TIEBREAK and env.game_state.contenders == [0, 1]
    env.step(9)
    env.step(3)
    view = env.layout.view(env.observe("player_2")["observation"])
    revealed = view["revealed"]  # rows: player_2, player_0, player_1
    assert revealed[0, 1] == 1 and revealed[0].sum() == 1
    assert revealed[1, [5, 2, 9]].tolist() == [1, 1, 1] and revealed[1].sum() == 3
    assert revealed[2, [5, 2, 3]].tolist() == [1, 1, 1] and revealed[2].sum() == 3
    # the whole pot: trick 5 5 1, then 2 2 up + 4 down, then 9 3 up + 4 down
    assert env.game_state.victory_sizes == [15, 0, 0]


def test_decks_by_agent_name_give_the_same_game_as_decks_in_seat_order():
    by_seat, by_name = promise_war_v0.raw_env(num_players=3), promise_war_v0.raw_env(num_players=3)
    decks = [[5, 1, 1], [3, 2, 2], [9, 0]]
    by_seat.reset(seed=0, options={"decks": decks})
    by_name.reset(seed=0, options={"decks": {f"player_{i}": d for i, d in enumerate(decks)}})
    assert np.array_equal(by_seat.state(), by_name.state())
    named = promise_war_v0.raw_env(num_players=3, decks={"player_0": [1], "player_1": [2],
                                                          "player_2": [3]})  # fmt: skip
    assert named.game.decks == ((1,), (2,), (3,))


def test_eight_players_play_to_the_end_and_scores_are_the_victory_piles():
    env = promise_war_v0.env(num_players=8)
    env.reset(seed=3)
    final = random_playout(env, np.random.default_rng(3))
    assert set(final) == {f"player_{i}" for i in range(8)}
    state = env.unwrapped.game_state
    assert state.is_terminal()
    assert state.scores() == tuple(state.victory_sizes)
    assert [a for a, r in final.items() if r == 1] == [
        f"player_{s}" for s, v in enumerate(state.victory_sizes) if v == max(state.victory_sizes)
    ] or all(r <= 0 for r in final.values())


def reference_state(state) -> dict[str, np.ndarray]:
    """The full-information state built the obvious way, in absolute seat order."""
    n, powers = state.num_players, state.game.max_power + 1
    live = not (state.is_terminal() or state.is_truncated())
    eye = np.vstack([np.eye(powers), np.zeros(powers)])  # row -1: no card
    return {
        "hands": np.array(state.hands),
        "picks": eye[state.picks],
        "decks": np.array([np.bincount(p, minlength=powers) for p in state.draw_piles]),
        "hand_sizes": np.array(state.hands).sum(axis=1),
        "deck_sizes": np.array([len(p) for p in state.draw_piles]),
        "victory_sizes": np.array(state.victory).sum(axis=1),
        "sitting_out": np.array(state.sitting_out),
        "in_contest": np.array([live and s in state.contenders for s in range(n)]),
        "has_picked": np.array([p >= 0 for p in state.picks]),
        "last_revealed": eye[state.last_revealed],
        "revealed": np.array(state.revealed),
        "pot_face_up": np.array(state.pot_face_up),
        "pot_face_down": np.bincount(state.pot_face_down, minlength=powers),
        "pot_face_down_sizes": np.array(state.pot_face_down_by_player),
        "phase": np.eye(2)[state.phase],
        "to_act": np.eye(n)[state.current_player()] if live else np.zeros(n),
        "tricks_played": np.array([state.tricks_played]),
    }


@pytest.mark.parametrize(
    "config", [{}, {"num_players": 4, "max_power": 2, "decks": [0, 0, 1, 2, 2]}]
)
def test_state_matches_the_reference_piece_by_piece(config):
    env = promise_war_v0.raw_env(**config)
    rng = np.random.default_rng(2)
    for seed in range(40):
        env.reset(seed=seed)
        while True:
            view = env.state_layout.view(env.state())
            expected = reference_state(env.game_state)
            assert view.keys() == expected.keys()
            for piece, values in expected.items():
                assert np.array_equal(view[piece], values.reshape(view[piece].shape)), piece
            if not env.agents or env.terminations[env.agent_selection]:
                break
            env.step(int(rng.choice(np.flatnonzero(env.action_mask(env.agent_selection)))))
