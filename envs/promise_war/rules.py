"""Pure rules of War! played with Promise TCG decks (envs/rulebooks/promise_war_v0.md, PW-1..PW-7).

numpy and the standard library only. ``PromiseWarGame`` is the validated configuration;
``PromiseWarState`` is one game, advanced in place by ``apply_action`` (the power of the card
to play). Draw piles are Python lists with the top card at the *end* so drawing is ``pop()``.

Decisions where the rulebook is silent are marked [decided] in envs/rulebooks/promise_war_v0.md
and repeated in the env docstring (``envs/promise_war/env.py``).

With ``record_events()`` the state logs what the table saw (``core.events``; the kinds are
listed in ``envs/promise_war/story.py``). Every log call is guarded by ``self.events is not
None``, so training (which never records) pays only that attribute test.

Randomness comes only from the generator the state was dealt with, through the chance protocol
(``envs/core/chance.py``: ``integers``, ``shuffle``, ``permutation``), so a seeded numpy
generator and OpenSpiel's explicit chance nodes (``cardarena.openspiel``) drive the same code.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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
from ..core.validation import check_int, check_sequence, is_sequence

HAND_SIZE = 3
MIN_PLAYERS, MAX_PLAYERS = 2, 8
DEFAULT_MAX_POWER = 10
DEFAULT_COPIES = 4

#: Phases: every player who can play picks face down / only the tied players play again.
TRICK, TIEBREAK = 0, 1
PHASE_NAMES = ("trick", "tiebreak")

RESET_OPTION_KEYS = ("decks",)


def agent_names(num_players: int) -> tuple[str, ...]:
    return tuple(f"player_{seat}" for seat in range(num_players))


_AGENT_NAMES = {n: agent_names(n) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)}


def default_deck(max_power: int = DEFAULT_MAX_POWER) -> tuple[int, ...]:
    """PW-1 [decided]: four copies of every power 1..max_power (40 cards at max_power 10)."""
    return tuple(power for power in range(1, max_power + 1) for _ in range(DEFAULT_COPIES))


def _check_deck(cards: Any, key: str, max_power: int) -> tuple[int, ...]:
    cards = check_sequence(cards, key)
    if not cards:
        raise InvalidConfigError(f"{key} is empty; every deck needs at least one card (PW-1)")
    return tuple(check_int(card, f"{key}[{i}]", 0, max_power) for i, card in enumerate(cards))


def _check_per_player_decks(decks: Any, key: str, num_players: int, max_power: int):
    """One deck per player: a list in seat order or a dict keyed by agent name (C-6)."""
    names = agent_names(num_players)
    listed = per_player(decks, key, names)
    return tuple(_check_deck(deck, f"{key}[{names[seat]!r}]", max_power)
                 for seat, deck in enumerate(listed))  # fmt: skip


@dataclass(frozen=True)
class PromiseWarGame:
    """Validated configuration; creates games. Build it with ``make_game``."""

    num_players: int
    decks: tuple[tuple[int, ...], ...]
    max_power: int
    max_tricks: int

    @property
    def agent_names(self) -> tuple[str, ...]:
        return _AGENT_NAMES[self.num_players]

    @property
    def num_actions(self) -> int:
        return self.max_power + 1

    @property
    def zero_sum(self) -> bool:
        """PW-6 returns (+1 / 0 / -1) sum to 0 only with two players."""
        return self.num_players == 2

    @property
    def total_cards(self) -> int:
        """Upper bound of every card count, used for observation bounds."""
        return sum(len(deck) for deck in self.decks)

    @property
    def largest_deck(self) -> int:
        """Upper bound of any one player's draw pile, used for observation bounds."""
        return _largest(self.decks)

    def _check_fits_observation(self, decks: tuple[tuple[int, ...], ...]) -> None:
        """Fixed decks may hold any valid cards but must fit the observation bounds, which
        the configured decks fix when the env is created [decided]."""
        if _largest(decks) > self.largest_deck or sum(map(len, decks)) > self.total_cards:
            raise InvalidConfigError(
                f"options['decks'] hold {[len(d) for d in decks]} cards but this env is "
                f"configured for decks of {[len(d) for d in self.decks]}, which bound its "
                "observation space; configure larger `decks` to play bigger fixed decks"
            )

    def new_initial_state(
        self, rng: np.random.Generator, options: dict[str, Any] | None = None
    ) -> PromiseWarState:
        """PW-2: shuffle each deck (unless fixed by ``options["decks"]``) and deal 3 each."""
        fixed = None
        options = check_reset_options(options, RESET_OPTION_KEYS)
        if "decks" in options:
            fixed = _check_per_player_decks(
                options["decks"], "options['decks']", self.num_players, self.max_power
            )
        if fixed is not None:
            self._check_fits_observation(fixed)
        if fixed is None:
            piles = []
            for deck in self.decks:
                # The chance protocol (core/chance.py): shuffling the powers draws the same
                # numbers as indexing by ``rng.permutation(len(deck))``, and equal powers merge.
                pile = list(deck)
                rng.shuffle(pile)
                piles.append(pile)
        else:
            piles = [list(deck) for deck in fixed]
        return PromiseWarState(self, rng, piles)


