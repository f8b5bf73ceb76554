"""ironman_war_v0 through the PettingZoo API: checkers, the rulebook's worked example action by
action, hidden information, determinism, conservation over random games and bad input."""

from __future__ import annotations

import numpy as np
import pettingzoo
import pytest
from helpers import random_playout, recorded_game, strict_api_test
from pettingzoo.test import seed_test

from cardarena.envs import ENVS, ironman_war_v0
from cardarena.envs.core import IllegalActionError, InvalidConfigError
from cardarena.envs.ironman_war.env import observation_layout
from cardarena.envs.ironman_war.rules import KINDS, NUM_ACTIONS

A1, A2, A3, A4, A5, UP, SH, FA = range(8)
CONCEDE, SHIELD = 8, 9
DECISIONS = ("commit", "play_or_concede", "standoff_play", "shield_target")


def names(kinds):
    return [KINDS[k] for k in kinds]


def scenario(iron_hand, war_hand, **config):
    env = ironman_war_v0.raw_env(**config)
    env.reset(
        seed=0,
        options={
            "hands": {"iron_man": names(iron_hand), "war_machine": names(war_hand)},
            "decks": {"iron_man": names([A1] * 10), "war_machine": names([A1] * 10)},
        },
    )
    return env


def view(env, agent):
    return env.layout.view(env.observe(agent)["observation"])


def decision_of(env, agent):
    return DECISIONS[int(np.argmax(view(env, agent)["decision"]))]


@pytest.mark.parametrize("variant", ["advanced", "beginner"])
def test_pettingzoo_api_test(variant):
    strict_api_test(ironman_war_v0.env(variant=variant))


@pytest.mark.parametrize("variant", ["advanced", "beginner"])
def test_pettingzoo_seed_test(variant):
    seed_test(lambda: ironman_war_v0.env(variant=variant), num_cycles=500)


def test_registry_and_pettingzoo_make():
    assert ENVS["ironman_war_v0"] is ironman_war_v0
    env = pettingzoo.make("aec", "cardarena/ironman_war-v0", variant="beginner")
    env.reset(seed=0)
    assert env.possible_agents == ["iron_man", "war_machine"]


def test_docstring_table_matches_the_real_spaces():
    env = ironman_war_v0.raw_env()
    doc = ironman_war_v0.__doc__
    for row in observation_layout(env.game).table_rows():
        assert row in doc, f"docstring lacks or contradicts: {row}"
    shape = env.observation_space("iron_man")["observation"].shape
    assert f"| Observation Shape  | {shape}" in doc
    assert f"| Action Shape       | Discrete({env.action_space('iron_man').n})" in doc
    assert env.action_space("iron_man").n == NUM_ACTIONS == 17
    for decided in [f"D-{i} " for i in range(1, 18)] + ["IM-11", "IM-13"]:
        assert decided in doc


def test_im14_worked_example_through_the_env_action_by_action():
    """RULES.md IM-14: 5 vs 3; Iron Man plays a 3 (6-5); War Machine a 3 (8-6); Iron Man's
    ENERGY SHIELD discards the 5 (6-3); War Machine must play or concede."""
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
    own = view(env, "iron_man")["own_committed"].reshape(3, 8)
    assert own[0, A5] == 1 and own[1:].sum() == 0


def _play_randomly(env, rng, steps):
    for _ in range(steps):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            return
        env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))


def _disturb_hidden_cards(state, seat, rng):
    """Change what ``seat`` holds face down or in hand/deck, consistently with public counts."""
    pile = state._piles[seat]
    rng.shuffle(pile)
    held = np.flatnonzero(state.hands[seat]).tolist()
    if pile and held and pile[-1] != held[0]:
        top, card = pile[-1], held[0]
        pile[-1] = card
        state.hands[seat, card] -= 1
        state.hands[seat, top] += 1
        state.deck_counts[seat, card] += 1
        state.deck_counts[seat, top] -= 1
    held = np.flatnonzero(state.hands[seat]).tolist()
    for battle in range(3):
        old = int(state.committed[seat, battle])
        if state.face_down[seat, battle] and held and held[-1] != old:
            new = held[-1]
            state.committed[seat, battle] = new
            state.hands[seat, new] -= 1
            state.hands[seat, old] += 1
            held = np.flatnonzero(state.hands[seat]).tolist()
    if state.has_pending[seat] and held and held[0] != state.pending_play[seat]:
        old, new = state.pending_play[seat], held[0]
        state.pending_play[seat] = new
        state.hands[seat, new] -= 1
        state.hands[seat, old] += 1


