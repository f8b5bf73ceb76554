"""Iron Man 2 Game of War: commit strong cards where they win, fight for a battle only while
catching up is worth its cards, shield the opponent's best card.

- **Commit**: the two strongest attack cards go to two battles and the cheapest card is
  sacrificed to the third, chosen at random each round (any fixed choice is beaten by another
  one: sacrificing battle 1 beats battle 3 by 68%, battle 2 beats battle 1 by 57%). A hand
  rich in strong cards commits three strong ones and plays for all three battles. Upgrades
  and shields stay in hand: they answer a lead later.
- **Losing a battle**: the battle's worth is how much the round's pawn moves change between
  winning and losing it (the remaining battles taken as coin flips). The agent plays the
  cheapest card that takes the lead (or the cheapest set of cards that catches up) while its
  cost, in card worth, stays within a budget of that worth times a base that grows with the
  hand; otherwise it concedes and keeps its cards for later battles and rounds.
- **Standoff**: a battle that matters gets the strongest card, one that does not the cheapest.
- **ENERGY SHIELD**: discards the opposing card whose loss lowers the opponent's standing most.
"""

from __future__ import annotations

from itertools import product

import numpy as np

from cardarena.envs.ironman_war.rules import (
    CARD_VALUES,
    CONCEDE,
    ENERGY_SHIELD,
    FINAL_ATTACK,
    NUM_BATTLES,
    NUM_KINDS,
    SHIELD_BASE,
    UPGRADE,
)

from ..base import EnvSpec, Observation
from .common import EnvData, choose, legal

COMMIT, PLAY_OR_CONCEDE, STANDOFF_PLAY, SHIELD_TARGET = range(4)
_VALUES = np.asarray(CARD_VALUES, dtype=np.int64)
#: What a card in hand is worth keeping (its cost when spent), by kind.
WORTH = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 4.5, 5.0, 6.0])
#: How strong a card is as a face-down commit or a standoff pick, by kind: attack value;
#: a shield kills the card it meets unless that is special too; an upgrade alone is worth 0.
STRIKE = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 0.5, 3.5, 6.0])


def total(cards: np.ndarray) -> int:
    """IM-5: the sum of attack values, doubled while an UPGRADE is among ``cards``."""
    value = int(_VALUES @ cards)
    return 2 * value if cards[UPGRADE] else value


def standing(mine: np.ndarray, theirs: np.ndarray) -> tuple[int, int]:
    """(total difference, card count difference): positive in the first entry, or zero and
    positive in the second, means leading (IM-5); both zero is a standoff."""
    return (total(mine) - total(theirs), int(mine.sum() - theirs.sum()))


def shield_target(mine: np.ndarray, theirs: np.ndarray) -> int | None:
    """The opposing kind whose removal leaves the opponent weakest (None: nothing to hit)."""
    best, best_key = None, None
    for kind in np.flatnonzero(theirs):
        after = theirs.copy()
        after[kind] -= 1
        key = standing(mine, after)
        if best_key is None or key > best_key:
            best, best_key = int(kind), key
    return best


def play(mine: np.ndarray, theirs: np.ndarray, kind: int) -> tuple[np.ndarray, np.ndarray]:
    """Both sides after ``kind`` is played face up (a shield hits its best target)."""
    mine = mine.copy()
    mine[kind] += 1
    if kind == ENERGY_SHIELD:
        target = shield_target(mine, theirs)
        if target is not None:
            theirs = theirs.copy()
            theirs[target] -= 1
    return mine, theirs


def round_value(won: int, lost: int) -> int:
    """IM-11 from one player's side: steps gained minus steps given away."""
    if won > lost and won >= 2:
        return 2 if won == NUM_BATTLES else 1
    if lost > won and lost >= 2:
        return -2 if lost == NUM_BATTLES else -1
    return 0


def battle_worth(battle: int, won: int, lost: int) -> float:
    """How much winning ``battle`` rather than losing it changes the round's pawn moves, the
    battles after it counted as coin flips."""
    later = NUM_BATTLES - battle - 1
    outcomes = list(product((0, 1), repeat=later))
    worth = 0.0
    for rest in outcomes:
        wins = sum(rest)
        win = round_value(won + 1 + wins, lost + later - wins)
        lose = round_value(won + wins, lost + 1 + later - wins)
        worth += win - lose
    return worth / len(outcomes)