def pw6_returns(scores: Sequence[int]) -> tuple[float, ...]:
    """PW-6: sole top scorer +1, players tied for top 0, everyone else -1."""
    top = max(scores)
    top_reward = 1.0 if list(scores).count(top) == 1 else 0.0
    return tuple(top_reward if score == top else -1.0 for score in scores)


def _largest(decks: tuple[tuple[int, ...], ...]) -> int:
    return max(len(deck) for deck in decks)


def make_game(
    num_players: int = 2,
    decks: Sequence[int] | Sequence[Sequence[int]] | Mapping[str, Sequence[int]] | None = None,
    max_power: int = DEFAULT_MAX_POWER,
    max_tricks: int = 500,
) -> PromiseWarGame:
    """Validate the config; ``decks`` is one list of powers for all, or one list per player
    (in seat order, or a dict keyed by agent name)."""
    num_players = check_int(num_players, "num_players", MIN_PLAYERS, MAX_PLAYERS)
    max_power = check_int(max_power, "max_power", 1)
    max_tricks = check_int(max_tricks, "max_tricks", 1)
    if decks is None:
        per_player = (default_deck(max_power),) * num_players
    elif isinstance(decks, Mapping):
        per_player = _check_per_player_decks(decks, "decks", num_players, max_power)
    else:
        listed = check_sequence(decks, "decks")
        if listed and all(is_sequence(d) for d in listed):
            per_player = _check_per_player_decks(listed, "decks", num_players, max_power)
        else:
            per_player = (_check_deck(listed, "decks", max_power),) * num_players
    return PromiseWarGame(num_players, per_player, max_power, max_tricks)


