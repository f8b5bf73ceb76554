"""Pure rules of Iron Man 2 Game of War (envs/rulebooks/ironman_war_v0.md, rules IM-1 .. IM-14).

numpy and the standard library only. ``make_game`` validates a configuration into an
``IronManWarGame``; ``IronManWarState`` is one game, advanced in place by ``apply_action``
(checked by the shared ``legal_index``) or ``apply_legal_action`` (unchecked, for callers that
checked the mask, like the env).
Seats: 0 ``iron_man``, 1 ``war_machine``. Card kinds are indexed as in ``KINDS``; actions are
``0..7`` commit / play a card of that kind, ``8`` concede, ``9..16`` ENERGY SHIELD target
(the opponent's card of kind ``a - 9`` in this battle). Decks are Python lists with the top card
at the *end*, so drawing is ``pop()``.

Decisions: the decided rules (the rules doc's [decided] ones, then D-1 .. D-17 where the
rulebook is silent) are written once, in the env docstring (``envs/ironman_war/env.py``,
"Decided rules", or ``help(ironman_war_v0)``); the D-n ids in this module refer to that list.

Events (``core.events``, recorded only after ``record_events()``): every public happening is
logged with ``self.log`` behind a ``self.events is not None`` test, so training pays only
those attribute tests; the kinds are listed in ``envs/ironman_war/story.py``.

Randomness comes only from the generator the state was dealt with, through the chance protocol
(``envs/core/chance.py``: ``integers``, ``shuffle``, ``permutation``), so a seeded numpy
generator and OpenSpiel's explicit chance nodes (``cardarena.openspiel``) drive the same code.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.errors import InvalidConfigError
from ..core.events import visible_events
from ..core.game import NO_PLAYER, RulesState, detached_generator
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
from ..core.validation import check_choice, check_int, check_known_keys, check_sequence

KINDS = (
    "attack_1",
    "attack_2",
    "attack_3",
    "attack_4",
    "attack_5",
    "upgrade",
    "energy_shield",
    "final_attack",
)
NUM_KINDS = len(KINDS)
UPGRADE, ENERGY_SHIELD, FINAL_ATTACK = 5, 6, 7
#: Kinds >= FIRST_SPECIAL are special cards.
FIRST_SPECIAL = UPGRADE
ATTACK_KINDS = KINDS[:FIRST_SPECIAL]
SPECIAL_KINDS = KINDS[FIRST_SPECIAL:]
#: IM-8: attack value per kind (specials 0, FINAL ATTACK 6).
CARD_VALUES = (1, 2, 3, 4, 5, 0, 0, 6)
#: "No card" in ``committed``, ``flipped``, ``pending_play``, ``last_reveal``.
NO_CARD = -1

AGENTS = ("iron_man", "war_machine")
IRON_MAN, WAR_MACHINE = 0, 1

CONCEDE = 8
SHIELD_BASE = 9
NUM_ACTIONS = SHIELD_BASE + NUM_KINDS  # 17

DEFAULT_DECK: dict[str, int] = {
    "attack_1": 10,
    "attack_2": 10,
    "attack_3": 10,
    "attack_4": 3,
    "attack_5": 2,
    "upgrade": 8,
    "energy_shield": 8,
    "final_attack": 4,
}
VARIANTS = ("advanced", "beginner")
HAND_DRAW = 7
NUM_BATTLES = 3

#: Decisions (``IronManWarState.decision``), i.e. what the current player is asked:
#: COMMIT: choose the face-down card (action = kind) for battle ``commit_slot``;
#: PLAY_OR_CONCEDE: the losing player plays a card face up (kind) or concedes (8);
#: STANDOFF_PLAY: pick a card face down for a simultaneous play (IM-7 / IM-9);
#: SHIELD_TARGET: pick the opposing card (9 + kind) the ENERGY SHIELD discards;
#: GAME_OVER: nobody acts (terminal or truncated).
COMMIT, PLAY_OR_CONCEDE, STANDOFF_PLAY, SHIELD_TARGET, GAME_OVER = 0, 1, 2, 3, 4
DECISION_NAMES = ("commit", "play_or_concede", "standoff_play", "shield_target", "game_over")

#: ``battle_results`` entries: a seat (0 / 1) is the winner; otherwise one of these.
UNDECIDED, DRAW = -1, 2

RESET_OPTION_KEYS = ("decks", "hands")

_KIND_INDEX = {name: index for index, name in enumerate(KINDS)}


def _kind_name(kind: int) -> str | None:
    """An event's card: its kind name, or None for no card."""
    return None if kind == NO_CARD else KINDS[kind]


def _card_names(counts: Any) -> list[str]:
    """An event's cards of one side: kind names, one per card, in kind order."""
    return [KINDS[kind] for kind, count in enumerate(counts.tolist()) for _ in range(count)]


_KIND_RANGE = np.arange(NUM_KINDS)


def battle_total(cards: Any) -> int:
    """IM-5: sum of attack values, doubled if at least one UPGRADE is among ``cards`` (counts)."""
    c = [int(x) for x in cards]
    total = c[0] + 2 * c[1] + 3 * c[2] + 4 * c[3] + 5 * c[4] + 6 * c[7]
    return 2 * total if c[UPGRADE] else total


