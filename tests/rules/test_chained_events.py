"""Issue 16, point 9: state that accumulates across chained events, and choices offered only in
rare situations, checked in the rules state and, where a player sees it, in every seat's
observation.

- Promise War (PW-4, PW-5, PW-7): the public counts after a first, a second and a third chained
  tiebreak; a tied player dropping out in the middle of a chain; a three-way tie narrowing.
- Iron Man (IM-6, IM-8, IM-9, D-6, D-7): ENERGY SHIELD when the opponent's only cards in the
  battle are special cards (the shield owner is asked, the mask offers exactly those kinds),
  and cancels chained in one standoff (D-10) piling up in the discard piles.
- Beast Wars (BW-3, BW-6): discards piling up over chained battles until the reshuffle.
- Cardline (CL-5): finishers over chained rounds, eliminations accumulating.

Every expected number is derived in a comment from the fixed deal.
"""

from __future__ import annotations

import numpy as np
import pytest

from cardarena.envs import beast_wars_v0, ironman_war_v0, promise_war_v0
from cardarena.envs.beast_wars.rules import CALLED_OFF, NO_PIECE
from cardarena.envs.cardline.rules import make_game as make_cardline
from cardarena.envs.ironman_war.rules import (
    COMMIT,
    CONCEDE,
    KINDS,
    PLAY_OR_CONCEDE,
    SHIELD_BASE,
    SHIELD_TARGET,
    STANDOFF_PLAY,
)
from cardarena.envs.promise_war.rules import TIEBREAK, TRICK

# --- Promise War ------------------------------------------------------------------------------
POWERS = 11  # max_power 10


def pw_env(decks):
    env = promise_war_v0.raw_env(num_players=len(decks))
    env.reset(options={"decks": [list(deck) for deck in decks]})
    return env


def pw_step(env, *moves):
    """Apply (seat, power) moves, checking that each seat is the one asked."""
    for seat, power in moves:
        assert env.agent_selection == f"player_{seat}"
        assert env.game_state.current_player() == seat
        env.step(power)


def pw_counts(cards):
    return np.bincount(np.asarray(cards, dtype=np.int64), minlength=POWERS).tolist()


def pw_public(state):
    """The public table in absolute seat order, read from the rules state."""
    live = not (state.is_terminal() or state.is_truncated())
    n = state.num_players
    return {
        "hand_sizes": list(state.hand_sizes),
        "deck_sizes": list(state.deck_sizes),
        "victory_sizes": list(state.victory_sizes),
        "sitting_out": [int(x) for x in state.sitting_out],
        "has_picked": [int(x) for x in state.has_picked],
        "pot_face_down": list(state.pot_face_down_by_player),
        "in_contest": [int(live and seat in state.contenders) for seat in range(n)],
        "last_revealed": list(state.last_revealed),
        "revealed": state.revealed.tolist(),
        "pot_face_up": state.pot_face_up.tolist(),
        "phase": state.phase,
        "tricks_played": state.tricks_played,
    }


def assert_pw_table(env, expected):
    """``expected`` (absolute seats) must be the rules state's public table and what every
    seat's observation shows, rotated so the observer comes first."""
    state = env.game_state
    public = pw_public(state)
    for key, value in expected.items():
        assert public[key] == value, (key, public[key], value)
    n = state.num_players
    live = not (state.is_terminal() or state.is_truncated())
    for seat in range(n):
        view = env.layout.view(env.observe(f"player_{seat}")["observation"])
        order = [(seat + k) % n for k in range(n)]
        for key in ("hand_sizes", "deck_sizes", "victory_sizes", "sitting_out", "has_picked",
                    "pot_face_down", "in_contest"):  # fmt: skip
            if key in expected:
                assert view[key].tolist() == [expected[key][s] for s in order], (seat, key)
        if "last_revealed" in expected:
            for rel, other in enumerate(order):
                power = expected["last_revealed"][other]
                row = view["last_revealed"][rel]
                assert row.tolist() == (np.eye(POWERS)[power] if power >= 0 else row * 0).tolist()
        if "revealed" in expected:
            assert view["revealed"].tolist() == [expected["revealed"][s] for s in order]
        if "pot_face_up" in expected:
            assert view["pot_face_up"].tolist() == expected["pot_face_up"]
        if "phase" in expected:
            assert view["phase"].tolist() == np.eye(2)[expected["phase"]].tolist()
            in_tiebreak = live and expected["phase"] == TIEBREAK and seat in state.contenders
            assert view["you_in_tiebreak"][0] == in_tiebreak
        if "tricks_played" in expected:
            assert view["tricks_played"][0] == expected["tricks_played"]


