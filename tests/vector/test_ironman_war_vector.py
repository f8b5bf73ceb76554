"""The vector Iron Man 2 engine against the reference rules: the hard cases (reshuffles in the
middle of a draw, empty decks and hands, cancelled specials, shields with and without a
target, automatic concessions, standoffs, the beginner round, caps and wins) loaded with
``set_state``, every example config and odd ones, the vector heuristic against the scalar one,
and JIT against plain Python.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
from vector_checks import capture_ties, check_against_reference, random_legal_actions

from cardarena.agents import EnvSpec
from cardarena.agents.heuristics import ironman_war as scalar_module
from cardarena.agents.heuristics.ironman_war import IronManStrategy
from cardarena.agents.heuristics.vector_ironman_war import VectorIronManWarHeuristic
from cardarena.envs import make_raw
from cardarena.envs.core import InvalidConfigError
from cardarena.envs.ironman_war.rules import (
    COMMIT,
    GAME_OVER,
    KINDS,
    PLAY_OR_CONCEDE,
    SHIELD_TARGET,
    STANDOFF_PLAY,
)
from cardarena.envs.ironman_war.vector import VectorIronManWar
from cardarena.envs.vector import make_vec

ENV = "ironman_war_v0"
A1, A2, A3, A4, A5, UP, SH, FA = range(8)
differ = VectorIronManWar.state_difference


def names(kinds: list[int]) -> list[str]:
    return [KINDS[k] for k in kinds]


def options(iron: list[int], war: list[int], deck_iron: Any = None, deck_war: Any = None) -> Any:
    """Round-1 hands (and decks, top first, if given) as reset options."""
    given: dict[str, Any] = {"hands": [names(iron), names(war)]}
    if deck_iron is not None:
        given["decks"] = [names(deck_iron), names(deck_war)]
    return given


def follow(
    config: dict[str, Any], reset_options: Any, script: list[int], seed: int = 0, steps: int = 60
) -> list[Any]:
    """Deal ``reset_options`` in the reference, load it into slot 1 of a batch, play
    ``script`` (then random legal actions) in both, and compare every step: state, both
    seats' observations, mask, ends and rewards. Returns every reference state reached."""
    raw = make_raw(ENV, **config)
    raw.reset(seed=seed, options=reset_options)
    state = raw.game_state.clone()
    venv = make_vec(ENV, 3, seed=seed + 1, **config)
    batch = venv.set_state(1, state)
    rng = np.random.default_rng(seed)
    script = list(script)
    seen = [state]
    for _ in range(steps):
        assert differ(state, state, venv.state_of(1)) is None
        raw.set_state(state)
        for seat, agent in enumerate(raw.possible_agents):
            observed = venv.observe(np.full(3, seat))[1]
            np.testing.assert_array_equal(observed, raw.observe(agent)["observation"])
        np.testing.assert_array_equal(batch.action_mask[1], state.legal_action_mask())
        assert batch.current_player[1] == state.current_player()
        if state.current_player() < 0:
            break
        legal = np.flatnonzero(state.legal_action_mask())
        action = script.pop(0) if script else int(rng.choice(legal))
        actions = random_legal_actions(batch.action_mask, rng)
        actions[1] = action
        expected = state.clone()
        expected.apply_action(action)
        batch = venv.step(actions)
        actual = venv.state_of(1)
        difference = differ(state, expected, actual)
        assert difference is None, difference
        assert batch.terminated[1] == expected.is_terminal()
        assert batch.truncated[1] == expected.is_truncated()
        rewards = expected.returns() if expected.is_terminal() else (0.0, 0.0)
        np.testing.assert_array_equal(batch.rewards[1], np.asarray(rewards, np.float32))
        state = actual  # equal to ``expected`` up to reshuffled decks
        seen.append(expected)
    return seen


def test_reshuffle_in_the_middle_of_a_draw_and_an_empty_deck() -> None:
    # Round 1: three cards each, no questions. Round 2: iron man draws 2, reshuffles, draws 5;
    # war machine starts from an empty deck and reshuffles at once.
    seen = follow({}, options([A1, A2, A3], [A4, A5, A3], [A1, A2], []), [0, 1, 2, 3, 4, 2])
    assert seen[6].round == 2 and seen[6].hand_sizes == [5, 3]
    for seed in range(4):
        follow({}, options([A1, A2, A3], [A4, A5, A3], [A1, A2], []), [0, 1, 2], seed=seed)


def test_drawing_the_last_card_of_the_deck_reshuffles_at_once() -> None:
    seen = follow({}, options([A1, A2, A3], [A4, A5], [A2] * 7, [A3] * 8), [0, 1, 2, 3, 4])
    assert seen[5].round == 2 and seen[5].deck_sizes == [3, 1] and seen[5].discard_sizes == [0, 2]


