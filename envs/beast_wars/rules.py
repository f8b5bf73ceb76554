"""Pure rules of the Beast Wars Transformers Mutating Card Game (envs/rulebooks/beast_wars_v0.md,
BW-1..BW-8).

numpy and the standard library only. ``make_game`` validates a configuration into a
``BeastWarsGame``; ``BeastWarsState`` is one game, advanced in place by ``apply_action``
(checked by the shared ``legal_index``) or ``apply_legal_action`` (unchecked, for callers
that checked the mask, like the env).

Seats: 0 ``maximal``, 1 ``predacon``. Characters are named by a *piece id* ``seat * 12 + id``
(``id`` = row order within the faction, BW-2), so one flat array covers both teams. The board
has 12 cells, ``cell = row * 3 + col`` (BW-1); row 0 is maximal's first row, row 3 predacon's.
Battle cards are ``colour * 4 + type`` (16 kinds); the deck is a Python list with the top card
at the *end*, so drawing is ``pop()``.

Actions (``Discrete(253)``): ``0..47`` move ``cell*4 + dir``; ``48..95`` attack
``48 + cell*4 + dir``; ``96..239`` reinforce ``96 + cell*12 + id``; ``240..251`` pick
character ``id`` (team selection, then first-row placement in column order 0, 1, 2);
``252`` pass. Directions are absolute: 0 up (row+1), 1 right, 2 down, 3 left.

The decisions taken where the rulebook is silent are listed in the env docstring
(``envs/beast_wars/env.py``, "Decided rules"); the D-n ids below refer to that list.

A state that records (``record_events``) logs what the table saw; the kinds and their fields
are listed in ``envs/beast_wars/story.py``. Every ``log`` call sits behind one
``self.events is not None`` test, so a state that does not record pays nothing more.

Randomness comes only from the generator the state was dealt with, through the chance protocol
(``envs/core/chance.py``: ``integers``, ``shuffle``, ``permutation``), so a seeded numpy
generator and OpenSpiel's explicit chance nodes (``cardarena.openspiel``) drive the same code.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import Any

import numpy as np

from ..core.errors import InvalidConfigError
from ..core.events import visible_events
from ..core.game import NO_PLAYER, RulesState
from ..core.options import check_reset_options, per_player
from ..core.state_checks import (
    field_array,
    field_distinct,
    field_events,
    field_generator,
    field_int,
    field_ints,
    field_list,
    field_same,
    refuse,
)
from ..core.tables import Column, Table, load_table
from ..core.validation import check_choice, check_int, check_sequence

AGENTS = ("maximal", "predacon")
MAXIMAL, PREDACON = 0, 1

# --- board (BW-1) ----------------------------------------------------------------------------
ROWS, COLUMNS = 4, 3
NUM_CELLS = ROWS * COLUMNS
UP, RIGHT, DOWN, LEFT = 0, 1, 2, 3
DIRECTIONS = ("up", "right", "down", "left")
OPPOSITE = (DOWN, LEFT, UP, RIGHT)
#: ``NEIGHBOURS[cell, dir]``: the cell one step away, or ``OFF_BOARD``.
OFF_BOARD = -1
_STEPS = ((1, 0), (0, 1), (-1, 0), (0, -1))
NEIGHBOURS = np.array(
    [
        [
            (r + dr) * COLUMNS + (c + dc) if 0 <= r + dr < ROWS and 0 <= c + dc < COLUMNS else -1
            for dr, dc in _STEPS
        ]
        for r in range(ROWS)
        for c in range(COLUMNS)
    ],
    dtype=np.int64,
)
_NEIGHBOUR_LISTS = NEIGHBOURS.tolist()
#: ``NEIGHBOURS`` with off-board steps sent to the sentinel cell ``NUM_CELLS`` (never empty,
#: never an enemy), so masks are two fancy-index lookups.
_NEIGHBOURS_SENTINEL = np.where(NEIGHBOURS < 0, NUM_CELLS, NEIGHBOURS)
FIRST_ROWS = ((0, 1, 2), (9, 10, 11))
_FIRST_ROW_MASKS = tuple(np.isin(np.arange(NUM_CELLS), row) for row in FIRST_ROWS)

# --- characters (BW-2) -----------------------------------------------------------------------
MAX_FACTION = 12
MIN_FACTION = 3
FACES = ("beast", "robot")
BEAST, ROBOT = 0, 1
NO_FACE = 2
COLOURS = ("red", "blue", "gold", "green")
RED, BLUE, GOLD, GREEN = 0, 1, 2, 3
NUMBER_COLUMNS = tuple(f"{face}_{colour}" for face in FACES for colour in COLOURS)
#: Highest quality number a characters file may hold [decided D-3].
MAX_NUMBER = 99
CHARACTER_COLUMNS = {
    "faction": Column(str, choices=AGENTS),
    "name": Column(str, unique=True),
    **{name: Column(int, low=0, high=MAX_NUMBER) for name in NUMBER_COLUMNS},
}
CHARACTERS_FILE = Path(__file__).with_name("characters.csv")
NUM_PIECES = 2 * MAX_FACTION
#: Piece id of "nobody" in per-cell arrays.
NO_PIECE = NUM_PIECES

#: ``BeastWarsState.location`` values besides a cell: not part of the faction file, not in the
#: team, captured or fallen off, waiting in the reserve (or picked, not yet placed).
ABSENT, NOT_IN_TEAM, REMOVED, RESERVE = -4, -3, -2, -1

# --- battle deck (BW-3) ----------------------------------------------------------------------
CARD_TYPES = ("basic", "mutate", "secret_weapon", "energon")
BASIC, MUTATE, SECRET_WEAPON, ENERGON = 0, 1, 2, 3
#: BW-6: number added by each card type.
CARD_BONUS = (0, 0, 2, 1)
#: BW-3 [decided]: per colour 9 Basic, 3 Mutate, 3 Secret Weapon, 3 Energon.
CARDS_PER_COLOUR = (9, 3, 3, 3)
NUM_CARD_KINDS = len(COLOURS) * len(CARD_TYPES)
DECK_SIZE = len(COLOURS) * sum(CARDS_PER_COLOUR)  # 72
DEFAULT_DECK = tuple(
    colour * len(CARD_TYPES) + kind
    for colour in range(len(COLOURS))
    for kind, count in enumerate(CARDS_PER_COLOUR)
    for _ in range(count)
)
CARD_NAMES = tuple(f"{colour}:{kind}" for colour in COLOURS for kind in CARD_TYPES)
_CARD_INDEX = {name: index for index, name in enumerate(CARD_NAMES)}
_CARD_RANGE = np.arange(NUM_CARD_KINDS)

# --- actions ---------------------------------------------------------------------------------
MOVE_BASE, ATTACK_BASE, REINFORCE_BASE, PICK_BASE, PASS = 0, 48, 96, 240, 252
NUM_ACTIONS = 253

# --- phases and battle outcomes --------------------------------------------------------------
SELECT, PLACE, PLAY, OVER = 0, 1, 2, 3
PHASE_NAMES = ("select", "place", "play", "over")
PUSH, CAPTURE, FALL, CALLED_OFF = 0, 1, 2, 3
OUTCOMES = ("push", "capture", "fall", "called off")
ATTACKER, DEFENDER = 0, 1
DRAW = 2  # ``winner`` when the cap ends level

TEAM_SELECTIONS = ("choose", "random")
RESET_OPTION_KEYS = ("battle_deck", "teams", "first_player")
PLACED_COLUMNS = len(FIRST_ROWS[0])


def cell_name(cell: int) -> str:
    """``r<row>c<col>``, e.g. ``r0c2`` for cell 2 (maximal's first row, right column)."""
    return f"r{cell // COLUMNS}c{cell % COLUMNS}"


# --- configuration ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Characters:
    """The validated character table: per faction, names and quality numbers by id."""

    names: tuple[tuple[str, ...], tuple[str, ...]]
    #: ``numbers[seat * 12 + id, face, colour]`` (rows of missing ids and ``NO_PIECE`` are 0).
    numbers: np.ndarray
    source: str

    @property
    def sizes(self) -> tuple[int, int]:
        return (len(self.names[0]), len(self.names[1]))

    @property
    def max_number(self) -> int:
        return int(self.numbers.max())

    def name(self, piece: int) -> str:
        return self.names[piece // MAX_FACTION][piece % MAX_FACTION]

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Characters)
            and self.names == other.names
            and np.array_equal(self.numbers, other.numbers)
        )

    def __hash__(self) -> int:
        return hash((self.names, self.numbers.tobytes()))


