"""Pure rules of Cardline (envs/rulebooks/cardline_v0.md, CL-1..CL-7), Marvel edition by default.

numpy and the standard library only. ``CardlineGame`` is the validated configuration (deck,
seats, hand size, characteristic, first player, cap); ``CardlineState`` is one game, advanced in
place by ``apply_action(slot * (deck_size + 1) + gap)``. Cards are ids: their row in the deck
(0-based). The draw pile is a Python list with the top card at the *end*, so drawing is
``pop()``. Decisions where the rulebook is silent are listed in the env docstring
(``envs/cardline/env.py``, "Decided rules").

A state that records (``record_events``) logs what the table saw; the kinds and their fields
are listed in ``envs/cardline/story.py``. Every log call sits behind one
``self.events is not None`` test, so a state that does not record pays nothing more. Every
event is public: names in hands are public (CL-3) and a placed card is shown to all.

Randomness comes only from the generator the state was dealt with, through the chance protocol
(``envs/core/chance.py``: ``integers``, ``shuffle``, ``permutation``), so a seeded numpy
generator and OpenSpiel's explicit chance nodes (``cardarena.openspiel``) drive the same code.
"""

from __future__ import annotations

import bisect
import copy
import itertools
import os
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..core.errors import InvalidConfigError
from ..core.events import visible_events
from ..core.game import NO_PLAYER, RulesState, copy_generator
from ..core.options import check_reset_options, per_player
from ..core.state_checks import (
    field_array,
    field_distinct,
    field_events,
    field_flag,
    field_flags,
    field_generator,
    field_int,
    field_ints,
    field_list,
    field_same,
    refuse,
)
from ..core.tables import Column, Table, load_table
from ..core.validation import check_int, check_sequence

MIN_PLAYERS, MAX_PLAYERS = 2, 8
DEFAULT_HAND_SIZE = 4
#: ``max_turns=None`` means this many turns per card in the deck.
TURNS_PER_CARD = 10
MARVEL_DECK = Path(__file__).with_name("marvel.csv")

DECK_COLUMNS = {"name": Column(str, unique=True), "colour": Column(str)}
CHARACTERISTIC_COLUMN = Column(float)

RESET_OPTION_KEYS = ("hands", "initial_card", "draw_pile", "characteristic", "first_player")

#: ``CardlineState.where`` codes: where each card is. Hands are ``IN_HAND + seat``.
IN_PILE, IN_LINE, IN_BOX, OUT_OF_GAME, IN_HAND = 0, 1, 2, 3, 4

#: Scaled bounds of an open end of the line (``gap_bounds``): below / above every card.
OPEN_LOW, OPEN_HIGH = -1.0, 2.0


def agent_names(num_players: int) -> tuple[str, ...]:
    return tuple(f"player_{seat}" for seat in range(num_players))


_AGENT_NAMES = {n: agent_names(n) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)}


def load_deck(source: Any = None) -> Table:
    """The deck as a validated ``Table``: ``name`` (unique), ``colour``, then at least one
    numeric characteristic column (any name; values may be negative or fractional).
    ``None`` is the built-in Marvel deck. Raises ``InvalidConfigError`` naming row, column
    and value for any malformed cell."""
    if source is None:
        source = MARVEL_DECK
    elif isinstance(source, Mapping):
        raise InvalidConfigError(
            f"deck must be a path to a .csv or .json file or a list of dicts, got a dict {source!r}"
        )
    return load_table(source, DECK_COLUMNS, extra=CHARACTERISTIC_COLUMN, what="deck", min_extra=1)


def rank_scale(values: np.ndarray) -> np.ndarray:
    """Each value's rank among the deck's distinct values, mapped onto ``[0, 1]`` (float32).

    Order and equality are kept exactly (``a <= b`` iff ``scaled[a] <= scaled[b]``), so a
    network compares kilograms, IQ points and years BC on one scale."""
    distinct = np.unique(values)
    ranks = np.searchsorted(distinct, values).astype(np.float64)
    return (ranks / max(len(distinct) - 1, 1)).astype(np.float32)


#: Most bytes of legal masks kept memoised per game (``CardlineGame.legal_mask``).
MASK_MEMO_BYTES = 16 * 1024 * 1024