def test_drawing_stops_when_deck_and_discards_are_empty() -> None:
    seen = follow({}, options([A5], [A1, A1], [], []), [A5, A1, A1])
    assert seen[3].hand_sizes == [1, 2] and seen[3].round == 2


def test_both_hands_empty_round_1_is_played_before_anyone_is_asked() -> None:
    raw = make_raw(ENV)
    raw.reset(seed=0, options=options([], [], [A1, A2], [A3]))
    assert raw.game_state.round == 2
    follow({}, options([], [], [A1, A2], [A3]), [])


def test_specials_cancel_then_standoff_and_shields() -> None:
    # UPGRADE v SHIELD cancel at battle start; the standoff then asks both in seat order.
    seen = follow({}, options([UP, A1, A3, SH], [SH, A1, A3, UP], [], []), [UP, A1, A3, SH, A1, A3])
    assert any(s.decision == STANDOFF_PLAY for s in seen)
    for seed in range(6):
        follow(
            {}, options([UP, SH, FA, A5, SH], [SH, UP, A1, A2, SH], [FA] * 3, [UP] * 3), [], seed
        )


def test_shield_with_and_without_a_target() -> None:
    # battle 1: shield v attack_1 asks for a target; battle 3: shield v nothing asks nothing.
    seen = follow({}, options([SH, A2], [A1, A2, SH], [A1], [A1]), [SH, A2, A1, A2, SH])
    assert seen[5].decision == SHIELD_TARGET
    follow({}, options([UP, A5], [SH, A1, SH], [], []), [UP, A5, SH, A1, SH])


def test_empty_handed_loser_concedes_and_standoffs_without_cards_draw() -> None:
    seen = follow({}, options([A1, A2, A5, A4], [A5, A2, A1], [], []), [A1, A2, A5, A5, A2, A1])
    assert any(s.decision == PLAY_OR_CONCEDE for s in seen)
    follow({}, options([A1], [A1], [], []), [A1, A1])


def test_a_seat_without_cards_is_skipped_when_commits_are_asked() -> None:
    """IM-3: a round-1 hand of nothing (the one card of the deck comes in round 2): that
    seat is not asked to commit in round 1, and the other's three cards fight nothing."""
    seen = follow({}, options([A1, A2, A3], [], [A4, A5], [A1]), [A1, A2, A3], steps=4)
    assert [s.current_player() for s in seen[:3]] == [0, 0, 0]
    assert seen[3].round == 2  # the war machine never answered in round 1
    seen = follow({}, options([], [A1, A2, A3], [A4], [A4, A5]), [A1, A2, A3], steps=4)
    assert [s.current_player() for s in seen[:3]] == [1, 1, 1] and seen[3].round == 2


@pytest.mark.parametrize("config", [{}, {"variant": "beginner", "deck": {"attack_2": 5}}])
def test_a_vector_deal_is_the_reference_deal_of_the_same_cards(config: dict[str, Any]) -> None:
    """The engine's own deal (not a state handed to it) is the reference's deal of the same
    hands and decks in every field both seats can see or not: last round's flips included,
    which round 1 has none of."""
    rows = 6
    venv = make_vec(ENV, rows, seed=5, **config)
    venv.reset()
    raw = make_raw(ENV, **config)
    for slot in range(rows):
        dealt = venv.state_of(slot)
        hands = [[k for k, n in enumerate(dealt.hands[seat]) for _ in range(n)] for seat in (0, 1)]
        decks = [dealt._piles[seat][::-1] for seat in (0, 1)]  # top first
        raw.reset(seed=0, options=options(*hands, *decks))
        assert differ(raw.game_state, raw.game_state, dealt) is None
        for seat, agent in enumerate(raw.possible_agents):
            observed = venv.observe(np.full(rows, seat))[slot]
            np.testing.assert_array_equal(observed, raw.observe(agent)["observation"])


def test_beginner_round_resolves_on_the_last_commit_and_reshuffles() -> None:
    config = {"variant": "beginner", "max_rounds": 6}
    seen = follow(config, options([A1, A2, A3], [A3, A2, A1], [A4, A5], [A1]), [A1, A2, A3])
    assert seen[6].round == 2 and seen[6].previous_results != [-1, -1, -1]
    assert all(s.decision in (COMMIT, GAME_OVER) for s in seen)


def test_cap_truncates_but_a_win_in_the_last_round_comes_first() -> None:
    config = {"victory_cards": 2, "max_rounds": 1}
    seen = follow(config, options([A1, A1, A1], [A2, A2], [], []), [A1, A1, A1, A2, A2])
    assert seen[-1].is_terminal() and seen[-1].returns() == (-1.0, 1.0)
    config = {"victory_cards": 3, "max_rounds": 1}
    seen = follow(config, options([A1, A1], [A2], [], []), [A1, A1, A2])
    assert seen[-1].is_truncated() and not seen[-1].is_terminal()


