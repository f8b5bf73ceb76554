"""Issue 16, point 9: the heuristics' estimates and choices on hand-built positions.

The heuristics are the ladder's yardstick; playing legally and beating random says little about
whether their numbers are right. Here every estimate is checked against a value worked out by
hand or by brute force, the brute force running the *rules* (clones of the real state) rather
than the heuristic's own formula, and every choice is checked on a position whose right move
is clear. Positions are reached through reset options and real steps, so the heuristic reads
the same observation a game would give it, from either seat.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest

from cardarena.agents import EnvSpec
from cardarena.agents.heuristics.beast_wars import BeastWarsStrategy, Board, Odds, draw_chances
from cardarena.agents.heuristics.cardline import CardlineStrategy
from cardarena.agents.heuristics.ironman_war import (
    IronManStrategy,
    battle_worth,
    round_value,
    shield_target,
    standing,
    total,
)
from cardarena.agents.heuristics.promise_war import PromiseWarStrategy
from cardarena.envs import make_raw
from cardarena.envs.beast_wars.rules import ATTACKER, CALLED_OFF, DEFENDER, NUM_CARD_KINDS
from cardarena.envs.ironman_war.rules import (
    CONCEDE,
    KINDS,
    NUM_KINDS,
    SHIELD_BASE,
    SHIELD_TARGET,
    battle_total,
)
from cardarena.envs.promise_war.rules import TIEBREAK

_integrate = getattr(np, "trapezoid", None) or np.trapz


def observe(env, seat: int):
    return env.observe(env.possible_agents[seat])


# --- Promise War ------------------------------------------------------------------------------
PW_DECKS = [[7, 2, 9, 1, 4, 4, 8, 3], [5, 6, 1, 10, 2, 2, 7, 3], [3, 3, 8, 1, 9, 6, 6, 2]]


def pw_position(decks, moves, num_players=None):
    config = {"num_players": num_players or len(decks), "decks": [sorted(d) for d in decks]}
    env = make_raw("promise_war_v0", **config)
    env.reset(options={"decks": [list(d) for d in decks]})
    for power in moves:
        env.step(power)
    return env, EnvSpec("promise_war_v0", config)


def pw_brute_force_chances(state, seat, cards):
    """P(every opponent in the contest plays lower) and P(the highest equals the card), each
    opponent's card a uniform draw from its deck minus the cards it has shown face up."""
    pools = []
    for other in state.contenders:
        if other == seat:
            continue
        pool = Counter(state.game.decks[other])
        for power in np.repeat(np.arange(len(state.revealed[other])), state.revealed[other]):
            pool[int(power)] -= 1
        pools.append(list(pool.elements()))
    combos = list(itertools.product(*pools))
    win = [sum(max(c) < card for c in combos) / len(combos) for card in cards]
    tie = [sum(max(c) == card for c in combos) / len(combos) for card in cards]
    return np.array(win), np.array(tie)


def test_pw_win_and_tie_chances_match_brute_force_for_every_seat_and_card():
    """Three players with different decks, after one trick (7 5 3): each seat's estimate
    counts the cards the *right* opponent has shown (a rotation error would swap decks)."""
    env, spec = pw_position(PW_DECKS, [7, 5, 3])
    state = env.game_state
    for seat in range(3):
        strategy = PromiseWarStrategy(spec)
        strategy.start_game(env.possible_agents[seat], np.random.default_rng(0))
        view = strategy.layout.view(observe(env, seat)["observation"])
        cards = np.arange(11)
        win, tie = strategy.chances(view, cards)
        expected_win, expected_tie = pw_brute_force_chances(state, seat, cards)
        np.testing.assert_allclose(win, expected_win, atol=1e-12)
        np.testing.assert_allclose(tie, expected_tie, atol=1e-12)