def characters_table(
    source: str | PathLike[str] | Sequence[Mapping[str, Any]] | None,
) -> Table:
    """The characters as a validated ``Table`` (None: the shipped file), before the faction
    sizes are checked; what a server reads once from a file it serves by name."""
    return load_table(
        CHARACTERS_FILE if source is None else source, CHARACTER_COLUMNS, what="characters"
    )


def load_characters(source: str | PathLike[str] | Sequence[Mapping[str, Any]] | None) -> Characters:
    """BW-2: read a characters CSV/JSON file or a list of dicts (None: the shipped file).

    The shared loader names row, column and value of a malformed cell; this adds the
    faction sizes (3..12 each)."""
    table = characters_table(source)
    names: tuple[list[str], list[str]] = ([], [])
    numbers = np.zeros((NUM_PIECES + 1, len(FACES), len(COLOURS)), dtype=np.int64)
    for row in table.rows:
        seat = AGENTS.index(row["faction"])
        piece = seat * MAX_FACTION + len(names[seat])
        names[seat].append(row["name"])
        if len(names[seat]) <= MAX_FACTION:
            numbers[piece] = [[row[f"{face}_{colour}"] for colour in COLOURS] for face in FACES]
    for seat, agent in enumerate(AGENTS):
        if not MIN_FACTION <= len(names[seat]) <= MAX_FACTION:
            raise InvalidConfigError(
                f"{table.source} has {len(names[seat])} {agent} row(s); each faction needs "
                f"{MIN_FACTION}..{MAX_FACTION} characters (column 'faction')"
            )
    return Characters((tuple(names[0]), tuple(names[1])), numbers, table.source)