class IronManStrategy:
    """The Iron Man 2 heuristic (module docstring). ``budget`` is the card worth one battle
    of worth 1 may cost with an empty hand; it grows by ``budget_per_card`` per card held.
    ``sacrifice_battle`` fixes the battle (0..2) that gets the cheap card (None: random)."""

    def __init__(
        self,
        env_spec: EnvSpec,
        budget: float = 3.0,
        budget_per_card: float = 0.6,
        sacrifice_battle: int | None = None,
    ) -> None:
        self.data = EnvData(env_spec)
        self.layout = self.data.layout
        self.budget = budget
        self.budget_per_card = budget_per_card
        self.sacrifice_battle = sacrifice_battle
        self._plan: list[int] = []

    def start_game(self, seat: str, rng: np.random.Generator) -> None:
        self._plan = []

    def act(self, observation: Observation, rng: np.random.Generator) -> int:
        actions = legal(observation)
        view = self.layout.view(observation["observation"])
        decision = int(np.argmax(view["decision"]))
        hand = view["hand"].astype(np.int64)
        if decision == COMMIT:
            return self._commit(view, hand, actions, rng)
        mine = view["battle_cards"][0].astype(np.int64)
        theirs = view["battle_cards"][1].astype(np.int64)
        if decision == SHIELD_TARGET:
            scores = []
            for action in actions:
                after = theirs.copy()
                after[action - SHIELD_BASE] -= 1
                scores.append(_key(standing(mine, after)))
            return choose(actions, scores, rng)
        worth = self._battle_worth(view)
        if decision == STANDOFF_PLAY:
            strength = STRIKE if worth >= 0.5 else -WORTH
            return choose(actions, strength[actions], rng)
        return self._play_or_concede(hand, mine, theirs, worth, actions, rng)

    # --- commit ----------------------------------------------------------------------------
    def _commit(
        self, view: dict[str, np.ndarray], hand: np.ndarray, actions: np.ndarray, rng
    ) -> int:
        slot = int(np.argmax(view["commit_slot"]))
        if slot == 0 or not self._plan:
            self._plan = self._plan_commit(hand, rng)
        planned = self._plan[slot] if slot < len(self._plan) else -1
        if planned >= 0 and hand[planned] > 0:
            return planned
        return choose(actions, STRIKE[actions], rng)  # the plan no longer fits: play strong

    def _plan_commit(self, hand: np.ndarray, rng: np.random.Generator) -> list[int]:
        """Kinds for battles 1, 2, 3: two strong attack cards and a cheap sacrifice, or three
        strong ones when the hand holds plenty."""
        cards = [int(k) for k in np.repeat(np.arange(NUM_KINDS), hand)]
        if not cards:
            return []
        jitter = rng.random(len(cards)) * 1e-3  # equal cards: any order
        # Attack cards commit; specials stay in hand to answer a lead.
        keep_back = np.array([0.0 if k < UPGRADE or k == FINAL_ATTACK else 10.0 for k in cards])
        strong_order = np.argsort(-(STRIKE[cards] - keep_back) - jitter)
        strong = [cards[i] for i in strong_order]
        if len(cards) <= 2:
            return strong
        strong_count = int(sum(STRIKE[k] >= 4 and k not in (UPGRADE, ENERGY_SHIELD) for k in cards))
        if strong_count >= 3 and len(cards) >= 6:
            return strong[:3]
        rest = strong[2:]
        plan = strong[:2]
        battle = self.sacrifice_battle
        if battle is None:  # unpredictable: any fixed choice is exploitable
            battle = int(rng.integers(NUM_BATTLES))
        plan.insert(battle, min(rest, key=lambda k: WORTH[k]))
        return plan

    # --- losing a battle -------------------------------------------------------------------
    def _battle_worth(self, view: dict[str, np.ndarray]) -> float:
        battle = int(np.argmax(view["battle"]))
        won, lost = (int(x) for x in view["battles_won"])
        worth = battle_worth(battle, won, lost)
        # A step matters more when it decides the game: near the end of either pawn's track.
        last = self.data.game.victory_cards
        pawns = view["pawns"]
        if max(pawns) >= last - 1:
            worth *= 1.5
        return worth

    def _play_or_concede(
        self,
        hand: np.ndarray,
        mine: np.ndarray,
        theirs: np.ndarray,
        worth: float,
        actions: np.ndarray,
        rng: np.random.Generator,
    ) -> int:
        budget = worth * (self.budget + self.budget_per_card * hand.sum())
        cards = [int(a) for a in actions if a != CONCEDE]
        leading = []
        for kind in cards:
            after_mine, after_theirs = play(mine, theirs, kind)
            if standing(after_mine, after_theirs) > (0, 0):
                leading.append(kind)
        if leading:
            costs = WORTH[leading]
            if costs.min() <= budget:
                return choose(leading, -costs, rng)
        else:
            plan, cost = self._catch_up(hand, mine, theirs)
            if plan is not None and cost <= budget:
                return plan
        return CONCEDE

    def _catch_up(
        self, hand: np.ndarray, mine: np.ndarray, theirs: np.ndarray
    ) -> tuple[int | None, float]:
        """Greedy: the card that gains the most per worth, until leading. Returns the first
        card and the total worth spent, or (None, inf) if the hand cannot catch up."""
        hand = hand.copy()
        first: int | None = None
        spent = 0.0
        while hand.any():
            options = []
            before = _key(standing(mine, theirs))
            for option in np.flatnonzero(hand).tolist():
                after_mine, after_theirs = play(mine, theirs, option)
                gain = _key(standing(after_mine, after_theirs)) - before
                options.append((gain / WORTH[option], option, after_mine, after_theirs))
            _, kind, mine, theirs = max(options, key=lambda o: (o[0], -o[1]))
            hand[kind] -= 1
            spent += float(WORTH[kind])
            if first is None:
                first = kind
            if standing(mine, theirs) > (0, 0):
                return first, spent
        return None, float("inf")


def _key(difference: tuple[int, int]) -> float:
    """One number ordering standings like IM-5 (totals first, then card counts)."""
    return difference[0] + 0.01 * difference[1]