def test_pw_a_sure_win_is_played_with_the_cheapest_card_that_makes_it():
    """player_1 has shown 10 9 8 and holds only cards up to 4 unseen; player_0 holds 3 5 9.
    3 may meet a 4 or tie a 3; 5 beats everything left: play 5, not 9."""
    decks = [[1, 1, 1, 3, 5, 9, 2, 2], [10, 9, 8, 4, 3, 1, 1, 2]]
    env, spec = pw_position(decks, [1, 10, 1, 9, 1, 8])
    state = env.game_state
    assert sorted(np.repeat(np.arange(11), state.hands[0]).tolist()) == [3, 5, 9]
    assert state.current_player() == 0
    strategy = PromiseWarStrategy(spec)
    strategy.start_game("player_0", np.random.default_rng(0))
    view = strategy.layout.view(observe(env, 0)["observation"])
    win, tie = strategy.chances(view, np.array([3, 5, 9]))
    assert win == pytest.approx([0.6, 1.0, 1.0])  # unseen 4 3 1 1 2: 3 beats 1 1 2 (3 of 5)
    assert tie == pytest.approx([0.2, 0.0, 0.0])
    for seed in range(5):
        assert strategy.act(observe(env, 0), np.random.default_rng(seed)) == 5


def test_pw_a_card_that_may_tie_is_not_a_sure_win():
    """player_1's deck is 1 1 5. player_0's 5 wins 2/3 and ties 1/3 (ties count half: 5/6,
    below the threshold 1 with one opponent), so the sure win is the 7, not the 5."""
    env, spec = pw_position([[5, 7, 2, 1], [1, 1, 5]], [])
    strategy = PromiseWarStrategy(spec)
    strategy.start_game("player_0", np.random.default_rng(0))
    view = strategy.layout.view(observe(env, 0)["observation"])
    win, tie = strategy.chances(view, np.array([2, 5, 7]))
    assert win == pytest.approx([2 / 3, 2 / 3, 1.0]) and tie == pytest.approx([0, 1 / 3, 0])
    for seed in range(3):
        assert strategy.act(observe(env, 0), np.random.default_rng(seed)) == 7


def test_pw_a_trick_that_cannot_be_won_gets_the_lowest_card():
    """player_1's deck is all 10s: nothing player_0 holds (2 6 9) wins or ties; throw the 2."""
    env, spec = pw_position([[2, 6, 9, 1], [10, 10, 10, 10]], [])
    strategy = PromiseWarStrategy(spec)
    strategy.start_game("player_0", np.random.default_rng(0))
    view = strategy.layout.view(observe(env, 0)["observation"])
    win, tie = strategy.chances(view, np.array([2, 6, 9]))
    assert win.tolist() == [0.0, 0.0, 0.0] and tie.tolist() == [0.0, 0.0, 0.0]
    for seed in range(3):
        assert strategy.act(observe(env, 0), np.random.default_rng(seed)) == 2


def test_pw_a_tiebreak_gets_the_best_card_from_either_tied_seat():
    """In a tiebreak only the face-up card counts (PW-4): both tied seats play their highest."""
    decks = [[5, 1, 1, 9, 2, 2], [5, 1, 1, 4, 3, 3]]
    env, spec = pw_position(decks, [5, 5])
    assert env.game_state.phase == TIEBREAK
    for seat, best in ((0, 9), (1, 4)):
        strategy = PromiseWarStrategy(spec)
        strategy.start_game(env.possible_agents[seat], np.random.default_rng(0))
        assert strategy.act(observe(env, seat), np.random.default_rng(1)) == best
        if seat == 0:
            env.step(9)


# --- Iron Man ---------------------------------------------------------------------------------
A1, A2, A3, A4, A5, UP, SH, FA = range(8)
IM, WM = 0, 1


def test_im_total_and_standing_agree_with_the_rules_on_every_small_battle():
    """IM-5 by brute force: every battle of 0..2 cards per kind, the heuristic's total equals
    the rules' ``battle_total`` and its standing says 'leading' exactly when IM-5 does."""
    rng = np.random.default_rng(0)
    vectors = [np.array(v) for v in itertools.product(range(3), repeat=NUM_KINDS)]
    for cards in vectors:
        assert total(cards) == battle_total(cards)
    for _ in range(3000):
        mine, theirs = (vectors[i] for i in rng.integers(len(vectors), size=2))
        a, b = battle_total(mine), battle_total(theirs)
        leads = a > b or (a == b and mine.sum() > theirs.sum())
        assert (standing(mine, theirs) > (0, 0)) == leads
        assert (standing(mine, theirs) == (0, 0)) == (a == b and mine.sum() == theirs.sum())


