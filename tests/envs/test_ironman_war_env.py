"""ironman_war_v0 through the PettingZoo API: the rulebook's worked example action by action,
hidden information, the observation and state encoders against piece-by-piece references,
end-of-game infos, options, conservation over random games and bad input.

Generic checks every registered env gets (api_test and seed_test on the default config,
spaces, determinism, deepcopy/pickle, state_space, docstring tables) live in the conformance
suite; this file keeps what is specific to Iron Man.
"""

from __future__ import annotations

import warnings

import numpy as np
import pettingzoo
import pytest
from helpers import random_playout, strict_api_test
from pettingzoo.test import seed_test

from cardarena.envs import ENVS, ironman_war_v0
from cardarena.envs.core import IllegalActionError, InvalidConfigError, Outcome
from cardarena.envs.ironman_war.env import observation_layout, state_layout
from cardarena.envs.ironman_war.rules import KINDS, NUM_ACTIONS

A1, A2, A3, A4, A5, UP, SH, FA = range(8)
CONCEDE, SHIELD = 8, 9
DECISIONS = ("commit", "play_or_concede", "standoff_play", "shield_target")
AGENTS = ["iron_man", "war_machine"]


def names(kinds):
    return [KINDS[k] for k in kinds]


def scenario(iron_hand, war_hand, wrapped=False, **config):
    env = (ironman_war_v0.env if wrapped else ironman_war_v0.raw_env)(**config)
    env.reset(
        seed=0,
        options={
            "hands": {"iron_man": names(iron_hand), "war_machine": names(war_hand)},
            "decks": {"iron_man": names([A1] * 10), "war_machine": names([A1] * 10)},
        },
    )
    return env


def view(env, agent):
    return env.unwrapped.layout.view(env.observe(agent)["observation"])


def decision_of(env, agent):
    return DECISIONS[int(np.argmax(view(env, agent)["decision"]))]


def play_randomly(env, rng, steps):
    for _ in range(steps):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            return
        env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))


def test_pettingzoo_api_and_seed_tests_on_the_beginner_variant():
    """The conformance suite runs them on the default (advanced) config."""
    strict_api_test(ironman_war_v0.env(variant="beginner"), num_cycles=500)
    seed_test(lambda: ironman_war_v0.env(variant="beginner"), num_cycles=300)


def test_registry_and_pettingzoo_make():
    assert ENVS["ironman_war_v0"] is ironman_war_v0
    env = pettingzoo.make("aec", "cardarena/ironman_war-v0", variant="beginner")
    env.reset(seed=0)
    assert env.possible_agents == AGENTS
    assert env.metadata["min_players"] == env.metadata["max_players"] == 2
    assert env.metadata["zero_sum"] is True


def test_docstring_tables_and_decided_rules():
    env = ironman_war_v0.raw_env()
    doc = ironman_war_v0.__doc__
    assert doc.count("| Index | Piece | Shape | Values | Meaning |") == 2
    for row in observation_layout(env.game).table_rows() + state_layout(env.game).table_rows():
        assert row in doc, f"docstring lacks or contradicts: {row}"
    shape = env.observation_space("iron_man")["observation"].shape
    assert shape == (259,) and f"| Observation Shape  | {shape}" in doc
    assert f"| State Shape        | {env.state_space.shape}" in doc
    assert f"| Action Shape       | Discrete({env.action_space('iron_man').n})" in doc
    assert env.action_space("iron_man").n == NUM_ACTIONS == 17
    for decided in [f"D-{i} " for i in range(1, 18)] + ["IM-11", "IM-13"]:
        assert decided in doc
    for info in ("outcome", "scores", "winners", "steps", "offender"):
        assert f"`{info}`" in doc