#: player_0 and player_1 tie three times (5 5, 9 9, 7 7), then 8 beats 6; player_2 plays 3 in
#: the trick and waits. Hands are the top three cards.
CHAIN = ([5, 1, 1, 9, 2, 7, 3, 3, 8, 4], [5, 1, 1, 9, 2, 7, 4, 4, 6, 1], [3, 1, 1, 2])


def test_pw4_public_counts_after_a_first_and_a_second_chained_tiebreak_in_state_and_views():
    env = pw_env(CHAIN)
    pw_step(env, (0, 5), (1, 5), (2, 3))
    # First tiebreak: only the tied players draw back up to 3 (p0, p1: {1, 1} + 9; decks 7 -> 6);
    # player_2 keeps {1, 1}. Nothing face down yet; the trick's 5 5 3 lie face up.
    assert_pw_table(env, {
        "hand_sizes": [3, 3, 2], "deck_sizes": [6, 6, 1], "victory_sizes": [0, 0, 0],
        "has_picked": [0, 0, 0], "pot_face_down": [0, 0, 0], "in_contest": [1, 1, 0],
        "last_revealed": [5, 5, 3], "pot_face_up": pw_counts([5, 5, 3]),
        "revealed": [pw_counts([5]), pw_counts([5]), pw_counts([3])],
        "phase": TIEBREAK, "tricks_played": 0,
    })  # fmt: skip
    pw_step(env, (0, 9))
    # C-3: the pick is hidden; the face-down cards go to the pot only at the reveal.
    assert_pw_table(
        env,
        {
            "has_picked": [1, 0, 0],
            "pot_face_down": [0, 0, 0],
            "hand_sizes": [2, 3, 2],
            "pot_face_up": pw_counts([5, 5, 3]),
        },
    )
    pw_step(env, (1, 9))
    # Second tiebreak: each put 1 1 face down (2 each); 9 9 join the face-up pot; both tied
    # players had empty hands and drew 3 fresh cards (p0: 2 7 3, p1: 2 7 4; decks 6 -> 3).
    # player_2 revealed nothing in the tiebreak, so its last reveal is cleared.
    assert_pw_table(env, {
        "hand_sizes": [3, 3, 2], "deck_sizes": [3, 3, 1], "victory_sizes": [0, 0, 0],
        "has_picked": [0, 0, 0], "pot_face_down": [2, 2, 0], "in_contest": [1, 1, 0],
        "last_revealed": [9, 9, -1], "pot_face_up": pw_counts([5, 5, 3, 9, 9]),
        "revealed": [pw_counts([5, 9]), pw_counts([5, 9]), pw_counts([3])],
        "phase": TIEBREAK, "tricks_played": 0,
    })  # fmt: skip
    pw_step(env, (0, 7), (1, 7))
    # Third tiebreak: face-down counts accumulate (2 + 2 each: p0 2 3, p1 2 4), the face-up pot
    # grows by 7 7; the last draws empty both decks (p0: 3 8 4, p1: 4 6 1).
    assert_pw_table(env, {
        "hand_sizes": [3, 3, 2], "deck_sizes": [0, 0, 1], "victory_sizes": [0, 0, 0],
        "pot_face_down": [4, 4, 0], "in_contest": [1, 1, 0], "last_revealed": [7, 7, -1],
        "pot_face_up": pw_counts([5, 5, 3, 9, 9, 7, 7]),
        "revealed": [pw_counts([5, 9, 7]), pw_counts([5, 9, 7]), pw_counts([3])],
        "phase": TIEBREAK, "tricks_played": 0,
    })  # fmt: skip
    assert sorted(env.game_state.pot_face_down) == [1, 1, 1, 1, 2, 2, 3, 4]  # hidden powers
    pw_step(env, (0, 8), (1, 6))
    # 8 beats 6: player_0 takes 7 + 2 face up and 4 + 4 + 2 + 2 face down = 21 cards; the trick
    # (with its three tiebreaks) counts once (PW-7). PW-5: player_2 draws its last card;
    # players 0 and 1 are empty and sit out, so the game ends (PW-6).
    state = env.game_state
    assert_pw_table(env, {
        "hand_sizes": [0, 0, 3], "deck_sizes": [0, 0, 0], "victory_sizes": [21, 0, 0],
        "pot_face_down": [0, 0, 0], "in_contest": [0, 0, 0], "last_revealed": [8, 6, -1],
        "pot_face_up": [0] * POWERS, "sitting_out": [1, 1, 0], "tricks_played": 1,
    })  # fmt: skip
    face_up = [5, 5, 3, 9, 9, 7, 7, 8, 6]
    face_down = [*(1, 1, 1, 1), *(2, 3, 2, 4), *(3, 4, 4, 1)]  # tiebreaks 1, 2, 3
    assert state.victory[0].tolist() == pw_counts(face_up + face_down)
    assert state.is_terminal() and env.rewards == {"player_0": 1, "player_1": -1, "player_2": -1}
    assert state.card_counts().sum() == sum(map(len, CHAIN))