def test_im_shield_target_is_the_hit_that_leaves_the_owner_best_placed():
    """Brute force over every opposing card (IM-5 standing after the hit, from the shield
    owner's side), on random battles including special-only sides."""
    rng = np.random.default_rng(1)
    for _ in range(2000):
        mine = rng.integers(0, 3, NUM_KINDS)
        theirs = rng.integers(0, 2, NUM_KINDS)
        if not theirs.any():
            assert shield_target(mine, theirs) is None
            continue
        outcomes = {}
        for kind in np.flatnonzero(theirs):
            after = theirs.copy()
            after[kind] -= 1
            score = (battle_total(mine) - battle_total(after), mine.sum() - after.sum())
            outcomes[int(kind)] = score
        best = max(outcomes.values())
        assert outcomes[shield_target(mine, theirs)] == best


@pytest.mark.parametrize(
    ("won", "lost", "value"),
    # IM-11 from one side: win 2 of 3 and more than the other: +1; all 3: +2; the mirror
    # images lose as much; 1 win + 2 draws (or 1-1) moves nobody.
    [
        (0, 0, 0),
        (1, 0, 0),
        (1, 1, 0),
        (2, 0, 1),
        (2, 1, 1),
        (3, 0, 2),
        (0, 2, -1),
        (1, 2, -1),
        (0, 3, -2),
    ],
)
def test_im_round_value_is_im11_seen_from_one_side(won, lost, value):
    assert round_value(won, lost) == value


@pytest.mark.parametrize(
    ("battle", "won", "lost", "worth"),
    [
        # last battle at 1-1: winning it is +1, losing it -1
        (2, 1, 1, 2.0),
        # last battle at 2-0: 3-0 (+2) or 2-1 (+1); at 0-2: 1-2 (-1) or 0-3 (-2)
        (2, 2, 0, 1.0),
        (2, 0, 2, 1.0),
        # second battle at 1-0, the last a coin flip: win: 3-0 or 2-1 (+2, +1: 1.5);
        # lose: 2-1 or 1-2 (+1, -1: 0)
        (1, 1, 0, 1.5),
        # first battle, two coin flips left: win: -1, +1, +1, +2 (0.75); lose: -2, -1, -1, +1
        # (-0.75)
        (0, 0, 0, 1.5),
    ],
)
def test_im_battle_worth_matches_hand_counted_round_outcomes(battle, won, lost, worth):
    assert battle_worth(battle, won, lost) == pytest.approx(worth)


def im_position(iron, war, commits, moves=(), deck_iron=(A1,) * 10, deck_war=(A1,) * 10):
    env = make_raw("ironman_war_v0")
    names = [[KINDS[k] for k in cards] for cards in (iron, war, deck_iron, deck_war)]
    env.reset(options={"hands": {"iron_man": names[0], "war_machine": names[1]},
                       "decks": {"iron_man": names[2], "war_machine": names[3]}})  # fmt: skip
    for action in (*commits, *moves):
        env.step(action)
    return env


def im_strategy(seat: int) -> IronManStrategy:
    strategy = IronManStrategy(EnvSpec("ironman_war_v0", {}))
    strategy.start_game(("iron_man", "war_machine")[seat], np.random.default_rng(0))
    return strategy


def best_targets_by_the_rules(env):
    """Every legal target whose hit leaves the shield owner best placed: the IM-5 standing
    (total difference, then card count difference) computed with the rules' ``battle_total``
    from the state's battle cards, in absolute seats, after removing that target."""
    state = env.game_state
    owner = state.current_player()
    mine = state.battle_cards[owner]
    scores = {}
    for action in np.flatnonzero(state.legal_action_mask()).tolist():
        theirs = state.battle_cards[1 - owner].copy()
        theirs[action - SHIELD_BASE] -= 1
        scores[action] = (battle_total(mine) - battle_total(theirs), mine.sum() - theirs.sum())
    best = max(scores.values())
    return {action for action, score in scores.items() if score == best}, scores


@pytest.mark.parametrize("owner", [IM, WM])
def test_im_shield_choice_against_special_cards_only_hits_the_final_attack_from_either_seat(owner):
    """The opponent's battle holds only UPGRADE + FINAL ATTACK (12). Hitting FINAL ATTACK leaves
    0 against the owner's 1 (a lead); hitting UPGRADE leaves 6 (still behind). The shield owner
    is iron_man or war_machine: the choice must be scored from the owner's side."""
    if owner == IM:
        env = im_position([A1, A1, A1, A1, SH], [UP, A1, A1, FA, A2],
                          [A1, A1, A1, UP, A1, A1], [FA, SH])  # fmt: skip
    else:  # mirror image: iron_man flips the UPGRADE; war_machine commits after it
        env = im_position([UP, A1, A1, FA, A2], [A1, A1, A1, A1, SH],
                          [UP, A1, A1, A1, A1, A1], [FA, SH])  # fmt: skip
    state = env.game_state
    assert (state.current_player(), state.decision) == (owner, SHIELD_TARGET)
    best, scores = best_targets_by_the_rules(env)
    assert best == {SHIELD_BASE + FA} and set(scores) == {SHIELD_BASE + UP, SHIELD_BASE + FA}
    strategy = im_strategy(owner)
    for seed in range(5):
        assert strategy.act(observe(env, owner), np.random.default_rng(seed)) == SHIELD_BASE + FA