def test_im14_worked_example_through_the_env_action_by_action():
    """IM-14 (envs/rulebooks/ironman_war_v0.md): 5 vs 3; Iron Man plays a 3 (6-5); War Machine a 3
    (8-6); Iron Man's ENERGY SHIELD discards the 5 (6-3); War Machine must play or concede."""
    env = scenario([A3, A1, A1, A3, SH, A1], [A5, A2, A2, A3, A4])
    for action in (A3, A1, A1):
        assert env.agent_selection == "iron_man" and decision_of(env, "iron_man") == "commit"
        env.step(action)
    for action in (A5, A2, A2):
        assert env.agent_selection == "war_machine"
        env.step(action)

    def totals():  # iron_man's view: (iron_man, war_machine)
        return view(env, "iron_man")["battle_totals"].tolist()

    assert totals() == [3, 5] and env.agent_selection == "iron_man"
    assert decision_of(env, "iron_man") == "play_or_concede"
    assert np.flatnonzero(env.observe("iron_man")["action_mask"]).tolist() == [A1, A3, SH, CONCEDE]
    env.step(A3)
    assert totals() == [6, 5] and env.agent_selection == "war_machine"
    env.step(A3)
    assert totals() == [6, 8] and env.agent_selection == "iron_man"
    env.step(SH)
    assert env.agent_selection == "iron_man" and decision_of(env, "iron_man") == "shield_target"
    assert np.flatnonzero(env.observe("iron_man")["action_mask"]).tolist() == [
        SHIELD + A3,
        SHIELD + A5,
    ]
    env.step(SHIELD + A5)
    assert totals() == [6, 3]
    assert view(env, "war_machine")["battle_totals"].tolist() == [3, 6]  # seen from the other seat
    assert view(env, "iron_man")["battle_cards"][1, A5] == 0  # the 5 is gone ...
    assert view(env, "war_machine")["discards"][0, A5] == 1  # ... to war_machine's discard pile
    assert env.agent_selection == "war_machine"
    assert decision_of(env, "war_machine") == "play_or_concede"
    assert np.flatnonzero(env.observe("war_machine")["action_mask"]).tolist() == [A4, CONCEDE]
    assert not env.observe("iron_man")["action_mask"].any()  # the winner never acts


def test_committed_cards_stay_hidden_until_flipped():
    env = scenario([A5, A1, A2], [A3, A3, A3])
    seen_before = env.observe("war_machine")["observation"].copy()
    env.step(A5)
    after_a5 = env.observe("war_machine")["observation"].copy()
    other = scenario([A5, A1, A2], [A3, A3, A3])
    other.step(A1)  # a different card for battle 1
    assert np.array_equal(other.observe("war_machine")["observation"], after_a5)
    assert not np.array_equal(after_a5, seen_before)  # it does see that a card went face down
    assert view(env, "war_machine")["face_down"].tolist() == [[0, 0, 0], [1, 0, 0]]
    own = view(env, "iron_man")["own_committed"]
    assert own[0, A5] == 1 and own.sum() == 1


def encoded(env, state, seat):
    """``seat``'s observation of any rules state, through the env's own encoder."""
    buffer = env.layout.buffer()
    env.encode(state, seat, buffer.clear())
    return buffer.snapshot()


def _hidden_cards(state, seat):
    down = state.committed[seat][state.face_down[seat]].tolist()
    pending = state.pending_play[seat] if state.has_pending[seat] else -1
    return state.hands[seat].tolist(), down, pending


@pytest.mark.parametrize("seed", range(12))
def test_resampled_hidden_cards_change_only_their_owners_observation(seed):
    """What ``me`` cannot see is redrawn: ``me``'s observation stays the same, and the
    opponent's changes exactly when its hand, face-down commits or pending pick changed (its
    deck order is not observed, its deck composition is, through ``own_deck``)."""
    env = ironman_war_v0.raw_env(variant=("advanced", "beginner")[seed % 3 == 2])
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(6):
        play_randomly(env, rng, int(rng.integers(0, 25)))
        state = env.game_state
        for me, agent in enumerate(AGENTS):
            other, other_agent = 1 - me, AGENTS[1 - me]
            mine = env.observe(agent)["observation"]
            theirs = env.observe(other_agent)["observation"]
            twin = state.resample_from_infostate(me, rng)
            assert np.array_equal(encoded(env, twin, me), mine)
            changed = _hidden_cards(twin, other) != _hidden_cards(state, other) or (
                twin.deck_counts[other].tolist() != state.deck_counts[other].tolist()
            )
            assert changed == (not np.array_equal(encoded(env, twin, other), theirs))