@pytest.mark.parametrize("seed", range(16))
def test_hidden_information_does_not_leak(seed):
    env = ironman_war_v0.raw_env()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    _play_randomly(env, rng, int(rng.integers(0, 60)))
    state = env.game_state
    for me, agent in enumerate(env.possible_agents):
        mine = env.observe(agent)["observation"].copy()
        theirs = env.observe(env.possible_agents[1 - me])["observation"].copy()
        twin = env.game_state.clone()
        _disturb_hidden_cards(state, 1 - me, rng)
        assert np.array_equal(env.observe(agent)["observation"], mine)
        now_theirs = env.observe(env.possible_agents[1 - me])["observation"]
        changed = not np.array_equal(now_theirs, theirs)
        assert changed == (state.hands[1 - me].tolist() != twin.hands[1 - me].tolist()
                           or state.committed[1 - me].tolist() != twin.committed[1 - me].tolist()
                           or state.pending_play != twin.pending_play)  # fmt: skip


def test_same_seed_and_actions_give_the_same_game_whatever_global_rngs_do():
    np.random.seed(1)
    first = recorded_game(ironman_war_v0.env(), 3, disturb_global_rngs=False)
    np.random.seed(2)
    assert recorded_game(ironman_war_v0.env(), 3, disturb_global_rngs=True) == first
    assert recorded_game(ironman_war_v0.env(), 4, disturb_global_rngs=False) != first


@pytest.mark.parametrize("variant", ["advanced", "beginner"])
def test_random_games_through_the_env_conserve_cards_and_mask_equals_legal(variant):
    env = ironman_war_v0.raw_env(variant=variant, max_rounds=20)
    rng = np.random.default_rng(0)
    deck_size = env.game.deck_size
    outcomes = set()
    for game in range(100):
        env.reset(seed=game)
        state = env.game_state

        def check(_agent, state=state):
            for seat in (0, 1):
                assert int(state.card_counts(seat).sum()) == deck_size
            agent = env.agent_selection
            if not (env.terminations[agent] or env.truncations[agent]):
                mask = env.observe(agent)["action_mask"]
                assert [bool(m) for m in mask] == [state.is_legal(a) for a in range(17)]

        final = random_playout(env, rng, on_step=check)
        outcomes.add(tuple(final.values()))
        assert sorted(final.values()) in ([-1.0, 1.0], [0.0, 0.0])
    assert (1.0, -1.0) in outcomes and (-1.0, 1.0) in outcomes


def test_final_rewards_reach_both_players_and_truncation_gives_zero():
    env = ironman_war_v0.raw_env(max_rounds=1)
    env.reset(seed=0)
    final = random_playout(env, np.random.default_rng(0))
    assert final == {"iron_man": 0.0, "war_machine": 0.0}
    assert env.game_state.is_truncated()
    capped = ironman_war_v0.raw_env(max_rounds=1)
    capped.reset(seed=0)
    rng = np.random.default_rng(0)
    while not capped.truncations["iron_man"]:
        mask = capped.observe(capped.agent_selection)["action_mask"]
        capped.step(int(rng.choice(np.flatnonzero(mask))))
    assert capped.truncations == {"iron_man": True, "war_machine": True}
    assert capped.terminations == {"iron_man": False, "war_machine": False}
    assert capped.rewards == {"iron_man": 0.0, "war_machine": 0.0}


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (17, r"action 17 for iron_man is out of range: .*Discrete\(17\), so 0..16"),
        (2.0, r"must be an integer in 0..16, got 2.0 \(float\)"),
        ("a", r"got 'a' \(str\)"),
        (None, "got None"),
        (CONCEDE, r"illegal action 8 \(concede\) for iron_man at decision commit"),
        (A4, r"illegal action 3 .*legal actions: 0 \(commit attack_1 to battle 1\)"),
    ],
)
def test_bad_actions_raise_and_nothing_is_lost(action, message):
    env = scenario([A5, A1, A2], [A3, A3, A3])
    before = env.observe("iron_man")["observation"].copy()
    with pytest.raises(IllegalActionError, match=message):
        env.step(action)
    assert env.agent_selection == "iron_man"
    assert np.array_equal(env.observe("iron_man")["observation"], before)


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
        ({"seats": 3}, None, "unexpected keyword argument 'seats'"),
        ({}, {"deck": {}}, "unknown reset option 'deck'"),
        ({}, {"hands": {"iron_man": ["attack_1"]}}, r"missing \['war_machine'\]"),
        ({}, {"decks": {"iron_man": ["ace"], "war_machine": []}}, r"\[0\] must be one of"),
        ({"variant": "beginner"}, {"hands": {"iron_man": ["upgrade"], "war_machine": []}},
         "the beginner variant has no special cards"),
    ],
)  # fmt: skip
def test_bad_config_and_options_raise(kwargs, options, message):
    expected = TypeError if "unexpected keyword" in message else InvalidConfigError
    with pytest.raises(expected, match=message):
        env = ironman_war_v0.raw_env(**kwargs)
        env.reset(seed=0, options=options)


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
        views.append(env.observe("war_machine")["observation"])
    assert np.array_equal(views[0], views[1])


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
    human.render()
    assert capsys.readouterr().out.strip() == text