@pytest.mark.parametrize(
    "config",
    [
        {"variant": "beginner"},
        {"deck": {"attack_1": 3, "attack_5": 1, "upgrade": 2, "energy_shield": 2}, "max_rounds": 4},
        {"deck": {"upgrade": 2, "energy_shield": 3, "final_attack": 1}, "victory_cards": 2},
        {"variant": "beginner", "deck": {"attack_2": 1}, "max_rounds": 3},
        {"deck": {"attack_1": 40, "energy_shield": 30}, "victory_cards": 9},
        {},
    ],
    ids=str,
)
def test_configs(config: dict[str, Any]) -> None:
    counts = check_against_reference(ENV, config, 300, num_envs=16)
    assert counts["transitions"] >= 300


def test_state_difference_can_fail() -> None:
    venv = make_vec(ENV, 2, seed=3)
    state = venv.state_of(0)
    assert differ(state, state, venv.state_of(0)) is None
    other = venv.state_of(0)
    other.pawns = [1, 2]
    assert "pawns" in str(differ(state, state, other))
    other = venv.state_of(0)
    other.has_pending = [0, False]  # an int where the rules keep a bool
    assert "has_pending" in str(differ(state, state, other))
    other = venv.state_of(0)
    other._piles[1] = other._piles[1][::-1]
    assert other._piles != state._piles
    assert "_piles" in str(differ(state, state, other))
    other = venv.state_of(0)
    other.hands[0, 0] += 1
    assert "hands" in str(differ(state, state, other))


def test_state_difference_of_a_reshuffled_deck_is_strict_about_the_cards_drawn_first() -> None:
    raw = make_raw(ENV)
    raw.reset(seed=0, options=options([A1, A2, A3], [A4, A5, A3], [A5], [A1] * 9))
    previous = raw.game_state
    for action in (A1, A2, A3, A4, A5):
        previous.apply_action(action)
    previous.discards[0, A1] = 15  # round 2 draws A5, reshuffles, then draws 6 of 18
    expected = previous.clone()
    expected.apply_action(A3)
    assert expected.round == 2 and expected.deck_sizes[0] == 12
    actual = expected.clone()
    actual._piles[0] = actual._piles[0][::-1]  # chance: any order, any 6 of the 18
    assert differ(previous, expected, actual) is None
    # the old deck's A5 must be in hand: swapping it for a deck card is caught
    actual.hands[0, A5] -= 1
    actual.hands[0, A1] += 1
    actual.deck_counts[0, A5] += 1
    actual.deck_counts[0, A1] -= 1
    actual._piles[0][actual._piles[0].index(A1)] = A5
    assert "lacks" in str(differ(previous, expected, actual))


# --- the vector heuristic ---------------------------------------------------------------------
HEURISTIC_CONFIGS = [
    {},
    {"variant": "beginner"},
    {"deck": {"attack_1": 3, "attack_5": 1, "upgrade": 2, "energy_shield": 2}, "max_rounds": 4},
    {"victory_cards": 2, "deck": {"attack_4": 6, "final_attack": 4, "energy_shield": 5}},
]


@pytest.mark.parametrize("config", HEURISTIC_CONFIGS, ids=str)
def test_heuristic_matches_the_scalar(config: dict[str, Any], monkeypatch: Any) -> None:
    """Three scalar strategies per game and seat, one per sacrifice battle, see every
    observation; the vector action must be among the tied best of one whose sacrifice is
    consistent with the vector commits of the round so far."""
    spec = EnvSpec(ENV, config)
    num_envs = 24
    venv = make_vec(ENV, num_envs, seed=5, **config)
    layout = venv.raw_env.layout
    vector = VectorIronManWarHeuristic(spec)
    scalars = [
        [[IronManStrategy(spec, sacrifice_battle=b) for b in range(3)] for _ in range(2)]
        for _ in range(num_envs)
    ]
    plans = [[{0, 1, 2}, {0, 1, 2}] for _ in range(num_envs)]
    rng = np.random.default_rng(5)
    ties = capture_ties(monkeypatch, scalar_module)
    batch = venv.reset()
    rows = 0
    sacrifices: set[int] = set()
    for _ in range(150):
        live = np.flatnonzero(batch.current_player >= 0)
        seats = batch.current_player[live]
        got = vector.act(batch.observation[live], batch.action_mask[live], seats, rng, live)
        for k, slot in enumerate(live):
            seat = int(seats[k])
            observation = batch.observation[slot]
            mask = batch.action_mask[slot].astype(np.int8)
            allowed = []
            for scalar in scalars[slot][seat]:
                ties.clear()
                want = scalar.act({"observation": observation, "action_mask": mask}, rng)
                allowed.append(ties[-1] if ties else {want})
            view = layout.view(observation)
            if int(np.argmax(view["decision"])) == COMMIT:
                if view["commit_slot"][0] == 1:
                    plans[slot][seat] = {0, 1, 2}
                plans[slot][seat] = {b for b in plans[slot][seat] if got[k] in allowed[b]}
                assert plans[slot][seat], (slot, seat, got[k], allowed)
                if len(plans[slot][seat]) == 1:
                    sacrifices |= plans[slot][seat]
            else:
                assert got[k] in allowed[0], (slot, got[k], allowed)
            rows += 1
        actions = np.zeros(num_envs, np.int64)
        actions[live] = got
        noise = rng.random(num_envs) < 0.3  # also visit positions the heuristic avoids
        actions[noise] = random_legal_actions(batch.action_mask, rng)[noise]
        ended = np.flatnonzero(batch.done)
        batch = venv.step(actions)
        vector.new_games(ended)
        for slot in ended:
            plans[slot] = [{0, 1, 2}, {0, 1, 2}]
            for seat in range(2):
                for scalar in scalars[slot][seat]:
                    scalar.start_game(venv.possible_agents[seat], rng)
    assert rows > 2500
    if not config:  # (small decks often make two sacrifice battles commit the same cards)
        assert sacrifices == {0, 1, 2}  # the vector sacrifice battle varies