class CardlineGame:
    """Validated configuration; creates games. Build it with ``make_game``.

    ``values[c]`` holds every card's value per characteristic (float64, ``c`` in
    ``characteristics`` order) and ``scaled[c]`` the rank-scaled float32 version the encoder
    shows. Both are read-only and shared by every state of this game.
    """

    def __init__(
        self,
        deck: Table,
        num_players: int,
        hand_size: int,
        characteristic: str | None,
        first_player: int | None,
        max_turns: int,
        deck_label: str,
    ) -> None:
        self.deck = deck
        self.deck_label = deck_label
        self.num_players = num_players
        self.hand_size = hand_size
        self.characteristic = characteristic
        self.first_player = first_player
        self.max_turns = max_turns
        self.names: tuple[str, ...] = deck.column("name")
        self.colours: tuple[str, ...] = deck.column("colour")
        self.characteristics: tuple[str, ...] = deck.columns[len(DECK_COLUMNS) :]
        self.deck_size = len(self.names)
        self.num_gaps = self.deck_size + 1
        self.card_ids = {name: card for card, name in enumerate(self.names)}
        values, scaled = [], []
        for name in self.characteristics:
            column = np.array(deck.column(name), dtype=np.float64)
            column.setflags(write=False)
            values.append(column)
            ranked = rank_scale(column)
            ranked.setflags(write=False)
            scaled.append(ranked)
        self.values: tuple[np.ndarray, ...] = tuple(values)
        self.scaled: tuple[np.ndarray, ...] = tuple(scaled)
        self._masks: dict[tuple[int, int], np.ndarray] = {}

    def _key(self) -> tuple[Any, ...]:
        """What makes two games the same (computed once: the game never changes)."""
        key: tuple[Any, ...] | None = self.__dict__.get("_equality_key")
        if key is None:
            key = self.__dict__["_equality_key"] = self._compute_key()
        return key

    def _compute_key(self) -> tuple[Any, ...]:
        values = tuple(tuple(column.tolist()) for column in self.values)
        return (
            self.names,
            self.colours,
            self.characteristics,
            values,
            self.num_players,
            self.hand_size,
            self.characteristic,
            self.first_player,
            self.max_turns,
        )

    def __eq__(self, other: object) -> bool:
        """Same cards, values and settings (the deck's label does not matter)."""
        if not isinstance(other, CardlineGame):
            return NotImplemented
        return other is self or self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    @property
    def agent_names(self) -> tuple[str, ...]:
        return _AGENT_NAMES[self.num_players]

    @property
    def num_actions(self) -> int:
        """``hand_size * (deck_size + 1)``: action ``slot * (deck_size + 1) + gap``."""
        return self.hand_size * self.num_gaps

    @property
    def zero_sum(self) -> bool:
        """Never: a shared win (CL-6, CL-7) gives +1 to several players, even with two."""
        return False

    def legal_mask(self, hand_length: int, line_length: int) -> np.ndarray:
        """The read-only mask of every (slot < hand_length, gap <= line_length), memoised (the
        memo is emptied past ``MASK_MEMO_BYTES``, so a 2,000-card deck cannot grow it to GBs)."""
        key = (hand_length, line_length)
        mask = self._masks.get(key)
        if mask is None:
            if (len(self._masks) + 1) * self.num_actions > MASK_MEMO_BYTES:
                self._masks.clear()
            grid = np.zeros((self.hand_size, self.num_gaps), dtype=bool)
            grid[:hand_length, : line_length + 1] = True
            mask = grid.reshape(-1)
            mask.setflags(write=False)
            self._masks[key] = mask
        return mask

    def card_id(self, name: Any, key: str) -> int:
        card = self.card_ids.get(name) if isinstance(name, str) else None
        if card is None:
            raise InvalidConfigError(
                f"{key}: {name!r} is not a card of the {self.deck_label} (names are "
                f"case-sensitive; e.g. {', '.join(map(repr, self.names[:3]))})"
            )
        return card

    def characteristic_index(self, name: Any, key: str) -> int:
        if name not in self.characteristics:
            raise InvalidConfigError(
                f"{key} must be one of the {self.deck_label}'s characteristics "
                f"{', '.join(map(repr, self.characteristics))}, got {name!r}"
            )
        return self.characteristics.index(name)

    def seat(self, value: Any, key: str) -> int:
        """A seat from an int or an agent name."""
        if isinstance(value, str):
            if value not in self.agent_names:
                raise InvalidConfigError(
                    f"{key} must be a seat 0..{self.num_players - 1} or one of "
                    f"{', '.join(map(repr, self.agent_names))}, got {value!r}"
                )
            return self.agent_names.index(value)
        return check_int(value, key, 0, self.num_players - 1)

    def new_initial_state(
        self, rng: np.random.Generator, options: dict[str, Any] | None = None
    ) -> CardlineState:
        """CL-2: draw the characteristic and the first player, shuffle, deal ``hand_size``
        each, turn the top card of the pile into the line. The three draws happen in that
        order every game, fixed or not, so fixing one option leaves the other draws alone."""
        options = check_reset_options(options, RESET_OPTION_KEYS)
        characteristic = int(rng.integers(len(self.characteristics)))
        first_player = int(rng.integers(self.num_players))
        if self.characteristic is not None:
            characteristic = self.characteristics.index(self.characteristic)
        if self.first_player is not None:
            first_player = self.first_player
        if "characteristic" in options:
            characteristic = self.characteristic_index(
                options["characteristic"], "options['characteristic']"
            )
        if "first_player" in options:
            first_player = self.seat(options["first_player"], "options['first_player']")
        hands, initial, pile, out = self._deal(rng, options)
        return CardlineState(self, rng, characteristic, first_player, hands, initial, pile, out)

    def _deal(
        self, rng: np.random.Generator, options: dict[str, Any]
    ) -> tuple[list[list[int]], int, list[int], list[int]]:
        """Hands, the initial card, the pile (top first) and the cards out of the game."""
        named: dict[int, str] = {}

        def claim(name: Any, key: str) -> int:
            card = self.card_id(name, key)
            if card in named:
                raise InvalidConfigError(
                    f"{key}: {name!r} is named twice (also in {named[card]}); every card is "
                    "in one place only"
                )
            named[card] = key
            return card

        fixed_hands: list[list[int] | None] = [None] * self.num_players
        if "hands" in options:
            listed = per_player(options["hands"], "options['hands']", self.agent_names)
            for seat, cards in enumerate(listed):
                key = f"options['hands'][{self.agent_names[seat]!r}]"
                cards = check_sequence(cards, key)
                if not 1 <= len(cards) <= self.hand_size:
                    raise InvalidConfigError(
                        f"{key} holds {len(cards)} card(s) {cards!r}; each hand holds "
                        f"1..{self.hand_size} (hand_size)"
                    )
                fixed_hands[seat] = [claim(c, f"{key}[{i}]") for i, c in enumerate(cards)]
        initial = None
        if "initial_card" in options:
            initial = claim(options["initial_card"], "options['initial_card']")
        fixed_pile = None
        if "draw_pile" in options:
            cards = check_sequence(options["draw_pile"], "options['draw_pile']")
            fixed_pile = [claim(c, f"options['draw_pile'][{i}]") for i, c in enumerate(cards)]
        remainder = [card for card in range(self.deck_size) if card not in named]
        # The chance protocol (core/chance.py): shuffling the card ids draws the same numbers
        # as indexing by ``rng.permutation(len(remainder))``, and names each dealt card.
        shuffled = remainder[:]
        rng.shuffle(shuffled)
        needed = sum(self.hand_size for hand in fixed_hands if hand is None)
        needed += initial is None
        if fixed_pile is not None and needed > len(shuffled):
            raise InvalidConfigError(
                f"options leave {len(shuffled)} card(s) of the {self.deck_label} unnamed but "
                f"{needed} are needed to deal the hands and the initial card not fixed"
            )
        hands = []
        for hand in fixed_hands:
            if hand is None:
                hand, shuffled = shuffled[: self.hand_size], shuffled[self.hand_size :]
            hands.append(sorted(hand))
        if initial is None:
            if not shuffled:
                raise InvalidConfigError(
                    "options leave no card for the initial card: fix options['initial_card'] "
                    "or name fewer cards"
                )
            initial, shuffled = shuffled[0], shuffled[1:]
        if fixed_pile is None:
            return hands, initial, shuffled, []
        return hands, initial, fixed_pile, shuffled