def test_standoff_picks_stay_hidden_until_revealed_together():
    """C-3 / IM-7: war_machine's view is the same whichever card iron_man picked face down."""
    views = []
    for pick in (A4, A2):
        env = scenario([A3, A1, A1, A2, A4], [A3, A1, A1, A2, A2])
        for action in (A3, A1, A1, A3, A1, A1):
            env.step(action)
        assert env.agent_selection == "iron_man"
        assert decision_of(env, "iron_man") == "standoff_play"
        env.step(pick)
        assert env.agent_selection == "war_machine"
        assert view(env, "iron_man")["own_pending"][pick] == 1
        assert view(env, "war_machine")["has_pending"].tolist() == [0, 1]
        views.append(env.observe("war_machine")["observation"])
    assert np.array_equal(views[0], views[1])


@pytest.mark.parametrize("variant", ["advanced", "beginner"])
def test_random_games_through_the_env_conserve_cards_and_mask_the_acting_seat_only(variant):
    env = ironman_war_v0.raw_env(variant=variant, max_rounds=20)
    rng = np.random.default_rng(0)
    deck_size = env.game.deck_size
    outcomes = set()
    for game in range(60):
        env.reset(seed=game)
        state = env.game_state

        def check(_agent, state=state):
            for seat in (0, 1):
                assert int(state.card_counts(seat).sum()) == deck_size
            agent = env.agent_selection
            if not (env.terminations[agent] or env.truncations[agent]):
                seat = AGENTS.index(agent)
                mask = env.observe(agent)["action_mask"]
                assert mask.tolist() == state.legal_action_mask().astype(int).tolist()
                assert not env.observe(AGENTS[1 - seat])["action_mask"].any()

        final = random_playout(env, rng, on_step=check)
        outcomes.add(tuple(final.values()))
        assert sorted(final.values()) in ([-1.0, 1.0], [0.0, 0.0])
    assert (1.0, -1.0) in outcomes and (-1.0, 1.0) in outcomes


# --- end of game: rewards, scores, infos -----------------------------------------------------
def plain(info):
    """``info`` with its arrays as lists, for ``==``."""
    return {k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in info.items()}


def test_a_won_game_ends_with_outcome_scores_winners_and_steps_in_every_info():
    rng = np.random.default_rng(1)
    for seed in range(6):
        env = ironman_war_v0.env(victory_cards=3)
        env.reset(seed=seed)
        state = env.unwrapped.game_state
        infos_seen = {}
        steps = 0
        for agent in env.agent_iter():
            observation, reward, terminated, truncated, info = env.last()
            if terminated or truncated:
                infos_seen[agent] = (info, reward)
                env.step(None)
                continue
            assert info["outcome"] == Outcome.ONGOING and not info["winners"].any()  # nothing yet
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
            steps += 1
        assert state.is_terminal()
        winner = AGENTS[state.winner]
        assert state.scores() == tuple(state.pawns) and max(state.scores()) == 3
        for agent in AGENTS:
            info, reward = infos_seen[agent]
            assert reward == (1.0 if agent == winner else -1.0)
            assert {**plain(info)} == {
                "outcome": Outcome.TERMINATED,
                "scores": list(state.pawns),
                "winners": [int(a == winner) for a in AGENTS],
                "steps": steps,
                "offender": -1,
                "illegal_action": -1,
            }
        assert sum(reward for _, reward in infos_seen.values()) == 0  # zero-sum


def test_truncation_gives_zero_to_both_and_says_so_in_the_infos():
    env = ironman_war_v0.env(max_rounds=1)
    env.reset(seed=0)
    state = env.unwrapped.game_state
    rng = np.random.default_rng(0)
    while not env.truncations["iron_man"]:
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
    assert state.is_truncated()
    assert env.truncations == {"iron_man": True, "war_machine": True}
    assert env.terminations == {"iron_man": False, "war_machine": False}
    assert env.rewards == {"iron_man": 0.0, "war_machine": 0.0}
    for agent in AGENTS:
        info = env.infos[agent]
        assert info["outcome"] == Outcome.TRUNCATED and info["winners"].tolist() == [0, 0]
        assert info["scores"].tolist() == list(state.pawns)
        assert info["steps"] == env.unwrapped.num_steps > 0
    assert not env.unwrapped.state()[env.unwrapped.state_layout["to_act"]].any()