def test_heuristic_fixed_sacrifice_and_its_memory_per_slot() -> None:
    spec = EnvSpec(ENV, {})
    venv = make_vec(ENV, 4, seed=2)
    batch = venv.reset()
    heuristic = VectorIronManWarHeuristic(spec, sacrifice_battle=1)
    scalar = IronManStrategy(spec, sacrifice_battle=1)
    rng = np.random.default_rng(0)
    observation, mask = batch.observation[:1], batch.action_mask[:1]
    first = heuristic.act(observation, mask, np.zeros(1, np.int64), rng, np.array([7]))
    want = scalar.act({"observation": observation[0], "action_mask": mask[0]}, rng)
    assert first[0] == want and heuristic.plan_sizes[7, 0] == 3
    heuristic.new_games(np.array([7]))
    assert heuristic.plan_sizes[7, 0] == 0
    with pytest.raises(ValueError, match="no legal action"):
        heuristic.act(observation, np.zeros_like(mask), np.zeros(1, np.int64), rng)
    rows = np.repeat(batch.observation[:1], 3, axis=0)
    masks = np.repeat(mask, 3, axis=0)
    masks[1:] = False
    with pytest.raises(ValueError, match=r"^row 1 has no legal action"):  # the first, named
        heuristic.act(rows, masks, np.zeros(3, np.int64), rng)


def _position_at(decision: int, seat: str, hands: list[list[int]], script: dict[str, list[int]]):
    """The first observation of ``seat`` at ``decision`` after dealing ``hands``, each seat
    playing its ``script`` first, then its lowest legal action."""
    raw = make_raw(ENV)
    raw.reset(seed=0, options={"hands": [names(hands[0]), names(hands[1])]})
    left = {agent: list(moves) for agent, moves in script.items()}
    for _ in range(200):
        agent = raw.agent_selection
        observation = raw.observe(agent)
        view = raw.layout.view(observation["observation"])
        legal = np.flatnonzero(observation["action_mask"])
        at = agent == seat and int(np.argmax(view["decision"])) == decision
        if at and not left.get(agent):
            return raw, observation
        moves = left.get(agent)
        raw.step(int(moves.pop(0)) if moves else int(legal[0]))
    raise AssertionError("the position was never reached")


@pytest.mark.parametrize("weak", [A1, A2, SH])
def test_a_commit_past_a_short_plan_plays_the_strongest_card_as_the_scalar_does(weak) -> None:
    """A heuristic whose first commit of the round is the third (another policy made the first
    two): with ``weak`` and A4 left, its plan holds two cards for battles 1-2, so battle 3
    falls back to the strongest card, A4, as the scalar strategy does (kills ``else -1`` ->
    ``0``, ``+1`` or ``-2``, which would read the plan's "card" as A1, A2 or a shield)."""
    hands = [[weak, A4, A3, A5], [A1, A2, A3, A4]]
    raw, observation = _position_at(COMMIT, "iron_man", hands, {"iron_man": [A5, A3]})
    assert raw.layout.view(observation["observation"])["commit_slot"][2] == 1
    spec = EnvSpec(ENV, {})
    heuristic = VectorIronManWarHeuristic(spec)
    rows = observation["observation"][None], observation["action_mask"][None].astype(bool)
    rng = np.random.default_rng(0)
    got = heuristic.act(*rows, np.zeros(1, np.int64), rng)
    assert got[0] == A4 == IronManStrategy(spec).act(observation, rng)