def _reference_view(state, seat):
    """The observation written out piece by piece from the rules state, the slow obvious way,
    to pin the optimised encoder."""
    me, opp = seat, 1 - seat

    def one_hot(kind, size=8):
        row = np.zeros(size)
        if kind >= 0:
            row[kind] = 1
        return row

    def result(value):
        return one_hot({me: 0, opp: 1, 2: 2}.get(value, -1), 3)

    both = (me, opp)
    return {
        "hand": state.hands[me],
        "own_deck": state.deck_counts[me],
        "battle_cards": np.concatenate([state.battle_cards[s] for s in both]),
        "table": np.concatenate([state.table[s] for s in both]),
        "discards": np.concatenate([state.discards[s] for s in both]),
        "own_committed": np.concatenate([one_hot(k) for k in state.committed[me]]),
        "flipped": np.concatenate([one_hot(k) for s in both for k in state.flipped[s]]),
        "previous_flipped": np.concatenate(
            [one_hot(k) for s in both for k in state.previous_flipped[s]]
        ),
        "last_reveal": np.concatenate([one_hot(state.last_reveal[s]) for s in both]),
        "battle_results": np.concatenate([result(r) for r in state.battle_results]),
        "previous_results": np.concatenate([result(r) for r in state.previous_results]),
        "face_down": np.concatenate([state.face_down[s] for s in both]),
        "has_pending": [state.has_pending[s] for s in both],
        "battle_totals": [state.battle_totals[s] for s in both],
        "battle_card_counts": [state.battle_card_counts[s] for s in both],
        "battles_won": [state.battles_won[s] for s in both],
        "hand_sizes": [state.hand_sizes[s] for s in both],
        "deck_sizes": [state.deck_sizes[s] for s in both],
        "discard_sizes": [state.discard_sizes[s] for s in both],
        "pawns": [state.pawns[s] for s in both],
        "round": [state.round],
        "own_pending": one_hot(state.pending_play[me] if state.has_pending[me] else -1),
        "battle": one_hot(state.battle, 3),
        "decision": one_hot(state.decision if state.decision < 4 else -1, 4),
        "commit_slot": one_hot(state.commit_slot if state.decision == 0 else -1, 3),
    }


@pytest.mark.parametrize("variant", ["advanced", "beginner"])
def test_encoder_matches_a_piece_by_piece_reference(variant):
    env = ironman_war_v0.raw_env(variant=variant)
    rng = np.random.default_rng(1)
    checked = 0
    for game in range(20):
        env.reset(seed=game)
        while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            for seat, agent in enumerate(env.possible_agents):
                encoded = view(env, agent)
                reference = _reference_view(env.game_state, seat)
                assert encoded.keys() == reference.keys()
                for name, values in reference.items():
                    assert encoded[name].tolist() == np.asarray(values, float).tolist(), name
                checked += 1
            env.step(
                int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])))
            )
    assert checked > 500