def test_im_shield_choice_matches_the_rules_brute_force_in_random_games():
    """Every SHIELD_TARGET question of 150 random games (either seat): the heuristic's choice
    is one of the targets that leave its owner best placed according to the rules."""
    env = make_raw("ironman_war_v0")
    rng = np.random.default_rng(3)
    strategies = [im_strategy(IM), im_strategy(WM)]
    asked = 0
    for seed in range(150):
        env.reset(seed=seed)
        state = env.game_state
        while not (state.is_terminal() or state.is_truncated()):
            seat = state.current_player()
            if state.decision == SHIELD_TARGET:
                best, _ = best_targets_by_the_rules(env)
                choice = strategies[seat].act(observe(env, seat), rng)
                assert choice in best
                asked += 1
                env.step(choice)
            else:
                env.step(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))
            state = env.game_state
    assert asked > 20


def test_im_a_losing_player_takes_the_lead_with_the_cheapest_card_that_does_it():
    """Battle 1 at 0-0 (worth 1.5): iron_man trails 1 to 3 and holds 1 3 5: the 1 only ties
    on total (2 vs 3 still behind), 3 leads 4-3 and costs less than 5."""
    env = im_position([A1, A1, A1, A1, A3, A5], [A3, A1, A1, A1], [A1, A1, A1, A3, A1, A1])
    assert env.game_state.battle_totals == [1, 3]
    assert im_strategy(IM).act(observe(env, IM), np.random.default_rng(0)) == A3


def test_im_a_standoff_is_not_a_lead():
    """iron_man (2, 1 card) trails war_machine (1 + 2, 2 cards) holding 1 3. The 1 makes a
    standoff (3 vs 3, 2 cards each), not a lead: the cheapest card that leads is the 3."""
    env = im_position([A2, A1, A1, A1, A3], [A1, A1, A1, A2], [A2, A1, A1, A1, A1, A1], [A2])
    state = env.game_state
    assert state.battle_totals == [2, 3] and state.battle_card_counts == [1, 2]
    assert im_strategy(IM).act(observe(env, IM), np.random.default_rng(0)) == A3


def test_im_catching_up_is_refused_when_it_costs_more_than_the_battle_is_worth():
    """iron_man trails 1 to 12 holding four 3s: all four (1 + 12 = 13) would lead, at a cost
    of 12 against a budget of 1.5 x (3 + 0.6 x 4) = 8.1 (battle 1 at 0-0 is worth 1.5):
    concede and keep the cards."""
    env = im_position([A1, A1, A1, A3, A3, A3, A3], [UP, A1, A1, FA, A2],
                      [A1, A1, A1, UP, A1, A1], [FA])  # fmt: skip
    state = env.game_state
    assert state.battle_totals == [1, 12] and state.current_player() == IM
    assert im_strategy(IM).act(observe(env, IM), np.random.default_rng(0)) == CONCEDE


def test_im_a_hopeless_battle_is_conceded():
    """iron_man trails 1 to 12 (UPGRADE + FINAL ATTACK) holding 1 1: nothing catches up."""
    env = im_position([A1, A1, A1, A1, A1], [UP, A1, A1, FA, A2], [A1, A1, A1, UP, A1, A1], [FA])
    state = env.game_state
    assert state.battle_totals == [1, 12] and state.current_player() == IM
    assert im_strategy(IM).act(observe(env, IM), np.random.default_rng(0)) == CONCEDE


# --- Beast Wars -------------------------------------------------------------------------------
NUMBER_KEYS = [f"{face}_{colour}" for face in ("beast", "robot")
               for colour in ("red", "blue", "gold", "green")]  # fmt: skip