@pytest.mark.parametrize("sacrifice", [0, 1, 2])
def test_a_fixed_sacrifice_battle_is_kept_and_a_first_commit_later_in_the_round_plans_anew(
    sacrifice,
) -> None:
    """With ``sacrifice_battle`` fixed, every commit of the round is the scalar's with the same
    parameter, also for a heuristic whose first commit of the round is the second (it plans
    then, as the scalar does). Kills a fixed 0 read as "random" and a plan never made after
    the round's first commit."""
    spec = EnvSpec(ENV, {})
    for hands, script in (
        ([[A1, A2, A4, A5, FA], [A1, A2, A3, A4, A5]], []),  # three strong cards in five
        ([[A1, A2, A4, A5, FA], [A1, A2, A3, A4, A5]], [A2]),  # from the round's second commit
        ([[A1, A3, A5], [A1, A2, A3]], []),  # three cards: still a sacrifice
    ):
        _, observation = _position_at(COMMIT, "iron_man", hands, {"iron_man": script})
        heuristic = VectorIronManWarHeuristic(spec, sacrifice_battle=sacrifice)
        scalar = IronManStrategy(spec, sacrifice_battle=sacrifice)
        for seed in range(6):  # the draw a random sacrifice would take
            rng = np.random.default_rng(seed)
            got = heuristic.act(observation["observation"][None],
                                observation["action_mask"][None].astype(bool),
                                np.zeros(1, np.int64), rng)  # fmt: skip
            scalar.start_game("iron_man", rng)
            assert got[0] == scalar.act(observation, rng), (script, seed)
            heuristic.new_games(np.array([0]))


def test_plan_memory_covers_every_slot_asked_from_the_first_row() -> None:
    """The plans and their sizes grow together, from a heuristic's first single row on (a
    size table with a row the plans lack would be read past their end in the kernel)."""
    venv = make_vec(ENV, 2, seed=2)
    batch = venv.reset()
    heuristic = VectorIronManWarHeuristic(EnvSpec(ENV, {}))
    assert heuristic.plans.shape[0] == heuristic.plan_sizes.shape[0] == 0
    rng = np.random.default_rng(0)
    heuristic.act(batch.observation[:1], batch.action_mask[:1], np.zeros(1, np.int64), rng)
    assert heuristic.plans.shape[0] == heuristic.plan_sizes.shape[0] >= 1
    assert heuristic.plan_sizes[0, 0] == 3
    held = heuristic.plan_sizes.shape[0]
    heuristic.new_games(np.array([0, held, 99]))  # slots never seen are nothing to forget
    assert heuristic.plan_sizes[0, 0] == 0


def test_a_shield_with_nothing_to_hit_leaves_the_other_side_as_it_was() -> None:
    """IM: an ENERGY SHIELD with no target hits nothing (kills ``target >= 0`` -> ``>= -1``,
    which would take a FINAL ATTACK that is not there)."""
    from cardarena.agents.heuristics.vector_ironman_war import _play

    mine, theirs = np.zeros(8, np.int64), np.zeros(8, np.int64)
    after_mine, after_theirs = np.empty(8, np.int64), np.empty(8, np.int64)
    _play(mine, theirs, SH, after_mine, after_theirs)
    assert after_mine.tolist() == [0, 0, 0, 0, 0, 0, 1, 0] and not after_theirs.any()
    theirs[A3] = 1
    _play(mine, theirs, SH, after_mine, after_theirs)
    assert not after_theirs.any()  # the one card it meets is hit


def _worth(heuristic: VectorIronManWarHeuristic, view: dict[str, np.ndarray]) -> float:
    """What the heuristic makes this battle worth: its table, and 1.5 times near the end."""
    battle = int(np.argmax(view["battle"]))
    worth = heuristic.worths[battle, int(view["battles_won"][0]), int(view["battles_won"][1])]
    last = heuristic.params[3]
    return float(worth * 1.5 if max(view["pawns"]) >= last - 1 else worth)


