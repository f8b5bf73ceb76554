"""
# Beast Wars Transformers Mutating Card Game

| Import             | `from cardarena.envs import beast_wars_v0`                |
|--------------------|-----------------------------------------------------------|
| Actions            | Discrete                                                  |
| Parallel API       | No                                                        |
| Manual Control     | No                                                        |
| Agents             | `agents= ['maximal', 'predacon']`                         |
| Agents             | 2                                                         |
| Action Shape       | Discrete(253)                                             |
| Action Values      | 0 to 252 (layout below)                                   |
| Observation Shape  | (431,)                                                    |
| Observation Values | [low, high] per piece (table below), float32              |
| State Shape        | (463,)                                                    |

Maximals and Predacons fight on a board of 4 rows x 3 columns. Each side drafts a team of
characters, places three in its first row and keeps the rest in reserve. On a turn a player
moves a character one space, brings a reserve character in, or attacks an adjacent enemy:
both draw a battle card, and each compares its own character's number in the colour of its
own card (Secret Weapon +2, Energon +1, Mutate flips the character between beast and robot
first). The winner pushes the loser one space away and takes its space; a loser pushed into
an occupied space is captured, one pushed off the board falls. Clear the enemy's board and
reserve to win. Rules: envs/rulebooks/beast_wars_v0.md (BW-1..BW-8; `cardarena rules
beast_wars_v0`).

**The character numbers are invented.** No published card list gives them, so the shipped
file `envs/beast_wars/characters.csv` holds the 24 real Beast Wars names (12 Maximals, 12
Predacons) with made-up, balanced numbers (flagged in the file): equal faction totals, robot
faces a little stronger on average (6.10 vs 5.58), each character with a clear strong and
weak colour, some strong-beast / weak-robot characters (Rhinox, Rampage) and the reverse
(Dinobot, Tankor), two leaders (Optimus Primal, Megatron) and a few weak ones (Wolfang,
Polar Claw, Waspinator, Iguanus). Under random play with a random first player the six
characters with the highest averages beat the six lowest in 74.5% of 10,000 games (1.4%
draws), so the draft matters without deciding the game.

## Arguments

`beast_wars_v0.env(team_size=6, team_selection="choose", characters=None, first_player=None,
max_turns=200, render_mode=None)`

- `team_size`: characters per team, 3..12, at most the smaller faction's size.
- `team_selection`: `"choose"` (each player picks its team and first row, BW-4) or
  `"random"` (teams and placements drawn from the env's RNG; play starts at once).
- `characters`: `None` (the shipped file), a path to a `.csv` or `.json` file, or a list of
  dicts with the columns `faction,name,beast_red,beast_blue,beast_gold,beast_green,
  robot_red,robot_blue,robot_gold,robot_green`; faction `maximal` or `predacon` with 3..12
  rows each, names unique, numbers integers 0..99. A character's id is its row order within
  its faction. A malformed table raises `InvalidConfigError` naming row, column and value.
- `first_player`: `None` (drawn at random each game), `"maximal"` or `"predacon"`.
- `max_turns`: the BW-8 cap (turns after setup, both players counted); at the cap the side
  with more characters left wins (a termination, not a truncation). Keep it even: with an
  odd cap the first player gets one turn more than the other before the count.
- `render_mode`: `None` (`render()` warns and returns None), `"ansi"` (`render()` returns the
  text) or `"human"` (prints it after `reset()` and after every move, and on `render()`).
- `normalize_observation`: False (raw counts) or True (the observation Box is `[0, 1]` float32,
  scaled by `ObservationScaler`, for clients that do not scale; `state()` stays raw).

Any other keyword raises `InvalidConfigError` naming it and the allowed keys.

`reset(seed=None, options=None)` options (C-6), each optional:

- `battle_deck`: list of `"colour:type"` strings, top card first, 2..72 cards, e.g.
  `["blue:basic", "gold:secret_weapon", "green:mutate", "red:energon"]` (colours red, blue,
  gold, green; types basic, mutate, secret_weapon, energon). Played in that order; when it runs
  out the discards are shuffled from the seeded RNG.
- `teams`: `{"maximal": [...], "predacon": [...]}` (or a list in seat order), exactly
  `team_size` distinct character ids (or names) of that faction each; the first three go to
  columns 0, 1, 2 of the first row, the rest to the reserve. Given teams skip selection and
  placement for both players.
- `first_player`: `"maximal"` or `"predacon"` (overrides the config; `None`: as configured).

Unknown option keys are ignored with a `UserWarning` (C-6); bad values raise
`InvalidConfigError` naming the key and the value.

## Observation Space

A dict `{"observation": float32 vector, "action_mask": int8 vector}`. The observation holds
only what that player could see at the table. Cells are absolute (`cell = row * 3 + col`,
row 0 maximal's first row, row 3 predacon's) and the same for both players; per-side pieces
(first dimension 2) hold your row first, then the enemy's. Character ids are one-hot within
the character's faction (its row order in the characters file). `cell_numbers` are the four
numbers of the character's current face. Index ranges for the default config
(`layout.view(obs)` splits a vector into these named pieces in their shapes):

| Index | Piece | Shape | Values | Meaning |
|-------|-------|-------|--------|---------|
| 0-35 | cell_owner | 12x3 | 0..1 | per cell: one-hot empty, yours, enemy's |
| 36-179 | cell_character | 12x12 | 0..1 | per cell: one-hot character id |
| 180-203 | cell_face | 12x2 | 0..1 | per cell: one-hot beast, robot |
| 204-251 | cell_numbers | 12x4 | 0..10 | per cell: red, blue, gold, green number (current face) |
| 252-253 | side | 2 | 0..1 | your side: one-hot maximal, predacon |
| 254-255 | first_player | 2 | 0..1 | who plays first: one-hot you, enemy |
| 256-279 | reserve | 2x12 | 0..1 | per side, per id: in the reserve (or picked) |
| 280-303 | removed | 2x12 | 0..1 | per side, per id: captured or fell off |
| 304-319 | deck | 4x4 | 0..72 | battle deck: cards left per colour x type |
| 320-335 | discards | 4x4 | 0..72 | discard pile: cards per colour x type |
| 336-337 | battle_attacker | 2 | 0..1 | last battle: one-hot who attacked (you, enemy) |
| 338-361 | battle_cells | 2x12 | 0..1 | last battle: attacker's, defender's cell (one-hot) |
| 362-385 | battle_characters | 2x12 | 0..1 | last battle: attacker's, defender's character id |
| 386-417 | battle_cards | 2x4x4 | 0..1 | last battle: attacker's, defender's card (colour x type) |
| 418-419 | battle_numbers | 2 | 0..12 | last battle: attacker's, defender's number (+ bonus) |
| 420-421 | battle_winner | 2 | 0..1 | last battle: one-hot winner attacker, defender (0s: tie) |
| 422-425 | battle_outcome | 4 | 0..1 | last battle: one-hot push, capture, fall, called off |
| 426 | battle_age | 1 | 0..200 | turns played since the last battle (0: just now) |
| 427 | turn | 1 | 0..200 | turns played since setup (BW-8 cap) |
| 428-430 | phase | 3 | 0..1 | one-hot: select, place, play |

During setup (`phase` select or place) you see your own picks (`reserve`: picked, not yet
placed) and your own first-row placements on the board, and nothing of the enemy's: its
cells show empty and its `reserve` row is 0 until play starts (BW-4); from then on both
teams, board and reserve, are public. The battle deck's composition (`deck`) and the discard
pile are public; its order is never observed. `battle_*` describe the most recent battle of
the game (all zeros before the first one): a battle resolves within one step, so this is
where its cards, numbers and outcome can be seen; `battle_age` says how many turns ago it was.

### Legal Actions Mask

`action_mask[a] == 1` iff the agent is to act and `a` is legal now. All zeros for an agent
who is not to act (C-1).

## Action Space

`Discrete(253)`, directions absolute: 0 up (row + 1, towards predacon), 1 right (col + 1),
2 down (row - 1, towards maximal), 3 left (col - 1):

| Action | Meaning |
|--------|---------|
| 0-47 | move: `cell * 4 + dir`, your character on `cell` one space into an empty space |
| 48-95 | attack: `48 + cell * 4 + dir`, your character on `cell` attacks the enemy in `dir` |
| 96-239 | reinforce: `96 + cell * 12 + id`, reserve character `id` onto empty `cell` (BW-5) |
| 240-251 | pick character `a - 240`: team selection, then placement in columns 0, 1, 2 |
| 252 | pass (only when nothing else is legal) |

## State

`env.state()` returns the full-information state vector (`env.state_space`, a float32 Box)
for centralised critics and debugging: both sides' setup picks even while hidden, and the next
two battle cards (`deck_top`), so agents must not see it. Sides in absolute order (maximal
first). `env.unwrapped.state_layout.view(state)` splits it.

| Index | Piece | Shape | Values | Meaning |
|-------|-------|-------|--------|---------|
| 0-35 | cell_owner | 12x3 | 0..1 | per cell: one-hot empty, maximal, predacon |
| 36-179 | cell_character | 12x12 | 0..1 | per cell: one-hot character id |
| 180-203 | cell_face | 12x2 | 0..1 | per cell: one-hot beast, robot |
| 204-251 | cell_numbers | 12x4 | 0..10 | per cell: red, blue, gold, green number (current face) |
| 252-253 | first_player | 2 | 0..1 | who plays first: one-hot maximal, predacon |
| 254-277 | reserve | 2x12 | 0..1 | per side, per id: in the reserve (or picked) |
| 278-301 | removed | 2x12 | 0..1 | per side, per id: captured or fell off |
| 302-317 | deck | 4x4 | 0..72 | battle deck: cards left per colour x type |
| 318-333 | discards | 4x4 | 0..72 | discard pile: cards per colour x type |
| 334-365 | deck_top | 2x4x4 | 0..1 | the next two cards to draw, top first |
| 366-367 | battle_attacker | 2 | 0..1 | last battle: one-hot who attacked (maximal, predacon) |
| 368-391 | battle_cells | 2x12 | 0..1 | last battle: attacker's, defender's cell (one-hot) |
| 392-415 | battle_characters | 2x12 | 0..1 | last battle: attacker's, defender's character id |
| 416-447 | battle_cards | 2x4x4 | 0..1 | last battle: attacker's, defender's card (colour x type) |
| 448-449 | battle_numbers | 2 | 0..12 | last battle: attacker's, defender's number (+ bonus) |
| 450-451 | battle_winner | 2 | 0..1 | last battle: one-hot winner attacker, defender (0s: tie) |
| 452-455 | battle_outcome | 4 | 0..1 | last battle: one-hot push, capture, fall, called off |
| 456 | battle_age | 1 | 0..200 | turns played since the last battle (0: just now) |
| 457 | turn | 1 | 0..200 | turns played since setup (BW-8 cap) |
| 458-460 | phase | 3 | 0..1 | one-hot: select, place, play |
| 461-462 | to_act | 2 | 0..1 | one-hot: the seat to act (0s once the game is over) |

## Rewards

0 until the game ends; then +1 for the winner and -1 for the loser, 0 each for a level cap
(BW-8). The game is zero-sum (`metadata["zero_sum"]` is True) and never truncated: the cap
is a rule with an outcome. With `env()` an illegal action ends the game (terminated) with -1
for the offender and 0 for the other; `raw_env` raises `IllegalActionError`.

## Infos

The six keys of `cardarena.envs.core.infos`, numbers and numeric arrays of one dtype and shape
from `reset()` on (strings and a dict before 0.2.0: CHANGELOG.md): `outcome`, `scores`,
`winners` (per seat), `steps`, `offender` (a seat index, -1 for nobody), `illegal_action`. Here
the outcome is `TERMINATED` or `ILLEGAL_ACTION` (the cap is a rule with an outcome, BW-8);
`scores` counts the characters left, board plus reserve; `winners` marks the seat with reward
+1, if any; `steps` counts decisions, setup picks included.

## Decided rules (envs/rulebooks/beast_wars_v0.md [decided] and gaps)

From envs/rulebooks/beast_wars_v0.md:

- BW-1: 4 x 3 board, 6 spaces per side, 3 in the first row; cells and directions absolute.
- BW-2: the fourth colour is green; the shipped numbers are invented and balanced (above).
- BW-3: 72 battle cards, per colour 9 Basic, 3 Mutate, 3 Secret Weapon, 3 Energon.
- BW-4: the first player is random by default (the rulebook says the youngest).
- BW-5: the reserve is face up, so a reinforcing player chooses which reserve character; pass
  only when no move, reinforcement or attack is possible.
- BW-7: a winning defender pushes the attacker symmetrically (opposite to the attack).
- BW-8: a player with no character on the board and none in reserve loses; a player whose
  characters fill all 12 cells wins; at the cap more characters left (board + reserve) wins,
  equal is a draw.

Gaps decided here:

- D-1 (C-2): every setup pick is asked, even the last placement when one character is left
  (team_size 3). Selection is skipped only for a faction whose size equals `team_size`
  (its whole faction is the team, in file order); placement is always asked.
- D-2 (BW-4): order of setup: maximal selects, predacon selects, maximal places columns 0, 1,
  2 of its first row (row 0), predacon places its (row 3). Picked characters not placed form
  the reserve. Neither side sees the other's picks or placement until play starts.
- D-3 (BW-2): a characters file holds integers 0..99; names are unique across both factions;
  the observation bound of the numbers is the largest number in the file.
- D-4 (BW-6): a Mutate flips before the number is read and stays flipped (also when the battle
  is called off) until the next Mutate; a character entering from the reserve is beast side up.
  Card bonuses: Basic and Mutate +0, Energon +1, Secret Weapon +2.
- D-5 (BW-7): the loser moves exactly one space; a capture or fall removes it from the game
  (not to the reserve); a capture happens whoever holds the space behind, and that character
  is not affected. The winner then always moves into the loser's space, so the winner's own
  space is left empty.
- D-6 (BW-5): reinforcing goes to an empty first-row space; only if all three first-row
  spaces hold enemy characters may it go to any empty space (a first row blocked by your own
  characters allows no reinforcement). Attacks and moves are orthogonal only.
- D-7 (BW-3): when a card must be drawn from an empty deck (also for the defender, after the
  attacker drew the last card) the discard pile is shuffled into a new deck; the two cards of
  a battle are discarded when it ends, within the same step.
- D-8 (BW-8): a turn is one action after setup, a pass included. The end rules are checked
  after every action in this order: the enemy has nothing left (you win), you have nothing
  left (an attacker that loses its last character loses at once), you fill the board, then the
  cap; so an elimination on the cap's turn wins outright.
- D-9 (BW-4): the first player is drawn at reset and is public from the start (at a real
  table the youngest player is known before the draft).
- D-10 (C-8): random draws happen in this order: the first player (if random), the deck
  shuffle (unless fixed), maximal's random team, predacon's (with `team_selection="random"`:
  a random permutation of the faction, the first `team_size` are the team, its first three go
  to columns 0, 1, 2); later, each reshuffle of the discards.
- D-11 (options): a fixed `battle_deck` may hold any valid cards, 2..72 of them (two are drawn
  per battle; 72 bounds the observation). `teams` take ids or names and must cover both
  players (C-6).
- D-12 (observation): the last battle shown is the most recent one of the game with its age
  in turns; the state vector (not the observation) shows the next two battle cards.
- D-13 (BW-5): pass never comes up in play: a player with a character on the board has an
  empty or enemy-held neighbour unless its side fills the board (a win), and a player with
  none on the board can reinforce (an enemy holding all 12 cells has already won). Pass stays
  in the action space as envs/rulebooks/beast_wars_v0.md lays it out, legal exactly when nothing
  else is.
- Rendering shows the public board, reserves and last battle; during setup only the side to
  act (a human's seat), since the other side's picks are hidden.

## At the table (text play, the web table)

With `env.record_events()` the game logs what the table saw (`envs/beast_wars/story.py` lists
the kinds): every pick and placement (the other side sees only that one was made), the teams
as play starts, every move, reinforcement and battle (cards, numbers, result, counts left),
reshuffles and the end. `describe_event` words them for a seat; `table_view(seat)` is what
that seat sees as a dict and `table_svg` draws it (`envs/beast_wars/view.py`).

## Limits

Character files come from other people, so sizes are bounded before anything is built
(`InvalidConfigError` names the value and the limit): a characters file has at most 100
rows, 64 columns and 256 characters a cell (file at most 4 MiB,
`cardarena.envs.core.tables`), and `max_turns` is at most 1,000,000.

## Version History

- v0: initial release.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from ..core import (
    GameAECEnv,
    GameWrapper,
    ObservationLayout,
    Piece,
    env_metadata,
    wrap,
)
from ..core.events import Event
from ..core.validation import CAP_REASON, MAX_TURN_CAP, bounded_config, check_at_most
from . import story
from . import view as table
from .render import render_table
from .rules import (
    AGENTS,
    CARD_BONUS,
    CARD_TYPES,
    COLOURS,
    DECK_SIZE,
    FACES,
    MAX_FACTION,
    NO_PIECE,
    NOT_IN_TEAM,
    NUM_CELLS,
    NUM_PIECES,
    OUTCOMES,
    OVER,
    PHASE_NAMES,
    PLAY,
    REMOVED,
    RESERVE,
    Battle,
    BeastWarsGame,
    BeastWarsState,
    characters_table,
    make_game,
)

SEATS = len(AGENTS)
#: The one line a new player reads first (envs/rulebooks/beast_wars_v0.md's "How to win").
HOW_TO_WIN = (
    "Remove every enemy character from the board and the reserve by pushing them off the "
    "board or into an occupied space; at the turn cap the side with more characters left wins."
)
CARD_SHAPE = (len(COLOURS), len(CARD_TYPES))
#: Phases an observation shows (``OVER`` shows as all zeros).
SHOWN_PHASES = PHASE_NAMES[:OVER]
#: Runs of pieces the encoders fill with one assignment each.
SPANS = {"cards": ("deck", "discards"), "battle": ("battle_attacker", "battle_outcome")}
_ROLES = "attacker's, defender's"
NUMBERS_DOC = "per cell: red, blue, gold, green number (current face)"


def _battle_pieces(game: BeastWarsGame, who: str) -> list[Piece]:
    """The last battle (BW-6/BW-7), which resolves within one step; ``who`` names the rows of
    ``battle_attacker``."""
    top = game.characters.max_number + max(CARD_BONUS)
    return [
        Piece("battle_attacker", SEATS, 1, f"last battle: one-hot who attacked ({who})"),
        Piece("battle_cells", (2, NUM_CELLS), 1, f"last battle: {_ROLES} cell (one-hot)"),
        Piece("battle_characters", (2, MAX_FACTION), 1, f"last battle: {_ROLES} character id"),
        Piece("battle_cards", (2, *CARD_SHAPE), 1, f"last battle: {_ROLES} card (colour x type)"),
        Piece("battle_numbers", 2, top, f"last battle: {_ROLES} number (+ bonus)"),
        Piece("battle_winner", 2, 1, "last battle: one-hot winner attacker, defender (0s: tie)"),
        Piece("battle_outcome", len(OUTCOMES), 1, "last battle: one-hot " + ", ".join(OUTCOMES)),
        Piece("battle_age", 1, game.max_turns, "turns played since the last battle (0: just now)"),
    ]


def _cell_pieces(game: BeastWarsGame, owners: str) -> list[Piece]:
    """The board, cell by cell (absolute cells ``row * 3 + col``); ``owners`` names the
    columns of ``cell_owner`` after "empty"."""
    top = game.characters.max_number
    return [
        Piece("cell_owner", (NUM_CELLS, 3), 1, f"per cell: one-hot empty, {owners}"),
        Piece("cell_character", (NUM_CELLS, MAX_FACTION), 1, "per cell: one-hot character id"),
        Piece("cell_face", (NUM_CELLS, len(FACES)), 1, "per cell: one-hot beast, robot"),
        Piece("cell_numbers", (NUM_CELLS, len(COLOURS)), top, NUMBERS_DOC),
    ]


def _side_pieces(game: BeastWarsGame, first: str) -> list[Piece]:
    """Who starts, per-side character tables and the battle deck."""
    return [
        Piece("first_player", SEATS, 1, f"who plays first: one-hot {first}"),
        Piece("reserve", (SEATS, MAX_FACTION), 1, "per side, per id: in the reserve (or picked)"),
        Piece("removed", (SEATS, MAX_FACTION), 1, "per side, per id: captured or fell off"),
        Piece("deck", CARD_SHAPE, DECK_SIZE, "battle deck: cards left per colour x type"),
        Piece("discards", CARD_SHAPE, DECK_SIZE, "discard pile: cards per colour x type"),
    ]


def _clock_pieces(game: BeastWarsGame) -> list[Piece]:
    return [
        Piece("turn", 1, game.max_turns, "turns played since setup (BW-8 cap)"),
        Piece("phase", len(SHOWN_PHASES), 1, "one-hot: " + ", ".join(SHOWN_PHASES)),
    ]


def observation_layout(game: BeastWarsGame) -> ObservationLayout:
    """The observation pieces of ``game``; the docstring table above is generated from this.

    Cells are absolute (``row * 3 + col``, the same for both players); per-side pieces (first
    dimension 2) hold your row first, then the enemy's.
    """
    return ObservationLayout(
        [
            *_cell_pieces(game, "yours, enemy's"),
            Piece("side", SEATS, 1, "your side: one-hot maximal, predacon"),
            *_side_pieces(game, "you, enemy"),
            *_battle_pieces(game, "you, enemy"),
            *_clock_pieces(game),
        ],
        spans=SPANS,
    )


def state_layout(game: BeastWarsGame) -> ObservationLayout:
    """The full-information state (``env.state()``): sides in absolute seat order, maximal's
    row first, the hidden setup picks and the next two battle cards included."""
    return ObservationLayout(
        [
            *_cell_pieces(game, "maximal, predacon"),
            *_side_pieces(game, "maximal, predacon"),
            Piece("deck_top", (2, *CARD_SHAPE), 1, "the next two cards to draw, top first"),
            *_battle_pieces(game, "maximal, predacon"),
            *_clock_pieces(game),
            Piece("to_act", SEATS, 1, "one-hot: the seat to act (0s once the game is over)"),
        ],
        spans=SPANS,
    )


#: Per observer, the ``cell_owner`` row (columns empty, yours, enemy's) of each owner value:
#: index 0 / 1 for a seat's character, -1 (the last row) for an empty cell. Observer 0's
#: table is also the state's (columns empty, maximal, predacon).
_OWNER_ROWS = (
    np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]], dtype=np.float32),
    np.array([[0, 0, 1], [0, 1, 0], [1, 0, 0]], dtype=np.float32),
)
#: Piece id -> one-hot character id within its faction (``NO_PIECE``: zeros).
_CHARACTER_ROWS = np.vstack([np.tile(np.eye(MAX_FACTION), (2, 1)), np.zeros(MAX_FACTION)])
#: Face (beast, robot, ``NO_FACE``) -> one-hot.
_FACE_ROWS = np.array([[1, 0], [0, 1], [0, 0]], dtype=np.float32)
#: Per observer: piece ids reordered so that its own faction's come first.
_SIDE_ORDER = (
    np.arange(NUM_PIECES),
    np.roll(np.arange(NUM_PIECES), -MAX_FACTION),
)
_CARD_ROWS = np.eye(len(COLOURS) * len(CARD_TYPES), dtype=np.float32).reshape(-1, *CARD_SHAPE)


def check_limits(config: dict[str, Any]) -> None:
    """Refuse a turn cap past the limit (team sizes are bounded by the rules)."""
    check_at_most(config.get("max_turns"), "max_turns", MAX_TURN_CAP, CAP_REASON)


class raw_env(GameAECEnv):
    """Beast Wars Transformers Mutating Card Game; raises ``IllegalActionError`` on an illegal
    action."""

    metadata = env_metadata("beast_wars_v0", SEATS, SEATS)
    build_game = staticmethod(bounded_config(make_game, check_limits))
    build_layout = staticmethod(observation_layout)
    build_state_layout = staticmethod(state_layout)
    file_config_keys = {"characters": characters_table}
    #: Representative configurations; the conformance suite runs every generic check on each.
    example_configs = (
        {},
        {"team_selection": "random"},
        # small teams and a short cap: selection, placement and the BW-8 cap all happen often
        {"team_size": 3, "max_turns": 12, "first_player": "predacon"},
    )

    def __init__(self, render_mode: str | None = None, **config: Any) -> None:
        super().__init__(render_mode, **config)
        game: BeastWarsGame = self.game  # type: ignore[assignment]
        numbers = game.characters.numbers.astype(np.float32)
        #: ``[piece, face]`` -> the four numbers; ``NO_FACE`` and ``NO_PIECE`` give zeros.
        self._numbers = np.zeros((NUM_PIECES + 1, len(FACES) + 1, len(COLOURS)), np.float32)
        self._numbers[:, : len(FACES)] = numbers
        #: (battle, observer or -1 for the state) -> its encoded ``battle`` span.
        self._battle_cache: dict[tuple[Battle, int], np.ndarray] = {}
        self._scratch = {"observation": self.layout.buffer(), "state": self.state_layout.buffer()}

    def _cells(
        self, views: dict[str, np.ndarray], owner_rows: np.ndarray, owner: Any, board: Any,
        faces: np.ndarray,
    ) -> None:  # fmt: skip
        views["cell_owner"][:] = owner_rows[owner]
        views["cell_character"][:] = _CHARACTER_ROWS[board]
        face = faces[board]
        views["cell_face"][:] = _FACE_ROWS[face]
        views["cell_numbers"][:] = self._numbers[board, face]

    def _battle(self, views: dict[str, np.ndarray], state: BeastWarsState, seat: int) -> None:
        """The last battle's pieces; ``seat`` < 0 writes the absolute (state) version. A
        battle never changes, so its encoding is computed once per observer."""
        battle = state.last_battle
        if battle is None:
            return
        views["battle_age"][0] = state.turn - battle.turn
        key = (battle, seat)
        block = self._battle_cache.get(key)
        if block is None:
            piece = self._scratch["state" if seat < 0 else "observation"].views
            piece["battle"][:] = 0.0
            attacker = battle.attacker_seat if seat < 0 else int(battle.attacker_seat != seat)
            piece["battle_attacker"][attacker] = 1.0
            piece["battle_cells"][[0, 1], list(battle.cells)] = 1.0
            piece["battle_characters"][:] = _CHARACTER_ROWS[list(battle.pieces)]
            piece["battle_cards"][:] = _CARD_ROWS[list(battle.cards)]
            piece["battle_numbers"][:] = battle.numbers
            if battle.winner >= 0:
                piece["battle_winner"][battle.winner] = 1.0
            piece["battle_outcome"][battle.outcome] = 1.0
            block = piece["battle"].copy()
            if len(self._battle_cache) > 4096:
                self._battle_cache.clear()
            self._battle_cache[key] = block
        views["battle"][:] = block

    def encode(  # type: ignore[override]
        self, state: BeastWarsState, seat: int, views: dict[str, np.ndarray]
    ) -> None:
        owner, board = state.owner[:NUM_CELLS], state.board
        location = state.location[_SIDE_ORDER[seat]]
        if state.phase < PLAY:  # setup: the enemy's picks and placement stay hidden (BW-4)
            hidden = owner == 1 - seat
            owner = np.where(hidden, -1, owner)
            board = np.where(hidden, NO_PIECE, board)
            location[MAX_FACTION:] = NOT_IN_TEAM
        self._cells(views, _OWNER_ROWS[seat], owner, board, state.faces)
        views["side"][seat] = 1.0
        views["first_player"][int(state.first_player != seat)] = 1.0
        views["reserve"][:] = (location == RESERVE).reshape(SEATS, MAX_FACTION)
        views["removed"][:] = (location == REMOVED).reshape(SEATS, MAX_FACTION)
        views["cards"][:] = state.card_counts.ravel()
        self._battle(views, state, seat)
        views["turn"][0] = state.turn
        if state.phase != OVER:
            views["phase"][state.phase] = 1.0

    def encode_state(  # type: ignore[override]
        self, state: BeastWarsState, views: dict[str, np.ndarray]
    ) -> None:
        self._cells(views, _OWNER_ROWS[0], state.owner[:NUM_CELLS], state.board, state.faces)
        views["first_player"][state.first_player] = 1.0
        location = state.location.reshape(SEATS, MAX_FACTION)
        views["reserve"][:] = location == RESERVE
        views["removed"][:] = location == REMOVED
        views["cards"][:] = state.card_counts.ravel()
        top = state.deck_top(2)
        if top:
            views["deck_top"][: len(top)] = _CARD_ROWS[top]
        self._battle(views, state, -1)
        views["turn"][0] = state.turn
        if state.phase != OVER:
            views["phase"][state.phase] = 1.0
            views["to_act"][state.to_act] = 1.0

    def render_text(self, state: BeastWarsState) -> str:  # type: ignore[override]
        return render_table(state)

    # --- presentation for people (cardarena.agents.table) ------------------------------------
    how_to_win: ClassVar[str] = HOW_TO_WIN

    def describe_event(self, event: Event, viewer: int) -> str:
        return story.describe(event, viewer, tuple(self.possible_agents))

    def table_view(self, seat: int) -> dict[str, Any]:
        return table.table_view(self.game_state, seat)  # type: ignore[arg-type]

    def table_svg(self, view: dict[str, Any], actions: Sequence[tuple[int, str]]) -> str:
        return table.table_svg(view, actions)


def env(**kwargs: Any) -> GameWrapper:
    """``raw_env`` with the standard wrapper (illegal action: -1 and game over)."""
    return wrap(raw_env(**kwargs))