def character(faction, name, beast, robot):
    return {"faction": faction, "name": name, **dict(zip(NUMBER_KEYS, [*beast, *robot],
                                                         strict=True))}  # fmt: skip


CHARACTERS = [
    character("maximal", "Optimus Primal", (5, 10, 7, 3), (7, 8, 8, 3)),
    character("maximal", "Rhinox", (9, 7, 5, 8), (6, 6, 3, 5)),
    character("maximal", "Cheetor", (6, 5, 3, 8), (6, 7, 4, 8)),
    character("predacon", "Megatron", (6, 5, 8, 4), (7, 7, 10, 4)),
    character("predacon", "Inferno", (8, 6, 7, 4), (8, 8, 6, 3)),
    character("predacon", "Waspinator", (5, 3, 4, 6), (7, 5, 4, 7)),
]


def bw_position(deck, moves, first="maximal"):
    """Teams in id order (columns 0, 1, 2), the battle deck fixed, then ``moves``."""
    config = {"team_size": 3, "characters": CHARACTERS}
    env = make_raw("beast_wars_v0", **config)
    env.reset(seed=0, options={"teams": {"maximal": [0, 1, 2], "predacon": [0, 1, 2]},
                               "battle_deck": list(deck), "first_player": first})  # fmt: skip
    for action in moves:
        env.step(action)
    return env, EnvSpec("beast_wars_v0", config)


class _TopCard:
    """Stands in for the rules' generator in a clone: a reshuffle puts ``kind`` on top."""

    def __init__(self, kind: int) -> None:
        self.kind = kind

    def shuffle(self, pile: np.ndarray) -> None:
        index = int(np.flatnonzero(pile == self.kind)[0])
        pile[index], pile[-1] = pile[-1], pile[index]


def bw_brute_force(state, action):
    """(P(attacker wins), P(defender wins), P(called off)) of ``action``, by running the rules
    on a clone for every ordered pair of card kinds the two draws can give, each weighted by
    its chance (top card, then the next; an empty deck reshuffles the discards first)."""
    deck = Counter(state._deck)
    discards = Counter(np.repeat(np.arange(NUM_CARD_KINDS), state.discards).tolist())
    outcomes = np.zeros(3)
    if sum(deck.values()) == 0:
        deck, discards = discards, Counter()
    size = sum(deck.values())
    pairs = []
    if size >= 2:
        for a, b in itertools.product(deck, repeat=2):
            weight = deck[a] * (deck[b] - (a == b)) / (size * (size - 1))
            if weight:
                pairs.append((a, b, weight))
    else:
        (a,) = deck
        rest = sum(discards.values())
        pairs = [(a, b, discards[b] / rest) for b in discards]
    for a, b, weight in pairs:
        trial = state.clone()
        if size >= 2:
            others = list((deck - Counter([a, b])).elements())
            trial._deck = [*others, b, a]  # top card last
        else:
            trial._deck = [a]
            trial._rng = _TopCard(b)
        trial.apply_legal_action(action)
        battle = trial.last_battle
        assert battle.cards == (a, b)
        column = {ATTACKER: 0, DEFENDER: 1}.get(battle.winner, 2)
        assert (column == 2) == (battle.outcome == CALLED_OFF)
        outcomes[column] += weight
    return outcomes


# Rhinox (cell 4) faces Inferno (cell 7): maximal moves 1 up, predacon moves 10 down.
FACE_OFF = [1 * 4 + 0, 10 * 4 + 2]
ATTACK_UP, ATTACK_DOWN = 48 + 4 * 4 + 0, 48 + 7 * 4 + 2
SMALL_DECKS = [
    # 2 cards left: with replacement both could be red; without, one is red and one blue
    ["red:basic", "blue:basic"],
    # five kinds: bonuses, a Mutate (flips the face first) and some equal numbers (called off)
    ["red:basic", "green:energon", "gold:secret_weapon", "blue:mutate", "red:mutate"],
]


