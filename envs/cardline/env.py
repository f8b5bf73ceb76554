"""
# Cardline (Marvel edition by default, or your own deck)

| Import             | `from cardarena.envs import cardline_v0`                  |
|--------------------|-----------------------------------------------------------|
| Actions            | Discrete                                                  |
| Parallel API       | No                                                        |
| Manual Control     | No                                                        |
| Agents             | `agents= ['player_0', 'player_1']` (2 to 8 players)       |
| Agents             | 2                                                         |
| Action Shape       | Discrete(444)                                             |
| Action Values      | 0 to 443 (`slot * (deck_size + 1) + gap`)                 |
| Observation Shape  | (1680,)                                                   |
| Observation Values | [low, high] per piece (table below), float32              |
| State Shape        | (1464,)                                                   |

Every card names a character (or an event, or anything) and carries numbers on its hidden
side: for the Marvel deck a `strength` (kg lifted), an `intelligence` and a `combat_power`.
One characteristic is chosen per game. Players hold cards name side up, so everybody sees
every hand's names but nobody sees the values; a line of cards lies value side up. On your
turn you place one card of your hand into a gap of the line: if its value fits between its
neighbours (`left <= value <= right`, the ends are open) it stays, otherwise it is turned
over, goes to the box and you draw a penalty card. At the end of a round, a player who
alone emptied their hand wins; if several did, they play on alone. Rules:
envs/rulebooks/cardline_v0.md (CL-1..CL-7; `cardarena rules cardline_v0` prints them). Shape
values are for the default config (2 players, 110-card Marvel deck, `hand_size=4`); the
formulas below give the general sizes.

**The Marvel deck's values are invented.** The real game's card values are not published;
`envs/cardline/marvel.csv` holds 110 characters (68 heroes, 42 villains) with plausible
made-up numbers (Hulk lifts more than Hawkeye): strength in kg on a log scale from 50 kg to
100 t, intelligence on an IQ-like scale (80..250), combat power in 1..100, with many equal
values. Its rows are in alphabetical order of names.

## Arguments

`cardline_v0.env(num_players=2, hand_size=4, characteristic=None, deck=None,
first_player=None, max_turns=None, render_mode=None)`

- `num_players`: 2 to 8.
- `hand_size`: cards dealt to each player (>= 1). It is also the number of hand slots in
  the action space: no rule ever lets a hand grow beyond it.
- `characteristic`: the deck column compared this game, e.g. `"strength"`; `None` draws one
  uniformly per game from the env's RNG (the rulebook has the players agree).
- `deck`: `None` for the built-in Marvel deck, or your own: a path to a `.csv` or `.json`
  file, or a list of dicts. Columns: `name` (unique), `colour` (any text; the Marvel deck
  uses `hero` / `villain`), then one numeric column per characteristic, any names (at least
  one; values may be negative or fractional, e.g. years BC as `-753`). A card's id is its
  row (0-based). CSV lines starting with `#` are comments. A malformed cell raises
  `InvalidConfigError` naming the row, the column and the value; so does a deck smaller
  than `num_players * hand_size + 1` (naming its size and that minimum) and a
  `characteristic` the deck lacks. **Warning:** hands are kept sorted by card id, i.e. by
  row, so a deck file sorted by a characteristic leaks the value order of the cards in hand
  through the action and observation layout. Sort your rows by name (as the Marvel deck is)
  or shuffle them; a user deck whose rows are in the order of any characteristic gives a
  `UserWarning` when the env is created.
- `first_player`: the seat (int, or agent name) that starts every round; `None` draws one
  uniformly per game from the env's RNG.
- `max_turns`: cap on placements; `None` is 10 x the deck size (1100 for Marvel). Then C-5:
  truncation, unless a rule ended the game on that step.
- `render_mode`: `None` (`render()` warns and returns None), `"ansi"` (`render()` returns the
  text) or `"human"` (prints it after `reset()` and after every move, and on `render()`).
- `normalize_observation`: False (raw counts) or True (the observation Box is `[0, 1]` float32,
  scaled by `ObservationScaler`, for clients that do not scale; `state()` stays raw).

Any other keyword raises `InvalidConfigError` naming it and the allowed keys.

`reset(seed=None, options=None)` accepts these option keys (each may be given alone; what
is not fixed is dealt from the shuffled rest of the deck):

- `hands`: one list of card names per player, a list in seat order or a dict keyed by agent
  name covering every player; 1..`hand_size` names each.
- `initial_card`: the name of the card that starts the line.
- `draw_pile`: card names, top first: the pile after dealing and after the initial card.
  When it is given, cards named nowhere are first used for hands and an initial card not
  fixed, and the rest are out of the game; without it they are shuffled into the pile.
- `characteristic`: as the config key, for this game.
- `first_player`: as the config key (a seat or an agent name), for this game.

An unknown name, a card named twice (anywhere in the options), a hand of the wrong size, or
options that leave too few cards to deal raise `InvalidConfigError` naming the key and the
value; unknown option keys are ignored with a `UserWarning` (C-6).

## Observation Space

A dict `{"observation": float32 vector, "action_mask": int8 vector}`. The observation holds
only what that player could see at the table. Per-seat pieces (first dimension `n`) are
ordered from the observer: you first, then the following seats in seat order.

Values are **rank-scaled** per characteristic: a card's scaled value is the rank of its
value among the deck's distinct values of that characteristic, mapped onto `[0, 1]`
(`a <= b` iff `scaled(a) <= scaled(b)`, ties stay equal), so kilograms, IQ points and years
BC all land in one range. Open ends of the line are `-1` (no left neighbour) and `2` (no
right neighbour). The pieces line up with the actions: `hand[s]` is the card of slot `s`,
and `gap_lower[g]` / `gap_upper[g]` bound gap `g`, so action `s * (deck_size + 1) + g` is
right iff that card's value lies within the bounds of gap `g` ("which gap brackets my card"
is one comparison per gap). With `n` players, hand size `h`, a deck of `D` cards and `C`
characteristics the vector has `C + (h + 2n + 4)D + h + 3(D + 1) + 8n + 4` entries, laid
out as below (index ranges for the default config; `layout.view(obs)` splits a vector into
these named pieces in their shapes):

| Index | Piece | Shape | Values | Meaning |
|-------|-------|-------|--------|---------|
| 0-2 | characteristic | 3 | 0..1 | one-hot: the characteristic this game compares |
| 3-442 | hand | 4x110 | 0..1 | your hand: one-hot card id per slot (sorted by id) |
| 443-446 | hand_known_value | 4 | -1..1 | per slot: scaled value if revealed earlier, else -1 |
| 447-557 | gap_open | 111 | 0..1 | 1 for gaps 0..len(line) (gap g is left of line[g]) |
| 558-668 | gap_lower | 111 | -1..1 | scaled value of the card left of gap g; -1: none (gap 0) |
| 669-779 | gap_upper | 111 | 0..2 | scaled value of the card right of gap g; 2: none |
| 780-999 | hands | 2x110 | 0..1 | per seat (you first): 1 for each card id in its hand |
| 1000-1219 | last_card | 2x110 | 0..1 | per seat: one-hot card id of its last placement |
| 1220-1223 | last_result | 2x2 | 0..1 | per seat, last placement one-hot: right, wrong |
| 1224-1225 | hand_sizes | 2 | 0..4 | cards in hand, per seat (you first) |
| 1226-1227 | eliminated | 2 | 0..1 | 1 if that seat is eliminated (CL-5) |
| 1228-1229 | finished | 2 | 0..1 | 1 if that seat placed its last card right this round |
| 1230-1231 | to_act | 2 | 0..1 | 1 for the seat to act |
| 1232-1233 | first_player | 2 | 0..1 | 1 for the seat that starts every round |
| 1234-1235 | last_value | 2 | -1..1 | scaled value of that seat's last placed card, -1 if none |
| 1236-1345 | pile_top | 110 | 0..1 | one-hot card id on top of the draw pile (name side up) |
| 1346-1455 | in_line | 110 | 0..1 | 1 for each card id in the line |
| 1456-1565 | in_box | 110 | 0..1 | 1 for each card id in the box |
| 1566-1675 | known_value | 110 | -1..1 | per card id: scaled value if ever revealed, else -1 |
| 1676 | pile_size | 1 | 0..110 | cards in the draw pile |
| 1677 | box_size | 1 | 0..110 | cards in the box |
| 1678 | line_length | 1 | 0..110 | cards in the line |
| 1679 | turns | 1 | 0..1100 | turns played (cap: max_turns) |

Never observed: the value of any card that has not been revealed (cards in hands, the draw
pile and eliminated players' hands never show their values; a card placed, right or wrong,
is revealed for good and `known_value` keeps it, as a player may remember it), and the
order of the draw pile below its top card. Names are public (CL-3): `hands` shows every
player's cards by id, and `pile_top` the name side of the top of the pile. Card ids stand
for names; the deck is fixed for an env, so a policy can learn what players know about the
cards.

### Legal Actions Mask

`action_mask[slot * (deck_size + 1) + gap] == 1` iff the agent is to act, `slot` holds a card
(`slot < len(hand)`) and `gap <= len(line)`. All zeros for an agent who is not to act (C-1).
`env.unwrapped.action_mask(agent)` gives it without encoding an observation.

## Action Space

`Discrete(hand_size * (deck_size + 1))`: action `slot * (deck_size + 1) + gap` places the card
in hand slot `slot` (the hand is kept sorted by card id) into gap `gap` of the line: gap 0 is
left of the whole line, gap `g` lies between `line[g-1]` and `line[g]`, gap `len(line)` is
right of the whole line.

## State

`env.state()` (in `env.state_space`) is the full-information vector for centralised critics
and debugging: every card's value (hands included), the order of the draw pile and the cards
out of the game, in absolute seat order. `C + (2n + 6)D + nh + 3(D + 1) + 8n + 4` entries;
for the default config:

| Index | Piece | Shape | Values | Meaning |
|-------|-------|-------|--------|---------|
| 0-2 | characteristic | 3 | 0..1 | one-hot: the characteristic this game compares |
| 3-112 | values | 110 | 0..1 | scaled value of every card id |
| 113-120 | hand_values | 2x4 | -1..1 | per seat and slot: scaled value, -1 if empty |
| 121-231 | gap_open | 111 | 0..1 | 1 for gaps 0..len(line) (gap g is left of line[g]) |
| 232-342 | gap_lower | 111 | -1..1 | scaled value of the card left of gap g; -1: none (gap 0) |
| 343-453 | gap_upper | 111 | 0..2 | scaled value of the card right of gap g; 2: none |
| 454-673 | hands | 2x110 | 0..1 | per seat: 1 for each card id in its hand |
| 674-893 | last_card | 2x110 | 0..1 | per seat: one-hot card id of its last placement |
| 894-897 | last_result | 2x2 | 0..1 | per seat, last placement one-hot: right, wrong |
| 898-899 | hand_sizes | 2 | 0..4 | cards in hand, per seat |
| 900-901 | eliminated | 2 | 0..1 | 1 if that seat is eliminated (CL-5) |
| 902-903 | finished | 2 | 0..1 | 1 if that seat placed its last card right this round |
| 904-905 | to_act | 2 | 0..1 | 1 for the seat to act |
| 906-907 | first_player | 2 | 0..1 | 1 for the seat that starts every round |
| 908-909 | last_value | 2 | -1..1 | scaled value of that seat's last placed card, -1 if none |
| 910-1019 | pile_order | 110 | 0..110 | per card id: place in the draw pile (1 = top), 0 if not |
| 1020-1129 | in_line | 110 | 0..1 | 1 for each card id in the line |
| 1130-1239 | in_box | 110 | 0..1 | 1 for each card id in the box |
| 1240-1349 | out | 110 | 0..1 | 1 for each card id out of the game |
| 1350-1459 | revealed | 110 | 0..1 | 1 for each card id whose value has been shown |
| 1460 | pile_size | 1 | 0..110 | cards in the draw pile |
| 1461 | box_size | 1 | 0..110 | cards in the box |
| 1462 | line_length | 1 | 0..110 | cards in the line |
| 1463 | turns | 1 | 0..1100 | turns played (cap: max_turns) |

## Rewards

0 until the game ends (C-4). Then the winner gets +1; in a shared win (CL-6) every finisher
gets +1; everyone else, eliminated players included, -1. `metadata["zero_sum"]` is False:
a shared win gives +1 to several players, even with two. At the cap (truncation) everyone
gets 0. With `env()` an illegal action ends the game (terminated) with -1 for the offender
and 0 for everyone else; `raw_env` raises `IllegalActionError`.

## Infos

The six keys of `cardarena.envs.core.infos`, numbers and numeric arrays of one dtype and shape
from `reset()` on (strings and a dict before 0.2.0: CHANGELOG.md): `outcome`, `scores`,
`winners` (per seat), `steps`, `offender` (a seat index, -1 for nobody), `illegal_action`. Here
the outcome is `TERMINATED`, `TRUNCATED` or `ILLEGAL_ACTION`; `scores` counts the cards each
player placed right; `winners` marks each seat with reward +1; `steps` counts decisions.

## Decided rules (envs/rulebooks/cardline_v0.md [decided] and gaps)

- Players: 2 to 8, default 2.
- CL-1: the Marvel deck's 110 cards and values are invented (see above), rows in alphabetical
  order of names. A card's id is its row. `colour` is any text in user decks and plays no
  part in the rules. Every column after `name` and `colour` is a characteristic (numbers;
  negative and fractional values allowed).
- `characteristic=None` draws one per game from the RNG [decided: the rulebook has the
  players agree]; `first_player=None` draws the first player per game [decided: earlier
  seats place into a shorter line, so a fixed first seat has an edge]. The RNG always draws
  the characteristic, then the first player, then the shuffle, even when options or the
  config fix them, so fixing one leaves the deal unchanged.
- CL-2: cards are dealt `hand_size` each in seat order from the top of the shuffled pile,
  then the next card starts the line.
- CL-3: observations show every hand's names, the name of the pile's top card, the line's
  values and every placement (card, value, right or wrong), never a value in a hand. A
  revealed card's value stays in `known_value` (and `hand_known_value` when it comes back to
  a hand): the env gives a memoryless policy what a player may remember.
- CL-4: ends are open; a card equal to a neighbour fits on that side (`left <= value <=
  right`), so with equal values several gaps are right. A wrong card goes to the box first,
  then the penalty card is drawn, so with an empty pile the box (that card included) is
  shuffled into the pile and the player may draw the same card back.
- CL-5: the first player is the same for every round (if eliminated, the round starts at
  the next seat still in). A player who empties their hand plays no more that round. The
  round-end check comes after the last turn of the round: a finisher does not win before
  the players after them in that round have played. Several finishers draw their card in
  that round's turn order.
- CL-6: a draw from an empty pile first shuffles the box into a new pile (from the env's
  RNG); with both empty no card is drawn. The finisher count is checked after the
  eliminated players' hands went to the box.
- CL-7: turns (placements) count toward `max_turns`; the round-end rule is checked first, so
  a win on the cap's step is a termination.
- Scores (`info["scores"]`): cards each player placed right, a documented choice; rewards
  come from CL-7 alone.
- Reset options: `first_player` takes a seat or an agent name; a fixed hand is sorted by id
  like any hand; with `draw_pile` fixed, cards named nowhere deal the hands and initial card
  not fixed and the rest are out of the game.
- Hidden information (`resample_from_infostate`): what nobody sees is the order of the draw
  pile below its top card (and, when `draw_pile` left cards out, which never-revealed cards
  are out rather than in the pile); resampling reshuffles those and the box, and gives the
  copy a fresh RNG for future reshuffles. Hands are public by name, and values belong to
  card ids in the deck file, which players may know, so no value is redrawn; the seat does
  not matter.
- Rendering shows the line with its values and every hand by name only (values hidden; a
  card placed before and back in a hand shows the value everyone saw). At a person's table
  (`record_events()`) every placement is logged with its card, value, neighbours and result,
  and so are penalty draws, reshuffles, eliminations, round results and the end
  (`envs/cardline/story.py` lists the kinds); all are public.

## Limits

Files and configs come from other people, so sizes are bounded before anything is built
(`InvalidConfigError` names the value and the limit): a deck has at most 2,000 rows, 64
columns and 256 characters a cell (file at most 4 MiB, `cardarena.envs.core.tables`);
`hand_size` is at most 16 and `max_turns` at most 1,000,000. The largest env (8 players, a
2,000-card deck, hand size 16) takes about 12 MB; the observation, action mask and
observation/state bounds all grow with deck size x (hand size + players).

## Version History

- v0: initial release.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from ..core import GameAECEnv, ObservationLayout, Piece, env_metadata, wrap
from ..core.events import Event
from ..core.validation import CAP_REASON, MAX_TURN_CAP, bounded_config, check_at_most
from .render import render_table
from .rules import (
    IN_BOX,
    IN_HAND,
    IN_LINE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    OPEN_HIGH,
    OPEN_LOW,
    OUT_OF_GAME,
    CardlineGame,
    CardlineState,
    load_deck,
    make_game,
)
from .story import describe
from .view import table_svg, table_view

#: Per-seat scalar pieces, in layout order: the encoders fill them as one span.
SEAT_VALUES = ("hand_sizes", "eliminated", "finished", "to_act", "first_player", "last_value")


def _seat_pieces(game: CardlineGame, whose: str) -> list[Piece]:
    n, h, d = game.num_players, game.hand_size, game.deck_size
    return [
        Piece("last_card", (n, d), 1, "per seat: one-hot card id of its last placement"),
        Piece("last_result", (n, 2), 1, "per seat, last placement one-hot: right, wrong"),
        Piece("hand_sizes", n, h, f"cards in hand, per seat{whose}"),
        Piece("eliminated", n, 1, "1 if that seat is eliminated (CL-5)"),
        Piece("finished", n, 1, "1 if that seat placed its last card right this round"),
        Piece("to_act", n, 1, "1 for the seat to act"),
        Piece("first_player", n, 1, "1 for the seat that starts every round"),
        Piece(
            "last_value",
            n,
            1,
            "scaled value of that seat's last placed card, -1 if none",
            low=OPEN_LOW,
        ),
    ]


def _characteristic_piece(game: CardlineGame) -> Piece:
    doc = "one-hot: the characteristic this game compares"
    return Piece("characteristic", len(game.characteristics), 1, doc)


def _gap_pieces(game: CardlineGame) -> list[Piece]:
    g = game.num_gaps
    return [
        Piece("gap_open", g, 1, "1 for gaps 0..len(line) (gap g is left of line[g])"),
        Piece(
            "gap_lower",
            g,
            1,
            "scaled value of the card left of gap g; -1: none (gap 0)",
            low=OPEN_LOW,
        ),
        Piece("gap_upper", g, OPEN_HIGH, "scaled value of the card right of gap g; 2: none"),
    ]


def _count_pieces(game: CardlineGame) -> list[Piece]:
    d = game.deck_size
    return [
        Piece("pile_size", 1, d, "cards in the draw pile"),
        Piece("box_size", 1, d, "cards in the box"),
        Piece("line_length", 1, d, "cards in the line"),
        Piece("turns", 1, game.max_turns, "turns played (cap: max_turns)"),
    ]


def observation_layout(game: CardlineGame) -> ObservationLayout:
    """What one seat sees (the docstring table is generated from this). Per-seat pieces are
    ordered from the observer: you, then the following seats. ``hand`` rows are the action
    slots and the gap pieces are the action gaps, so ``hand[s]`` and the bounds of gap ``g``
    describe action ``s * (deck_size + 1) + g``."""
    n, h, d = game.num_players, game.hand_size, game.deck_size
    return ObservationLayout(
        [
            _characteristic_piece(game),
            Piece("hand", (h, d), 1, "your hand: one-hot card id per slot (sorted by id)"),
            Piece(
                "hand_known_value",
                h,
                1,
                "per slot: scaled value if revealed earlier, else -1",
                low=OPEN_LOW,
            ),
            *_gap_pieces(game),
            Piece("hands", (n, d), 1, "per seat (you first): 1 for each card id in its hand"),
            *_seat_pieces(game, " (you first)"),
            Piece("pile_top", d, 1, "one-hot card id on top of the draw pile (name side up)"),
            Piece("in_line", d, 1, "1 for each card id in the line"),
            Piece("in_box", d, 1, "1 for each card id in the box"),
            Piece(
                "known_value",
                d,
                1,
                "per card id: scaled value if ever revealed, else -1",
                low=OPEN_LOW,
            ),
            *_count_pieces(game),
        ],
        spans={"seat_values": (SEAT_VALUES[0], SEAT_VALUES[-1])},
    )


def state_layout(game: CardlineGame) -> ObservationLayout:
    """The full-information state (``env.state()``): absolute seat order, every value."""
    n, h, d = game.num_players, game.hand_size, game.deck_size
    return ObservationLayout(
        [
            _characteristic_piece(game),
            Piece("values", d, 1, "scaled value of every card id"),
            Piece(
                "hand_values",
                (n, h),
                1,
                "per seat and slot: scaled value, -1 if empty",
                low=OPEN_LOW,
            ),
            *_gap_pieces(game),
            Piece("hands", (n, d), 1, "per seat: 1 for each card id in its hand"),
            *_seat_pieces(game, ""),
            Piece("pile_order", d, d, "per card id: place in the draw pile (1 = top), 0 if not"),
            Piece("in_line", d, 1, "1 for each card id in the line"),
            Piece("in_box", d, 1, "1 for each card id in the box"),
            Piece("out", d, 1, "1 for each card id out of the game"),
            Piece("revealed", d, 1, "1 for each card id whose value has been shown"),
            *_count_pieces(game),
        ],
        spans={"seat_values": (SEAT_VALUES[0], SEAT_VALUES[-1])},
    )


#: Config limits (see "Limits" above): what sizes the observation and action arrays.
MAX_HAND_SIZE = 16


def check_limits(config: dict[str, Any]) -> None:
    """Refuse a hand size or turn cap too large to allocate for, before the deck is read."""
    check_at_most(config.get("hand_size"), "hand_size", MAX_HAND_SIZE)
    check_at_most(config.get("max_turns"), "max_turns", MAX_TURN_CAP, CAP_REASON)


class raw_env(GameAECEnv):
    """Cardline; raises ``IllegalActionError`` on an illegal action."""

    metadata = env_metadata("cardline_v0", MIN_PLAYERS, MAX_PLAYERS)
    build_game = staticmethod(bounded_config(make_game, check_limits))
    build_layout = staticmethod(observation_layout)
    build_state_layout = staticmethod(state_layout)
    file_config_keys = {"deck": load_deck}
    #: Representative configurations; the conformance suite runs every generic check on each.
    example_configs = (
        {},
        {"num_players": 8},
        {
            "num_players": 3,
            "hand_size": 2,
            "deck": [
                {"name": "Great Pyramid", "colour": "ancient", "year": -2560},
                {"name": "Rome founded", "colour": "ancient", "year": -753},
                {"name": "Marathon", "colour": "ancient", "year": -490},
                {"name": "Caesar crosses the Rubicon", "colour": "ancient", "year": -49},
                {"name": "Augustus", "colour": "ancient", "year": -27},
                {"name": "Colosseum", "colour": "ancient", "year": 80},
                {"name": "Hagia Sophia", "colour": "medieval", "year": 537},
                {"name": "Charlemagne crowned", "colour": "medieval", "year": 800},
                {"name": "Battle of Hastings", "colour": "medieval", "year": 1066.5},
                {"name": "Magna Carta", "colour": "medieval", "year": 1215},
                {"name": "Year zero", "colour": "none", "year": 0},
            ],
            "max_turns": 9,
        },
    )

    def __init__(self, render_mode: str | None = None, **config: Any) -> None:
        super().__init__(render_mode, **config)
        game: CardlineGame = self.game  # type: ignore[assignment]
        n = game.num_players
        #: Per observer: the seats in observation order, and their hand codes in ``where``.
        self._rotation = [[(seat + k) % n for k in range(n)] for seat in range(n)]
        self._hand_codes = [
            (IN_HAND + np.array(rows, dtype=np.int8))[:, None] for rows in self._rotation
        ]
        self._all_hand_codes = (IN_HAND + np.arange(n, dtype=np.int8))[:, None]
        self._slots = np.arange(game.hand_size)

    def _write_line(self, state: CardlineState, views: dict[str, np.ndarray]) -> None:
        length = len(state.line)
        views["gap_open"][: length + 1] = 1.0
        line_values = state.scaled[state.line]
        lower, upper = views["gap_lower"], views["gap_upper"]
        lower[0] = OPEN_LOW
        lower[1 : length + 1] = line_values
        upper[:length] = line_values
        upper[length] = OPEN_HIGH

    def _write_seats(
        self, state: CardlineState, rows: list[int], views: dict[str, np.ndarray]
    ) -> None:
        """Per-seat pieces in the order ``rows`` (absolute seats)."""
        last_card, last_result = views["last_card"], views["last_result"]
        last_value = []
        for index, seat in enumerate(rows):
            card = state.last_card[seat]
            if card >= 0:
                last_card[index, card] = 1.0
                last_result[index, 0 if state.last_right[seat] else 1] = 1.0
                last_value.append(float(state.scaled[card]))
            else:
                last_value.append(OPEN_LOW)
        hands, eliminated, finishers = state.hands, state.eliminated, state.finishers
        to_act, first = state.to_act, state.first_player
        views["seat_values"][:] = (
            [len(hands[seat]) for seat in rows]
            + [eliminated[seat] for seat in rows]
            + [seat in finishers for seat in rows]
            + [seat == to_act for seat in rows]
            + [seat == first for seat in rows]
            + last_value
        )

    def _write_counts(self, state: CardlineState, views: dict[str, np.ndarray]) -> None:
        views["characteristic"][state.characteristic] = 1.0
        views["pile_size"][0] = len(state.pile)
        views["box_size"][0] = len(state.box)
        views["line_length"][0] = len(state.line)
        views["turns"][0] = state.turns
        where = state.where
        views["in_line"][:] = where == IN_LINE
        views["in_box"][:] = where == IN_BOX

    def encode(  # type: ignore[override]
        self, state: CardlineState, seat: int, views: dict[str, np.ndarray]
    ) -> None:
        hand = state.hands[seat]
        size = len(hand)
        views["hand"][self._slots[:size], hand] = 1.0
        known = views["hand_known_value"]
        known[:] = OPEN_LOW
        known[:size] = state.known[hand]
        self._write_line(state, views)
        views["hands"][:] = state.where == self._hand_codes[seat]
        self._write_seats(state, self._rotation[seat], views)
        if state.pile:
            views["pile_top"][state.pile[-1]] = 1.0
        views["known_value"][:] = state.known
        self._write_counts(state, views)

    def encode_state(  # type: ignore[override]
        self, state: CardlineState, views: dict[str, np.ndarray]
    ) -> None:
        views["values"][:] = state.scaled
        hand_values = views["hand_values"]
        hand_values[:] = OPEN_LOW
        for seat, hand in enumerate(state.hands):
            hand_values[seat, : len(hand)] = state.scaled[hand]
        self._write_line(state, views)
        views["hands"][:] = state.where == self._all_hand_codes
        self._write_seats(state, self._rotation[0], views)
        pile = state.pile
        if pile:
            views["pile_order"][pile] = np.arange(len(pile), 0, -1)
        views["out"][:] = state.where == OUT_OF_GAME
        views["revealed"][:] = state.revealed
        self._write_counts(state, views)

    def render_text(self, state: CardlineState) -> str:  # type: ignore[override]
        return render_table(state)

    # --- presentation for people (text play, the web table) ---------------------------------
    how_to_win: ClassVar[str] = (
        "Empty your hand first: each turn put one card into the line where its hidden value "
        "fits between its neighbours (a wrong card goes to the box and you draw another), and "
        "be the only player in a round to place their last card right."
    )

    def describe_event(self, event: Event, viewer: int) -> str:
        return describe(event, viewer, tuple(self.possible_agents))

    def table_view(self, seat: int) -> dict[str, Any]:
        state: CardlineState = self.game_state  # type: ignore[assignment]
        return table_view(state, seat)

    def table_svg(self, view: dict[str, Any], actions: Sequence[tuple[int, str]]) -> str:
        return table_svg(view, actions)


def env(**kwargs: Any):
    """``raw_env`` with the standard wrapper (illegal action: -1 and game over)."""
    return wrap(raw_env(**kwargs))
