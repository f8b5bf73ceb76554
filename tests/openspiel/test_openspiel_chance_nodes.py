"""(c) Chance nodes: probabilities are positive and sum to 1, and the outcomes are exactly what
the rules could draw. The deal of small configurations is compared, as a distribution over
whole rules states, with a brute force that runs the rules once per ordering of every shuffle
(all n! of them, equal copies not merged) and per value of every integer draw."""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from openspiel_cases import ALL_CASES, case_id, load, random_step

from cardarena.envs.beast_wars import rules as beast_wars_rules
from cardarena.envs.core.chance import ScriptedChance


@pytest.mark.parametrize("case", ALL_CASES, ids=case_id)
def test_chance_nodes_along_random_games(case: tuple[str, dict[str, Any]]) -> None:
    game = load(*case)
    rng = np.random.default_rng(3)
    for _ in range(2):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                exact = state.engine.chance_outcomes()
                values = [value for value, _ in exact]
                assert sum(p for _, p in exact) == 1
                assert all(p > 0 for _, p in exact)
                assert values == sorted(set(values)) and len(values) >= 2
                assert all(0 <= v < game.max_chance_outcomes() for v in values)
                assert state.legal_actions() == values
                assert sum(p for _, p in state.chance_outcomes()) == pytest.approx(1, abs=1e-12)
                for value in values[:3]:
                    state.child(value)  # every listed outcome can be applied
            state.apply_action(random_step(state, rng))


class NeedChoice(Exception):
    def __init__(self, options: int) -> None:
        self.options = options


class EveryOrdering:
    """The protocol's methods, with each draw a choice among all n! orderings (or k values),
    taken from ``choices``; ``NeedChoice`` names how many options the next draw has."""

    def __init__(self, choices: list[int]) -> None:
        self.choices = choices
        self.used = 0

    def _choose(self, options: int) -> int:
        if self.used == len(self.choices):
            raise NeedChoice(options)
        self.used += 1
        return self.choices[self.used - 1]

    def integers(self, high: int) -> int:
        return self._choose(high)

    def shuffle(self, x: Any) -> None:
        orders = list(itertools.permutations(range(len(x))))
        order = orders[self._choose(len(orders))]
        x[:] = [x[i] for i in order] if isinstance(x, list) else x[list(order)]

    def permutation(self, n: int) -> np.ndarray:
        order = np.arange(n)
        self.shuffle(order)
        return order


def canonical(state: Any, skip: Any) -> Any:
    """A rules state as a hashable value (its generator and its game left out)."""

    def value(v: Any) -> Any:
        if isinstance(v, np.ndarray):
            return ("array", str(v.dtype), v.shape, value(v.tolist()))
        if isinstance(v, (list, tuple)):
            return tuple(value(x) for x in v)
        return repr(v)

    return tuple(
        (k, value(v)) for k, v in sorted(vars(state).items()) if v is not skip and k != "game"
    )


def deals_by_brute_force(rules: Any) -> dict[Any, Fraction]:
    results: dict[Any, Fraction] = {}
    pending: list[tuple[list[int], Fraction]] = [([], Fraction(1))]
    while pending:
        choices, weight = pending.pop()
        chance = EveryOrdering(choices)
        try:
            state = rules.new_initial_state(chance)
        except NeedChoice as need:
            share = weight / need.options
            pending.extend(([*choices, k], share) for k in range(need.options))
            continue
        key = canonical(state, chance)
        results[key] = results.get(key, Fraction(0)) + weight
    return results


def deals_through_openspiel(game: Any) -> dict[Any, Fraction]:
    results: dict[Any, Fraction] = {}
    pending = [(game.new_initial_state(), Fraction(1))]
    while pending:
        state, weight = pending.pop()
        if state.is_chance_node():
            for value, p in state.engine.chance_outcomes():
                pending.append((state.child(value), weight * p))
            continue
        rest = state.engine.rest
        key = canonical(rest, getattr(rest, state.engine.adapter.chance_fields[0]))
        results[key] = results.get(key, Fraction(0)) + weight
    return results


SMALL_DEALS = [
    ("promise_war_v0", {"decks": "1 1 2/1 2 3", "max_power": 3}),
    ("promise_war_v0", {"num_players": 3, "decks": "0 2 2", "max_power": 2}),
    ("ironman_war_v0", {"deck": "attack_1:2 attack_2:1 upgrade:1"}),
    ("cardline_v0", {"hand_size": 1, "deck": "B:2 D:4 A:1 E:5 C:3"}),
]


@pytest.mark.parametrize("case", SMALL_DEALS, ids=case_id)
def test_the_deal_is_exactly_the_rules_deal(case: tuple[str, dict[str, Any]]) -> None:
    game = load(*case)
    through_openspiel = deals_through_openspiel(game)
    assert sum(through_openspiel.values()) == 1
    assert through_openspiel == deals_by_brute_force(game.adapter.rules)


def test_beast_wars_deck_is_dealt_card_by_card() -> None:
    """Beast Wars shuffles its 72-card battle deck at the deal (too many orderings for the
    brute force): the first positions' outcomes are the deck's kinds, each with its share."""
    game = load("beast_wars_v0", {})
    state = game.new_initial_state()
    assert state.engine.chance_outcomes() == [(0, Fraction(1, 2)), (1, Fraction(1, 2))]
    state.apply_action(1)  # predacon starts
    left = Counter(beast_wars_rules.DEFAULT_DECK)
    for _ in range(3):
        size = sum(left.values())
        expected = [(kind, Fraction(count, size)) for kind, count in sorted(left.items())]
        assert state.engine.chance_outcomes() == expected
        kind = expected[-1][0]
        state.apply_action(kind)
        left[kind] -= 1
        if not left[kind]:
            del left[kind]
    deck_orders = math.factorial(72) // math.prod(
        math.factorial(c) for c in Counter(beast_wars_rules.DEFAULT_DECK).values()
    )
    assert deck_orders > 10**60  # why no Beast Wars tree is ever enumerated (docs/openspiel.md)


def test_a_scripted_env_replays_a_scripted_deal() -> None:
    """The same outcomes give the same state, whoever feeds them."""
    game = load("promise_war_v0", {"decks": "1 1 2 3", "max_power": 3})
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    while state.is_chance_node():
        state.apply_action(random_step(state, rng))
    rules_state = game.adapter.rules.new_initial_state(ScriptedChance(state.history()))
    assert rules_state.draw_piles == state.engine.rest.draw_piles
