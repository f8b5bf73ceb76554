"""Pure rules of High Card, the test suite's fifth game (HC-1..HC-5 below).

numpy and the standard library only, like every game's rules. ``HighCardGame`` is the
validated configuration; ``HighCardState`` is one game, advanced in place by ``apply_action``
(the index of the rank to play). The stock is a list with its top card at the *end*, so
drawing is ``pop()``.

- HC-1: one card of each rank ``1..num_cards``, shuffled; ``hand_size`` cards are dealt to each
  player in turn (player_0 first); the rest is a face-down stock.
- HC-2: each round player_0, then player_1, picks a card from hand face down; player_1 does not
  see player_0's pick. Both picks are then revealed together.
- HC-3: the higher rank (ranks are distinct, so there is no tie) wins both cards.
- HC-4: after the reveal both players draw one card (player_0 first) while the stock holds at
  least two, so hands stay the same size; a last odd card stays in the stock unseen.
- HC-5: the game ends when the hands are empty. More cards won: +1, fewer: -1, as many: 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from cardarena.envs.core.errors import InvalidConfigError
from cardarena.envs.core.game import NO_PLAYER, RulesState, detached_generator
from cardarena.envs.core.options import check_reset_options
from cardarena.envs.core.validation import check_int, check_sequence

NUM_PLAYERS = 2
AGENT_NAMES = ("player_0", "player_1")
#: Most ranks a deck may hold: it sizes the action space and every per-rank piece.
MAX_CARDS = 20
RESET_OPTION_KEYS = ("deck",)


@dataclass(frozen=True)
class HighCardGame:
    """Validated configuration; creates games. Build it with ``make_game``."""

    num_cards: int
    hand_size: int

    @property
    def agent_names(self) -> tuple[str, ...]:
        return AGENT_NAMES

    @property
    def num_actions(self) -> int:
        return self.num_cards

    @property
    def zero_sum(self) -> bool:
        """HC-5 returns are +1/-1 or 0/0."""
        return True

    @property
    def num_rounds(self) -> int:
        """Every round plays one card from each hand, and HC-4 keeps the hands equal."""
        return self.num_cards // NUM_PLAYERS

    @property
    def stock_cards(self) -> int:
        return self.num_cards - NUM_PLAYERS * self.hand_size

    def new_initial_state(
        self, rng: np.random.Generator, options: dict[str, Any] | None = None
    ) -> HighCardState:
        """HC-1: shuffle (unless ``options["deck"]`` fixes the order, top first) and deal."""
        options = check_reset_options(options, RESET_OPTION_KEYS)
        if "deck" in options:
            deck = self._check_deck(options["deck"])
        else:
            deck = (rng.permutation(self.num_cards) + 1).tolist()
        return HighCardState(self, rng, deck)

    def _check_deck(self, deck: Any) -> list[int]:
        cards = [check_int(card, f"options['deck'][{i}]", 1, self.num_cards)
                 for i, card in enumerate(check_sequence(deck, "options['deck']"))]  # fmt: skip
        if sorted(cards) != list(range(1, self.num_cards + 1)):
            raise InvalidConfigError(
                f"options['deck'] must hold every rank 1..{self.num_cards} once (top first), "
                f"got {cards}"
            )
        return cards


def make_game(num_cards: int = 6, hand_size: int = 2) -> HighCardGame:
    """Validate the config: ``num_cards`` ranks, ``hand_size`` cards dealt to each player."""
    num_cards = check_int(num_cards, "num_cards", 2, MAX_CARDS)
    hand_size = check_int(hand_size, "hand_size", 1, num_cards // NUM_PLAYERS)
    return HighCardGame(num_cards, hand_size)


class HighCardState(RulesState):
    """One game in progress. Attributes are public for encoders and tests; treat as read-only.

    Public: ``hand_sizes``, ``has_picked``, ``played`` (ranks each seat has shown), ``won``,
    ``rounds_played``, ``len(stock)``. Private to a seat: ``hands[seat]``, ``picks[seat]``.
    Hidden from everyone: the ``stock``. Ranks are stored as indices ``rank - 1``.
    """

    def __init__(self, game: HighCardGame, rng: np.random.Generator, deck: list[int]) -> None:
        self.game = game
        self.rng = rng
        ranks = [card - 1 for card in deck]
        dealt = NUM_PLAYERS * game.hand_size
        self.hands = np.zeros((NUM_PLAYERS, game.num_cards), dtype=np.int64)
        for position, rank in enumerate(ranks[:dealt]):
            self.hands[position % NUM_PLAYERS, rank] = 1
        self.stock = ranks[dealt:][::-1]
        self.picks = [-1] * NUM_PLAYERS
        self.played = np.zeros((NUM_PLAYERS, game.num_cards), dtype=np.int64)
        self.won = [0] * NUM_PLAYERS
        self.rounds_played = 0
        self.terminal = False
        self.truncated = False  # High Card ends within num_cards // 2 rounds: no cap
        self._returns = (0.0,) * NUM_PLAYERS

    @property
    def hand_sizes(self) -> list[int]:
        return [int(size) for size in self.hands.sum(axis=1)]

    @property
    def has_picked(self) -> list[bool]:
        return [pick >= 0 for pick in self.picks]

    # --- GameState protocol ----------------------------------------------------------------
    def current_player(self) -> int:
        if self.terminal:
            return NO_PLAYER
        return 0 if self.picks[0] < 0 else 1

    def legal_action_mask(self) -> np.ndarray:
        seat = self.current_player()
        if seat == NO_PLAYER:
            return np.zeros(self.game.num_actions, dtype=bool)
        return self.hands[seat] > 0

    def apply_legal_action(self, action: int) -> None:
        """HC-2: pick rank index ``action`` face down; the second pick reveals the round."""
        seat = self.current_player()
        self.hands[seat, action] = 0
        self.picks[seat] = action
        if seat == NUM_PLAYERS - 1:
            self._reveal()

    def scores(self) -> tuple[int, ...]:
        """HC-5: cards won."""
        return tuple(self.won)

    def action_to_string(self, action: int) -> str:
        return f"play rank {action + 1}"

    def resample_from_infostate(self, seat: int, rng: np.random.Generator) -> HighCardState:
        """A copy where the other player's hand and face-down pick and the stock are dealt
        again from the cards ``seat`` has not seen, keeping every size, with a generator that
        knows nothing of this state's (``detached_generator``)."""
        twin = self.clone()
        other = 1 - seat
        hand = np.flatnonzero(twin.hands[other]).tolist()
        pick = [twin.picks[other]] if twin.picks[other] >= 0 else []
        unseen = np.sort(np.array(hand + pick + twin.stock, dtype=np.int64))  # no true order
        rng.shuffle(unseen)
        cards = unseen.tolist()
        twin.hands[other] = 0
        twin.hands[other, cards[: len(hand)]] = 1
        cards = cards[len(hand) :]
        if pick:
            twin.picks[other], cards = cards[0], cards[1:]
        twin.stock = cards
        twin.rng = detached_generator(rng)
        return twin

    # --- transitions -----------------------------------------------------------------------
    def _reveal(self) -> None:
        """HC-3 and HC-4: the higher rank takes both cards, then both draw while they can."""
        for seat, rank in enumerate(self.picks):
            self.played[seat, rank] = 1
        winner = int(np.argmax(self.picks))
        self.won[winner] += NUM_PLAYERS
        self.picks = [-1] * NUM_PLAYERS
        self.rounds_played += 1
        if len(self.stock) >= NUM_PLAYERS:
            for seat in range(NUM_PLAYERS):
                self.hands[seat, self.stock.pop()] = 1
        if not self.hands.any():
            self._finish()

    def _finish(self) -> None:
        """HC-5: more cards won +1, fewer -1, as many 0."""
        self.terminal = True
        difference = self.won[0] - self.won[1]
        sign = float(np.sign(difference))
        self._returns = (sign, -sign)