def test_pw4_a_tied_player_out_of_cards_mid_chain_drops_out_and_the_other_takes_the_pot():
    # Trick 5 5: player_0 draws its last card (9); tiebreak 9 9, both put 1 1 face down.
    # Second tiebreak: player_0 has no card left and drops out; player_1 (drew 2 2 2) takes the
    # pot, 5 5 9 9 + 1 1 1 1 = 8 cards, without playing (PW-4), and keeps 2 2 2.
    env = pw_env(([5, 1, 1, 9], [5, 1, 1, 9, 2, 2, 2]))
    pw_step(env, (0, 5), (1, 5))
    assert_pw_table(env, {"hand_sizes": [3, 3], "deck_sizes": [0, 3], "phase": TIEBREAK})
    pw_step(env, (0, 9), (1, 9))
    state = env.game_state
    assert_pw_table(env, {"victory_sizes": [0, 8], "pot_face_down": [0, 0],
                          "pot_face_up": [0] * POWERS, "hand_sizes": [0, 3],
                          "sitting_out": [1, 0], "tricks_played": 1})  # fmt: skip
    assert state.victory[1].tolist() == pw_counts([5, 5, 9, 9, 1, 1, 1, 1])
    assert state.hands[1].tolist() == pw_counts([2, 2, 2])
    assert state.is_terminal() and state.returns() == (-1.0, 1.0)


def test_pw4_a_three_way_tie_narrowing_to_two_keeps_the_dropped_players_face_down_cards():
    # Trick 4 4 4: all three tie and draw (p0 +8, p1 +6, p2 +8). Tiebreak: 8 8 beat 6, so p1
    # drops out of the chain; its 1 1 stay face down in the pot. p0 and p2 draw 3 more.
    env = pw_env(([4, 1, 1, 8, 9, 2, 2], [4, 1, 1, 6, 3, 3], [4, 1, 1, 8, 7, 5, 5]))
    pw_step(env, (0, 4), (1, 4), (2, 4))
    assert_pw_table(env, {"in_contest": [1, 1, 1], "hand_sizes": [3, 3, 3],
                          "deck_sizes": [3, 2, 3]})  # fmt: skip
    pw_step(env, (0, 8), (1, 6), (2, 8))
    assert_pw_table(env, {
        "in_contest": [1, 0, 1], "hand_sizes": [3, 0, 3], "deck_sizes": [0, 2, 0],
        "pot_face_down": [2, 2, 2], "last_revealed": [8, 6, 8],
        "pot_face_up": pw_counts([4, 4, 4, 8, 6, 8]), "phase": TIEBREAK,
    })  # fmt: skip
    pw_step(env, (0, 9), (2, 7))
    # p0 takes 6 face up + 9 7 + 6 face down (2 each from the first tiebreak) + p0's 2 2 and
    # p2's 5 5 = 18; PW-5: p1 draws its last 2 cards (3 3), the others are empty.
    assert_pw_table(
        env,
        {
            "victory_sizes": [18, 0, 0],
            "pot_face_down": [0, 0, 0],
            "hand_sizes": [0, 2, 0],
            "phase": TRICK,
            "tricks_played": 1,
        },
    )
    assert env.game_state.is_terminal()  # only player_1 can play: the game ends (PW-6)


# --- Iron Man ---------------------------------------------------------------------------------
A1, A2, A3, A4, A5, UP, SH, FA = range(8)
IM, WM = 0, 1