@dataclass(frozen=True)
class BeastWarsGame:
    """Validated configuration; creates games. Build it with ``make_game``."""

    team_size: int
    team_selection: str
    characters: Characters
    first_player: int | None
    max_turns: int

    @property
    def agent_names(self) -> tuple[str, ...]:
        return AGENTS

    @property
    def num_actions(self) -> int:
        return NUM_ACTIONS

    @property
    def zero_sum(self) -> bool:
        """BW-8: +1 / -1, or 0 / 0 for a level cap."""
        return True

    def new_initial_state(
        self, rng: np.random.Generator, options: dict[str, Any] | None = None
    ) -> BeastWarsState:
        """BW-3/BW-4: options are validated completely before ``rng`` is touched. Random draws,
        in this order [decided D-10]: the first player (if random), the battle deck shuffle
        (unless fixed), then maximal's and predacon's random teams and placements."""
        deck, teams, first = self._parse_options(options)
        if first is None:
            first = int(rng.integers(2))
        if deck is None:
            shuffled = np.array(DEFAULT_DECK, dtype=np.int64)
            rng.shuffle(shuffled)
            deck = shuffled.tolist()
        if teams is None and self.team_selection == "random":
            sizes = self.characters.sizes
            teams = [rng.permutation(sizes[seat])[: self.team_size].tolist() for seat in (0, 1)]
        return BeastWarsState(self, rng, deck, teams, first)

    def _parse_options(
        self, options: Any
    ) -> tuple[list[int] | None, list[list[int]] | None, int | None]:
        options = check_reset_options(options, RESET_OPTION_KEYS)
        deck = None
        if "battle_deck" in options:
            deck = self._parse_deck(options["battle_deck"])
        teams = None
        if "teams" in options:
            listed = per_player(options["teams"], "options['teams']", AGENTS)
            teams = [self._parse_team(team, seat) for seat, team in enumerate(listed)]
        first = self.first_player
        if options.get("first_player") is not None:
            first = AGENTS.index(
                check_choice(options["first_player"], "options['first_player']", AGENTS)
            )
        return deck, teams, first

    def _parse_deck(self, value: Any) -> list[int]:
        """Top card first in the option, top card last in the returned pile."""
        key = "options['battle_deck']"
        cards = check_sequence(value, key)
        if not 2 <= len(cards) <= DECK_SIZE:
            raise InvalidConfigError(
                f"{key} must hold 2..{DECK_SIZE} cards (a battle draws two; {DECK_SIZE} "
                f"bounds the observation), got {len(cards)}: {cards!r}"
            )
        pile = []
        for index, card in enumerate(cards):
            if card not in _CARD_INDEX:
                raise InvalidConfigError(
                    f"{key}[{index}] = {card!r} is not a battle card; write 'colour:type' with "
                    f"colour in {', '.join(COLOURS)} and type in {', '.join(CARD_TYPES)}"
                )
            pile.append(_CARD_INDEX[card])
        return pile[::-1]

    def _parse_team(self, value: Any, seat: int) -> list[int]:
        key = f"options['teams'][{AGENTS[seat]!r}]"
        names = self.characters.names[seat]
        members = check_sequence(value, key)
        if len(members) != self.team_size:
            raise InvalidConfigError(
                f"{key} must hold exactly team_size={self.team_size} characters, "
                f"got {len(members)}: {members!r}"
            )
        team = []
        for index, member in enumerate(members):
            if isinstance(member, str):
                if member not in names:
                    raise InvalidConfigError(
                        f"{key}[{index}] = {member!r} is not a {AGENTS[seat]}; "
                        f"{AGENTS[seat]}s: {', '.join(names)}"
                    )
                team.append(names.index(member))
            else:
                team.append(check_int(member, f"{key}[{index}]", 0, len(names) - 1))
        if len(set(team)) != len(team):
            raise InvalidConfigError(f"{key} = {members!r} names a character more than once")
        return team


def make_game(
    team_size: int = 6,
    team_selection: str = "choose",
    characters: str | PathLike[str] | Sequence[Mapping[str, Any]] | None = None,
    first_player: str | None = None,
    max_turns: int = 200,
) -> BeastWarsGame:
    """Validate the config (``InvalidConfigError`` names key, value and what is allowed)."""
    team_size = check_int(team_size, "team_size", MIN_FACTION, MAX_FACTION)
    team_selection = check_choice(team_selection, "team_selection", TEAM_SELECTIONS)
    table = load_characters(characters)
    for seat, agent in enumerate(AGENTS):
        if team_size > table.sizes[seat]:
            raise InvalidConfigError(
                f"team_size={team_size} is more than the {table.sizes[seat]} {agent} "
                f"characters in {table.source}"
            )
    first = None
    if first_player is not None:
        first = AGENTS.index(check_choice(first_player, "first_player", (*AGENTS, None)))
    max_turns = check_int(max_turns, "max_turns", 1)
    return BeastWarsGame(team_size, team_selection, table, first, max_turns)


@dataclass(frozen=True)
class Battle:
    """One resolved battle (BW-6/BW-7), all public. Pairs are (attacker, defender)."""

    attacker_seat: int
    cells: tuple[int, int]
    pieces: tuple[int, int]
    cards: tuple[int, int]
    numbers: tuple[int, int]
    #: ``ATTACKER``, ``DEFENDER`` or ``NO_PLAYER`` (called off).
    winner: int
    outcome: int
    #: The loser's cell after the push (``OFF_BOARD`` if it did not survive or nothing moved).
    pushed_to: int
    #: ``turn`` after the battle's turn (so ``state.turn - battle.turn`` is its age).
    turn: int