def test_an_illegal_action_through_env_ends_the_game_naming_the_offender():
    env = scenario([A5, A1, A2], [A3, A3, A3], wrapped=True)
    env.step(A5)
    env.warn_on_illegal = False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(CONCEDE)  # nobody may concede during the commit
    assert env.terminations == {"iron_man": True, "war_machine": True}
    assert env.rewards == {"iron_man": -1.0, "war_machine": 0.0}
    for agent in AGENTS:
        info = env.infos[agent]
        assert info["outcome"] == Outcome.ILLEGAL_ACTION and info["offender"] == 0
        assert info["scores"].tolist() == [1, 1]
        assert info["winners"].tolist() == [0, 0] and info["steps"] == 1


def test_final_rewards_reach_both_players_through_random_playout():
    env = ironman_war_v0.raw_env(max_rounds=1)
    env.reset(seed=0)
    final = random_playout(env, np.random.default_rng(0))
    assert final == {"iron_man": 0.0, "war_machine": 0.0}
    assert env.game_state.is_truncated()


# --- bad input ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("action", "message"),
    [
        (17, r"action 17 for iron_man is out of range: .*Discrete\(17\), so 0..16"),
        (2.0, r"must be an integer in 0..16, got 2.0 \(float\)"),
        (True, r"must be an integer in 0..16, got True \(bool\)"),
        ("a", r"got 'a' \(str\)"),
        (None, "got None"),
        (CONCEDE, r"illegal action 8 \(concede\) for iron_man; legal actions: 0 \(commit"),
        (A4, r"illegal action 3 .*legal actions: 0 \(commit attack_1 to battle 1\)"),
    ],
)
def test_bad_actions_raise_through_raw_env_and_nothing_is_lost(action, message):
    env = scenario([A5, A1, A2], [A3, A3, A3])
    before = env.observe("iron_man")["observation"].copy()
    state_before = env.state()
    with pytest.raises(IllegalActionError, match=message):
        env.step(action)
    assert env.agent_selection == "iron_man"
    assert np.array_equal(env.observe("iron_man")["observation"], before)
    assert np.array_equal(env.state(), state_before)


def test_acting_after_the_end_raises():
    env = ironman_war_v0.raw_env(max_rounds=1)
    env.reset(seed=0)
    random_playout(env, np.random.default_rng(0))
    with pytest.raises(IllegalActionError, match="every agent has left"):
        env.step(0)


@pytest.mark.parametrize(
    ("kwargs", "options", "message"),
    [
        ({"variant": "expert"}, None, "variant must be one of 'advanced', 'beginner'"),
        ({"seats": 3}, None, r"unknown config key 'seats' for ironman_war_v0"),
        ({}, {"hands": {"iron_man": ["attack_1"]}}, r"missing 'war_machine'"),
        ({}, {"hands": [["attack_1"]]}, r"one entry per player"),
        ({}, {"decks": {"iron_man": ["ace"], "war_machine": []}}, r"\[0\] must be one of"),
        ({"variant": "beginner"}, {"hands": {"iron_man": ["upgrade"], "war_machine": []}},
         "the beginner variant has no special cards"),
    ],
)  # fmt: skip
def test_bad_config_and_options_raise(kwargs, options, message):
    with pytest.raises(InvalidConfigError, match=message):
        env = ironman_war_v0.raw_env(**kwargs)
        env.reset(seed=0, options=options)


def test_a_bad_option_leaves_the_running_game_untouched():
    env = scenario([A5, A1, A2], [A3, A3, A3])
    env.step(A5)
    before = env.state()
    with pytest.raises(InvalidConfigError):
        env.reset(seed=1, options={"hands": [["laser"], []]})
    assert np.array_equal(env.state(), before) and env.agent_selection == "iron_man"