def im_env(iron, war, deck_iron=(A1,) * 10, deck_war=(A1,) * 10):
    env = ironman_war_v0.raw_env()
    names = [[KINDS[k] for k in cards] for cards in (iron, war, deck_iron, deck_war)]
    env.reset(options={"hands": {"iron_man": names[0], "war_machine": names[1]},
                       "decks": {"iron_man": names[2], "war_machine": names[3]}})  # fmt: skip
    return env


def im_do(env, seat, decision, *actions):
    for action in actions:
        state = env.game_state
        assert (state.current_player(), state.decision) == (seat, decision)
        env.step(action)


def im_mask(env, seat):
    return np.flatnonzero(env.observe(env.possible_agents[seat])["action_mask"]).tolist()


def test_im8_shield_against_a_lone_final_attack_is_asked_and_discards_it():
    """IM-8 / D-7: the shield may hit any opposing card, special cards included, so with only a
    FINAL ATTACK opposite the owner is asked (C-2, one target) and it is discarded."""
    env = im_env([A1, A1, A1, SH], [FA, A1, A1, A2])
    im_do(env, IM, COMMIT, A1, A1, A1)
    im_do(env, WM, COMMIT, FA, A1, A1)
    state = env.game_state
    assert state.battle_totals == [1, 6]  # IM-5: FINAL ATTACK is 6
    im_do(env, IM, PLAY_OR_CONCEDE, SH)
    assert im_mask(env, IM) == [SHIELD_BASE + FA] and im_mask(env, WM) == []
    view = env.layout.view(env.observe("iron_man")["observation"])
    assert view["decision"].tolist() == [0, 0, 0, 1]
    im_do(env, IM, SHIELD_TARGET, SHIELD_BASE + FA)
    # 1 (2 cards) vs 0 (0 cards): iron_man leads, war_machine must play or concede (IM-6)
    assert state.battle_totals == [1, 0] and state.battle_card_counts == [2, 0]
    assert state.discards[WM].tolist() == np.eye(8, dtype=int)[FA].tolist()
    assert (state.current_player(), state.decision) == (WM, PLAY_OR_CONCEDE)
    assert im_mask(env, WM) == [A2, CONCEDE]


@pytest.mark.parametrize(
    ("target", "totals", "counts", "next_up"),
    [
        # hitting FINAL ATTACK leaves the lone UPGRADE: 0 (1 card) vs 1 (2): iron_man leads
        (FA, [1, 0], [2, 1], WM),
        # hitting UPGRADE removes the doubling (D-7): 6 (1 card) vs 1: iron_man still behind
        (UP, [1, 6], [2, 1], IM),
    ],
)
def test_im8_d7_shield_against_upgrade_plus_final_attack_offers_both_and_each_hit_counts(
    target, totals, counts, next_up
):
    env = im_env([A1, A1, A1, A1, SH], [UP, A1, A1, FA, A2])
    im_do(env, IM, COMMIT, A1, A1, A1)
    im_do(env, WM, COMMIT, UP, A1, A1)
    im_do(env, WM, PLAY_OR_CONCEDE, FA)  # 1 vs 0 (1 card): war_machine plays FA: 12 vs 1
    state = env.game_state
    assert state.battle_totals == [1, 12]
    im_do(env, IM, PLAY_OR_CONCEDE, SH)
    assert im_mask(env, IM) == [SHIELD_BASE + UP, SHIELD_BASE + FA]
    im_do(env, IM, SHIELD_TARGET, SHIELD_BASE + target)
    assert state.battle_totals == totals and state.battle_card_counts == counts
    assert state.discards[WM, target] == 1 and state.battle_cards[WM, target] == 0
    assert (state.current_player(), state.decision) == (next_up, PLAY_OR_CONCEDE)


def test_im9_d6_a_shield_revealed_with_a_lone_special_cancels_and_offers_no_target():
    """D-6: a shield revealed together with a special card cancels with it (IM-9): even
    though that special would be the only target, nobody is asked for a target."""
    env = im_env([SH, A1, A1, A2], [FA, A1, A1, A3])
    im_do(env, IM, COMMIT, SH, A1, A1)
    im_do(env, WM, COMMIT, FA, A1, A1)
    state = env.game_state
    assert state.battle_cards.sum() == 0 and state.discards.sum(axis=1).tolist() == [1, 1]
    assert (state.current_player(), state.decision) == (IM, STANDOFF_PLAY)
    assert SHIELD_BASE + FA not in im_mask(env, IM)