def test_playing_on_costs_at_most_the_budget_and_a_hair_more_concedes() -> None:
    """PLAY_OR_CONCEDE: the cheapest card that takes the lead is played when its worth is
    the budget exactly, and conceded when the budget falls short of it by the least a float
    can (kills ``<=`` -> ``<``)."""
    from cardarena.agents.heuristics.vector_ironman_war import P_BUDGET, P_PER_CARD

    scripts = {"iron_man": [A1, A2, A3], "war_machine": [A2, A3, A4]}
    hands = [[A1, A2, A3, A4], [A2, A3, A4, A5]]
    raw, observation = _position_at(PLAY_OR_CONCEDE, "war_machine", hands, scripts)
    heuristic = VectorIronManWarHeuristic(EnvSpec(ENV, {}))
    worth = _worth(heuristic, raw.layout.view(observation["observation"]))
    mask = observation["action_mask"].astype(bool)
    assert mask[A5] and mask[8], "war_machine may play its A5 or concede"
    cost = scalar_module.WORTH[A5]
    share = cost / worth
    assert worth * share == cost  # the budget reached exactly, in float64
    below = share
    while worth * below >= cost:  # the largest budget whose product falls short
        below = np.nextafter(below, 0.0)
    heuristic.params[P_PER_CARD] = 0.0
    rows = observation["observation"][None], mask[None]
    for budget, want in ((share, A5), (below, 8)):
        heuristic.params[P_BUDGET] = budget
        got = heuristic.act(*rows, np.ones(1, np.int64), np.random.default_rng(0))
        assert got[0] == want, (budget, got)


def _hands(rng: np.random.Generator, count: int) -> list[np.ndarray]:
    """Random hands (or battle piles) of up to two cards of each kind."""
    return [rng.integers(0, 3, size=8).astype(np.int64) for _ in range(count)]


def test_the_commit_plan_is_the_scalars_for_every_hand_and_sacrifice_battle() -> None:
    """``_plan_commit``, compiled and as plain Python (which catches an index past the three
    battles), against the scalar strategy's plan for the same fixed sacrifice battle."""
    from cardarena.agents.heuristics.vector_ironman_war import _plan_commit

    plain = getattr(_plan_commit, "py_func", _plan_commit)
    spec = EnvSpec(ENV, {})
    rng = np.random.default_rng(11)
    checked = set()
    equal_worth = ([FA, FA, A5, SH], [A5, SH, SH], [FA, A5, SH, SH], [A4, A5, SH])
    tied = [np.bincount(kinds, minlength=8) for kinds in equal_worth]
    for hand in [*tied, *_hands(rng, 300)]:  # (A5 and a shield are worth the same: the first)
        if not hand.any():
            continue
        for sacrifice in range(3):
            want = IronManStrategy(spec, sacrifice_battle=sacrifice)._plan_commit(hand, rng)
            for kernel in (_plan_commit, plain):
                plan = np.full(3, -1, np.int64)
                size = kernel(hand.copy(), sacrifice, plan)
                assert plan[:size].tolist() == want, (hand, sacrifice, kernel)
            checked.add((min(int(hand.sum()), 7), len(want)))
    assert {(2, 2), (3, 3), (6, 3)} <= checked  # short hands, a sacrifice, three strong


def test_catching_up_spends_what_the_scalar_spends() -> None:
    """``_catch_up``: the greedy best gain per worth, card after card, until leading, as the
    scalar strategy computes it (first card and worth spent, or none)."""
    from cardarena.agents.heuristics.vector_ironman_war import _catch_up

    strategy = IronManStrategy(EnvSpec(ENV, {}))
    rng = np.random.default_rng(12)
    caught = 0
    for hand, mine, theirs in zip(*(_hands(rng, 400) for _ in range(3)), strict=True):
        first, spent = strategy._catch_up(hand, mine, theirs)
        got = _catch_up(hand, mine, theirs)
        assert got == ((-1, np.inf) if first is None else (first, spent)), (hand, mine, theirs)
        caught += first is not None and first != int(np.flatnonzero(hand)[0])
    assert caught > 50  # the best gain is often not the first card held


def test_a_shield_hits_the_target_the_scalar_hits() -> None:
    """``_play`` with every kind on drawn piles is the scalar ``play``: a shield takes the card
    whose loss leaves the other side weakest, by total and then by card count."""
    from cardarena.agents.heuristics.vector_ironman_war import _play

    rng = np.random.default_rng(13)
    after_mine, after_theirs = np.empty(8, np.int64), np.empty(8, np.int64)
    ties_on_count = 0
    for mine, theirs in zip(_hands(rng, 300), _hands(rng, 300), strict=True):
        for kind in range(8):
            want_mine, want_theirs = scalar_module.play(mine, theirs, kind)
            _play(mine, theirs, kind, after_mine, after_theirs)
            assert after_mine.tolist() == want_mine.tolist(), (mine, theirs, kind)
            assert after_theirs.tolist() == want_theirs.tolist(), (mine, theirs, kind)
        totals = {scalar_module.total(theirs - np.eye(8, dtype=np.int64)[k])
                  for k in np.flatnonzero(theirs)}  # fmt: skip
        ties_on_count += len(totals) < np.count_nonzero(theirs)
    assert ties_on_count > 20  # equal totals, where the card count decides