class PromiseWarState(RulesState):
    """One game in progress. Attributes are public for encoders and tests; treat as read-only.

    Public table information: ``hand_sizes``, ``deck_sizes``, ``victory_sizes``, ``sitting_out``,
    ``has_picked``, ``last_revealed``, ``revealed`` (every face-up card each seat has shown),
    ``pot_face_up``, ``pot_face_down_by_player``, ``phase``, ``contenders``, ``tricks_played``.
    Private to a seat: ``hands[seat]``, ``deck_counts[seat]``, ``picks[seat]``, and the powers
    of the cards it put face down: in the pot (``pot_face_down``, whose owners are
    ``pot_face_down_owners``) and already won or discarded (``buried[seat, pile, power]``,
    ``pile`` a victory pile's seat or ``num_players`` for the discard; those cards are also in
    ``victory`` / ``discarded``). Hidden from everyone: ``draw_piles`` order.
    """

    score_name = "cards won"

    def __init__(
        self, game: PromiseWarGame, rng: np.random.Generator, piles_top_first: list[list[int]]
    ) -> None:
        n, powers = game.num_players, game.max_power + 1
        self.game = game
        self.rng = rng
        self.num_players = n
        self.draw_piles = [pile[::-1] for pile in piles_top_first]
        self.deck_counts = np.zeros((n, powers), dtype=np.int64)
        for seat, pile in enumerate(self.draw_piles):
            self.deck_counts[seat] = np.bincount(pile, minlength=powers)
        self.deck_sizes = [len(pile) for pile in self.draw_piles]
        self.hands = np.zeros((n, powers), dtype=np.int64)
        self.hand_sizes = [0] * n
        self.victory = np.zeros((n, powers), dtype=np.int64)
        self.victory_sizes = [0] * n
        self.discarded = np.zeros(powers, dtype=np.int64)
        self.pot_face_up = np.zeros(powers, dtype=np.int64)
        self.pot_face_down: list[int] = []
        self.pot_face_down_owners: list[int] = []
        self.pot_face_down_by_player = [0] * n
        self.buried = np.zeros((n, n + 1, powers), dtype=np.int64)
        self.picks = [-1] * n
        self.has_picked = [False] * n
        self.last_revealed = [-1] * n
        self.revealed = np.zeros((n, powers), dtype=np.int64)
        self.sitting_out = [False] * n
        self.contenders: list[int] = []
        self.pick_index = 0
        self.phase = TRICK
        self.tricks_played = 0
        self.terminal = False
        self.truncated = False
        self._returns = (0.0,) * n
        for seat in range(n):
            self._draw_up(seat)
        self._start_trick()

    # --- GameState protocol ----------------------------------------------------------------
    def current_player(self) -> int:
        if self.terminal or self.truncated:
            return NO_PLAYER
        return self.contenders[self.pick_index]

    def legal_action_mask(self) -> np.ndarray:
        seat = self.current_player()
        if seat == NO_PLAYER:
            return np.zeros(self.game.num_actions, dtype=bool)
        return self.hands[seat] > 0

    def apply_legal_action(self, action: int) -> None:
        """Play the card of power ``action`` (face down in a trick, face up in a tiebreak);
        ``apply_action`` checks it first."""
        seat = self.contenders[self.pick_index]
        self.hands[seat, action] -= 1
        self.hand_sizes[seat] -= 1
        self.picks[seat] = action
        self.has_picked[seat] = True
        if self.events is not None:
            self.log(
                "picked", seen_by=seat, seat=seat, power=int(action), phase=PHASE_NAMES[self.phase]
            )
        self.pick_index += 1
        if self.pick_index == len(self.contenders):
            self._reveal()

    def action_to_string(self, action: int) -> str:
        return f"play power {action}"

    def scores(self) -> tuple[int, ...]:
        """PW-6: score = cards in the victory pile."""
        return tuple(self.victory_sizes)

    def resample_from_infostate(self, seat: int, rng: np.random.Generator) -> PromiseWarState:
        """A copy where everything ``seat`` cannot see is redrawn from ``rng``.

        Each other player's cards that ``seat`` has never seen face up (hand, face-down pick,
        draw pile, and every card they put face down: in the pot, or already won or discarded)
        are pooled and dealt back into the same places with the same sizes; ``seat``'s own
        draw pile is reshuffled. Each pool is sorted before its shuffle, so the copy depends on
        ``seat``'s information and ``rng`` only, never on how the true cards lie. Cards that
        change power in a victory pile or the discard move its per-power counts with them.
        The copy gets a detached generator, and the event log keeps only what ``seat`` saw."""
        twin = self.clone()
        powers = self.game.max_power + 1
        for other in range(self.num_players):
            pile = np.sort(np.asarray(twin.draw_piles[other], dtype=np.int64))
            if other == seat:
                rng.shuffle(pile)
                twin.draw_piles[other] = pile.tolist()
                continue
            hand = np.repeat(np.arange(powers), twin.hands[other])
            pick = [twin.picks[other]] if twin.picks[other] >= 0 else []
            in_pot = [k for k, owner in enumerate(twin.pot_face_down_owners) if owner == other]
            down = [twin.pot_face_down[k] for k in in_pot]
            buried = twin.buried[other]
            gone = np.repeat(np.arange(powers), buried.sum(0))
            unseen = np.sort(np.concatenate((hand, pick, down, gone, pile)).astype(np.int64))
            rng.shuffle(unseen)
            cards = unseen  # dealt in order: hand, pick, pot, buried, then the draw pile
            used = len(hand)
            twin.hands[other] = np.bincount(cards[:used], minlength=powers)
            if pick:
                twin.picks[other] = int(cards[used])
                used += 1
            for k in in_pot:
                twin.pot_face_down[k] = int(cards[used])
                used += 1
            fresh = np.zeros_like(buried)
            for where, count in enumerate(buried.sum(1).tolist()):
                fresh[where] = np.bincount(cards[used : used + count], minlength=powers)
                used += count
            change = fresh - buried
            twin.victory += change[: self.num_players]
            twin.discarded += change[self.num_players]
            twin.buried[other] = fresh
            twin.draw_piles[other] = cards[used:].tolist()
            twin.deck_counts[other] = np.bincount(cards[used:], minlength=powers)
        twin.rng = detached_generator(rng)  # a copy of this state's would know the future
        twin.events = None if self.events is None else visible_events(self.events, seat)
        return twin

    # --- derived views ---------------------------------------------------------------------

    def card_counts(self) -> np.ndarray:
        """Every card in the game by power, wherever it is (for conservation checks)."""
        total = self.hands.sum(0) + self.deck_counts.sum(0) + self.victory.sum(0)
        total = total + self.discarded + self._pot_counts()
        pending = [p for p in self.picks if p >= 0]
        return total + np.bincount(pending, minlength=self.game.max_power + 1)

    # --- the load check ----------------------------------------------------------------------
    def check_state(self) -> None:
        """Refuse (``InvalidConfigError`` naming the field) what these rules cannot reach, in
        O(cards) work, before ``set_state`` loads the state (``core.state_checks``): counts in
        range and matching the piles they count, every player's cards no more than a deck
        holds, the cards in victory piles, discard and pot exactly the ones shown face up plus
        the ones buried face down, and the trick's seats and picks as PW-3/PW-4 leave them."""
        game = self.game
        n, top, powers = game.num_players, game.max_power, game.max_power + 1
        cards = game.total_cards
        field_same(self.num_players, "num_players", n, "the game's num_players")
        field_generator(self.rng, "rng")
        field_events(self)
        piles = field_list(self.draw_piles, "draw_piles", n)
        deck_counts = field_array(self.deck_counts, "deck_counts", np.int64, (n, powers), 0, cards)
        deck_sizes = field_ints(self.deck_sizes, "deck_sizes", 0, game.largest_deck, length=n)
        for seat, pile in enumerate(piles):
            field_ints(pile, f"draw_piles[{seat}]", 0, top, max_length=game.largest_deck)
            field_same(deck_sizes[seat], f"deck_sizes[{seat}]", len(pile), "len(state.draw_piles)")
            counted = np.bincount(np.asarray(pile, dtype=np.int64), minlength=powers)
            field_same(deck_counts[seat], f"deck_counts[{seat}]", counted, "state.draw_piles")
        hands = field_array(self.hands, "hands", np.int64, (n, powers), 0, HAND_SIZE)
        hand_sizes = field_ints(self.hand_sizes, "hand_sizes", 0, HAND_SIZE, length=n)
        field_same(hand_sizes, "hand_sizes", hands.sum(1).tolist(), "state.hands summed per seat")
        victory = field_array(self.victory, "victory", np.int64, (n, powers), 0, cards)
        victory_sizes = field_ints(self.victory_sizes, "victory_sizes", 0, cards, length=n)
        field_same(victory_sizes, "victory_sizes", victory.sum(1).tolist(), "state.victory summed")
        discarded = field_array(self.discarded, "discarded", np.int64, (powers,), 0, cards)
        face_up = field_array(self.pot_face_up, "pot_face_up", np.int64, (powers,), 0, cards)
        down = field_ints(self.pot_face_down, "pot_face_down", 0, top, max_length=cards)
        owners = field_ints(
            self.pot_face_down_owners, "pot_face_down_owners", 0, n - 1, length=len(down)
        )
        by_player = field_ints(
            self.pot_face_down_by_player, "pot_face_down_by_player", 0, cards, length=n
        )
        owned_down = np.bincount(np.asarray(owners, dtype=np.int64), minlength=n)
        field_same(by_player, "pot_face_down_by_player", owned_down.tolist(), "its owners")
        buried = field_array(self.buried, "buried", np.int64, (n, n + 1, powers), 0, cards)
        revealed = field_array(self.revealed, "revealed", np.int64, (n, powers), 0, cards)
        picks = field_ints(self.picks, "picks", -1, top, length=n)
        field_ints(self.last_revealed, "last_revealed", -1, top, length=n)
        self._check_cards(owned_down)
        gone_down = buried.sum(0)
        for pile in range(n + 1):
            into = victory[pile] if pile < n else discarded
            short = np.flatnonzero(gone_down[pile] > into)
            if short.size:
                field = f"victory[{pile}]" if pile < n else "discarded"
                power = int(short[0])
                refuse(
                    f"{field}[{power}]",
                    int(into[power]),
                    f"at least {int(gone_down[pile, power])}: state.buried says that many "
                    "face-down cards of that power went there",
                )
        shown = revealed.sum(0) + gone_down.sum(0)
        held = victory.sum(0) + discarded + face_up
        if not np.array_equal(held, shown):
            power = int(np.flatnonzero(held != shown)[0])
            refuse(
                "victory + discarded + pot_face_up",
                f"{int(held[power])} card(s) of power {power}",
                f"must be {int(shown[power])}: the cards shown face up (state.revealed) plus "
                "those buried face down (state.buried) are the only ones that got there",
            )
        self._check_trick(picks, hand_sizes, deck_sizes, face_up, down)

    def _check_cards(self, owned_down: np.ndarray) -> None:
        """Each player's cards, wherever they are, number 1..largest_deck and all of them
        together at most ``total_cards``: the configured decks bound every fixed deck."""
        game = self.game
        picked = np.array([pick >= 0 for pick in self.picks], dtype=np.int64)
        owned = (
            self.deck_counts.sum(1)
            + self.hands.sum(1)
            + picked
            + self.revealed.sum(1)
            + owned_down
            + self.buried.sum((1, 2))
        )
        for seat, count in enumerate(owned.tolist()):
            if not 1 <= count <= game.largest_deck:
                refuse(
                    f"hands, draw_piles, picks, revealed, pot_face_down and buried of seat {seat}",
                    f"{count} card(s)",
                    f"a player owns 1..{game.largest_deck} (its deck, PW-1)",
                )
        if int(owned.sum()) > game.total_cards:
            refuse(
                "hands, draw_piles, picks, revealed, pot_face_down and buried",
                f"{int(owned.sum())} cards in all",
                f"at most {game.total_cards}, the configured decks together",
            )

    def _check_trick(
        self,
        picks: list[int],
        hand_sizes: list[int],
        deck_sizes: list[int],
        face_up: np.ndarray,
        down: list[int],
    ) -> None:
        """PW-3 .. PW-7: the phase, who contends and who has picked, who sits out, the cap."""
        game = self.game
        n = game.num_players
        phase = field_int(self.phase, "phase", TRICK, TIEBREAK)
        tricks = field_int(self.tricks_played, "tricks_played", 0, game.max_tricks)
        terminal = field_flag(self.terminal, "terminal")
        truncated = field_flag(self.truncated, "truncated")
        over = terminal or truncated
        if truncated and tricks != game.max_tricks:
            refuse("truncated", True, f"only at the cap: {tricks} of {game.max_tricks} tricks")
        if not over and tricks >= game.max_tricks:
            refuse("tricks_played", tricks, f"below max_tricks={game.max_tricks} in play (PW-7)")
        sitting_out = field_flags(self.sitting_out, "sitting_out", n)
        for seat in range(n):
            if sitting_out[seat] and (hand_sizes[seat] or deck_sizes[seat] or picks[seat] >= 0):
                refuse(f"sitting_out[{seat}]", True, "only a player without cards sits out (PW-6)")
        contenders = field_ints(self.contenders, "contenders", 0, n - 1, max_length=n)
        field_distinct(contenders, "contenders", "seat")
        if contenders != sorted(contenders):
            refuse("contenders", contenders, "in seat order (C-3)")
        # A game stopped at the cap keeps the last trick's contenders, though a player who
        # emptied their hand in it now sits out (``_start_trick`` stops before reseating).
        for index, seat in enumerate(contenders):
            if sitting_out[seat] and not truncated:
                refuse(f"contenders[{index}]", seat, "a player sitting out does not contend")
        if not over and len(contenders) < 2:
            refuse("contenders", contenders, "at least two players contend (PW-3, PW-4)")
        # Once over, ``pick_index`` is left where the last trick ended (``contenders`` of a
        # finished game is empty), so only its range is known.
        pick_index = field_int(self.pick_index, "pick_index", 0, n if over else len(contenders) - 1)
        has_picked = field_flags(self.has_picked, "has_picked", n)
        picked = set(contenders[:pick_index]) if not over else set()
        for seat in range(n):
            if has_picked[seat] != (seat in picked):
                refuse(
                    f"has_picked[{seat}]",
                    has_picked[seat],
                    f"True exactly for state.contenders[:{pick_index}] while a trick is on",
                )
            if (picks[seat] >= 0) != has_picked[seat]:
                refuse(f"picks[{seat}]", picks[seat], "a power exactly when state.has_picked")
        if terminal:
            field_same(contenders, "contenders", [], "nobody contends once the game is over")
            field_same(self._returns, "_returns", pw6_returns(self.victory_sizes), "PW-6")
        if over:
            return
        if phase == TRICK:
            able = [seat for seat in range(n) if not sitting_out[seat]]
            field_same(contenders, "contenders", able, "every player not sitting out (PW-3)")
            if face_up.any() or down:
                refuse("pot_face_up", face_up, "the pot is empty until a trick is tied (PW-4)")
        elif int(face_up.sum()) < 2:
            refuse("pot_face_up", face_up, "a tiebreak follows at least two tied cards (PW-4)")

    # --- transitions -----------------------------------------------------------------------
    def _draw_up(self, seat: int) -> None:
        pile = self.draw_piles[seat]
        while self.hand_sizes[seat] < HAND_SIZE and pile:
            card = pile.pop()
            self.hands[seat, card] += 1
            self.deck_counts[seat, card] -= 1
            self.hand_sizes[seat] += 1
        self.deck_sizes[seat] = len(pile)

    def _start_trick(self) -> None:
        """PW-3/PW-6/PW-7: seat players with cards; end the game, or stop at the cap."""
        for seat in range(self.num_players):
            if self.hand_sizes[seat] == 0:
                if self.events is not None and not self.sitting_out[seat]:
                    self.log("sits_out", seat=seat)
                self.sitting_out[seat] = True
        able = [seat for seat in range(self.num_players) if not self.sitting_out[seat]]
        if len(able) < 2:
            self._finish()
            return
        if self.tricks_played >= self.game.max_tricks:
            self.truncated = True
            if self.events is not None:
                self.log("cap_reached", tricks=self.tricks_played, scores=list(self.victory_sizes))
            return
        self.phase = TRICK
        self.contenders = able
        self.pick_index = 0

    def _reveal(self) -> None:
        """All contenders have picked: reveal together, then award or break the tie (PW-3/4)."""
        contenders = self.contenders
        if self.events is not None:
            self._log_reveal()
        for seat in range(self.num_players):
            self.last_revealed[seat] = -1
        for seat in contenders:
            card = self.picks[seat]
            self.pot_face_up[card] += 1
            self.revealed[seat, card] += 1
            self.last_revealed[seat] = card
            self.picks[seat] = -1
            self.has_picked[seat] = False
            if self.phase == TIEBREAK:
                self._hand_to_pot_face_down(seat)
        best = max(self.last_revealed[seat] for seat in contenders)
        tied = [seat for seat in contenders if self.last_revealed[seat] == best]
        if len(tied) == 1:
            self._award(tied[0])
        else:
            if self.events is not None:
                self.log("tie", seats=tied, power=int(best))
            self._start_tiebreak(tied)

    def _log_reveal(self) -> None:
        """The reveal as the table sees it (every contender's card; in a tiebreak the number
        of cards each puts face down), then each tiebreaker's own face-down powers, to it."""
        tiebreak = self.phase == TIEBREAK
        cards = [[seat, int(self.picks[seat])] for seat in self.contenders]
        down = [[seat, self.hand_sizes[seat] if tiebreak else 0] for seat in self.contenders]
        self.log("revealed", trick=self.tricks_played + 1, phase=PHASE_NAMES[self.phase],
                 cards=cards, face_down=down)  # fmt: skip
        if tiebreak:
            for seat in self.contenders:
                if self.hand_sizes[seat]:
                    powers = np.repeat(np.arange(len(self.hands[seat])), self.hands[seat])
                    self.log("put_face_down", seen_by=seat, seat=seat, powers=powers.tolist())

    def _hand_to_pot_face_down(self, seat: int) -> None:
        for power in np.flatnonzero(self.hands[seat]).tolist():
            count = int(self.hands[seat, power])
            self.pot_face_down.extend([power] * count)
            self.pot_face_down_owners.extend([seat] * count)
        self.pot_face_down_by_player[seat] += self.hand_sizes[seat]
        self.hands[seat] = 0
        self.hand_sizes[seat] = 0

    def _start_tiebreak(self, tied: list[int]) -> None:
        """PW-4: the tied players draw up to 3; those left with cards play again."""
        before = list(self.hand_sizes) if self.events is not None else None
        for seat in tied:
            self._draw_up(seat)
        still_in = [seat for seat in tied if self.hand_sizes[seat] > 0]
        if before is not None:
            self._log_draws(before, "tiebreak")
            for seat in tied:
                if self.hand_sizes[seat] == 0:
                    self.log("drops_out", seat=seat)
        if len(still_in) == 1:
            self._award(still_in[0], unopposed=True)
        elif not still_in:
            self._discard_pot()
        else:
            self.phase = TIEBREAK
            self.contenders = still_in
            self.pick_index = 0

    def _pot_counts(self) -> np.ndarray:
        """Every card in the pot by power, face-down ones included."""
        if not self.pot_face_down:
            return self.pot_face_up
        return self.pot_face_up + np.bincount(self.pot_face_down, minlength=self.game.max_power + 1)

    def _award(self, winner: int, unopposed: bool = False) -> None:
        won = self._pot_counts()
        cards = int(won.sum())
        if self.events is not None:
            # A tie happened this trick if a tiebreak is on or the winner is the last one in.
            self.log("trick_won", trick=self.tricks_played + 1, winner=winner, cards=cards,
                     face_down=len(self.pot_face_down),
                     tiebreak=int(unopposed or self.phase == TIEBREAK), unopposed=int(unopposed),
                     before=self.victory_sizes[winner],
                     after=self.victory_sizes[winner] + cards)  # fmt: skip
        self.victory[winner] += won
        self.victory_sizes[winner] += cards
        self._bury(winner)
        self._end_trick()

    def _discard_pot(self) -> None:
        won = self._pot_counts()
        if self.events is not None:
            self.log("pot_discarded", trick=self.tricks_played + 1, cards=int(won.sum()),
                     face_down=len(self.pot_face_down))  # fmt: skip
        self.discarded += won
        self._bury(self.num_players)
        self._end_trick()

    def _bury(self, pile: int) -> None:
        """The pot's face-down cards leave it still face down: remember whose they were and
        where they went (a victory pile's seat, or ``num_players`` for the discard)."""
        for power, owner in zip(self.pot_face_down, self.pot_face_down_owners, strict=True):
            self.buried[owner, pile, power] += 1

    def _log_draws(self, before: list[int], when: str) -> None:
        """Who drew how many (counts only: the powers stay in the drawer's hand)."""
        hands, decks = self.hand_sizes, self.deck_sizes
        draws = [[seat, hands[seat] - before[seat], decks[seat]]
                 for seat in range(self.num_players) if hands[seat] > before[seat]]  # fmt: skip
        if draws:
            self.log("drew", when=when, draws=draws)

    def _end_trick(self) -> None:
        """PW-5: clear the pot, everyone draws back up to 3, then the next trick starts.

        The trick and its tiebreakers are over, so ``phase`` returns to TRICK here, not only
        when a next trick starts: a game that ends (PW-6) or stops at the cap (PW-7) right
        after a tiebreak must not show a tiebreak in progress."""
        self.phase = TRICK
        self.pot_face_up[:] = 0
        self.pot_face_down = []
        self.pot_face_down_owners = []
        self.pot_face_down_by_player = [0] * self.num_players
        self.tricks_played += 1
        before = list(self.hand_sizes) if self.events is not None else None
        for seat in range(self.num_players):
            self._draw_up(seat)
        if before is not None:
            self._log_draws(before, "trick_end")
        self._start_trick()

    def _finish(self) -> None:
        """PW-6: sole top scorer +1, players tied for top 0, everyone else -1."""
        self.terminal = True
        self.contenders = []
        scores = self.victory_sizes
        top = max(scores)
        winners = [seat for seat, score in enumerate(scores) if score == top]
        self._returns = pw6_returns(scores)
        if self.events is not None:
            self.log("game_over", tricks=self.tricks_played, scores=list(scores),
                     winners=winners)  # fmt: skip