@pytest.mark.parametrize("deck", [*SMALL_DECKS, None], ids=["two", "five", "full"])
@pytest.mark.parametrize("attacker", ["maximal", "predacon"])
def test_bw_battle_odds_match_the_rules_run_on_every_draw(deck, attacker):
    """Win and loss chances equal the rules' outcome frequencies over every possible draw;
    a called-off battle (equal numbers) is neither a win nor a loss."""
    if deck is None:
        from cardarena.envs.beast_wars.rules import CARD_NAMES, DEFAULT_DECK

        deck = [CARD_NAMES[k] for k in DEFAULT_DECK]
    moves = FACE_OFF if attacker == "maximal" else FACE_OFF[::-1]
    env, spec = bw_position(deck, moves, first=attacker)
    state = env.game_state
    seat = state.current_player()
    action = ATTACK_UP if seat == 0 else ATTACK_DOWN
    win, lose, called_off = bw_brute_force(state, action)
    strategy = BeastWarsStrategy(spec)
    strategy.start_game(env.possible_agents[seat], np.random.default_rng(0))
    view = strategy.layout.view(observe(env, seat)["observation"])
    board = Board.from_view(view, seat)
    cell, target = (4, 7) if seat == 0 else (7, 4)
    odds = Odds(strategy.numbers, view)
    estimate = odds.chances(int(board.piece[cell]), int(board.face[cell]),
                            int(board.piece[target]), int(board.face[target]))  # fmt: skip
    assert estimate == pytest.approx((win, lose), abs=1e-12)
    assert sum(estimate) == pytest.approx(1 - called_off, abs=1e-12)


def test_bw_odds_with_one_card_left_draw_the_defender_from_the_reshuffled_discards():
    """Deck of 3: Rhinox's red 9 beats Inferno's blue 6, Inferno is pushed to 10 and Rhinox
    takes 7. Now 1 card is left and 2 are discarded: Inferno attacking down takes the last
    card for sure; Rhinox draws from the reshuffled discards (BW-3)."""
    deck = ["red:basic", "blue:basic", "gold:basic"]
    env, spec = bw_position(deck, [*FACE_OFF, ATTACK_UP])
    state = env.game_state
    assert state.deck_size == 1 and int(state.discards.sum()) == 2
    assert state.current_player() == 1 and state.board[10] // 12 == 1
    action = 48 + 10 * 4 + 2
    win, lose, _ = bw_brute_force(state, action)
    # gold Inferno 7 vs Rhinox red 9 or blue 7: a loss or a called-off battle, half each
    assert (win, lose) == (0.0, 0.5)
    strategy = BeastWarsStrategy(spec)
    strategy.start_game("predacon", np.random.default_rng(0))
    view = strategy.layout.view(observe(env, 1)["observation"])
    board = Board.from_view(view, 1)
    estimate = Odds(strategy.numbers, view).chances(
        int(board.piece[10]), int(board.face[10]), int(board.piece[7]), int(board.face[7])
    )
    assert estimate == pytest.approx((win, lose), abs=1e-12)


def test_bw_draw_chances_are_a_distribution_without_replacement():
    deck = np.zeros(NUM_CARD_KINDS)
    deck[[0, 5]] = 1  # one red:basic, one blue:mutate
    chances = draw_chances(deck, np.zeros(NUM_CARD_KINDS))
    assert chances[0, 5] == chances[5, 0] == 0.5 and chances.sum() == 1.0
    assert chances[0, 0] == chances[5, 5] == 0.0  # the same card cannot be drawn twice