def _kind_table(value: Any, field: str, kinds: int, high: int) -> np.ndarray:
    """A (2, 8) int64 table of card counts per seat and kind, 0..``high`` each, holding only
    the first ``kinds`` kinds (the beginner variant has no special cards)."""
    table = field_array(value, field, np.int64, (2, NUM_KINDS), 0, high)
    extra = np.argwhere(table[:, kinds:] > 0)
    if extra.size:
        seat, kind = extra[0].tolist()
        refuse(
            f"{field}[{seat}][{kind + kinds}]",
            int(table[seat, kind + kinds]),
            f"must be 0: the beginner variant has no {KINDS[kind + kinds]} (IM-1)",
        )
    return table


def _check_deck(deck: Any, variant: str) -> tuple[int, ...]:
    if deck is None:
        deck = DEFAULT_DECK
    if not isinstance(deck, Mapping):
        raise InvalidConfigError(
            f"deck must be a dict of card kind -> count, got {deck!r} ({type(deck).__name__})"
        )
    check_known_keys(deck, KINDS, "deck kind")
    counts = [check_int(deck.get(name, 0), f"deck[{name!r}]", 0) for name in KINDS]
    if variant == "beginner":
        counts[FIRST_SPECIAL:] = [0] * len(SPECIAL_KINDS)
    if sum(counts) == 0:
        kinds = "attack " if variant == "beginner" else ""
        raise InvalidConfigError(
            f"deck must hold at least one {kinds}card (variant {variant!r}), got {dict(deck)!r}"
        )
    return tuple(counts)


@dataclass(frozen=True)
class IronManWarGame:
    """Validated configuration; creates games. Build it with ``make_game``."""

    variant: str
    #: Cards per kind in each player's deck, in ``KINDS`` order (specials 0 in beginner).
    deck: tuple[int, ...]
    victory_cards: int
    max_rounds: int

    @property
    def agent_names(self) -> tuple[str, ...]:
        return AGENTS

    @property
    def num_actions(self) -> int:
        return NUM_ACTIONS

    @property
    def zero_sum(self) -> bool:
        """IM-12: +1 / -1 at the end, 0 / 0 at the cap."""
        return True

    @property
    def deck_size(self) -> int:
        """Cards per player; the upper bound of every per-player card count."""
        return sum(self.deck)

    @property
    def beginner(self) -> bool:
        return self.variant == "beginner"

    def deck_dict(self) -> dict[str, int]:
        return dict(zip(KINDS, self.deck, strict=True))

    def new_initial_state(
        self, rng: np.random.Generator, options: dict[str, Any] | None = None
    ) -> IronManWarState:
        """IM-1/IM-2: shuffle each deck (unless fixed by ``options``) and start round 1.

        ``options`` are validated completely before ``rng`` is touched, so a bad option leaves
        the generator where it was.
        """
        decks, hands = self._parse_options(options)
        piles: list[list[int]] = []
        for seat in range(2):
            fixed, hand = decks[seat], hands[seat]
            if fixed is not None:
                piles.append(fixed[::-1])
                continue
            counts = np.asarray(self.deck, dtype=np.int64)
            if hand is not None:
                counts = counts - np.bincount(hand, minlength=NUM_KINDS).astype(np.int64)
            pile = np.repeat(_KIND_RANGE, counts)
            rng.shuffle(pile)
            piles.append(pile.tolist())
        return IronManWarState(self, rng, piles, hands if hands[0] is not None else None)

    def _parse_options(self, options: Any) -> tuple[list[list[int] | None], list[list[int] | None]]:
        """C-6: ``decks`` and ``hands``, each one list of kind names per player (a list in seat
        order or a dict keyed by agent). Unknown keys warn and are ignored."""
        options = check_reset_options(options, RESET_OPTION_KEYS)
        decks = self._parse_card_lists(options, "decks")
        hands = self._parse_card_lists(options, "hands")
        for seat, agent in enumerate(AGENTS):
            hand, fixed = hands[seat] or [], decks[seat]
            if hands[seat] is not None and fixed is None:
                held = np.bincount(hand, minlength=NUM_KINDS)
                too_many = np.flatnonzero(held > np.asarray(self.deck)).tolist()
                if too_many:
                    kind = too_many[0]
                    raise InvalidConfigError(
                        f"options['hands'][{agent!r}] = {[KINDS[k] for k in hand]!r} holds "
                        f"{held[kind]} x {KINDS[kind]} but the configured deck has only "
                        f"{self.deck[kind]}; give options['decks'] too to play other cards"
                    )
            owned = len(hand) + (len(fixed) if fixed is not None else self.deck_size - len(hand))
            if owned == 0:
                raise InvalidConfigError(
                    f"options give {agent!r} no card at all (hands {_names(hands[seat])}, "
                    f"decks {_names(fixed)}); each player needs at least one"
                )
            if owned > self.deck_size:
                raise InvalidConfigError(
                    f"options give {agent!r} {owned} cards (hands + decks) but this env is "
                    f"configured for decks of {self.deck_size} cards, which bounds its "
                    f"observation space (D-17); configure a larger `deck` to play more cards"
                )
        return decks, hands

    def _parse_card_lists(self, options: Mapping[str, Any], key: str) -> list[list[int] | None]:
        if key not in options:
            return [None, None]
        per_seat = per_player(options[key], f"options[{key!r}]", AGENTS)
        allowed = ATTACK_KINDS if self.beginner else KINDS
        result: list[list[int] | None] = []
        for agent, cards in zip(AGENTS, per_seat, strict=True):
            where = f"options[{key!r}][{agent!r}]"
            names = check_sequence(cards, where)
            kinds = []
            for i, name in enumerate(names):
                if self.beginner and isinstance(name, str) and name in SPECIAL_KINDS:
                    raise InvalidConfigError(
                        f"{where}[{i}] = {name!r}: the beginner variant has no special cards "
                        f"(IM-1); allowed: {', '.join(ATTACK_KINDS)}"
                    )
                kinds.append(_KIND_INDEX[check_choice(name, f"{where}[{i}]", allowed)])
            result.append(kinds)
        return result