class BeastWarsState(RulesState):
    """One game in progress. Attributes are public for encoders and tests; treat as read-only.

    Visibility: **public** = both may see it; **private** = the owner's entries only;
    **hidden** = nobody. During setup (``phase`` SELECT / PLACE) each side's picks and
    placement are private; once play starts everything is public except the deck order.

    - ``phase`` (public), ``to_act`` (seat or ``NO_PLAYER``), ``first_player`` (public from
      the start, D-9), ``turn`` (turns played since setup), ``winner`` (seat, ``DRAW`` or
      ``NO_PLAYER``).
    - Board: ``owner`` (13,) int: ``-1`` empty or the seat, entry 12 is a sentinel (``2``)
      standing for "off the board"; ``board`` (12,) piece id per cell (``NO_PIECE`` empty).
    - Pieces (``seat * 12 + id``): ``location`` (24,) a cell or ``RESERVE`` / ``REMOVED`` /
      ``NOT_IN_TEAM`` / ``ABSENT``; ``faces`` (25,) ``BEAST`` / ``ROBOT`` (``faces[NO_PIECE]``
      is ``NO_FACE``, so per-cell lookups need no test for empty cells); ``teams`` per seat,
      ids in pick order; ``placed`` per seat, first-row columns filled; ``board_counts`` and
      ``reserve_counts`` per seat.
    - Battle deck: ``_deck`` (hidden order, top last); ``card_counts`` (2, 16) public, per
      card kind the cards in the deck (row 0, also ``deck_counts``) and in the discard pile
      (row 1, also ``discards``); ``last_battle`` (public, or None).
    """

    #: The characters' number table is read-only in play: copies share it.
    shared_on_clone = frozenset({"_numbers"})
    score_name = "characters left"

    def __init__(
        self,
        game: BeastWarsGame,
        rng: np.random.Generator,
        deck: list[int],
        teams: list[list[int]] | None,
        first_player: int,
    ) -> None:
        self.game = game
        self._rng = rng
        self._numbers = game.characters.numbers
        self._deck = deck
        self.card_counts = np.zeros((2, NUM_CARD_KINDS), dtype=np.int64)
        self.card_counts[0] = np.bincount(deck, minlength=NUM_CARD_KINDS)
        self.owner = np.full(NUM_CELLS + 1, -1, dtype=np.int64)
        self.owner[NUM_CELLS] = 2
        self.board = np.full(NUM_CELLS, NO_PIECE, dtype=np.int64)
        self.location = np.full(NUM_PIECES, ABSENT, dtype=np.int64)
        for seat, size in enumerate(game.characters.sizes):
            self.location[seat * MAX_FACTION : seat * MAX_FACTION + size] = NOT_IN_TEAM
        self.faces = np.zeros(NUM_PIECES + 1, dtype=np.int64)
        self.faces[NO_PIECE] = NO_FACE
        self.teams: list[list[int]] = [[], []]
        self.placed = [0, 0]
        self.board_counts = [0, 0]
        self.reserve_counts = [0, 0]
        self.first_player = first_player
        self.turn = 0
        self.winner = NO_PLAYER
        self.last_battle: Battle | None = None
        self._returns = (0.0, 0.0)
        if teams is not None:
            for seat in (0, 1):
                for member in teams[seat]:
                    self._pick(seat, member)
                for _ in range(PLACED_COLUMNS):
                    self._place(seat, teams[seat][self.placed[seat]])
            self._start_play()
            return
        for seat, size in enumerate(game.characters.sizes):
            if size == game.team_size:  # BW-4: the whole faction is the team, no selection
                for member in range(size):
                    self._pick(seat, member)
        self.phase = SELECT
        self.to_act = MAXIMAL
        self._next_setup_decision()

    # --- GameState protocol ----------------------------------------------------------------
    def current_player(self) -> int:
        return self.to_act

    def legal_action_mask(self) -> np.ndarray:
        """Boolean mask over the 253 actions for ``to_act`` (all False once the game is over)."""
        mask = np.zeros(NUM_ACTIONS, dtype=bool)
        phase = self.phase
        seat = self.to_act
        if phase == PLAY:
            owner = self.owner
            own = owner[:NUM_CELLS] == seat
            empty = owner == -1
            own_column = own[:, None]
            mask[MOVE_BASE:ATTACK_BASE] = (own_column & empty[_NEIGHBOURS_SENTINEL]).ravel()
            enemy = owner == 1 - seat
            mask[ATTACK_BASE:REINFORCE_BASE] = (own_column & enemy[_NEIGHBOURS_SENTINEL]).ravel()
            if self.reserve_counts[seat]:
                targets = self._reinforce_cells(seat, empty[:NUM_CELLS])
                if targets.any():
                    base = seat * MAX_FACTION
                    waiting = self.location[base : base + MAX_FACTION] == RESERVE
                    grid = mask[REINFORCE_BASE:PICK_BASE].reshape(NUM_CELLS, MAX_FACTION)
                    grid[:] = targets[:, None] & waiting
            if not mask.any():
                mask[PASS] = True
        elif phase == SELECT:
            base = seat * MAX_FACTION
            mask[PICK_BASE:PASS] = self.location[base : base + MAX_FACTION] == NOT_IN_TEAM
        elif phase == PLACE:
            base = seat * MAX_FACTION
            mask[PICK_BASE:PASS] = self.location[base : base + MAX_FACTION] == RESERVE
        return mask

    def apply_legal_action(self, action: int) -> None:
        """Advance by one decision of ``to_act``. ``action`` must be legal (the caller checked
        the mask); ``apply_action`` checks it first and raises ``IllegalActionError``."""
        seat = self.to_act
        if self.phase != PLAY:
            if self.phase == SELECT:
                self._pick(seat, action - PICK_BASE)
            else:
                self._place(seat, action - PICK_BASE)
            self._next_setup_decision()
            return
        if action < ATTACK_BASE:
            cell, direction = divmod(action, 4)
            self._move(cell, _NEIGHBOUR_LISTS[cell][direction])
            if self.events is not None:
                self._log_move(seat, cell, direction)
        elif action < REINFORCE_BASE:
            cell, direction = divmod(action - ATTACK_BASE, 4)
            self._battle(seat, cell, direction)
        elif action < PICK_BASE:
            cell, member = divmod(action - REINFORCE_BASE, MAX_FACTION)
            self._enter(seat * MAX_FACTION + member, cell)
            self.reserve_counts[seat] -= 1
            if self.events is not None:
                self._log_reinforce(seat, cell, seat * MAX_FACTION + member)
        elif self.events is not None:
            self.log("passed", seat=seat)
        self.turn += 1
        self._end_turn(seat)

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def is_truncated(self) -> bool:
        """Never: BW-8's cap is a rule with an outcome, so it terminates the game."""
        return False

    def scores(self) -> tuple[int, ...]:
        """Characters left per seat: on the board plus in the reserve (BW-8)."""
        return (
            self.board_counts[0] + self.reserve_counts[0],
            self.board_counts[1] + self.reserve_counts[1],
        )

    def action_to_string(self, action: int) -> str:
        """Action name in the current context, e.g. "attack from r1c1 up (Rhinox)"."""
        if not 0 <= action < NUM_ACTIONS:
            return f"action {action} (out of range 0..{NUM_ACTIONS - 1})"
        if action == PASS:
            return "pass"
        seat = self.to_act if self.to_act != NO_PLAYER else MAXIMAL
        names = self.game.characters.names[seat]
        if action >= PICK_BASE:
            member = action - PICK_BASE
            who = names[member] if member < len(names) else f"character {member}"
            if self.phase == PLACE:
                return f"place {who} in column {self.placed[seat]}"
            return f"pick {who}"
        if action >= REINFORCE_BASE:
            cell, member = divmod(action - REINFORCE_BASE, MAX_FACTION)
            who = names[member] if member < len(names) else f"character {member}"
            return f"reinforce {cell_name(cell)} with {who}"
        verb = "move" if action < ATTACK_BASE else "attack from"
        cell, direction = divmod(action % ATTACK_BASE, 4)
        piece = int(self.board[cell])
        who = f" ({self.game.characters.name(piece)})" if piece != NO_PIECE else ""
        return f"{verb} {cell_name(cell)} {DIRECTIONS[direction]}{who}"

    def resample_from_infostate(self, seat: int, rng: np.random.Generator) -> BeastWarsState:
        """A copy in which everything ``seat`` cannot see is redrawn from ``rng``.

        Always: the deck order (its composition is public) and the copy's generator for later
        reshuffles. During setup also the other side's picks and placement: as many distinct
        characters of its faction as it has picked (that count follows from the public phase),
        the first ones placed in the same columns. Everything public stays.
        """
        twin = self.clone()
        twin.events = None  # the redrawn picks below must not log
        deck = np.sort(np.array(twin._deck, dtype=np.int64))  # the order must not leak in
        rng.shuffle(deck)
        twin._deck = deck.tolist()
        twin._rng = np.random.default_rng(int(rng.integers(2**63)))
        if self.phase in (SELECT, PLACE):
            other = 1 - seat
            base = other * MAX_FACTION
            size = self.game.characters.sizes[other]
            picked, placed = len(self.teams[other]), self.placed[other]
            for cell in FIRST_ROWS[other][:placed]:
                twin.owner[cell] = -1
                twin.board[cell] = NO_PIECE
            twin.location[base : base + size] = NOT_IN_TEAM
            twin.teams[other], twin.placed[other] = [], 0
            twin.board_counts[other] = twin.reserve_counts[other] = 0
            for member in rng.permutation(size)[:picked].tolist():
                twin._pick(other, member)
            for column in range(placed):
                twin._place(other, twin.teams[other][column])
        twin.events = None if self.events is None else visible_events(self.events, seat)
        return twin

    # --- derived views ---------------------------------------------------------------------
    def cell_numbers(self, cell: int) -> tuple[int, ...]:
        """The four colour numbers of the character on ``cell``, current face."""
        piece = int(self.board[cell])
        return tuple(self._numbers[piece, self.faces[piece]].tolist())

    def battle_cards_total(self) -> int:
        """Deck plus discard pile (between steps no card is in a battle): conserved."""
        return len(self._deck) + int(self.discards.sum())

    @property
    def deck_counts(self) -> np.ndarray:
        """Cards left in the deck per kind (public; a view of ``card_counts``)."""
        return self.card_counts[0]

    @property
    def discards(self) -> np.ndarray:
        """Cards in the discard pile per kind (public; a view of ``card_counts``)."""
        return self.card_counts[1]

    @property
    def deck_size(self) -> int:
        return len(self._deck)

    def deck_top(self, count: int) -> list[int]:
        """The next ``count`` cards to be drawn, top first (fewer if the deck is shorter)."""
        return self._deck[::-1][:count]

    # --- the load check ----------------------------------------------------------------------
    def check_state(self) -> None:
        """Refuse (``InvalidConfigError`` naming the field) what these rules cannot reach, in
        O(board + deck) work, before ``set_state`` loads the state (``core.state_checks``):
        battle cards real and counted (deck plus discards 2..72, BW-3); board, owners and
        locations one picture with each character in one place; teams, faces and counts
        matching it; the phase, turn, winner and last battle as BW-4 .. BW-8 leave them."""
        field_generator(self._rng, "_rng")
        field_events(self)
        numbers = self.game.characters.numbers
        field_same(self._numbers, "_numbers", numbers, "the game's characters table")
        deck = field_ints(self._deck, "_deck", 0, NUM_CARD_KINDS - 1, max_length=DECK_SIZE)
        card_counts = field_array(
            self.card_counts, "card_counts", np.int64, (2, NUM_CARD_KINDS), 0, DECK_SIZE
        )
        counted = np.bincount(np.asarray(deck, dtype=np.int64), minlength=NUM_CARD_KINDS)
        field_same(card_counts[0], "card_counts[0]", counted, "the cards in state._deck")
        total = len(deck) + int(card_counts[1].sum())
        if not 2 <= total <= DECK_SIZE:
            refuse(
                "_deck and card_counts[1]",
                f"{total} battle cards",
                f"deck plus discards hold 2..{DECK_SIZE} (BW-3; a battle draws two)",
            )
        self._check_board()
        self._check_phase()
        self._check_last_battle()

    def _check_board(self) -> None:
        """BW-1/BW-4: ``owner``, ``board`` and ``location`` agree (each character in one
        place, each cell holding one); teams, faces and counts match them."""
        owner = field_array(self.owner, "owner", np.int64, (NUM_CELLS + 1,), -1, 2)
        field_same(int(owner[NUM_CELLS]), f"owner[{NUM_CELLS}]", 2, "the off-board sentinel")
        board = field_array(self.board, "board", np.int64, (NUM_CELLS,), 0, NO_PIECE)
        location = field_array(
            self.location, "location", np.int64, (NUM_PIECES,), ABSENT, NUM_CELLS - 1
        )
        faces = field_array(self.faces, "faces", np.int64, (NUM_PIECES + 1,), BEAST, NO_FACE)
        field_same(int(faces[NO_PIECE]), f"faces[{NO_PIECE}]", NO_FACE, "the empty cell's")
        for cell, (piece, seat) in enumerate(zip(board.tolist(), owner.tolist(), strict=False)):
            expected = -1 if piece == NO_PIECE else piece // MAX_FACTION
            if seat != expected:
                refuse(f"owner[{cell}]", seat, f"must be {expected}: who owns state.board[{cell}]")
            if piece != NO_PIECE and location[piece] != cell:
                refuse(
                    f"location[{piece}]",
                    int(location[piece]),
                    f"must be {cell}: state.board[{cell}] holds that character",
                )
        for piece in np.flatnonzero(location >= 0).tolist():
            cell = int(location[piece])
            if board[cell] != piece:
                refuse(
                    f"board[{cell}]",
                    int(board[cell]),
                    f"must be {piece}: state.location[{piece}] puts that character there",
                )
        teams = field_list(self.teams, "teams", 2)
        board_counts = field_ints(self.board_counts, "board_counts", 0, NUM_CELLS, length=2)
        reserve_counts = field_ints(self.reserve_counts, "reserve_counts", 0, MAX_FACTION, length=2)
        for seat in (MAXIMAL, PREDACON):
            self._check_team(seat, teams[seat], location, faces)
            on_board = int((owner[:NUM_CELLS] == seat).sum())
            field_same(board_counts[seat], f"board_counts[{seat}]", on_board, "state.owner")
            base = seat * MAX_FACTION
            waiting = int((location[base : base + MAX_FACTION] == RESERVE).sum())
            why = "characters whose state.location is RESERVE"
            field_same(reserve_counts[seat], f"reserve_counts[{seat}]", waiting, why)

    def _check_team(self, seat: int, team: Any, location: np.ndarray, faces: np.ndarray) -> None:
        """``seat``'s team (distinct ids of its faction) and each character's place and face:
        not in the file ABSENT, not picked NOT_IN_TEAM, picked RESERVE, REMOVED or a cell;
        BEAST side up until it has been on the board (BW-4, BW-6)."""
        game = self.game
        size = game.characters.sizes[seat]
        field = f"teams[{seat}]"
        members = set(field_ints(team, field, 0, size - 1, max_length=game.team_size))
        field_distinct(team, field, "character")
        base = seat * MAX_FACTION
        for member in range(MAX_FACTION):
            piece = base + member
            where, face = int(location[piece]), int(faces[piece])
            if member >= size:
                allowed, words = where == ABSENT, f"ABSENT ({ABSENT}): not in the file"
            elif member in members:
                allowed, words = where >= REMOVED, f"a cell, RESERVE or REMOVED: in state.{field}"
            else:
                allowed, words = where == NOT_IN_TEAM, f"NOT_IN_TEAM ({NOT_IN_TEAM})"
            if not allowed:
                refuse(f"location[{piece}]", where, f"must be {words}")
            if face == NO_FACE or (face != BEAST and where < REMOVED):
                refuse(f"faces[{piece}]", face, "BEAST (0), or ROBOT (1) once on the board")

    def _check_phase(self) -> None:
        """BW-4 .. BW-8: setup order, whose turn it is, the cap, the winner and returns."""
        game = self.game
        phase = field_int(self.phase, "phase", SELECT, OVER)
        field_int(self.first_player, "first_player", MAXIMAL, PREDACON)
        turn = field_int(self.turn, "turn", 0, game.max_turns)
        winner = field_int(self.winner, "winner", NO_PLAYER, DRAW)
        placed = field_ints(self.placed, "placed", 0, PLACED_COLUMNS, length=2)
        teams, board_counts, reserve_counts = self.teams, self.board_counts, self.reserve_counts
        full = [len(team) == game.team_size for team in teams]
        if phase == OVER:
            field_same(self.to_act, "to_act", NO_PLAYER, "nobody acts once the game is over")
            if winner == NO_PLAYER:
                refuse("winner", winner, f"a seat or DRAW ({DRAW}) once the game is over (BW-8)")
            returns = (0.0, 0.0) if winner == DRAW else (1.0, -1.0) if winner == 0 else (-1.0, 1.0)
            field_same(self._returns, "_returns", returns, "BW-8: +1 / -1, 0 / 0 for a draw")
        else:
            field_same(winner, "winner", NO_PLAYER, "nobody wins before the game is over")
        if phase >= PLAY:
            for seat in (MAXIMAL, PREDACON):
                if not full[seat]:
                    refuse(f"teams[{seat}]", teams[seat], "a full team once play starts (BW-4)")
            field_same(placed, "placed", [PLACED_COLUMNS] * 2, "both first rows filled (BW-4)")
        if phase == PLAY:
            field_int(self.to_act, "to_act", MAXIMAL, PREDACON)
            if turn >= game.max_turns:
                refuse("turn", turn, f"below max_turns={game.max_turns} in play (BW-8)")
            for seat in (MAXIMAL, PREDACON):
                if board_counts[seat] + reserve_counts[seat] == 0:
                    refuse(f"board_counts[{seat}]", 0, "a side with no character has lost (BW-8)")
                if board_counts[seat] == NUM_CELLS:
                    refuse(f"board_counts[{seat}]", NUM_CELLS, "a full board has won (BW-8)")
        if phase >= PLAY:
            return
        seat = field_int(self.to_act, "to_act", MAXIMAL, PREDACON)
        field_same(turn, "turn", 0, "no turn is played during setup (BW-4)")
        field_same(board_counts, "board_counts", placed, "only placed characters are on board")
        if phase == SELECT:
            field_same(placed, "placed", [0, 0], "placement follows selection (BW-4)")
            if full[seat] or (seat == PREDACON and not full[MAXIMAL]):
                refuse("to_act", seat, "the side still selecting, maximal first (BW-4)")
        else:
            placed_before = PLACED_COLUMNS if seat == PREDACON else 0  # maximal places first
            if not all(full) or placed[seat] == PLACED_COLUMNS or placed[1 - seat] != placed_before:
                refuse("to_act", seat, "the side still placing, maximal first (BW-4)")

    def _check_last_battle(self) -> None:
        """The last battle (BW-6/BW-7) is one the board could have fought: None during setup."""
        battle = self.last_battle
        if battle is None:
            return
        if type(battle) is not Battle:
            refuse("last_battle", battle, "must be None or a Battle")
        if self.phase < PLAY:
            refuse("last_battle", battle, "None until play starts (BW-4)")
        field_int(battle.attacker_seat, "last_battle.attacker_seat", MAXIMAL, PREDACON)
        highest = MAX_NUMBER + max(CARD_BONUS)
        for name, high in (
            ("cells", NUM_CELLS - 1),
            ("pieces", NUM_PIECES - 1),
            ("cards", NUM_CARD_KINDS - 1),
            ("numbers", highest),
        ):
            pair = getattr(battle, name)
            if type(pair) is not tuple or len(pair) != 2:
                refuse(f"last_battle.{name}", pair, "must be a pair (attacker, defender)")
            for index, value in enumerate(pair):
                field_int(value, f"last_battle.{name}[{index}]", 0, high)
        field_int(battle.winner, "last_battle.winner", NO_PLAYER, DEFENDER)
        field_int(battle.outcome, "last_battle.outcome", PUSH, CALLED_OFF)
        field_int(battle.pushed_to, "last_battle.pushed_to", OFF_BOARD, NUM_CELLS - 1)
        field_int(battle.turn, "last_battle.turn", 1, self.turn)

    # --- setup (BW-4) ----------------------------------------------------------------------
    def _pick(self, seat: int, member: int) -> None:
        self.teams[seat].append(member)
        self.location[seat * MAX_FACTION + member] = RESERVE
        self.reserve_counts[seat] += 1
        if self.events is not None:
            count = {"count": len(self.teams[seat]), "team_size": self.game.team_size}
            self.log(
                "picked",
                seen_by=seat,
                seat=seat,
                **self._character(seat * MAX_FACTION + member),
                **count,
            )
            self.log("opponent_picked", seen_by=1 - seat, seat=seat, **count)

    def _place(self, seat: int, member: int) -> None:
        column = self.placed[seat]
        cell = FIRST_ROWS[seat][column]
        self.placed[seat] += 1
        self.reserve_counts[seat] -= 1
        self._enter(seat * MAX_FACTION + member, cell)
        if self.events is not None:
            self.log(
                "placed",
                seen_by=seat,
                seat=seat,
                cell=cell,
                column=column,
                **self._character(seat * MAX_FACTION + member),
            )
            self.log("opponent_placed", seen_by=1 - seat, seat=seat, cell=cell, column=column)

    def _next_setup_decision(self) -> None:
        """Maximal selects, predacon selects, maximal places, predacon places (BW-4)."""
        team_size = self.game.team_size
        while True:
            seat = self.to_act
            if self.phase == SELECT:
                if len(self.teams[seat]) < team_size:
                    return
                self.phase, self.to_act = (SELECT, PREDACON) if seat == MAXIMAL else (PLACE, 0)
            else:
                if self.placed[seat] < PLACED_COLUMNS:
                    return
                if seat == PREDACON:
                    self._start_play()
                    return
                self.to_act = PREDACON

    def _start_play(self) -> None:
        self.phase = PLAY
        self.to_act = self.first_player
        if self.events is not None:
            self._log_play_started()

    # --- play (BW-5 .. BW-8) ---------------------------------------------------------------
    def _enter(self, piece: int, cell: int) -> None:
        """``piece`` (from the reserve) onto the empty ``cell``, beast side up (BW-4/5)."""
        seat = piece // MAX_FACTION
        self.owner[cell] = seat
        self.board[cell] = piece
        self.location[piece] = cell
        self.faces[piece] = BEAST
        self.board_counts[seat] += 1

    def _move(self, source: int, target: int) -> None:
        piece = self.board[source]
        self.owner[target] = self.owner[source]
        self.board[target] = piece
        self.location[piece] = target
        self.owner[source] = -1
        self.board[source] = NO_PIECE

    def _remove(self, cell: int) -> None:
        piece = self.board[cell]
        self.board_counts[int(self.owner[cell])] -= 1
        self.location[piece] = REMOVED
        self.owner[cell] = -1
        self.board[cell] = NO_PIECE

    def _draw(self) -> int:
        """BW-3: the top card; an empty deck first takes the shuffled discard pile."""
        counts = self.card_counts
        if not self._deck:
            pile = np.repeat(_CARD_RANGE, counts[1])
            self._rng.shuffle(pile)
            self._deck = pile.tolist()
            counts[0] = counts[1]
            counts[1] = 0
            if self.events is not None:
                self.log("reshuffled", cards=len(self._deck))
        card = self._deck.pop()
        counts[0, card] -= 1
        return card

    def _number(self, piece: int, card: int) -> int:
        """BW-6: Mutate flips first; then the number in the card's colour plus its bonus."""
        colour, kind = divmod(card, len(CARD_TYPES))
        if kind == MUTATE:
            self.faces[piece] = 1 - self.faces[piece]
        return int(self._numbers[piece, self.faces[piece], colour]) + CARD_BONUS[kind]

    def _battle(self, seat: int, cell: int, direction: int) -> None:
        """BW-6/BW-7: draw, compare, push (or capture, or fall) and take the loser's space."""
        target = _NEIGHBOUR_LISTS[cell][direction]
        attacker, defender = int(self.board[cell]), int(self.board[target])
        attacker_card = self._draw()
        defender_card = self._draw()
        attack = self._number(attacker, attacker_card)
        defence = self._number(defender, defender_card)
        discards = self.card_counts[1]
        discards[attacker_card] += 1
        discards[defender_card] += 1
        pushed_to = OFF_BOARD
        if attack == defence:
            winner, outcome = NO_PLAYER, CALLED_OFF
        else:
            if attack > defence:
                winner, winner_cell, loser_cell, away = ATTACKER, cell, target, direction
            else:
                winner, winner_cell, loser_cell = DEFENDER, target, cell
                away = OPPOSITE[direction]
            behind = _NEIGHBOUR_LISTS[loser_cell][away]
            if behind == OFF_BOARD:
                outcome = FALL
                self._remove(loser_cell)
            elif self.owner[behind] != -1:
                outcome = CAPTURE
                self._remove(loser_cell)
            else:
                outcome = PUSH
                self._move(loser_cell, behind)
                pushed_to = behind
            self._move(winner_cell, loser_cell)
        self.last_battle = Battle(
            attacker_seat=seat,
            cells=(cell, target),
            pieces=(attacker, defender),
            cards=(attacker_card, defender_card),
            numbers=(attack, defence),
            winner=winner,
            outcome=outcome,
            pushed_to=pushed_to,
            turn=self.turn + 1,
        )
        if self.events is not None:
            self._log_battle(self.last_battle)

    def _reinforce_cells(self, seat: int, empty: np.ndarray) -> np.ndarray:
        """BW-5: the empty cells of ``seat``'s first row; any empty cell if all three
        first-row cells hold enemy characters."""
        row = FIRST_ROWS[seat]
        enemy = 1 - seat
        owner = self.owner
        if owner[row[0]] == enemy and owner[row[1]] == enemy and owner[row[2]] == enemy:
            return empty
        return empty & _FIRST_ROW_MASKS[seat]

    def _end_turn(self, seat: int) -> None:
        """BW-8, checked after every action: elimination, a full board, then the cap."""
        enemy = 1 - seat
        if self.board_counts[enemy] + self.reserve_counts[enemy] == 0:
            self._finish(seat)
        elif self.board_counts[seat] + self.reserve_counts[seat] == 0:
            self._finish(enemy)
        elif self.board_counts[seat] == NUM_CELLS:
            self._finish(seat)
        elif self.turn >= self.game.max_turns:
            left = self.scores()
            self._finish(DRAW if left[0] == left[1] else int(left[1] > left[0]))
        else:
            self.to_act = enemy

    def _finish(self, winner: int) -> None:
        self.phase = OVER
        self.to_act = NO_PLAYER
        self.winner = winner
        if winner != DRAW:
            self._returns = (1.0, -1.0) if winner == MAXIMAL else (-1.0, 1.0)
        if self.events is not None:
            self.log(
                "game_over",
                winner=-1 if winner == DRAW else winner,
                reason=self.end_reason(),
                left=list(self.scores()),
                turn=self.turn,
                max_turns=self.game.max_turns,
            )

    def end_reason(self) -> str:
        """Why a finished game ended: "eliminated" (the loser has no character left),
        "full_board" (the winner holds every cell) or "cap" (BW-8, a draw included)."""
        winner = self.winner
        if winner == DRAW:
            return "cap"
        if self.scores()[1 - winner] == 0:
            return "eliminated"
        if self.board_counts[winner] == NUM_CELLS:
            return "full_board"
        return "cap"

    # --- the event log (only while recording; kinds in envs/beast_wars/story.py) -----------
    def record_events(self) -> None:
        """Start recording. A fresh game first logs its opening: the draft about to start, or
        (teams given or drawn at random) both teams as play starts."""
        fresh = self.events is None
        super().record_events()
        if not fresh:
            return
        if self.phase == PLAY and self.turn == 0:
            self._log_play_started()
        elif self.phase in (SELECT, PLACE) and self.placed == [0, 0]:
            size = self.game.team_size
            whole = [seat for seat in (0, 1) if self.game.characters.sizes[seat] == size]
            if all(len(self.teams[s]) == (size if s in whole else 0) for s in (0, 1)):
                self.log(
                    "draft_started",
                    team_size=size,
                    first_player=self.first_player,
                    whole_faction=whole,
                )

    def _character(self, piece: int) -> dict[str, Any]:
        """A character as the events show it: id, full name and both faces' numbers."""
        numbers = self._numbers[piece].tolist()
        return {
            "id": piece % MAX_FACTION,
            "name": self.game.characters.name(piece),
            "beast": numbers[BEAST],
            "robot": numbers[ROBOT],
        }

    def _on_board(self, cell: int) -> dict[str, Any]:
        """The character on ``cell`` with its current face and that face's numbers."""
        piece = int(self.board[cell])
        face = int(self.faces[piece])
        return {
            "name": self.game.characters.name(piece),
            "face": FACES[face],
            "numbers": self._numbers[piece, face].tolist(),
        }

    def _log_play_started(self) -> None:
        """BW-4: play starts and both teams, board and reserve, are public."""
        board: list[list[dict[str, Any]]] = [[], []]
        reserve: list[list[dict[str, Any]]] = [[], []]
        for seat in (0, 1):
            for member in self.teams[seat]:
                piece = seat * MAX_FACTION + member
                where = int(self.location[piece])
                if where >= 0:
                    board[seat].append({"cell": where, **self._character(piece)})
                elif where == RESERVE:
                    reserve[seat].append(self._character(piece))
        self.log("play_started", first_player=self.first_player, board=board, reserve=reserve)

    def _log_move(self, seat: int, cell: int, direction: int) -> None:
        target = _NEIGHBOUR_LISTS[cell][direction]
        self.log(
            "moved",
            seat=seat,
            source=cell,
            target=target,
            direction=DIRECTIONS[direction],
            **self._on_board(target),
        )

    def _log_reinforce(self, seat: int, cell: int, piece: int) -> None:
        self.log(
            "reinforced",
            seat=seat,
            cell=cell,
            **self._character(piece),
            reserve_left=self.reserve_counts[seat],
        )

    def _log_battle(self, battle: Battle) -> None:
        """BW-6/BW-7: both cards, both numbers (base + bonus), the result and the counts
        (``left_before``: characters left per side before a capture or fall)."""
        cards, faces, base, bonus = [], [], [], []
        for piece, card, total in zip(battle.pieces, battle.cards, battle.numbers, strict=True):
            kind = card % len(CARD_TYPES)
            cards.append(CARD_NAMES[card])
            faces.append(FACES[int(self.faces[piece])])
            bonus.append(CARD_BONUS[kind])
            base.append(total - CARD_BONUS[kind])
        names = [self.game.characters.name(piece) for piece in battle.pieces]
        winner = NO_PLAYER
        if battle.winner >= 0:
            winner = battle.attacker_seat if battle.winner == ATTACKER else 1 - battle.attacker_seat
        left = list(self.scores())
        left_before = left[:]
        if battle.outcome in (CAPTURE, FALL):
            left_before[1 - winner] += 1
        self.log(
            "battle",
            seat=battle.attacker_seat,
            names=names,
            cells=list(battle.cells),
            direction=DIRECTIONS[NEIGHBOURS[battle.cells[0]].tolist().index(battle.cells[1])],
            cards=cards,
            mutated=[card % len(CARD_TYPES) == MUTATE for card in battle.cards],
            faces=faces,
            base=base,
            bonus=bonus,
            numbers=list(battle.numbers),
            winner=winner,
            outcome=OUTCOMES[battle.outcome],
            pushed_to=battle.pushed_to,
            left_before=left_before,
            left=left,
            deck=len(self._deck),
            discards=int(self.card_counts[1].sum()),
        )