def test_d10_cancels_chained_in_one_standoff_pile_up_in_the_discards():
    """IM-9 / D-10: three cancels in a row in the same battle each discard both specials; the
    standoff goes on with the counts of the cards still in the battle."""
    env = im_env([A3, A1, A1, FA, FA, SH, A2], [A3, A1, A1, UP, UP, SH, A2])
    im_do(env, IM, COMMIT, A3, A1, A1)
    im_do(env, WM, COMMIT, A3, A1, A1)
    state = env.game_state
    for cancel, (mine, theirs) in enumerate([(FA, UP), (FA, UP), (SH, SH)], start=1):
        im_do(env, IM, STANDOFF_PLAY, mine)
        im_do(env, WM, STANDOFF_PLAY, theirs)  # both special: cancel, no shield question (D-6)
        assert state.discards.sum(axis=1).tolist() == [cancel, cancel]
        assert state.battle_totals == [3, 3] and state.battle_card_counts == [1, 1]
    one_hot = np.eye(8, dtype=int)
    assert state.discards[IM].tolist() == one_hot[[FA, FA, SH]].sum(0).tolist()
    assert state.discards[WM].tolist() == one_hot[[UP, UP, SH]].sum(0).tolist()
    for seat in (IM, WM):
        view = env.layout.view(env.observe(env.possible_agents[seat])["observation"])
        assert view["discard_sizes"].tolist() == [3, 3]
        assert view["discards"].sum(axis=1).tolist() == [3, 3]
        assert view["battle_card_counts"].tolist() == [1, 1]
        assert view["last_reveal"][0, SH] == 1 and view["last_reveal"][1, SH] == 1
    im_do(env, IM, STANDOFF_PLAY, A2)
    im_do(env, WM, STANDOFF_PLAY, A2)  # 5 vs 5, 2 cards each, no cards left: a draw (IM-7)
    assert state.previous_results == [2, 2, 2] and state.round == 2


def test_im6_concede_is_offered_exactly_when_losing():
    """IM-6: concede (8) is in the mask only for the losing player; a standoff pick never
    offers it, a shield question never offers it."""
    env = im_env([A1, A2, A3, SH, A1], [A2, A2, A3, A5])
    im_do(env, IM, COMMIT, A1, A2, A3)
    assert CONCEDE not in im_mask(env, IM)  # commits: no concede
    im_do(env, WM, COMMIT, A2, A2, A3)
    assert im_mask(env, IM) == [A1, SH, CONCEDE]  # 1 vs 2: losing
    im_do(env, IM, PLAY_OR_CONCEDE, SH)
    assert CONCEDE not in im_mask(env, IM)  # shield question
    im_do(env, IM, SHIELD_TARGET, SHIELD_BASE + A2)  # 1 (2 cards) vs 0: iron_man leads
    assert im_mask(env, WM) == [A5, CONCEDE]
    im_do(env, WM, PLAY_OR_CONCEDE, CONCEDE)
    # battle 2: 2 vs 2, 1 card each: a standoff pick, no concede
    assert env.game_state.decision == STANDOFF_PLAY and CONCEDE not in im_mask(env, IM)