def test_bw_board_from_view_reads_pieces_from_the_observers_side():
    env, _ = bw_position(["red:basic", "red:basic"], FACE_OFF)
    state = env.game_state
    for seat in (0, 1):
        view = env.layout.view(observe(env, seat)["observation"])
        board = Board.from_view(view, seat)
        for cell in range(12):
            piece = int(state.board[cell])
            if piece == 24:
                assert board.owner[cell] == 0 and board.piece[cell] == -1
            else:
                assert board.piece[cell] == piece
                assert board.owner[cell] == (1 if piece // 12 == seat else 2)
                assert board.face[cell] == state.faces[piece]


def test_bw_attack_gain_is_win_times_removal_minus_loss_times_push():
    """Rhinox (4) attacks Inferno (7): a win pushes Inferno to 10, empty (a push); a loss
    pushes Rhinox back to 1, empty (a push). With 10 occupied a win captures Inferno (worth
    about one character). Checked against the brute-force odds."""
    from cardarena.envs.beast_wars.rules import CARD_NAMES, DEFAULT_DECK

    deck = [CARD_NAMES[k] for k in DEFAULT_DECK]
    env, spec = bw_position(deck, FACE_OFF)
    state = env.game_state
    win, lose, _ = bw_brute_force(state, ATTACK_UP)
    strategy = BeastWarsStrategy(spec)
    strategy.start_game("maximal", np.random.default_rng(0))
    view = strategy.layout.view(observe(env, 0)["observation"])
    board, odds = Board.from_view(view, 0), Odds(strategy.numbers, view)
    assert strategy.attack_gain(board, odds, 4 * 4 + 0) == pytest.approx(
        win * strategy.push - lose * strategy.push
    )
    # With 1 occupied (a teammate behind Rhinox) a loss captures Rhinox.
    board.owner[1] = 1
    rhinox = int(board.piece[4])
    assert strategy.attack_gain(board, odds, 4 * 4 + 0) == pytest.approx(
        win * strategy.push - lose * strategy.worth[rhinox]
    )
    board.owner[1] = 0
    # With 10 occupied (a teammate of Inferno behind him) a win captures Inferno.
    board.owner[10] = 2
    inferno = int(board.piece[7])
    assert strategy.attack_gain(board, odds, 4 * 4 + 0) == pytest.approx(
        win * strategy.worth[inferno] - lose * strategy.push
    )


def test_bw_a_sure_win_is_taken_and_a_sure_loss_is_not():
    """Rhinox (beast 9 7 5 8) on 4 faces Inferno (beast 8 6 7 4) on 7. Every card blue: 7 vs
    6, a sure win (a push, worth more than the margin); every card gold: 5 vs 7, a sure loss
    that pushes Rhinox back: maximal must not attack."""
    for colour, attacks in (("blue", True), ("gold", False)):
        env, spec = bw_position([f"{colour}:basic"] * 6, FACE_OFF)
        win, lose, _ = bw_brute_force(env.game_state, ATTACK_UP)
        assert (win, lose) == ((1.0, 0.0) if attacks else (0.0, 1.0))
        strategy = BeastWarsStrategy(spec)
        strategy.start_game("maximal", np.random.default_rng(0))
        for seed in range(3):
            choice = strategy.act(observe(env, 0), np.random.default_rng(seed))
            assert (choice == ATTACK_UP) == attacks, (colour, choice)


# --- Cardline ---------------------------------------------------------------------------------
VALUES = {"Cow": 30, "Ant": 10, "Bee": 20, "Cat": 30, "Dog": 40, "Eel": 50, "Fox": 60,
          "Gnu": 70, "Hen": 80, "Ibis": 90, "Jay": 100}  # fmt: skip


def cl_position(hands, initial, pile, moves=()):
    deck = [{"name": n, "colour": "x", "v": VALUES[n]} for n in ("Eel", "Ant", "Jay", "Cat",
            "Gnu", "Bee", "Ibis", "Dog", "Hen", "Fox", "Cow")]  # fmt: skip
    config = {"num_players": len(hands), "hand_size": 3, "deck": deck, "characteristic": "v"}
    env = make_raw("cardline_v0", **config)
    env.reset(options={"hands": hands, "initial_card": initial, "draw_pile": pile,
                       "first_player": 0})  # fmt: skip
    for action in moves:
        env.step(action)
    return env, EnvSpec("cardline_v0", config)


def cl_gap_inputs(strategy, observation):
    view = strategy.layout.view(observation["observation"])
    open_gaps = int(view["line_length"][0]) + 1
    lower = view["gap_lower"][:open_gaps].astype(np.float64)
    upper = view["gap_upper"][:open_gaps].astype(np.float64)
    return view, lower, upper


def right_gaps_by_the_rules(env, slot):
    """Per open gap: 1 if the rules keep the card of ``slot`` there (a clone's placement)."""
    state = env.game_state
    result = []
    for gap in range(len(state.line) + 1):
        trial = state.clone()
        trial.apply_legal_action(slot * state.game.num_gaps + gap)
        result.append(float(trial.last_right[state.current_player()]))
    return np.array(result)


@pytest.mark.parametrize("knowledge", ["oracle", "observed"])
def test_cl_exact_beliefs_give_chance_one_exactly_where_the_rules_keep_the_card(knowledge):
    """Oracle: the true value. Observed: a card whose value was revealed earlier (it went to
    the box and came back) is exact too. Both must agree with the rules gap by gap."""
    # player_0 places Jay left of Cat: wrong, to the box; the pile is empty, so the box is
    # reshuffled and Jay comes straight back: its value (100) is now known.
    env, spec = cl_position([["Jay", "Ant"], ["Bee", "Dog"]], "Cat", [])
    gaps = env.game_state.game.num_gaps
    env.step(1 * gaps + 0)  # hands are sorted by card id: Ant is slot 0, Jay slot 1
    state = env.game_state
    assert state.current_player() == 1
    env.step(1 * state.game.num_gaps + 1)  # player_1: Dog right of Cat, right
    assert env.game_state.current_player() == 0
    strategy = CardlineStrategy(spec, knowledge=knowledge)
    strategy.start_game("player_0", np.random.default_rng(0))
    observation = observe(env, 0)
    view, lower, upper = cl_gap_inputs(strategy, observation)
    hand = env.game_state.hands[0]
    jay = env.game_state.game.card_ids["Jay"]
    slot = hand.index(jay)
    known = float(view["hand_known_value"][slot])
    assert known >= 0  # revealed earlier, kept in the observation
    chances = strategy.gap_chances(jay, known, 0, np.empty(0), lower, upper)
    np.testing.assert_array_equal(chances, right_gaps_by_the_rules(env, slot))
    for seed in range(5):  # a sure placement (chance 1) beats any guess about Ant
        action = strategy.act(observation, np.random.default_rng(seed))
        trial = env.game_state.clone()
        trial.apply_legal_action(action)
        assert trial.last_right[0]
        if knowledge == "observed":
            assert action // env.game_state.game.num_gaps == slot


def test_cl_the_oracle_fits_an_equal_value_on_either_side_like_the_rules():
    """CL-4: Cow (30) equals Cat (30), the line's only card: both gaps are right."""
    env, spec = cl_position([["Cow", "Ant"], ["Bee", "Dog"]], "Cat", ["Eel"])
    strategy = CardlineStrategy(spec, knowledge="oracle")
    strategy.start_game("player_0", np.random.default_rng(0))
    _, lower, upper = cl_gap_inputs(strategy, observe(env, 0))
    cow = env.game_state.game.card_ids["Cow"]
    slot = env.game_state.hands[0].index(cow)
    chances = strategy.gap_chances(cow, -1.0, 0, np.empty(0), lower, upper)
    np.testing.assert_array_equal(chances, right_gaps_by_the_rules(env, slot))
    assert chances.tolist() == [1.0, 1.0]


def test_cl_an_unknown_card_with_nothing_seen_follows_uniform_ranks():
    """No value seen yet: the belief is uniform on [0, 1], so a gap's chance is its width
    (the open ends are cut at 0 and 1)."""
    env, spec = cl_position([["Jay", "Ant"], ["Bee", "Dog"]], "Cat", ["Eel"])
    strategy = CardlineStrategy(spec)
    strategy.start_game("player_0", np.random.default_rng(0))
    _, lower, upper = cl_gap_inputs(strategy, observe(env, 0))
    cat = 2 / 9  # Cat's rank among 10 distinct values, scaled to [0, 1]
    assert lower.tolist() == [-1.0, pytest.approx(cat)] and upper[0] == pytest.approx(cat)
    chances = strategy.gap_chances(9, -1.0, 0, np.empty(0), lower, upper)
    np.testing.assert_allclose(chances, [cat, 1 - cat], rtol=1e-6)


def test_cl_noisy_chances_are_the_normal_mass_between_the_gap_bounds():
    """Noisy: the chance of a gap is the mass of N(estimate, (sigma * spread)^2) between its
    bounds; checked against a numerical integral of the density."""
    env, spec = cl_position([["Jay", "Ant"], ["Bee", "Dog"]], "Eel", ["Cat"])
    strategy = CardlineStrategy(spec, knowledge="noisy", sigma=0.5)
    strategy.start_game("player_0", np.random.default_rng(4))
    _, lower, upper = cl_gap_inputs(strategy, observe(env, 0))
    card = env.game_state.game.card_ids["Jay"]
    mean = strategy.estimate(card, 0)
    scale = 0.5 * strategy.spread[0]
    chances = strategy.gap_chances(card, -1.0, 0, np.empty(0), lower, upper)
    grid = np.linspace(mean - 12 * scale, mean + 12 * scale, 200_001)
    density = np.exp(-0.5 * ((grid - mean) / scale) ** 2) / (scale * math.sqrt(2 * math.pi))
    for gap in range(len(lower)):
        inside = (grid >= lower[gap]) & (grid <= upper[gap])
        assert chances[gap] == pytest.approx(_integrate(density * inside, grid), abs=1e-4)
