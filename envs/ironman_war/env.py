"""
# Iron Man 2 Game of War

| Import             | `from cardarena.envs import ironman_war_v0`               |
|--------------------|-----------------------------------------------------------|
| Actions            | Discrete                                                  |
| Parallel API       | No                                                        |
| Manual Control     | No                                                        |
| Agents             | `agents= ['iron_man', 'war_machine']`                     |
| Agents             | 2                                                         |
| Action Shape       | Discrete(17)                                              |
| Action Values      | 0 to 16                                                   |
| Observation Shape  | (259,)                                                    |
| Observation Values | [0, high] per piece, float32                              |
| State Shape        | (309,)                                                    |

Iron Man and War Machine each own a deck of Battle Cards. Every round each draws 7, then
**commits** three cards face down, one for each of three battles. In a battle the committed
cards flip; whoever is losing must play another card face up or **concede** (saving cards for
later battles and rounds); special cards double a total (UPGRADE), knock out an opposing card
(ENERGY SHIELD) or hit hard (FINAL ATTACK). Winning at least two battles and more than the
opponent moves your pawn up the Victory Cards; the first pawn on the last card wins. Rules:
envs/rulebooks/ironman_war_v0.md (IM-1..IM-14; `cardarena rules ironman_war_v0` prints it). In
the beginner variant each battle is decided by the two flipped cards alone, so the commit is
the only choice.

Card kinds, in the order used by actions and observations:
`0 attack_1, 1 attack_2, 2 attack_3, 3 attack_4, 4 attack_5, 5 upgrade, 6 energy_shield,
7 final_attack`.

## Arguments

`ironman_war_v0.env(variant="advanced", deck=None, victory_cards=5, max_rounds=50,
render_mode=None)`

- `variant`: `"advanced"` (default) or `"beginner"` (no special cards, IM-13).
- `deck`: dict kind name -> count, the complete composition of each player's deck (kinds not
  named count 0). Default: 10 x attack_1, 10 x attack_2, 10 x attack_3, 3 x attack_4,
  2 x attack_5, 8 x upgrade, 8 x energy_shield, 4 x final_attack (55 cards). The beginner
  variant drops special cards from it.
- `victory_cards`: length of the victory track (>= 2); pawns start on card 1.
- `max_rounds`: cap; after that many rounds without a winner the game is truncated (C-5).
- `render_mode`: `None` (`render()` warns and returns None), `"ansi"` (`render()` returns the
  text) or `"human"` (prints it after `reset()` and after every move, and on `render()`).
- `normalize_observation`: False (raw counts) or True (the observation Box is `[0, 1]` float32,
  scaled by `ObservationScaler`, for clients that do not scale; `state()` stays raw).

`reset(seed=None, options=None)`: `options={"decks": {"iron_man": [...], "war_machine": [...]},
"hands": {"iron_man": [...], "war_machine": [...]}}` (card kind names, top first; either key
may be given). Each key holds one list per player: a dict keyed by agent name covering both
players, or a list of two lists in seat order (`[iron_man's, war_machine's]`). `hands` are
round 1's hands; without `decks` the deck is then the configured composition minus that hand,
shuffled. Special cards in options of the beginner variant are an error. An unknown option key
is ignored with a `UserWarning` naming it (C-6); bad values raise `InvalidConfigError`.

## Observation Space

A dict `{"observation": float32 vector, "action_mask": int8 vector}`. The observation holds
only what that player could see at the table. Per-seat pieces (first dimension 2) hold your
row first, then the opponent's. Each piece is flattened in C order (e.g. `flipped[seat, battle,
kind]`); `env.unwrapped.layout.view(observation)` splits a vector into the named, shaped pieces.
Index ranges and bounds for the default config (55-card decks):

| Index | Piece | Shape | Values | Meaning |
|-------|-------|-------|--------|---------|
| 0-7 | hand | 8 | 0..55 | your hand: count of each kind (kind order above) |
| 8-15 | own_deck | 8 | 0..55 | your deck: count of each kind (order unknown) |
| 16-31 | battle_cards | 2x8 | 0..55 | per seat: cards in the current battle, count per kind |
| 32-47 | table | 2x8 | 0..55 | per seat: cards kept on the table from battles won |
| 48-63 | discards | 2x8 | 0..55 | per seat: discard pile (face up), count per kind |
| 64-87 | own_committed | 3x8 | 0..1 | your card committed to battle 1, 2, 3: one-hot kind each |
| 88-135 | flipped | 2x3x8 | 0..1 | per seat and battle: one-hot kind flipped at battle start |
| 136-183 | previous_flipped | 2x3x8 | 0..1 | per seat and battle: one-hot kind flipped last round |
| 184-199 | last_reveal | 2x8 | 0..1 | per seat: one-hot kind of the last cards revealed together |
| 200-208 | battle_results | 3x3 | 0..1 | per battle, one-hot: won by you, won by opponent, draw |
| 209-217 | previous_results | 3x3 | 0..1 | as battle_results, for the last round |
| 218-223 | face_down | 2x3 | 0..1 | per seat, per battle: a committed card still lies face down |
| 224-225 | has_pending | 2 | 0..1 | per seat: has picked in the current simultaneous play |
| 226-227 | battle_totals | 2 | 0..660 | per seat: total in the current battle (IM-5) |
| 228-229 | battle_card_counts | 2 | 0..55 | per seat: cards in the current battle |
| 230-231 | battles_won | 2 | 0..3 | per seat: battles won this round |
| 232-233 | hand_sizes | 2 | 0..55 | per seat: cards in hand |
| 234-235 | deck_sizes | 2 | 0..55 | per seat: cards in deck |
| 236-237 | discard_sizes | 2 | 0..55 | per seat: cards in discard pile |
| 238-239 | pawns | 2 | 0..5 | per seat: Victory Card the pawn stands on |
| 240 | round | 1 | 0..50 | current round (1-based) |
| 241-248 | own_pending | 8 | 0..1 | your face-down pick in the current simultaneous play |
| 249-251 | battle | 3 | 0..1 | one-hot: battle 1, 2, 3 being fought (or committed for) |
| 252-255 | decision | 4 | 0..1 | one-hot: commit, play_or_concede, standoff_play, shield_target |
| 256-258 | commit_slot | 3 | 0..1 | one-hot: the battle the current commit is for |

Never observed: the opponent's hand and deck, its committed cards before they flip, its
face-down pick in a simultaneous play before the reveal, and any deck's order.

### Legal Actions Mask

`action_mask[a] == 1` iff the agent is to act and `a` is legal now. All zeros for an agent
who is not to act (C-1).

## Action Space

`Discrete(17)`:

| Action | Meaning |
|--------|---------|
| 0-7 | a card of that kind from hand: commit it, play it face up, or pick it face down |
| 8 | concede the battle (only while losing, IM-6) |
| 9-16 | ENERGY SHIELD target: discard the opponent's card of kind `a - 9` in this battle |

Who is asked follows C-2 (envs/rulebooks/common.md): a player is asked whenever a rule gives them
a choice, even with a single legal action. The only automatic steps are the rules' own: an
empty-handed losing player concedes (IM-6), an ENERGY SHIELD with no target does nothing
(IM-8).

## State

`env.state()` returns the full-information state vector (`env.state_space`, a float32 Box) for
centralised critics and debugging: it shows every hidden card (hands, deck compositions,
face-down committed cards, pending picks), so agents must not see it. Per-seat pieces are in
absolute seat order, iron_man's row first. `env.unwrapped.state_layout.view(state)` splits it.
Index ranges for the default config:

| Index | Piece | Shape | Values | Meaning |
|-------|-------|-------|--------|---------|
| 0-15 | hands | 2x8 | 0..55 | per seat: hand, count of each kind |
| 16-31 | decks | 2x8 | 0..55 | per seat: deck, count of each kind (not the order) |
| 32-79 | committed | 2x3x8 | 0..1 | per seat, per battle: one-hot kind committed (even face down) |
| 80-95 | pending | 2x8 | 0..1 | per seat: one-hot face-down pick of the current simultaneous play |
| 96-111 | battle_cards | 2x8 | 0..55 | per seat: cards in the current battle, count per kind |
| 112-127 | table | 2x8 | 0..55 | per seat: cards kept on the table from battles won |
| 128-143 | discards | 2x8 | 0..55 | per seat: discard pile (face up), count per kind |
| 144-191 | flipped | 2x3x8 | 0..1 | per seat and battle: one-hot kind flipped at battle start |
| 192-239 | previous_flipped | 2x3x8 | 0..1 | per seat and battle: one-hot kind flipped last round |
| 240-255 | last_reveal | 2x8 | 0..1 | per seat: one-hot kind of the last cards revealed together |
| 256-264 | battle_results | 3x3 | 0..1 | per battle, one-hot: iron_man won, war_machine won, draw |
| 265-273 | previous_results | 3x3 | 0..1 | as battle_results, for the last round |
| 274-279 | face_down | 2x3 | 0..1 | per seat, per battle: a committed card still lies face down |
| 280-281 | has_pending | 2 | 0..1 | per seat: has picked in the current simultaneous play |
| 282-283 | battle_totals | 2 | 0..660 | per seat: total in the current battle (IM-5) |
| 284-285 | battle_card_counts | 2 | 0..55 | per seat: cards in the current battle |
| 286-287 | battles_won | 2 | 0..3 | per seat: battles won this round |
| 288-289 | hand_sizes | 2 | 0..55 | per seat: cards in hand |
| 290-291 | deck_sizes | 2 | 0..55 | per seat: cards in deck |
| 292-293 | discard_sizes | 2 | 0..55 | per seat: cards in discard pile |
| 294-295 | pawns | 2 | 0..5 | per seat: Victory Card the pawn stands on |
| 296 | round | 1 | 0..50 | current round (1-based) |
| 297-299 | battle | 3 | 0..1 | one-hot: battle 1, 2, 3 being fought (or committed for) |
| 300-303 | decision | 4 | 0..1 | one-hot: commit, play_or_concede, standoff_play, shield_target |
| 304-306 | commit_slot | 3 | 0..1 | one-hot: the battle the current commit is for |
| 307-308 | to_act | 2 | 0..1 | one-hot: the seat to act (all zeros once the game is over) |

Deck order is in neither vector.

## Rewards

0 until the game ends; then +1 for the player whose pawn reaches the last Victory Card, -1 for
the other (the game is zero-sum: `metadata["zero_sum"]` is True). Truncation at `max_rounds`:
0 each. With `env()` an illegal action ends the game (terminated, not truncated) with -1 for
the offender (0 for the other); `raw_env` raises `IllegalActionError`.

## Infos

The six keys of `cardarena.envs.core.infos`, numbers and numeric arrays of one dtype and shape
from `reset()` on (strings and a dict before 0.2.0: CHANGELOG.md): `outcome`, `scores`,
`winners` (per seat), `steps`, `offender` (a seat index, -1 for nobody), `illegal_action`. Here
`scores` is the Victory Card each pawn stands on, `winners` marks the seat whose pawn reached
the last Victory Card, if any, and `steps` counts actions; the outcome is `TERMINATED`,
`TRUNCATED` or `ILLEGAL_ACTION`.

## Decided rules ([decided] in envs/rulebooks/ironman_war_v0.md, and gaps)

First those the rules doc marks [decided]:

- Deck (envs/rulebooks/ironman_war_v0.md "Deck"): 55 cards per player, 10 x attack_1,
  10 x attack_2, 10 x attack_3, 3 x attack_4, 2 x attack_5, 8 x upgrade, 8 x energy_shield,
  4 x final_attack (from Clash of the Lightsabers); both decks identical.
- IM-1: the pawn starts on Victory Card 1, so with 5 Victory Cards 4 steps win. Beginner
  variant: no special cards; specials in `deck` are dropped, in reset options they raise.
- IM-2: no hand limit; when deck and discard pile are both empty, drawing stops.
- IM-3: a player with fewer than 3 cards commits what they have to the earliest battles; a
  battle with no committed card starts with none.
- IM-8: FINAL ATTACK is worth 6 and has no other effect; the first UPGRADE doubles its owner's
  total, cards played after it included (later ones add 0); ENERGY SHIELD works as in the
  rulebook's example (its owner picks an opposing card in this battle, which is discarded).
- IM-9: after two special cards cancel, the battle continues with a simultaneous play (IM-7).
- IM-11: "majority (or at least 2)" read strictly: 1 win + 2 draws moves nobody.
- IM-13: beginner battles are decided by the two flipped cards alone.

Further decisions taken where the rulebook is silent (code comments cite them by number):

- D-1 (IM-2, C-8) When a player draws the last card of their deck, a non-empty discard pile is
  shuffled into a new deck at once. A draw that finds the deck empty (it ran out while the
  discard pile was empty, and cards were discarded since) shuffles the discard pile first.
  Random draws happen in this order: iron_man's deck shuffle, war_machine's, then every
  reshuffle as it occurs (iron_man draws before war_machine at round start).
- D-2 (IM-2, options) With the `hands` reset option, round 1's hands are exactly those cards:
  nobody draws in round 1. From round 2 on everyone draws 7 as usual.
- D-3 (IM-3, C-2) Committing is three decisions per player (battle 1, 2, 3), each asked even
  when only one kind is legal. A player stops being asked once their hand is empty; a player
  with no cards at all is not asked. iron_man commits first; war_machine's observation must
  not use `committed[0]` (private), only `face_down` (public: which battles hold a card).
- D-4 (IM-3, IM-4) All three battles are always fought, even if a side has no committed card:
  an empty side has total 0 and 0 cards. Two empty sides are a standoff (IM-7).
- D-5 (IM-4, IM-8) A special card flipped against no card takes effect like any other
  (UPGRADE doubles a total of 0, ENERGY SHIELD finds no target: no effect, no step,
  FINAL ATTACK is 6). It counts as a card, so its owner leads 0 (1 card) to 0 (0 cards).
- D-6 (IM-8, IM-9) Order inside a simultaneous reveal (battle start or IM-7 play): both cards
  enter the battle; if both are special they cancel (so SHIELD + UPGRADE and SHIELD + SHIELD
  cancel, nobody shoots); otherwise a revealed ENERGY SHIELD resolves first (its owner may hit
  any opposing card in this battle, including the card revealed with it, even if that card just
  took the lead), and only then is the standing (IM-5) evaluated and the next actor chosen.
  UPGRADE and FINAL ATTACK are passive and need no timing.
- D-7 (IM-8) A shield may hit any opposing card in the battle, special cards included. The
  doubling holds while at least one UPGRADE of that player is in the battle, so hitting the
  only UPGRADE removes it. The shield itself stays in the battle and counts as a card.
  The target is named by kind (cards of one kind are interchangeable).
- D-8 (IM-7, IM-8) A shield played (face up or in a standoff) when the opponent has no card in
  the battle has no effect and asks nothing; as a card it still gives its owner the lead.
- D-9 (IM-7) The players of a simultaneous play are fixed when it starts: everyone with a card
  in hand. If only one plays, nothing can cancel (IM-9 needs two revealed special cards).
- D-10 (IM-9) Two special cards revealed in a standoff play cancel the same way; the standoff
  stands and another simultaneous play follows.
- D-11 (IM-10) A battle's winner keeps their cards on the table (public `table`) until round
  end; the loser's cards, cards hit by a shield and cancelled cards go to their owner's discard
  pile at once. Discard piles are face up (public); deck order is secret from everyone.
- D-12 (IM-11, IM-12) Pawns only move at round end, so the game can only end at round end and
  all three battles of a round are always fought. A pawn never goes past the last Victory Card
  (`pawns` is clamped to `victory_cards`).
- D-13 (IM-12, C-5) The cap is checked at round end: if round `max_rounds` ends without a
  winner the game is truncated.
- D-14 (IM-13, IM-10) Beginner: the whole round resolves in the step of the last commit. In
  each battle the loser's card (both cards on a draw) is discarded and the winner's stays on the
  table until round end (as IM-10), which is that same step, so afterwards every card is in a
  discard pile; the round's outcome is observed through `previous_results` and
  `previous_flipped`.
- D-15 (config) `deck` is the complete composition: kinds not named count 0. It must hold at
  least one card (after dropping specials in the beginner variant). `victory_cards` >= 2,
  `max_rounds` >= 1.
- D-16 (options) Each player must own at least one card (hand plus deck), so every round from
  round 2 on asks someone something (round 1 asks nothing only if `hands` gives both players
  an empty hand). `hands` without `decks` may not hold more of a kind than `deck` has.
- D-17 (options, C-6) Fixed hands and decks may hold any valid cards, but no more cards in all
  than the configured deck: the observation bounds (and so a trained network's input scaling)
  are fixed when the env is created. Configure a larger `deck` to play bigger fixed decks.
- Rendering shows the public table plus the hand and own face-down cards of the player to act
  (a human's seat); its header names the battle the current choice is for.

## People at the table

With `env.unwrapped.record_events()` the game logs what the table saw (`core.events`; the
kinds are listed in `envs/ironman_war/story.py`): every flip, card played, concession,
ENERGY SHIELD target, battle result (each side's cards under its owner), round result and pawn
move, also the battles that resolve without asking anyone; your own face-down commits and
picks are events only you see. `describe_event(event, seat)` is the line that seat reads,
`table_view(seat)` what it sees (JSON-able), `table_svg(view, actions)` the picture.

## Limits

Configs come from other people's files too, so sizes are bounded before anything is built
(`InvalidConfigError` names the value and the limit): at most 1,000 cards of each kind in
`deck` (a deck is shuffled as one array of its cards), and `victory_cards` and `max_rounds`
at most 1,000,000; a list in `options` holds at most 10,000 cards.

## Version History

- v0: initial release. Later additions that change no rule: observation pieces declared with
  shapes (same 259 values in the same order), the `State` vector, end-of-game infos, options
  as a list per seat or a dict per agent.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from ..core import GameAECEnv, GameWrapper, ObservationLayout, Piece, env_metadata, wrap
from ..core.events import Event
from ..core.untrusted import show
from ..core.validation import CAP_REASON, MAX_TURN_CAP, bounded_config, check_at_most
from .render import render_table
from .rules import (
    AGENTS,
    COMMIT,
    DECISION_NAMES,
    DRAW,
    GAME_OVER,
    NO_CARD,
    NUM_BATTLES,
    NUM_KINDS,
    UNDECIDED,
    IronManWarGame,
    IronManWarState,
    make_game,
)
from .story import describe
from .view import table_svg as draw_table
from .view import table_view as seat_view

SEATS = len(AGENTS)
#: The first line a new player reads (the rules doc's "How to win", word for word).
HOW_TO_WIN = (
    "Win at least 2 of a round's 3 battles, and more than your opponent, to move your pawn up "
    "a Victory Card (two for all 3); the first pawn to reach the last Victory Card wins."
)
#: The decisions an agent can be asked (``GAME_OVER`` is not one: it shows as all zeros).
ASKED = DECISION_NAMES[:GAME_OVER]


def _result_table(columns: dict[int, int]) -> dict[tuple[int, ...], np.ndarray]:
    """Every round of three battle results -> its (3, 3) one-hot rows, a result ``r`` going to
    column ``columns[r]`` (``UNDECIDED``: a row of zeros)."""
    rows = np.zeros((4, 3), dtype=np.float32)
    values = (UNDECIDED, 0, 1, DRAW)
    for value in values:
        if value in columns:
            rows[values.index(value), columns[value]] = 1.0
    return {
        (a, b, c): rows[[values.index(a), values.index(b), values.index(c)]]
        for a in values
        for b in values
        for c in values
    }


#: For each observer: results as won by you, won by the opponent, draw. Observer 0's table is
#: also the state's (won by iron_man, by war_machine, draw).
_RESULTS = tuple(_result_table({seat: 0, 1 - seat: 1, DRAW: 2}) for seat in range(2))
#: Row order of per-seat tables for each observer: itself, then the opponent.
_ROWS = (slice(None), slice(None, None, -1))


def viewer_pieces(game: IronManWarGame, omniscient: bool) -> list[Piece]:
    """Every piece one viewer gets, in vector order: a seat (``omniscient=False``: its own
    row first, its own hidden cards only) or the state (both seats in absolute order, iron_man
    first, every hidden card). One list, so the two views cannot drift apart."""
    cards = game.deck_size
    kinds, battles = NUM_KINDS, NUM_BATTLES
    won_by = "iron_man won, war_machine won" if omniscient else "won by you, won by opponent"
    if omniscient:
        hidden = [
            Piece("hands", (SEATS, kinds), cards, "per seat: hand, count of each kind"),
            Piece(
                "decks", (SEATS, kinds), cards, "per seat: deck, count of each kind (not the order)"
            ),
            Piece(
                "committed",
                (SEATS, battles, kinds),
                1,
                "per seat, per battle: one-hot kind committed (even face down)",
            ),
            Piece(
                "pending",
                (SEATS, kinds),
                1,
                "per seat: one-hot face-down pick of the current simultaneous play",
            ),
        ]
    else:
        hidden = [
            Piece("hand", kinds, cards, "your hand: count of each kind (kind order above)"),
            Piece("own_deck", kinds, cards, "your deck: count of each kind (order unknown)"),
        ]
    own_committed = [
        Piece(
            "own_committed",
            (battles, kinds),
            1,
            "your card committed to battle 1, 2, 3: one-hot kind each",
        )
    ]
    own_pending = [
        Piece("own_pending", kinds, 1, "your face-down pick in the current simultaneous play")
    ]
    to_act = [
        Piece("to_act", SEATS, 1, "one-hot: the seat to act (all zeros once the game is over)")
    ]
    return [
        *hidden,
        Piece(
            "battle_cards",
            (SEATS, kinds),
            cards,
            "per seat: cards in the current battle, count per kind",
        ),
        Piece("table", (SEATS, kinds), cards, "per seat: cards kept on the table from battles won"),
        Piece(
            "discards", (SEATS, kinds), cards, "per seat: discard pile (face up), count per kind"
        ),
        *([] if omniscient else own_committed),
        Piece(
            "flipped",
            (SEATS, battles, kinds),
            1,
            "per seat and battle: one-hot kind flipped at battle start",
        ),
        Piece(
            "previous_flipped",
            (SEATS, battles, kinds),
            1,
            "per seat and battle: one-hot kind flipped last round",
        ),
        Piece(
            "last_reveal",
            (SEATS, kinds),
            1,
            "per seat: one-hot kind of the last cards revealed together",
        ),
        Piece("battle_results", (battles, 3), 1, f"per battle, one-hot: {won_by}, draw"),
        Piece("previous_results", (battles, 3), 1, "as battle_results, for the last round"),
        Piece(
            "face_down",
            (SEATS, battles),
            1,
            "per seat, per battle: a committed card still lies face down",
        ),
        Piece("has_pending", SEATS, 1, "per seat: has picked in the current simultaneous play"),
        Piece("battle_totals", SEATS, 12 * cards, "per seat: total in the current battle (IM-5)"),
        Piece("battle_card_counts", SEATS, cards, "per seat: cards in the current battle"),
        Piece("battles_won", SEATS, battles, "per seat: battles won this round"),
        Piece("hand_sizes", SEATS, cards, "per seat: cards in hand"),
        Piece("deck_sizes", SEATS, cards, "per seat: cards in deck"),
        Piece("discard_sizes", SEATS, cards, "per seat: cards in discard pile"),
        Piece("pawns", SEATS, game.victory_cards, "per seat: Victory Card the pawn stands on"),
        Piece("round", 1, game.max_rounds, "current round (1-based)"),
        *([] if omniscient else own_pending),
        Piece("battle", battles, 1, "one-hot: battle 1, 2, 3 being fought (or committed for)"),
        Piece("decision", len(ASKED), 1, "one-hot: " + ", ".join(ASKED)),
        Piece("commit_slot", battles, 1, "one-hot: the battle the current commit is for"),
        *(to_act if omniscient else []),
    ]


def observation_layout(game: IronManWarGame) -> ObservationLayout:
    """A seat's observation (the docstring table above is generated from it): per-seat pieces
    (first dimension 2) hold the observer's row first, then the opponent's."""
    return ObservationLayout(viewer_pieces(game, omniscient=False))


def state_layout(game: IronManWarGame) -> ObservationLayout:
    """The full-information state (``env.state()``): both seats in absolute order, iron_man's
    row first, with every hidden card."""
    return ObservationLayout(viewer_pieces(game, omniscient=True))


def _one_hot_kinds(view: np.ndarray, kinds: list[int]) -> None:
    """Set ``view[i, kinds[i]]`` for every ``kinds[i]`` that is a card (not ``NO_CARD``)."""
    for row, kind in enumerate(kinds):
        if kind != NO_CARD:
            view[row, kind] = 1.0


def _encode_table(state: IronManWarState, first: int, views: dict[str, np.ndarray]) -> None:
    """The pieces every viewer shares, seat ``first``'s row first: the observer's, or 0 for
    the state (absolute order, whose results columns are then iron_man, war_machine)."""
    other = 1 - first
    rows = _ROWS[first]
    views["battle_cards"][:] = state.battle_cards[rows]
    views["table"][:] = state.table[rows]
    views["discards"][:] = state.discards[rows]
    flipped = state.flipped.tolist()
    view = views["flipped"]
    _one_hot_kinds(view[0], flipped[first])
    _one_hot_kinds(view[1], flipped[other])
    flipped = state.previous_flipped.tolist()
    view = views["previous_flipped"]
    _one_hot_kinds(view[0], flipped[first])
    _one_hot_kinds(view[1], flipped[other])
    last = state.last_reveal
    _one_hot_kinds(views["last_reveal"], [last[first], last[other]])
    results = _RESULTS[first]
    views["battle_results"][:] = results[tuple(state.battle_results)]
    views["previous_results"][:] = results[tuple(state.previous_results)]
    views["face_down"][:] = state.face_down[rows]
    discards = state.discards.tolist()
    for name, values in (
        ("has_pending", state.has_pending),
        ("battle_totals", state.battle_totals),
        ("battle_card_counts", state.battle_card_counts),
        ("battles_won", state.battles_won),
        ("hand_sizes", state.hand_sizes),
        ("deck_sizes", state.deck_sizes),
        ("discard_sizes", (sum(discards[0]), sum(discards[1]))),
        ("pawns", state.pawns),
    ):
        view = views[name]
        view[0] = values[first]
        view[1] = values[other]
    views["round"][0] = state.round
    views["battle"][state.battle] = 1.0
    if state.decision != GAME_OVER:
        views["decision"][state.decision] = 1.0
        if state.decision == COMMIT:
            views["commit_slot"][state.commit_slot] = 1.0


#: Config limits (see "Limits" above).
MAX_KIND_COUNT = 1_000


def check_limits(config: dict[str, Any]) -> None:
    """Refuse deck counts or caps too large to allocate for, before the game is built."""
    deck = config.get("deck")
    if isinstance(deck, dict):
        for kind, count in deck.items():
            check_at_most(count, f"deck[{show(kind)}]", MAX_KIND_COUNT)
    check_at_most(config.get("victory_cards"), "victory_cards", MAX_TURN_CAP, CAP_REASON)
    check_at_most(config.get("max_rounds"), "max_rounds", MAX_TURN_CAP, CAP_REASON)


class raw_env(GameAECEnv):
    """Iron Man 2 Game of War; raises ``IllegalActionError`` on an illegal action."""

    metadata = env_metadata("ironman_war_v0", SEATS, SEATS)
    build_game = staticmethod(bounded_config(make_game, check_limits))
    build_layout = staticmethod(observation_layout)
    build_state_layout = staticmethod(state_layout)
    #: Representative configurations; the conformance suite runs every generic check on each.
    example_configs = (
        {},
        {"variant": "beginner"},
        # small decks: empty hands, reshuffles and the round cap all happen often
        {"deck": {"attack_1": 3, "attack_5": 1, "upgrade": 2, "energy_shield": 2}, "max_rounds": 4},
    )

    def encode(  # type: ignore[override]
        self, state: IronManWarState, seat: int, views: dict[str, np.ndarray]
    ) -> None:
        views["hand"][:] = state.hands[seat]
        views["own_deck"][:] = state.deck_counts[seat]
        _one_hot_kinds(views["own_committed"], state.committed[seat].tolist())
        if state.has_pending[seat]:
            views["own_pending"][state.pending_play[seat]] = 1.0
        _encode_table(state, seat, views)

    def encode_state(  # type: ignore[override]
        self, state: IronManWarState, views: dict[str, np.ndarray]
    ) -> None:
        views["hands"][:] = state.hands
        views["decks"][:] = state.deck_counts
        committed = views["committed"]
        for seat in range(SEATS):
            _one_hot_kinds(committed[seat], state.committed[seat].tolist())
        picks = zip(state.pending_play, state.has_pending, strict=True)
        _one_hot_kinds(views["pending"], [kind if picked else NO_CARD for kind, picked in picks])
        _encode_table(state, 0, views)
        if state.decision != GAME_OVER:
            views["to_act"][state.current_player()] = 1.0

    def render_text(self, state: IronManWarState) -> str:  # type: ignore[override]
        return render_table(state)

    how_to_win: ClassVar[str] = HOW_TO_WIN

    def describe_event(self, event: Event, viewer: int) -> str:
        return describe(event, viewer, tuple(self.possible_agents))

    def table_view(self, seat: int) -> dict[str, Any]:
        return seat_view(self.game_state, seat)  # type: ignore[arg-type]

    def table_svg(self, view: dict[str, Any], actions: Sequence[tuple[int, str]]) -> str:
        return draw_table(view, actions)


def env(**kwargs: Any) -> GameWrapper:
    """``raw_env`` with the standard wrapper (illegal action: -1 and game over)."""
    return wrap(raw_env(**kwargs))