# --- Beast Wars -------------------------------------------------------------------------------
def test_bw3_bw6_discards_accumulate_over_chained_called_off_battles_then_reshuffle():
    """Two face-to-face characters with equal numbers in every colour call off every basic
    battle (BW-6): nothing moves and each battle adds its two cards to the discard pile,
    until the deck runs out and the pile is reshuffled (BW-3), in state and both views."""
    same = (5, 5, 5, 5)
    rows = [{"faction": f, "name": f"{f} {i}", **dict(zip(
        [f"{face}_{c}" for face in ("beast", "robot") for c in ("red", "blue", "gold", "green")],
        same + same, strict=True))} for f in ("maximal", "predacon") for i in range(3)]  # fmt: skip
    deck = ["red:basic", "blue:basic", "gold:basic", "green:basic", "red:energon",
            "red:energon"]  # fmt: skip
    env = beast_wars_v0.raw_env(team_size=3, characters=rows)
    env.reset(seed=0, options={"teams": {"maximal": [0, 1, 2], "predacon": [0, 1, 2]},
                               "battle_deck": deck, "first_player": "maximal"})  # fmt: skip
    state = env.game_state
    # maximal's column 1 walks up to row 2, facing predacon's column 1 on row 3
    env.step(1 * 4 + 0)  # maximal: cell 1 up to 4
    env.step(10 * 4 + 2)  # predacon: cell 10 down to 7
    for battle in range(1, 3):
        attacker = 4 if battle % 2 else 7
        env.step(48 + attacker * 4 + (0 if attacker == 4 else 2))
        assert state.last_battle.outcome == CALLED_OFF
        assert state.board[4] != NO_PIECE and state.board[7] != NO_PIECE
        assert int(state.discards.sum()) == 2 * battle and state.deck_size == 6 - 2 * battle
        for agent in env.possible_agents:
            view = env.layout.view(env.observe(agent)["observation"])
            assert view["discards"].sum() == 2 * battle and view["deck"].sum() == 6 - 2 * battle
            assert view["battle_winner"].sum() == 0  # a called-off battle has no winner
    env.step(48 + 4 * 4 + 0)  # third battle: 5 + 1 vs 5 + 1, called off; deck now empty
    assert state.deck_size == 0 and int(state.discards.sum()) == 6
    env.step(48 + 7 * 4 + 2)  # fourth: the six discards are shuffled into a new deck first
    assert state.deck_size == 4 and int(state.discards.sum()) == 2
    assert state.battle_cards_total() == 6


# --- Cardline ---------------------------------------------------------------------------------
#: Rows not in value order (CL-1 warns otherwise).
CL_VALUES = {
    "Newt": 140,
    "Ant": 10,
    "Bee": 20,
    "Cat": 30,
    "Dog": 40,
    "Eel": 50,
    "Fox": 60,
    "Gnu": 70,
    "Hen": 80,
    "Ibis": 90,
    "Jay": 100,
    "Kiwi": 110,
    "Lynx": 120,
    "Mole": 130,
}
DECK = [{"name": name, "colour": "x", "v": value} for name, value in CL_VALUES.items()]


def test_cl5_eliminations_accumulate_over_chained_rounds_of_several_finishers():
    """Round 1: three finish, the fourth is eliminated. Round 2: two of the three finish
    again, so the third is eliminated too and the first eliminated is not asked again.
    Round 3: one finishes and wins; the two eliminated lose with the last one (CL-7)."""
    game = make_cardline(num_players=4, hand_size=2, deck=DECK)
    state = game.new_initial_state(np.random.default_rng(0), {
        "hands": [["Ant"], ["Bee"], ["Dog"], ["Eel", "Jay"]], "initial_card": "Cat",
        "draw_pile": ["Fox", "Gnu", "Hen", "Ibis", "Kiwi", "Lynx", "Mole", "Newt"],
        "characteristic": "v", "first_player": 0,
    })  # fmt: skip
    gaps = game.num_gaps

    def place(seat, gap, slot=0):
        assert state.current_player() == seat
        state.apply_action(slot * gaps + gap)
        return state.last_right[seat]

    def hands():
        return [[game.names[card] for card in hand] for hand in state.hands]

    assert place(0, 0) and place(1, 1) and place(2, 3)  # Ant Bee Cat Dog
    assert not place(3, 0, slot=1)  # Jay left of Ant: wrong, to the box; draws Fox
    # three finishers: player_3 is eliminated (Eel Fox to the box), the others draw in turn
    assert state.eliminated == [False, False, False, True]
    assert hands() == [["Gnu"], ["Hen"], ["Ibis"], []]
    assert state.order == [0, 1, 2] and state.correct == [1, 1, 1, 0]
    assert place(0, 4)  # Gnu at the right end
    assert not place(1, 0)  # Hen at the left end: wrong; draws Kiwi
    assert place(2, 5)  # Ibis at the right end
    assert state.eliminated == [False, True, False, True]
    assert hands() == [["Lynx"], [], ["Mole"], []]  # Kiwi went to the box with player_1
    assert state.order == [0, 2] and state.correct == [2, 1, 2, 0]
    assert sorted(game.names[c] for c in state.box) == ["Eel", "Fox", "Hen", "Jay", "Kiwi"]
    assert place(0, 6)  # Lynx at the right end: player_0 finishes
    assert not place(2, 0)  # Mole at the left end: wrong
    assert state.is_terminal() and state.returns() == (1.0, -1.0, -1.0, -1.0)
    assert state.correct == [3, 1, 2, 0]