def _names(kinds: list[int] | None) -> str:
    return "not given" if kinds is None else repr([KINDS[k] for k in kinds])


def make_game(
    variant: str = "advanced",
    deck: Mapping[str, int] | None = None,
    victory_cards: int = 5,
    max_rounds: int = 50,
) -> IronManWarGame:
    """Validate the config (``InvalidConfigError`` names key, value and what is allowed)."""
    variant = check_choice(variant, "variant", VARIANTS)
    counts = _check_deck(deck, variant)
    victory_cards = check_int(victory_cards, "victory_cards", 2)
    max_rounds = check_int(max_rounds, "max_rounds", 1)
    return IronManWarGame(variant, counts, victory_cards, max_rounds)


class IronManWarState(RulesState):
    """One game in progress. Attributes are public for encoders and tests; treat as read-only.

    Seat-indexed (0 iron_man, 1 war_machine). Visibility: **public** = both players may see it;
    **private** = only row/entry ``seat`` may be shown to ``seat``; **hidden** = nobody.

    Round and turn (public): ``round`` (1-based), ``battle`` (0..2, the battle being fought;
    0 during commit), ``decision`` (COMMIT / PLAY_OR_CONCEDE / STANDOFF_PLAY / SHIELD_TARGET /
    GAME_OVER), ``current_seat`` (``NO_PLAYER`` when over), ``commit_slot`` (battle the current
    COMMIT decision is for), ``pawns`` (Victory Card each pawn stands on, 1..victory_cards),
    ``winner`` (seat or ``NO_PLAYER``), ``terminal`` / ``truncated`` (how the game ended).

    Cards: ``hands`` (2, 8) counts per kind, private; ``hand_sizes`` [2] public;
    ``deck_counts`` (2, 8) private (the owner can work it out), deck order hidden;
    ``deck_sizes`` [2] public; ``discards`` (2, 8) and ``discard_sizes`` [2] public;
    ``table`` (2, 8) public, cards of battles won earlier this round; ``battle_cards`` (2, 8)
    public, face-up cards in the current battle; ``battle_totals`` / ``battle_card_counts`` [2]
    public, the IM-5 standing.

    Commit and simultaneous plays (C-3): ``committed`` (2, 3) kind committed per battle this
    round (``NO_CARD`` = none), **private** (the opponent may only see entries already in
    ``flipped``); ``face_down`` (2, 3) bool public, a committed card still lies face down there;
    ``flipped`` (2, 3) public, the card turned up at the start of each battle fought so far;
    ``pending_play`` [2] **private**, the face-down pick of the ongoing simultaneous play;
    ``has_pending`` [2] public, whether that seat has picked; ``last_reveal`` [2] public, the
    cards revealed together by the latest flip or simultaneous play (kept after a cancel or a
    shield hit, ``NO_CARD`` = none).

    Results (public): ``battle_results`` [3] (seat, ``DRAW`` or ``UNDECIDED``),
    ``battles_won`` [2] this round; ``previous_results`` [3] and ``previous_flipped`` (2, 3)
    of the last finished round (in the beginner variant a round resolves within one step, so
    this is where its outcome can be seen).

    Lists are plain Python lists (fast scalar access); tables are numpy arrays (int64, except
    ``face_down``: bool). Hidden from everyone: ``_piles`` (deck order) and ``_rng``.
    """

    score_name = "Victory Card reached"

    def __init__(
        self,
        game: IronManWarGame,
        rng: np.random.Generator,
        piles: list[list[int]],
        hands: list[list[int] | None] | None,
    ) -> None:
        self.game = game
        self._rng = rng
        self._beginner = game.beginner
        self._piles = piles
        self.deck_counts = np.zeros((2, NUM_KINDS), dtype=np.int64)
        for seat in range(2):
            self.deck_counts[seat] = np.bincount(piles[seat], minlength=NUM_KINDS)
        self.deck_sizes = [len(piles[0]), len(piles[1])]
        self.hands = np.zeros((2, NUM_KINDS), dtype=np.int64)
        self.hand_sizes = [0, 0]
        self.discards = np.zeros((2, NUM_KINDS), dtype=np.int64)
        self.table = np.zeros((2, NUM_KINDS), dtype=np.int64)
        self.battle_cards = np.zeros((2, NUM_KINDS), dtype=np.int64)
        self.battle_totals = [0, 0]
        self.battle_card_counts = [0, 0]
        self.committed = np.full((2, NUM_BATTLES), NO_CARD, dtype=np.int64)
        self.face_down = np.zeros((2, NUM_BATTLES), dtype=bool)
        self.flipped = np.full((2, NUM_BATTLES), NO_CARD, dtype=np.int64)
        self.pending_play = [NO_CARD, NO_CARD]
        self.has_pending = [False, False]
        self.last_reveal = [NO_CARD, NO_CARD]
        self.battle_results = [UNDECIDED] * NUM_BATTLES
        self.battles_won = [0, 0]
        self.previous_results = [UNDECIDED] * NUM_BATTLES
        self.previous_flipped = np.full((2, NUM_BATTLES), NO_CARD, dtype=np.int64)
        self.pawns = [1, 1]
        self.round = 1
        self.battle = 0
        self.commit_slot = 0
        self.decision = COMMIT
        self.current_seat = IRON_MAN
        self.winner = NO_PLAYER
        self.terminal = False
        self.truncated = False
        self._returns = (0.0, 0.0)
        self._to_pick: list[int] = []
        if hands is not None:
            for seat in range(2):
                for kind in hands[seat] or ():
                    self.hands[seat, kind] += 1
                self.hand_sizes[seat] = len(hands[seat] or ())
        self._start_round(draw=hands is None)

    # --- GameState protocol ----------------------------------------------------------------
    def current_player(self) -> int:
        return self.current_seat

    def legal_action_mask(self) -> np.ndarray:
        """Boolean mask over the 17 actions for ``current_seat`` (all False when over)."""
        mask = np.zeros(NUM_ACTIONS, dtype=bool)
        decision = self.decision
        seat = self.current_seat
        if decision == SHIELD_TARGET:
            mask[SHIELD_BASE:] = self.battle_cards[1 - seat] > 0
        elif decision != GAME_OVER:
            mask[:NUM_KINDS] = self.hands[seat] > 0
            if decision == PLAY_OR_CONCEDE:
                mask[CONCEDE] = True
        return mask

    def apply_legal_action(self, action: int) -> None:
        """Advance by one decision of ``current_seat``. ``action`` must be legal (the caller
        checked the mask); ``apply_action`` checks it first and raises ``IllegalActionError``."""
        seat = self.current_seat
        decision = self.decision
        if decision == COMMIT:
            self._commit(seat, action)
        elif decision == PLAY_OR_CONCEDE:
            if action == CONCEDE:
                if self.events is not None:
                    self.log("conceded", seat=seat, battle=self.battle + 1, auto=False)
                self._end_battle(1 - seat)
            else:
                self._play_face_up(seat, action)
        elif decision == STANDOFF_PLAY:
            self._pick(seat, action)
        else:
            self._shield_hit(seat, action - SHIELD_BASE)

    def action_to_string(self, action: int) -> str:
        """Action name in the current context, e.g. "commit attack_3 to battle 2"."""
        if not 0 <= action < NUM_ACTIONS:
            return f"action {action} (out of range 0..{NUM_ACTIONS - 1})"
        if action == CONCEDE:
            return "concede"
        if action >= SHIELD_BASE:
            return f"shield {KINDS[action - SHIELD_BASE]}"
        kind = KINDS[action]
        if self.decision == COMMIT:
            return f"commit {kind} to battle {self.commit_slot + 1}"
        if self.decision == STANDOFF_PLAY:
            return f"play {kind} face down"
        return f"play {kind}"

    def scores(self) -> tuple[int, ...]:
        """IM-12: the Victory Card each pawn stands on (1 .. ``victory_cards``)."""
        return (self.pawns[0], self.pawns[1])

    def resample_from_infostate(self, seat: int, rng: np.random.Generator) -> IronManWarState:
        """A copy in which everything ``seat`` cannot see is redrawn from ``rng``.

        The opponent's unseen cards (hand, committed cards still face down, pending face-down
        pick, deck) are pooled, shuffled and dealt back into the same places with the same
        sizes; ``seat``'s own deck is reshuffled (it knows the composition, not the order).
        Each pool is sorted before its shuffle, so the copy depends on ``seat``'s information
        and ``rng`` only, never on how the true cards lie.
        Everything public and everything of ``seat``'s own stays as it is. The copy's
        generator for later reshuffles is a detached one (``detached_generator``): a copy of
        this state's would know the order of every reshuffle to come.
        """
        twin = self.clone()
        own_pile = np.sort(np.array(twin._piles[seat], dtype=np.int64))
        rng.shuffle(own_pile)
        twin._piles[seat] = own_pile.tolist()
        other = 1 - seat
        hidden_slots = np.flatnonzero(twin.face_down[other]).tolist()
        pending = bool(twin.has_pending[other])
        hand = np.repeat(_KIND_RANGE, twin.hands[other])
        committed = twin.committed[other, hidden_slots]
        picked = np.array([twin.pending_play[other]] if pending else [], dtype=np.int64)
        deck = np.array(twin._piles[other], dtype=np.int64)
        pool = np.sort(np.concatenate((hand, committed, picked, deck)))
        rng.shuffle(pool)
        used = len(hand)
        twin.hands[other] = np.bincount(pool[:used], minlength=NUM_KINDS)
        twin.committed[other, hidden_slots] = pool[used : used + len(hidden_slots)]
        used += len(hidden_slots)
        if pending:
            twin.pending_play[other] = int(pool[used])
            used += 1
        pile = pool[used:]
        twin._piles[other] = pile.tolist()
        twin.deck_counts[other] = np.bincount(pile, minlength=NUM_KINDS)
        twin._rng = detached_generator(rng)
        twin.events = None if self.events is None else visible_events(self.events, seat)
        return twin

    # --- derived views ---------------------------------------------------------------------
    @property
    def discard_sizes(self) -> list[int]:
        """Cards in each discard pile (public)."""
        return [int(n) for n in self.discards.sum(axis=1)]

    def card_counts(self, seat: int) -> np.ndarray:
        """Every card ``seat`` owns, by kind, wherever it is (for conservation checks)."""
        total = (
            self.hands[seat]
            + self.deck_counts[seat]
            + self.discards[seat]
            + self.table[seat]
            + self.battle_cards[seat]
        )
        for battle in range(NUM_BATTLES):
            if self.face_down[seat, battle]:
                total[self.committed[seat, battle]] += 1
        if self.has_pending[seat]:
            total[self.pending_play[seat]] += 1
        return total

    # --- the load check ----------------------------------------------------------------------
    def check_state(self) -> None:
        """Refuse (``InvalidConfigError`` naming the field) what these rules cannot reach, in
        O(cards) work, before ``set_state`` loads the state (``core.state_checks``): counts in
        range and matching the piles and totals they summarise, each player owning 1..deck
        cards (the configured deck bounds every fixed one), kinds the variant has, and the
        round, battle and decision as IM-2 .. IM-12 leave them."""
        game = self.game
        size = game.deck_size
        kinds = FIRST_SPECIAL if game.beginner else NUM_KINDS
        field_generator(self._rng, "_rng")
        field_events(self)
        field_same(self._beginner, "_beginner", game.beginner, f"variant {game.variant!r}")
        piles = field_list(self._piles, "_piles", 2)
        deck_counts = _kind_table(self.deck_counts, "deck_counts", kinds, size)
        deck_sizes = field_ints(self.deck_sizes, "deck_sizes", 0, size, length=2)
        for seat, pile in enumerate(piles):
            field_ints(pile, f"_piles[{seat}]", 0, kinds - 1, max_length=size)
            field_same(deck_sizes[seat], f"deck_sizes[{seat}]", len(pile), "len(state._piles)")
            counted = np.bincount(np.asarray(pile, dtype=np.int64), minlength=NUM_KINDS)
            field_same(deck_counts[seat], f"deck_counts[{seat}]", counted, "state._piles")
        hands = _kind_table(self.hands, "hands", kinds, size)
        hand_sizes = field_ints(self.hand_sizes, "hand_sizes", 0, size, length=2)
        field_same(hand_sizes, "hand_sizes", hands.sum(1).tolist(), "state.hands summed")
        _kind_table(self.discards, "discards", kinds, size)
        _kind_table(self.table, "table", kinds, size)
        battle_cards = _kind_table(self.battle_cards, "battle_cards", kinds, size)
        totals = [battle_total(row) for row in battle_cards.tolist()]
        field_same(self.battle_totals, "battle_totals", totals, "IM-5 of state.battle_cards")
        counts = battle_cards.sum(1).tolist()
        field_same(self.battle_card_counts, "battle_card_counts", counts, "state.battle_cards")
        committed = field_array(
            self.committed, "committed", np.int64, (2, NUM_BATTLES), NO_CARD, kinds - 1
        )
        face_down = field_array(self.face_down, "face_down", np.bool_, (2, NUM_BATTLES))
        flipped = field_array(
            self.flipped, "flipped", np.int64, (2, NUM_BATTLES), NO_CARD, kinds - 1
        )
        for seat, battle in np.argwhere(face_down & (committed == NO_CARD)).tolist():
            refuse(f"face_down[{seat}][{battle}]", True, "only over a committed card (IM-3)")
        for seat, battle in np.argwhere(~face_down & (flipped != committed)).tolist():
            refuse(
                f"flipped[{seat}][{battle}]",
                int(flipped[seat, battle]),
                f"must be state.committed[{seat}][{battle}] = {int(committed[seat, battle])}: "
                "a committed card lies face down until it is flipped (IM-4)",
            )
        pending = field_ints(self.pending_play, "pending_play", NO_CARD, kinds - 1, length=2)
        has_pending = field_flags(self.has_pending, "has_pending", 2)
        for seat in range(2):
            if has_pending[seat] != (pending[seat] != NO_CARD):
                refuse(f"has_pending[{seat}]", has_pending[seat], "True exactly with a pick")
        field_ints(self.last_reveal, "last_reveal", NO_CARD, kinds - 1, length=2)
        field_ints(self.previous_results, "previous_results", UNDECIDED, DRAW, length=NUM_BATTLES)
        field_array(
            self.previous_flipped,
            "previous_flipped",
            np.int64,
            (2, NUM_BATTLES),
            NO_CARD,
            kinds - 1,
        )
        for seat in range(2):
            owned = int(self.card_counts(seat).sum())
            if not 1 <= owned <= size:
                refuse(
                    "hands, _piles, discards, table, battle_cards, committed and pending_play "
                    f"of {AGENTS[seat]}",
                    f"{owned} card(s)",
                    f"a player owns 1..{size} cards, its deck (D-17)",
                )
        self._check_round(face_down, flipped, has_pending)

    def _check_round(
        self, face_down: np.ndarray, flipped: np.ndarray, has_pending: list[bool]
    ) -> None:
        """IM-3 .. IM-12: pawns, results, the battle and whose decision it is."""
        game = self.game
        pawns = field_ints(self.pawns, "pawns", 1, game.victory_cards, length=2)
        field_int(self.round, "round", 1, game.max_rounds)
        battle = field_int(self.battle, "battle", 0, NUM_BATTLES - 1)
        commit_slot = field_int(self.commit_slot, "commit_slot", 0, NUM_BATTLES - 1)
        decision = field_int(self.decision, "decision", COMMIT, GAME_OVER)
        results = field_ints(
            self.battle_results, "battle_results", UNDECIDED, DRAW, length=NUM_BATTLES
        )
        won = [results.count(IRON_MAN), results.count(WAR_MACHINE)]
        field_same(self.battles_won, "battles_won", won, "state.battle_results counted")
        winner = field_int(self.winner, "winner", NO_PLAYER, WAR_MACHINE)
        terminal = field_flag(self.terminal, "terminal")
        truncated = field_flag(self.truncated, "truncated")
        field_same(terminal, "terminal", winner != NO_PLAYER, "a game ends won (IM-12)")
        for seat in range(2):
            if (pawns[seat] == game.victory_cards) != (seat == winner):
                refuse(
                    f"pawns[{seat}]",
                    pawns[seat],
                    f"on the last Victory Card ({game.victory_cards}) exactly for the winner",
                )
        if truncated and self.round != game.max_rounds:
            refuse("truncated", True, f"only after round max_rounds={game.max_rounds} (IM-12)")
        if terminal:
            field_same(
                self._returns, "_returns", (1.0, -1.0) if winner == 0 else (-1.0, 1.0), "IM-12"
            )
        to_pick = field_ints(self._to_pick, "_to_pick", IRON_MAN, WAR_MACHINE, max_length=2)
        field_distinct(to_pick, "_to_pick", "seat")
        over = terminal or truncated
        field_same(decision == GAME_OVER, "decision", over, "GAME_OVER exactly once over")
        if over:
            field_same(self.current_seat, "current_seat", NO_PLAYER, "nobody acts once over")
            return
        seat = field_int(self.current_seat, "current_seat", IRON_MAN, WAR_MACHINE)
        if decision == COMMIT:
            if battle != 0 or (flipped != NO_CARD).any() or any(r != UNDECIDED for r in results):
                refuse("decision", decision, "COMMIT only before battle 1 is flipped (IM-3)")
            slots = self.committed[seat] != NO_CARD
            if slots[commit_slot:].any() or not slots[:commit_slot].all():
                refuse("commit_slot", commit_slot, f"{AGENTS[seat]}'s next empty slot (IM-3)")
        else:
            if face_down[:, : battle + 1].any():
                refuse("face_down", face_down, f"battles up to {battle + 1} are flipped (IM-4)")
            if any(r == UNDECIDED for r in results[:battle]) or any(
                r != UNDECIDED for r in results[battle:]
            ):
                refuse("battle_results", results, f"decided before battle {battle + 1} only")
        if decision == STANDOFF_PLAY:
            if not to_pick or to_pick[0] != seat:
                refuse("_to_pick", to_pick, f"starts with the seat to act ({seat}) (IM-7)")
        elif any(has_pending):
            refuse("has_pending", has_pending, "a face-down pick only during a standoff (IM-7)")

    def deck_order(self, seat: int) -> list[int]:
        """``seat``'s deck, top card first (hidden information: for tests and debugging)."""
        return self._piles[seat][::-1]

    # --- drawing ---------------------------------------------------------------------------
    def _draw(self, seat: int, count: int) -> None:
        """IM-2 with D-1: draw ``count`` cards, reshuffling the discard pile as needed."""
        pile = self._piles[seat]
        hand = self.hands[seat]
        deck_counts = self.deck_counts[seat]
        drawn = 0
        while drawn < count:
            if not pile:
                if not self._reshuffle(seat):
                    break
                pile = self._piles[seat]
            kind = pile.pop()
            hand[kind] += 1
            deck_counts[kind] -= 1
            drawn += 1
            if not pile:
                self._reshuffle(seat)
                pile = self._piles[seat]
        self.hand_sizes[seat] += drawn
        self.deck_sizes[seat] = len(pile)

    def _reshuffle(self, seat: int) -> bool:
        counts = self.discards[seat]
        if not counts.any():
            return False
        pile = np.repeat(_KIND_RANGE, counts)
        self._rng.shuffle(pile)
        self._piles[seat] = pile.tolist()
        if self.events is not None:
            self.log("reshuffled", seat=seat, cards=len(pile))
        self.deck_counts[seat] += counts
        self.deck_sizes[seat] = len(pile)
        counts[:] = 0
        return True

    # --- round flow ------------------------------------------------------------------------
    def _start_round(self, draw: bool = True) -> None:
        recording = self.events is not None
        if recording:
            self.log(
                "round_started",
                round=self.round,
                pawns=list(self.pawns),
                victory_cards=self.game.victory_cards,
            )
        if draw:
            before = list(self.hand_sizes)
            for seat in range(2):
                self._draw(seat, HAND_DRAW)
            if recording:
                self.log(
                    "drew",
                    drawn=[self.hand_sizes[0] - before[0], self.hand_sizes[1] - before[1]],
                    hands=list(self.hand_sizes),
                    decks=list(self.deck_sizes),
                )
        self.committed[:] = NO_CARD
        self.face_down[:] = False
        self.flipped[:] = NO_CARD
        self.battle_results = [UNDECIDED] * NUM_BATTLES
        self.battles_won = [0, 0]
        self.last_reveal = [NO_CARD, NO_CARD]
        self.battle = 0
        self._ask_commit(IRON_MAN)

    def _ask_commit(self, first_seat: int) -> None:
        """IM-3 / D-3: ask the next seat holding cards, or start the battles."""
        for seat in range(first_seat, 2):
            if self.hand_sizes[seat] > 0:
                self.decision = COMMIT
                self.current_seat = seat
                self.commit_slot = 0
                return
        if self._beginner:
            self._resolve_beginner_round()
        else:
            self._start_battle(0)

    def _commit(self, seat: int, kind: int) -> None:
        slot = self.commit_slot
        self._take_from_hand(seat, kind)
        self.committed[seat, slot] = kind
        self.face_down[seat, slot] = True
        if self.events is not None:
            self.log("committed", seen_by=seat, seat=seat, battle=slot + 1, card=KINDS[kind])
            self.log("face_down", seen_by=1 - seat, seat=seat, battle=slot + 1)
        if slot + 1 < NUM_BATTLES and self.hand_sizes[seat] > 0:
            self.commit_slot = slot + 1
        else:
            self._ask_commit(seat + 1)

    def _take_from_hand(self, seat: int, kind: int) -> None:
        self.hands[seat, kind] -= 1
        self.hand_sizes[seat] -= 1

    def _resolve_beginner_round(self) -> None:
        """IM-13 / D-14: each battle is the two flipped cards alone; then the round ends."""
        for battle in range(NUM_BATTLES):
            cards = self.committed[:, battle].tolist()
            self.face_down[:, battle] = False
            self.flipped[:, battle] = cards
            value0, value1 = (CARD_VALUES[c] if c != NO_CARD else -1 for c in cards)
            # Equal values (none against none included) are a draw.
            result = DRAW if value0 == value1 else int(value1 > value0)
            for seat in range(2):
                if cards[seat] == NO_CARD:
                    continue
                pile = self.table if seat == result else self.discards
                pile[seat, cards[seat]] += 1
            self.battle_results[battle] = result
            if result != DRAW:
                self.battles_won[result] += 1
            if self.events is not None:
                names = [_kind_name(cards[0]), _kind_name(cards[1])]
                self.log("flipped", battle=battle + 1, cards=names)
                self.log(
                    "battle_ended",
                    battle=battle + 1,
                    winner=NO_PLAYER if result == DRAW else result,
                    cards=[[name] if name else [] for name in names],
                    totals=[max(value0, 0), max(value1, 0)],
                )
        self.battle = NUM_BATTLES - 1
        self._end_round()

    def _end_round(self) -> None:
        """IM-11 / IM-12 / D-13: clear the table, move a pawn, then end, truncate or go on."""
        self.discards += self.table
        self.table[:] = 0
        won = self.battles_won
        self.previous_results = list(self.battle_results)
        self.previous_flipped = self.flipped.copy()
        last = self.game.victory_cards
        recording = self.events is not None
        if recording:
            before = list(self.pawns)
            moved = NO_PLAYER
            for seat in range(2):
                if won[seat] > won[1 - seat] and won[seat] >= 2:
                    moved = seat
            pawns = list(before)
            if moved != NO_PLAYER:
                pawns[moved] = min(last, before[moved] + (2 if won[moved] == NUM_BATTLES else 1))
            self.log(
                "round_ended",
                round=self.round,
                won=list(won),
                draws=self.battle_results.count(DRAW),
                moved=moved,
                pawns_before=before,
                pawns=pawns,
                victory_cards=last,
            )
        for seat in range(2):
            if won[seat] > won[1 - seat] and won[seat] >= 2:
                steps = 2 if won[seat] == NUM_BATTLES else 1
                self.pawns[seat] = min(last, self.pawns[seat] + steps)
                if self.pawns[seat] >= last:
                    if recording:
                        self.log("game_won", winner=seat, round=self.round, victory_cards=last)
                    self.winner = seat
                    self.terminal = True
                    self._returns = (1.0, -1.0) if seat == 0 else (-1.0, 1.0)
                    self._stop()
                    return
        if self.round >= self.game.max_rounds:
            if recording:
                self.log("capped", round=self.round, max_rounds=self.game.max_rounds)
            self.truncated = True
            self._stop()
            return
        self.round += 1
        self._start_round()

    def _stop(self) -> None:
        self.decision = GAME_OVER
        self.current_seat = NO_PLAYER
        self._to_pick = []

    # --- battle flow (advanced) ------------------------------------------------------------
    def _start_battle(self, battle: int) -> None:
        """IM-4: flip both committed cards (D-4: possibly none) and resolve them as a reveal."""
        self.battle = battle
        cards = self.committed[:, battle].tolist()
        self.face_down[:, battle] = False
        self.flipped[:, battle] = cards
        for seat in range(2):
            if cards[seat] != NO_CARD:
                self.battle_cards[seat, cards[seat]] += 1
        if self.events is not None:
            self.log("flipped", battle=battle + 1, cards=[_kind_name(c) for c in cards])
        self._resolve_reveal(cards[0], cards[1])

    def _resolve_reveal(self, card0: int, card1: int) -> None:
        """D-6: cancel two specials (IM-9), else resolve a revealed shield, then settle."""
        self.last_reveal = [card0, card1]
        if card0 >= FIRST_SPECIAL and card1 >= FIRST_SPECIAL:
            if self.events is not None:
                self.log("cancelled", battle=self.battle + 1, cards=[KINDS[card0], KINDS[card1]])
            for seat, card in ((0, card0), (1, card1)):
                self.battle_cards[seat, card] -= 1
                self.discards[seat, card] += 1
        else:
            for seat, card in ((0, card0), (1, card1)):
                if card == ENERGY_SHIELD and self._ask_shield(seat):
                    return
        self._settle()

    def _ask_shield(self, seat: int) -> bool:
        """IM-8 / D-8: ask ``seat`` for a target if the opponent has a card in this battle."""
        if not self.battle_cards[1 - seat].any():
            if self.events is not None:
                self.log("shield_no_target", seat=seat, battle=self.battle + 1)
            return False
        self._refresh_standing()
        self.decision = SHIELD_TARGET
        self.current_seat = seat
        return True

    def _shield_hit(self, seat: int, kind: int) -> None:
        if self.events is not None:
            self.log("shield_hit", seat=seat, target=KINDS[kind], battle=self.battle + 1)
        self.battle_cards[1 - seat, kind] -= 1
        self.discards[1 - seat, kind] += 1
        self._settle()

    def _play_face_up(self, seat: int, kind: int) -> None:
        """IM-6: the losing player's card; its effect resolves at once."""
        self._take_from_hand(seat, kind)
        self.battle_cards[seat, kind] += 1
        if self.events is not None:
            self.log("played", seat=seat, card=KINDS[kind], battle=self.battle + 1)
        if kind == ENERGY_SHIELD and self._ask_shield(seat):
            return
        self._settle()

    def _pick(self, seat: int, kind: int) -> None:
        """IM-7 / C-3: store the face-down pick; reveal once every player has picked."""
        self._take_from_hand(seat, kind)
        self.pending_play[seat] = kind
        self.has_pending[seat] = True
        if self.events is not None:
            self.log("picked", seen_by=seat, seat=seat, card=KINDS[kind], battle=self.battle + 1)
            self.log("picked_face_down", seen_by=1 - seat, seat=seat, battle=self.battle + 1)
        to_pick = self._to_pick
        to_pick.pop(0)
        if to_pick:
            self.current_seat = to_pick[0]
            return
        cards = self.pending_play
        self.pending_play = [NO_CARD, NO_CARD]
        self.has_pending = [False, False]
        for player in range(2):
            if cards[player] != NO_CARD:
                self.battle_cards[player, cards[player]] += 1
        if self.events is not None:
            self.log("revealed", battle=self.battle + 1, cards=[_kind_name(c) for c in cards])
        self._resolve_reveal(cards[0], cards[1])

    def _log_standing(self, leader: int, players: list[int]) -> None:
        """The battle's standing as the table sees it: who leads (NO_PLAYER: level) and who
        must play next."""
        self.log(
            "standing",
            battle=self.battle + 1,
            totals=list(self.battle_totals),
            counts=list(self.battle_card_counts),
            leader=leader,
            players=players,
        )

    def _settle(self) -> None:
        """IM-5/6/7: compute the standing and ask the loser, start a standoff play, or end."""
        self._refresh_standing()
        totals = self.battle_totals
        counts = self.battle_card_counts
        if totals[0] != totals[1] or counts[0] != counts[1]:
            leader = 0 if (totals[0], counts[0]) > (totals[1], counts[1]) else 1
            loser = 1 - leader
            if self.events is not None:
                self._log_standing(leader, [loser] if self.hand_sizes[loser] else [])
            if self.hand_sizes[loser] == 0:
                if self.events is not None:
                    self.log("conceded", seat=loser, battle=self.battle + 1, auto=True)
                self._end_battle(leader)  # IM-6: empty-handed loser concedes automatically
                return
            self.decision = PLAY_OR_CONCEDE
            self.current_seat = loser
            return
        players = [seat for seat in range(2) if self.hand_sizes[seat] > 0]
        if self.events is not None:
            self._log_standing(NO_PLAYER, list(players))  # a copy: ``_to_pick`` is consumed
        if not players:
            self._end_battle(DRAW)
            return
        self._to_pick = players
        self.decision = STANDOFF_PLAY
        self.current_seat = players[0]

    def _refresh_standing(self) -> None:
        for seat in range(2):
            row = self.battle_cards[seat].tolist()
            self.battle_totals[seat] = battle_total(row)
            self.battle_card_counts[seat] = sum(row)

    def _end_battle(self, result: int) -> None:
        """IM-10 / D-11: the winner's cards stay on the table, the rest are discarded."""
        cards = self.battle_cards
        if self.events is not None:
            self.log(
                "battle_ended",
                battle=self.battle + 1,
                winner=NO_PLAYER if result == DRAW else result,
                cards=[_card_names(cards[0]), _card_names(cards[1])],
                totals=list(self.battle_totals),
            )
        for seat in range(2):
            if seat == result:
                self.table[seat] += cards[seat]
            else:
                self.discards[seat] += cards[seat]
        cards[:] = 0
        self.battle_totals[:] = [0, 0]
        self.battle_card_counts[:] = [0, 0]
        self.battle_results[self.battle] = result
        if result != DRAW:
            self.battles_won[result] += 1
        if self.battle + 1 < NUM_BATTLES:
            self._start_battle(self.battle + 1)
        else:
            self._end_round()