def test_options_as_a_list_per_seat_or_a_dict_play_the_same_game():
    hands = [names([A5, A1, A2, SH]), names([A3, A3, UP])]
    decks = [names([A4, A2, FA] * 3), names([A1, A2] * 4)]
    recorded = []
    for options in (
        {"hands": hands, "decks": decks},
        {"hands": dict(zip(AGENTS, hands, strict=True)), "decks": tuple(decks)},
        {"hands": tuple(hands), "decks": dict(zip(AGENTS, decks, strict=True))},
    ):
        env = ironman_war_v0.env()
        env.reset(seed=5, options=options)
        assert view(env, "iron_man")["hand"].tolist() == [1, 1, 0, 0, 1, 0, 1, 0]
        rng = np.random.default_rng(5)
        trail = []
        for agent in env.agent_iter():
            observation, reward, terminated, truncated, _ = env.last()
            trail.append(
                (agent, observation["observation"].tobytes(), reward, env.state().tobytes())
            )
            if terminated or truncated:
                env.step(None)
            else:
                env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        recorded.append(trail)
    assert recorded[0] == recorded[1] == recorded[2]


def test_an_unknown_option_key_warns_naming_it_and_is_ignored():
    plain = ironman_war_v0.env()
    plain.reset(seed=3)
    odd = ironman_war_v0.env()
    with pytest.warns(UserWarning, match=r"'deck'.*allowed: 'decks', 'hands'"):
        odd.reset(seed=3, options={"deck": {}})
    assert np.array_equal(odd.state(), plain.state())
    for agent in AGENTS:
        assert np.array_equal(
            odd.observe(agent)["observation"], plain.observe(agent)["observation"]
        )


def test_fixed_decks_must_fit_the_observation_bounds():
    """D-17: a fixed deck bigger than the configured one would leave the observation space."""
    env = ironman_war_v0.raw_env()
    big = {"iron_man": ["attack_1"] * 60, "war_machine": ["attack_1"] * 10}
    with pytest.raises(InvalidConfigError, match=r"'iron_man' 60 cards .* decks of 55 cards"):
        env.reset(options={"decks": big})
    roomy = ironman_war_v0.raw_env(deck={"attack_1": 100})
    roomy.reset(seed=0, options={"decks": big})
    for agent in roomy.possible_agents:
        assert roomy.observation_space(agent).contains(roomy.observe(agent))
    assert roomy.state_space.contains(roomy.state())


def test_render_shows_the_table_and_only_the_acting_players_hand(capsys):
    env = scenario([A5, A1, A2, UP], [A3, A3, A3, FA], render_mode="ansi")
    text = env.render()
    assert "to act: iron_man (commit)" in text
    assert "iron_man's hand: attack_1, attack_2, attack_5, upgrade" in text
    assert "final_attack" not in text
    assert "last round" not in text
    beginner = scenario([A5, A1, A2], [A3, A3, A3], variant="beginner", render_mode="ansi")
    for action in (A5, A1, A2, A3, A3, A3):
        beginner.step(action)
    assert "last round: 1 won by iron_man (attack_5 vs attack_3); 2 won by war_machine" in (
        beginner.render()
    )
    human = scenario([A5, A1, A2, UP], [A3, A3, A3, FA], render_mode="human")
    capsys.readouterr()  # human mode printed the table at reset and after each move
    human.render()
    assert capsys.readouterr().out.strip() == text


# --- encoders against piece-by-piece references ------------------------------------------------
def _one_hot(kind, size=8):
    row = np.zeros(size)
    if kind >= 0:
        row[kind] = 1
    return row