def _deck_label(source: Any) -> str:
    if source is None:
        return "Marvel deck"
    if isinstance(source, (str, os.PathLike)):
        return f"deck {os.fspath(source)}"
    return "custom deck"


def make_game(
    num_players: int = 2,
    hand_size: int = DEFAULT_HAND_SIZE,
    characteristic: str | None = None,
    deck: str | os.PathLike[str] | Sequence[Mapping[str, Any]] | None = None,
    first_player: int | str | None = None,
    max_turns: int | None = None,
) -> CardlineGame:
    """Validate the config (every problem raises ``InvalidConfigError``)."""
    num_players = check_int(num_players, "num_players", MIN_PLAYERS, MAX_PLAYERS)
    hand_size = check_int(hand_size, "hand_size", 1)
    table = load_deck(deck)
    label = _deck_label(deck)
    minimum = num_players * hand_size + 1
    if len(table.rows) < minimum:
        raise InvalidConfigError(
            f"the {label} has {len(table.rows)} cards; {num_players} players with hand_size "
            f"{hand_size} need at least {minimum} (num_players * hand_size + 1, CL-1)"
        )
    if max_turns is None:
        max_turns = TURNS_PER_CARD * len(table.rows)
    max_turns = check_int(max_turns, "max_turns", 1)
    game = CardlineGame(table, num_players, hand_size, None, None, max_turns, label)
    if deck is not None:
        _warn_if_sorted_by_value(table, label)
    if characteristic is not None:
        game.characteristic = game.characteristics[
            game.characteristic_index(characteristic, "characteristic")
        ]
    if first_player is not None:
        game.first_player = game.seat(first_player, "first_player")
    return game