class SecondUniform:
    """A stand-in generator: each row's first uniform is 0, its second ``second``."""

    def __init__(self, second: float) -> None:
        self.second = second

    def random(self, shape: tuple[int, int]) -> np.ndarray:
        assert shape[1] == 2, shape  # one for ties, one for the sacrifice battle
        values = np.zeros(shape)
        values[:, 1] = self.second
        return values


@pytest.mark.parametrize(("second", "battle"), [(0.0, 0), (0.5, 1), (0.99, 2)])
def test_a_random_sacrifice_battle_is_the_one_the_rows_second_uniform_names(second, battle):
    _, observation = _position_at(COMMIT, "iron_man", [[A1, A3, A4, A5, FA], [A1, A2, A3]], {})
    spec = EnvSpec(ENV, {})
    heuristic = VectorIronManWarHeuristic(spec)
    rows = observation["observation"][None], observation["action_mask"][None].astype(bool)
    heuristic.act(*rows, np.zeros(1, np.int64), SecondUniform(second))
    want = IronManStrategy(spec, sacrifice_battle=battle)._plan_commit(
        np.bincount([A1, A3, A4, A5, FA], minlength=8), np.random.default_rng(0)
    )
    assert heuristic.plans[0, 0].tolist() == want and heuristic.plan_sizes[0, 0] == 3


def test_an_old_plans_third_card_is_not_read_past_a_new_short_plan() -> None:
    """A plan's entries past its size are stale (another round's): a heuristic that plans two
    cards at battle 3 must not play the third card of an earlier plan."""
    spec = EnvSpec(ENV, {})
    heuristic = VectorIronManWarHeuristic(spec, sacrifice_battle=2)
    _, first = _position_at(COMMIT, "iron_man", [[A1, A4, A5, FA], [A1, A2, A3]], {})
    rows = first["observation"][None], first["action_mask"][None].astype(bool)
    rng = np.random.default_rng(0)
    heuristic.act(*rows, np.zeros(1, np.int64), rng)
    assert heuristic.plans[0, 0, 2] == A1  # the sacrifice, at battle 3
    heuristic.new_games(np.array([0]))
    hands = [[A1, A4, A3, A5], [A1, A2, A3, A4]]
    _, late = _position_at(COMMIT, "iron_man", hands, {"iron_man": [A5, A3]})
    rows = late["observation"][None], late["action_mask"][None].astype(bool)
    assert heuristic.act(*rows, np.zeros(1, np.int64), rng)[0] == A4


def test_a_standoff_worth_nothing_spends_the_cheapest_card_as_the_scalar_does(monkeypatch):
    """Battle 3 after two drawn battles decides nothing (worth 0), so the standoff pick is the
    cheapest card; a battle that matters is fought with the strongest (the scalar's rule)."""
    ties = capture_ties(monkeypatch, scalar_module)
    spec = EnvSpec(ENV, {})
    hands = [[A1, A3, A5, A2, A4, SH], [A1, A3, A5]]
    scripts = {"iron_man": [A1, A3, A5], "war_machine": [A1, A3, A5]}
    raw, observation = _position_at(STANDOFF_PLAY, "iron_man", hands, scripts)
    seen = {}
    for battle, won, worthless in ((2, (0, 0), True), (2, (1, 0), False), (0, (0, 0), False)):
        changed = observation["observation"].copy()
        view = raw.layout.view(changed)
        view["battle"][:] = np.eye(3)[battle]
        view["battles_won"][:] = won
        view["pawns"][:] = 1
        rows = changed[None], observation["action_mask"][None].astype(bool)
        got = int(VectorIronManWarHeuristic(spec).act(*rows, np.zeros(1, np.int64),
                                                       np.random.default_rng(0))[0])  # fmt: skip
        ties.clear()
        want = IronManStrategy(spec).act(
            {"observation": changed, "action_mask": observation["action_mask"]},
            np.random.default_rng(0),
        )
        assert got in (ties[-1] if ties else {want}), (battle, won, got, want)
        seen[worthless] = got
    held = np.flatnonzero(observation["action_mask"][:8])
    assert held.size == 3  # A2, A4 and the shield: a choice to make
    assert seen[True] == min(held, key=lambda k: scalar_module.WORTH[k])
    assert seen[False] == max(held, key=lambda k: scalar_module.STRIKE[k])