def _reference_view(state, seat):
    """The observation written out piece by piece from the rules state, the slow obvious way,
    each piece in its declared shape, to pin the optimised encoder."""
    me, opp = seat, 1 - seat
    both = (me, opp)

    def result(value):
        return _one_hot({me: 0, opp: 1, 2: 2}.get(value, -1), 3)

    decision = state.decision if state.decision < 4 else -1
    return {
        "hand": state.hands[me],
        "own_deck": state.deck_counts[me],
        "battle_cards": [state.battle_cards[s] for s in both],
        "table": [state.table[s] for s in both],
        "discards": [state.discards[s] for s in both],
        "own_committed": [_one_hot(k) for k in state.committed[me]],
        "flipped": [[_one_hot(k) for k in state.flipped[s]] for s in both],
        "previous_flipped": [[_one_hot(k) for k in state.previous_flipped[s]] for s in both],
        "last_reveal": [_one_hot(state.last_reveal[s]) for s in both],
        "battle_results": [result(r) for r in state.battle_results],
        "previous_results": [result(r) for r in state.previous_results],
        "face_down": [state.face_down[s] for s in both],
        "has_pending": [state.has_pending[s] for s in both],
        "battle_totals": [state.battle_totals[s] for s in both],
        "battle_card_counts": [state.battle_card_counts[s] for s in both],
        "battles_won": [state.battles_won[s] for s in both],
        "hand_sizes": [state.hand_sizes[s] for s in both],
        "deck_sizes": [state.deck_sizes[s] for s in both],
        "discard_sizes": [state.discard_sizes[s] for s in both],
        "pawns": [state.pawns[s] for s in both],
        "round": [state.round],
        "own_pending": _one_hot(state.pending_play[me] if state.has_pending[me] else -1),
        "battle": _one_hot(state.battle, 3),
        "decision": _one_hot(decision, 4),
        "commit_slot": _one_hot(state.commit_slot if state.decision == 0 else -1, 3),
    }


def _reference_state(state):
    """The full-information state, piece by piece, in absolute seat order."""
    seats = (0, 1)

    def result(value):
        return _one_hot({0: 0, 1: 1, 2: 2}.get(value, -1), 3)

    over = state.decision == 4
    return {
        "hands": state.hands,
        "decks": [np.bincount(state.deck_order(s), minlength=8) for s in seats],
        "committed": [[_one_hot(k) for k in state.committed[s]] for s in seats],
        "pending": [_one_hot(state.pending_play[s] if state.has_pending[s] else -1) for s in seats],
        "battle_cards": state.battle_cards,
        "table": state.table,
        "discards": state.discards,
        "flipped": [[_one_hot(k) for k in state.flipped[s]] for s in seats],
        "previous_flipped": [[_one_hot(k) for k in state.previous_flipped[s]] for s in seats],
        "last_reveal": [_one_hot(state.last_reveal[s]) for s in seats],
        "battle_results": [result(r) for r in state.battle_results],
        "previous_results": [result(r) for r in state.previous_results],
        "face_down": state.face_down,
        "has_pending": state.has_pending,
        "battle_totals": state.battle_totals,
        "battle_card_counts": state.battle_card_counts,
        "battles_won": state.battles_won,
        "hand_sizes": state.hand_sizes,
        "deck_sizes": state.deck_sizes,
        "discard_sizes": [int(state.discards[s].sum()) for s in seats],
        "pawns": state.pawns,
        "round": [state.round],
        "battle": _one_hot(state.battle, 3),
        "decision": _one_hot(-1 if over else state.decision, 4),
        "commit_slot": _one_hot(state.commit_slot if state.decision == 0 else -1, 3),
        "to_act": _one_hot(-1 if over else state.current_player(), 2),
    }


def _assert_matches(encoded, reference):
    assert encoded.keys() == reference.keys()
    for name, values in reference.items():
        expected = np.asarray(values, float)
        assert encoded[name].shape == expected.shape, name
        assert encoded[name].tolist() == expected.tolist(), name


@pytest.mark.parametrize("variant", ["advanced", "beginner"])
def test_encoders_match_piece_by_piece_references(variant):
    env = ironman_war_v0.raw_env(variant=variant)
    rng = np.random.default_rng(1)
    checked = 0
    for game in range(20):
        env.reset(seed=game)
        while True:
            state = env.game_state
            for seat, agent in enumerate(AGENTS):
                _assert_matches(view(env, agent), _reference_view(state, seat))
            _assert_matches(env.state_layout.view(env.state()), _reference_state(state))
            checked += 1
            if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
                break
            env.step(
                int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])))
            )
    assert checked > 500