def _warn_if_sorted_by_value(table: Table, label: str) -> None:
    """CL-1: hands are kept sorted by card id, so a deck whose rows are in value order tells
    every player the value order of the cards in hand. Say so (the built-in deck is in
    alphabetical order)."""
    for name in table.columns[len(DECK_COLUMNS) :]:
        values = np.asarray(table.column(name), dtype=float)
        steps = np.diff(values)
        if len(values) > 2 and (np.all(steps >= 0) or np.all(steps <= 0)):
            warnings.warn(
                f"the {label}'s rows are sorted by {name!r}: hands are kept in card-id order, "
                f"so players would see the value order of their cards; shuffle or sort the rows "
                f"by name (CL-1)",
                UserWarning,
                stacklevel=3,
            )


class CardlineState(RulesState):
    """One game in progress. Attributes are public for encoders and tests; treat as read-only.

    Public: ``line`` (card ids left to right), ``hands`` (card ids, sorted: names are public,
    CL-3), the top card of ``pile``, ``box`` contents, ``eliminated``, ``finishers`` (this
    round), ``last_card`` / ``last_right`` / ``last_mover`` (each seat's last placement, its
    value shown), ``revealed`` and ``known`` (every card whose value has been shown, and that
    value scaled: players may remember it), ``characteristic``, ``first_player``, ``turns``.
    Hidden from everyone: the values of never-revealed cards (the env never shows them) and
    the order of ``pile`` below its top card; which never-revealed cards are ``out`` (only
    when ``options['draw_pile']`` set the game up).
    """

    score_name = "cards placed right"

    def __init__(
        self,
        game: CardlineGame,
        rng: np.random.Generator,
        characteristic: int,
        first_player: int,
        hands: list[list[int]],
        initial: int,
        pile_top_first: list[int],
        out: list[int],
    ) -> None:
        n = game.num_players
        self.game = game
        self.rng = rng
        self.num_players = n
        self.characteristic = characteristic
        self.values = game.values[characteristic]
        self.scaled = game.scaled[characteristic]
        self.first_player = first_player
        self.hands = hands
        self.line = [initial]
        self.pile = pile_top_first[::-1]
        self.box: list[int] = []
        self.out = list(out)
        self.where = np.full(game.deck_size, IN_PILE, dtype=np.int8)
        for seat, hand in enumerate(hands):
            self.where[hand] = IN_HAND + seat
        self.where[initial] = IN_LINE
        self.where[self.out] = OUT_OF_GAME
        self.revealed = np.zeros(game.deck_size, dtype=bool)
        self.known = np.full(game.deck_size, OPEN_LOW, dtype=np.float32)
        self._reveal(initial)
        self.eliminated = [False] * n
        self.finishers: list[int] = []
        self.last_card = [-1] * n
        self.last_right = [False] * n
        self.last_mover = NO_PLAYER
        self.correct = [0] * n
        self.turns = 0
        self.rounds = 0
        self.terminal = False
        self.truncated = False
        self._returns = (0.0,) * n
        self.order: list[int] = []
        self.turn_index = 0
        self.to_act = NO_PLAYER
        self._start_round()

    def record_events(self) -> None:
        """Start recording; a state recorded from its deal opens its log with the setup (the
        deal happens before anyone can ask to record, CL-2)."""
        fresh = self.events is None and self.turns == 0 and not self.terminal
        super().record_events()
        if fresh:
            game, names = self.game, self.game.names
            initial = self.line[0]
            self.log(
                "dealt",
                deck=game.deck_label,
                characteristic=game.characteristics[self.characteristic],
                first_player=self.first_player,
                initial=names[initial],
                initial_value=float(self.values[initial]),
                hands=[[names[card] for card in hand] for hand in self.hands],
                pile=len(self.pile),
                top=names[self.pile[-1]] if self.pile else "",
            )

    # --- GameState protocol ----------------------------------------------------------------
    def current_player(self) -> int:
        return self.to_act

    def legal_action_mask(self) -> np.ndarray:
        """Read-only: every card in hand (slot) into every gap of the line (CL-4)."""
        if self.to_act == NO_PLAYER:
            return self.game.legal_mask(0, 0)
        return self.game.legal_mask(len(self.hands[self.to_act]), len(self.line))

    def apply_legal_action(self, action: int) -> None:
        """CL-4: place the card of hand slot ``action // (deck_size + 1)`` into gap
        ``action % (deck_size + 1)``; right, it stays; wrong, box and a penalty draw."""
        seat = self.to_act
        slot, gap = divmod(action, self.game.num_gaps)
        hand = self.hands[seat]
        card = hand.pop(slot)
        line, values = self.line, self.values
        value = values[card]
        right = (gap == 0 or values[line[gap - 1]] <= value) and (
            gap == len(line) or value <= values[line[gap]]
        )
        self._reveal(card)
        if self.events is not None:
            self._log_placement(seat, card, gap, right)
        self.last_card[seat] = card
        self.last_right[seat] = right
        self.last_mover = seat
        self.turns += 1
        if right:
            line.insert(gap, card)
            self.where[card] = IN_LINE
            self.correct[seat] += 1
            if not hand:
                self.finishers.append(seat)
        else:
            self.box.append(card)
            self.where[card] = IN_BOX
            self._draw(seat, "penalty")
        self.turn_index += 1
        if self.turn_index == len(self.order):
            self._end_round()
        elif self.turns >= self.game.max_turns:
            self._truncate()
        else:
            self.to_act = self.order[self.turn_index]

    def _log_placement(self, seat: int, card: int, gap: int, right: bool) -> None:
        """``placed``: the card, its value (turned over for all, CL-3), its neighbours in the
        line with theirs, right or wrong, and the cards left in hand before any penalty
        draw (0 after a right card: that player finished)."""
        names, values, line = self.game.names, self.values, self.line
        before = [names[line[gap - 1]], float(values[line[gap - 1]])] if gap else []
        after = [names[line[gap]], float(values[line[gap]])] if gap < len(line) else []
        self.log(
            "placed",
            seat=seat,
            card=names[card],
            value=float(values[card]),
            gap=gap,
            left=before,
            right=after,
            correct=bool(right),
            hand=len(self.hands[seat]),
        )

    def scores(self) -> tuple[int, ...]:
        """[decided] Cards each seat has placed correctly (a finisher's hand is empty, but an
        eliminated player's hand went to the box, so hand sizes would not rank players)."""
        return tuple(self.correct)

    def action_to_string(self, action: int) -> str:
        slot, gap = divmod(action, self.game.num_gaps)
        seat = self.to_act
        if seat != NO_PLAYER and slot < len(self.hands[seat]):
            card = self.game.names[self.hands[seat][slot]]
            return f"place {card} {self._gap_words(gap)} (slot {slot}, gap {gap})"
        return f"place hand slot {slot} in gap {gap}"

    def _gap_words(self, gap: int) -> str:
        """Where gap ``gap`` of the line is, by the cards around it."""
        names, line = self.game.names, self.line
        if gap > len(line):
            return "past the end of the line"
        if gap == 0:
            return f"left of {names[line[0]]}"
        if gap == len(line):
            return f"right of {names[line[-1]]}"
        return f"between {names[line[gap - 1]]} and {names[line[gap]]}"

    def clone(self) -> CardlineState:
        """An independent copy, made by hand (search and the mask checks clone a lot; this is
        a third faster than the shared ``clone_state``): the game and its read-only value
        tables are shared, everything that changes is copied."""
        twin = copy.copy(self)
        twin.hands = [hand[:] for hand in self.hands]
        twin.line = self.line[:]
        twin.pile = self.pile[:]
        twin.box = self.box[:]
        twin.out = self.out[:]
        twin.where = self.where.copy()
        twin.revealed = self.revealed.copy()
        twin.known = self.known.copy()
        twin.eliminated = self.eliminated[:]
        twin.finishers = self.finishers[:]
        twin.last_card = self.last_card[:]
        twin.last_right = self.last_right[:]
        twin.correct = self.correct[:]
        twin.order = self.order[:]
        twin.rng = copy_generator(self.rng)
        if self.events is not None:
            twin.events = self.events[:]
        return twin

    def __deepcopy__(self, memo: dict[int, Any]) -> CardlineState:
        # The game (deck, read-only value tables, mask cache) is immutable in play: share it.
        twin = object.__new__(CardlineState)
        memo[id(self)] = twin
        for name, value in self.__dict__.items():
            if name in ("game", "values", "scaled"):
                setattr(twin, name, memo.get(id(value), value))
            else:
                setattr(twin, name, copy.deepcopy(value, memo))
        return twin

    def resample_from_infostate(self, seat: int, rng: np.random.Generator) -> CardlineState:
        """A copy where what nobody sees is redrawn: the order of the draw pile below its top
        card, the box's order, and which never-revealed cards are out of the game rather than
        in the pile (only when ``options['draw_pile']`` left cards out). Every hand is public
        by name (CL-3) and values belong to card ids in the deck file, which players may
        know, so ``seat`` plays no part: all seats see the same. The copy gets a fresh
        generator drawn from ``rng``, so future box reshuffles are redrawn too."""
        twin = self.clone()
        if twin.pile:
            below = twin.pile[:-1]
            if twin.out:
                below = self._redeal_unrevealed(twin, below, rng)
            below.sort()  # sorted before the shuffle: the true order must not leak in
            rng.shuffle(below)
            twin.pile[:-1] = below
        twin.box.sort()
        rng.shuffle(twin.box)
        twin.rng = np.random.default_rng(int(rng.integers(2**63)))
        twin.events = None if self.events is None else visible_events(self.events, seat)
        return twin

    @staticmethod
    def _redeal_unrevealed(
        twin: CardlineState, below: list[int], rng: np.random.Generator
    ) -> list[int]:
        """Which never-revealed cards lie in the hidden part of the pile and which are out of
        the game, drawn again (as many in each as before): returns the new hidden part of
        the pile, unshuffled, and sets ``twin.out``."""
        kept = [card for card in below if twin.revealed[card]]
        hidden = [card for card in below if not twin.revealed[card]]
        gone = [card for card in twin.out if not twin.revealed[card]]
        pool = sorted(hidden + gone)
        rng.shuffle(pool)
        for card in pool[: len(hidden)]:
            twin.where[card] = IN_PILE
        for card in pool[len(hidden) :]:
            twin.where[card] = OUT_OF_GAME
        twin.out = sorted([card for card in twin.out if twin.revealed[card]] + pool[len(hidden) :])
        return kept + pool[: len(hidden)]

    # --- derived views ---------------------------------------------------------------------
    @property
    def pile_top(self) -> int:
        """Card id on top of the draw pile (its name side is public), or -1."""
        return self.pile[-1] if self.pile else -1

    def line_values(self) -> list[float]:
        return [float(self.values[card]) for card in self.line]

    def all_cards(self) -> list[int]:
        """Every card wherever it is (hands, line, pile, box, out), for conservation checks."""
        cards = [c for hand in self.hands for c in hand]
        return sorted(cards + self.line + self.pile + self.box + self.out)

    # --- the load check ----------------------------------------------------------------------
    def check_state(self) -> None:
        """Refuse (``InvalidConfigError`` naming the field) what these rules cannot reach, in
        O(deck) work, before ``set_state`` loads the state (``core.state_checks``): every card
        of the deck is in exactly one of hands, line, pile, box, out and ``where`` says which;
        the line is in order (CL-4) and shown; the round's seats, counts and flags agree."""
        game = self.game
        n, deck, turns_cap = game.num_players, game.deck_size, game.max_turns
        field_same(self.num_players, "num_players", n, "the game's num_players")
        field_generator(self.rng, "rng")
        field_events(self)
        last_characteristic = len(game.characteristics) - 1
        characteristic = field_int(self.characteristic, "characteristic", 0, last_characteristic)
        column = f"the deck's {game.characteristics[characteristic]!r} column"
        field_same(self.values, "values", game.values[characteristic], column)
        field_same(self.scaled, "scaled", game.scaled[characteristic], f"{column}, rank-scaled")
        first_player = field_int(self.first_player, "first_player", 0, n - 1)
        turns = field_int(self.turns, "turns", 0, turns_cap)
        field_int(self.rounds, "rounds", 1, turns + 1)
        terminal = field_flag(self.terminal, "terminal")
        truncated = field_flag(self.truncated, "truncated")
        over = terminal or truncated
        if truncated and turns != turns_cap:
            refuse("truncated", truncated, f"only at the cap: turns is {turns} of {turns_cap}")
        if not over and turns >= turns_cap:
            refuse("turns", turns, f"the cap max_turns={turns_cap} truncates the game there")
        hands = field_list(self.hands, "hands", n)
        where_cards = self._check_places(hands)
        where = field_array(self.where, "where", np.int8, (deck,))
        wrong = np.flatnonzero(where != where_cards)
        if wrong.size:
            card = int(wrong[0])
            refuse(
                f"where[{card}]",
                int(where[card]),
                f"must be {int(where_cards[card])}: card {card} is in that place (IN_PILE 0, "
                "IN_LINE 1, IN_BOX 2, OUT_OF_GAME 3, IN_HAND + seat)",
            )
        revealed = field_array(self.revealed, "revealed", np.bool_, (deck,))
        line = self.line
        hidden = [card for card in line if not revealed[card]]
        if hidden:
            refuse(f"revealed[{hidden[0]}]", False, "every card in state.line is shown (CL-3)")
        known = field_array(self.known, "known", np.float32, (deck,))
        expected = np.where(revealed, self.scaled, np.float32(OPEN_LOW))
        wrong = np.flatnonzero(known != expected)
        if wrong.size:
            card = int(wrong[0])
            refuse(
                f"known[{card}]",
                float(known[card]),
                f"must be {float(expected[card])}: the scaled value of a shown card, "
                f"{OPEN_LOW} for one never shown",
            )
        values = self.values[line]
        out_of_order = np.flatnonzero(values[1:] < values[:-1])
        if out_of_order.size:
            at = int(out_of_order[0]) + 1
            refuse(
                f"line[{at}]",
                line[at],
                f"its value {values[at]} is below its left neighbour's {values[at - 1]}; the "
                "line only ever holds right placements (CL-4)",
            )
        eliminated = field_flags(self.eliminated, "eliminated", n)
        if all(eliminated):
            refuse("eliminated", eliminated, "at least one player is still in (CL-5)")
        for seat in range(n):
            if eliminated[seat] and hands[seat]:
                refuse(f"hands[{seat}]", hands[seat], "an eliminated player's hand is empty")
        correct = field_ints(self.correct, "correct", 0, turns_cap, length=n)
        if sum(correct) != len(line) - 1:
            refuse(
                "correct",
                correct,
                f"must sum to len(state.line) - 1 = {len(line) - 1}: each right placement "
                "adds one card to the line",
            )
        if sum(correct) > turns:
            refuse("turns", turns, f"at least sum(state.correct) = {sum(correct)}")
        last_card = field_ints(self.last_card, "last_card", -1, deck - 1, length=n)
        last_right = field_flags(self.last_right, "last_right", n)
        for seat in range(n):
            if last_card[seat] >= 0 and not revealed[last_card[seat]]:
                refuse(f"last_card[{seat}]", last_card[seat], "a placed card is shown (CL-3)")
            if last_right[seat] and last_card[seat] < 0:
                refuse(f"last_right[{seat}]", True, "False while that seat has placed nothing")
        last_mover = field_int(self.last_mover, "last_mover", NO_PLAYER, n - 1)
        if (last_mover == NO_PLAYER) != (turns == 0):
            refuse("last_mover", last_mover, f"NO_PLAYER ({NO_PLAYER}) exactly before turn 1")
        if last_mover != NO_PLAYER and last_card[last_mover] < 0:
            refuse("last_mover", last_mover, "the last mover has a state.last_card")
        self._check_round(first_player, eliminated, over)
        if terminal:
            winners = tuple(1.0 if seat in self.finishers else -1.0 for seat in range(n))
            field_same(self._returns, "_returns", winners, "CL-7: +1 each finisher, -1 the rest")

    def _check_places(self, hands: list[Any]) -> np.ndarray:
        """Each hand sorted and at most ``hand_size``, then the conservation of cards: every
        card of the deck in exactly one place. Returns the ``where`` code each card needs."""
        game = self.game
        deck = game.deck_size
        places: list[tuple[str, list[int], int]] = []
        for seat, hand in enumerate(hands):
            field = f"hands[{seat}]"
            field_ints(hand, field, 0, deck - 1, max_length=game.hand_size)
            if any(a >= b for a, b in itertools.pairwise(hand)):
                refuse(field, hand, "must be sorted by card id, each card once (CL-1)")
            places.append((field, hand, IN_HAND + seat))
        line = field_ints(self.line, "line", 0, deck - 1, max_length=deck)
        if not line:
            refuse("line", line, "holds at least the initial card (CL-2)")
        places.append(("line", line, IN_LINE))
        places.append(
            ("pile", field_ints(self.pile, "pile", 0, deck - 1, max_length=deck), IN_PILE)
        )
        places.append(("box", field_ints(self.box, "box", 0, deck - 1, max_length=deck), IN_BOX))
        places.append(
            ("out", field_ints(self.out, "out", 0, deck - 1, max_length=deck), OUT_OF_GAME)
        )
        holder = [-1] * deck
        for index, (field, cards, _) in enumerate(places):
            for position, card in enumerate(cards):
                if holder[card] >= 0:
                    refuse(
                        f"{field}[{position}]",
                        card,
                        f"card {card} ({game.names[card]}) is also in state."
                        f"{places[holder[card]][0]}; every card is in exactly one place",
                    )
                holder[card] = index
        if -1 in holder:
            card = holder.index(-1)
            refuse(
                "hands, line, pile, box and out",
                f"without card {card} ({game.names[card]})",
                f"every card of the {game.deck_label} is in exactly one of them",
            )
        codes = np.array([code for _, _, code in places], dtype=np.int8)
        return codes[np.array(holder, dtype=np.int64)]

    def _check_round(self, first_player: int, eliminated: list[bool], over: bool) -> None:
        """CL-5: the turn order of this round, whose turn it is, and who has finished."""
        n = self.num_players
        order = field_ints(self.order, "order", 0, n - 1, max_length=n)
        field_distinct(order, "order", "seat")
        rotation = [(first_player + k) % n for k in range(n)]
        steps = [(seat - first_player) % n for seat in order]
        if any(a >= b for a, b in itertools.pairwise(steps)):
            refuse("order", order, f"must follow the seat order from first_player: {rotation}")
        if not over:
            still_in = [seat for seat in rotation if not eliminated[seat]]
            field_same(order, "order", still_in, "the seats still in, from first_player (CL-5)")
        turn_index = field_int(self.turn_index, "turn_index", 0, len(order) - (not over))
        if over:
            field_same(self.to_act, "to_act", NO_PLAYER, "nobody acts once the game is over")
        else:
            to_act = field_int(self.to_act, "to_act", 0, n - 1)
            if to_act != order[turn_index]:
                refuse("to_act", to_act, f"must be state.order[{turn_index}] = {order[turn_index]}")
        finishers = field_ints(self.finishers, "finishers", 0, n - 1, max_length=n)
        field_distinct(finishers, "finishers", "seat")
        played = order[:turn_index]
        for index, seat in enumerate(finishers):
            if seat not in played or self.hands[seat]:
                refuse(
                    f"finishers[{index}]",
                    seat,
                    f"a finisher has played this round (state.order[:{turn_index}] = {played}) "
                    "and emptied its hand",
                )
        if not over:
            for seat in order:
                if not self.hands[seat] and seat not in finishers:
                    refuse(f"hands[{seat}]", [], "empty only for a finisher of this round (CL-5)")

    # --- transitions -----------------------------------------------------------------------
    def _reveal(self, card: int) -> None:
        self.revealed[card] = True
        self.known[card] = self.scaled[card]

    def _draw(self, seat: int, reason: str) -> None:
        """CL-6: an empty pile is refilled by shuffling the box; both empty: no card.
        ``reason`` ("penalty" or "finisher") is only for the event log."""
        if not self.pile:
            if not self.box:
                if self.events is not None:
                    self.log("no_card", seat=seat, reason=reason)
                return
            self.pile = self.box[:]
            self.rng.shuffle(self.pile)  # as ``box[i] for i in permutation``, bit for bit
            if self.events is not None:
                self.log("reshuffled", cards=len(self.box))
            self.box = []
            self.where[self.pile] = IN_PILE
        card = self.pile.pop()
        bisect.insort(self.hands[seat], card)
        self.where[card] = IN_HAND + seat
        if self.events is not None:
            top = self.game.names[self.pile[-1]] if self.pile else ""
            self.log(
                "drew",
                seat=seat,
                card=self.game.names[card],
                reason=reason,
                pile=len(self.pile),
                top=top,
                hand=len(self.hands[seat]),
            )

    def _start_round(self) -> None:
        """CL-5: one turn for each player still in, in seat order from ``first_player``."""
        n = self.num_players
        seats = [(self.first_player + k) % n for k in range(n)]
        self.order = [seat for seat in seats if not self.eliminated[seat]]
        self.turn_index = 0
        self.finishers = []
        self.rounds += 1
        if self.turns >= self.game.max_turns:
            self._truncate()
        else:
            self.to_act = self.order[0]

    def _end_round(self) -> None:
        """CL-5/CL-6: one finisher wins; several stay in (the others are eliminated, their
        hands to the box) and each draws one card in turn order, or share the win if the
        pile and the box cannot deal them."""
        finishers = self.finishers
        if finishers and self.events is not None:
            self.log("round_over", round=self.rounds, finishers=finishers[:])
        if len(finishers) == 1:
            self._finish(finishers, "alone")
            return
        if finishers:
            for seat in self.order:
                if seat not in finishers:
                    self.eliminated[seat] = True
                    hand = self.hands[seat]
                    if self.events is not None:
                        names = self.game.names
                        self.log("eliminated", seat=seat, cards=[names[c] for c in hand])
                    self.box.extend(hand)
                    self.where[hand] = IN_BOX
                    self.hands[seat] = []
            if len(self.pile) + len(self.box) < len(finishers):
                self._finish(finishers, "too_few_cards")
                return
            for seat in finishers:
                self._draw(seat, "finisher")
        self._start_round()

    def _finish(self, winners: list[int], reason: str) -> None:
        """CL-7: each winner +1 (a shared win too), everyone else -1. ``reason`` ("alone" or
        "too_few_cards", CL-6) is only for the event log."""
        if self.events is not None:
            self.log("game_over", winners=winners[:], reason=reason, turns=self.turns)
        self.terminal = True
        self.to_act = NO_PLAYER
        self._returns = tuple(1.0 if seat in winners else -1.0 for seat in range(self.num_players))

    def _truncate(self) -> None:
        """C-5: the cap, when no rule ended the game on this step."""
        if self.events is not None:
            self.log("truncated", turns=self.turns, cap=self.game.max_turns)
        self.truncated = True
        self.to_act = NO_PLAYER