def _catch_up_position() -> tuple[Any, dict[str, np.ndarray], int, float]:
    """A drawn PLAY_OR_CONCEDE position where no one card takes the lead but several do:
    ``(raw env, observation, the first card of the catch-up, its worth spent)``."""
    from cardarena.agents.heuristics.vector_ironman_war import _catch_up, _leads, _play

    raw = make_raw(ENV)
    rng = np.random.default_rng(21)
    after_mine, after_theirs = np.empty(8, np.int64), np.empty(8, np.int64)
    for game in range(200):
        raw.reset(seed=game)
        while not (raw.terminations[raw.agent_selection] or raw.truncations[raw.agent_selection]):
            observation = raw.observe(raw.agent_selection)
            view = raw.layout.view(observation["observation"])
            legal = np.flatnonzero(observation["action_mask"])
            if int(np.argmax(view["decision"])) == PLAY_OR_CONCEDE:
                hand = view["hand"].astype(np.int64).reshape(-1)
                cards = view["battle_cards"].astype(np.int64).reshape(-1)  # the observer's first
                mine, theirs = cards[:8].copy(), cards[8:].copy()
                leads = False
                for kind in legal[legal < 8]:
                    _play(mine, theirs, int(kind), after_mine, after_theirs)
                    leads |= _leads(after_mine, after_theirs)
                first, cost = _catch_up(hand, mine, theirs)
                if not leads and first >= 0:
                    return raw, observation, first, cost
            raw.step(int(rng.choice(legal)))
    raise AssertionError("no catch-up position in 200 games")


def test_catching_up_costs_at_most_the_budget_and_a_hair_more_concedes() -> None:
    """No card leads alone: the catch-up's first card is played when the worth it spends is
    the budget exactly, and conceded when the budget falls short by the least a float can
    (kills ``cost <= budget`` -> ``<``)."""
    from cardarena.agents.heuristics.vector_ironman_war import P_BUDGET, P_PER_CARD

    raw, observation, first, cost = _catch_up_position()
    heuristic = VectorIronManWarHeuristic(EnvSpec(ENV, {}))
    worth = _worth(heuristic, raw.layout.view(observation["observation"]))
    assert worth > 0
    share = cost / worth
    while worth * share < cost:  # the least budget whose product reaches the cost
        share = np.nextafter(share, np.inf)
    below = np.nextafter(share, 0.0)
    heuristic.params[P_PER_CARD] = 0.0
    seat = raw.possible_agents.index(raw.agent_selection)
    rows = observation["observation"][None], observation["action_mask"][None].astype(bool)
    for budget, want in ((share, first), (below, 8)):
        heuristic.params[P_BUDGET] = budget
        got = heuristic.act(*rows, np.full(1, seat, np.int64), np.random.default_rng(0))
        assert got[0] == want, (budget, got, first, cost)


def test_the_engine_refuses_a_layout_that_parts_this_rounds_results_from_the_last():
    """The observation kernel writes both rounds' battle results in one loop: a piece put
    between them must stop the engine at import, not shift what agents see."""
    from cardarena.envs.core.observation import ObservationLayout, Piece
    from cardarena.envs.ironman_war import vector as engine
    from cardarena.envs.ironman_war.env import observation_layout
    from cardarena.envs.ironman_war.rules import make_game

    pieces = list(observation_layout(make_game()).pieces)
    engine._check_results_adjacent(ObservationLayout(pieces))
    between = [p.name for p in pieces].index("previous_results")
    pieces.insert(between, Piece("wedge", 1, 1.0, "a piece between the two"))
    with pytest.raises(ImportError, match="battle_results and previous_results must be adjacent"):
        engine._check_results_adjacent(ObservationLayout(pieces))


def test_the_engine_refuses_an_observation_width_it_was_not_written_for(monkeypatch):
    """It writes observations at fixed offsets: a caller's width or a layout's size that
    differs, either alone, stops it when it is built, naming both."""
    from cardarena.envs.ironman_war import vector as engine
    from cardarena.envs.ironman_war.rules import make_game

    size = engine.OBSERVATION_SIZE
    engine.VectorIronManWar(make_game(), 2, size)
    with pytest.raises(InvalidConfigError, match=f"layout gives {size} and the caller {size + 1}"):
        engine.VectorIronManWar(make_game(), 2, size + 1)
    monkeypatch.setattr(engine, "OBSERVATION_SIZE", size + 1)
    with pytest.raises(InvalidConfigError, match=f"layout gives {size} and the caller {size + 1}"):
        engine.VectorIronManWar(make_game(), 2, size + 1)


def test_a_state_whose_deck_outgrows_the_smallest_config_is_refused() -> None:
    """D-17 at its edge: a one-card config's engine holds piles of one card, and a state with
    two in a pile (made by hand; no reset makes one) is refused, not written past them."""
    config = {"deck": {"attack_1": 1}}
    raw = make_raw(ENV, **config)
    raw.reset(seed=0)
    state = raw.game_state.clone()
    venv = make_vec(ENV, 2, seed=0, **config)
    venv.set_state(0, state)
    state._piles[0] = [0, 0]
    with pytest.raises(
        InvalidConfigError,
        match=re.escape("state._piles[0] is [0, 0]; holds 2 entries; at most 1 are"),
    ):
        venv.set_state(0, state)
