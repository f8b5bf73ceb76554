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

Iron Man and War Machine each own a deck of Battle Cards. Every round each draws 7, then
**commits** three cards face down, one for each of three battles. In a battle the committed
cards flip; whoever is losing must play another card face up or **concede** (saving cards for
later battles and rounds); special cards double a total (UPGRADE), knock out an opposing card
(ENERGY SHIELD) or hit hard (FINAL ATTACK). Winning at least two battles and more than the
opponent moves your pawn up the Victory Cards; the first pawn on the last card wins. Rules:
RULES.md section 1 (IM-1..IM-14). In the beginner variant each battle is decided by the two
flipped cards alone, so the commit is the only choice.

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
- `render_mode`: `None`, `"ansi"` or `"human"`.

`reset(seed=None, options=None)`: `options={"decks": {"iron_man": [...], "war_machine": [...]},
"hands": {"iron_man": [...], "war_machine": [...]}}` (card kind names, top first; either key
may be given, each must cover both players). `hands` are round 1's hands; without `decks` the
deck is then the configured composition minus that hand, shuffled. Special cards in options of
the beginner variant are an error.

## Observation Space

A dict `{"observation": float32 vector, "action_mask": int8 vector}`. The observation holds
only what that player could see at the table. Per-seat pieces are ordered you first, then the
opponent. Index ranges for the default config (55-card decks):

| Index | Piece | Meaning |
|-------|-------|---------|
| 0-7 | hand | your hand: count of each kind (kind order above) |
| 8-15 | own_deck | your deck: count of each kind (order unknown) |
| 16-31 | battle_cards | per seat: cards in the current battle, count per kind |
| 32-47 | table | per seat: cards kept on the table from battles won |
| 48-63 | discards | per seat: discard pile (face up), count per kind |
| 64-87 | own_committed | your card committed to battle 1, 2, 3: one-hot kind each |
| 88-135 | flipped | per seat, per battle: one-hot kind flipped at battle start |
| 136-183 | previous_flipped | last round, per seat, per battle: one-hot kind flipped |
| 184-199 | last_reveal | per seat: one-hot kind of the latest cards revealed together |
| 200-208 | battle_results | per battle: one-hot won by you, won by opponent, draw |
| 209-217 | previous_results | last round, per battle: won by you, by opponent, draw |
| 218-223 | face_down | per seat, per battle: a committed card still lies face down |
| 224-225 | has_pending | per seat: has picked in the current simultaneous play |
| 226-227 | battle_totals | per seat: total in the current battle (IM-5) |
| 228-229 | battle_card_counts | per seat: cards in the current battle |
| 230-231 | battles_won | per seat: battles won this round |
| 232-233 | hand_sizes | per seat: cards in hand |
| 234-235 | deck_sizes | per seat: cards in deck |
| 236-237 | discard_sizes | per seat: cards in discard pile |
| 238-239 | pawns | per seat: Victory Card the pawn stands on |
| 240 | round | current round (1-based) |
| 241-248 | own_pending | your face-down pick in the current simultaneous play |
| 249-251 | battle | one-hot: battle 1, 2, 3 being fought (or committed for) |
| 252-255 | decision | one-hot: commit, play_or_concede, standoff_play, shield_target |
| 256-258 | commit_slot | one-hot: the battle the current commit is for |

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

Who is asked follows RULES.md C-2: a player is asked whenever a rule gives them a choice, even
with a single legal action. The only automatic steps are the rules' own: an empty-handed
losing player concedes (IM-6), an ENERGY SHIELD with no target does nothing (IM-8).

## Rewards

0 until the game ends; then +1 for the player whose pawn reaches the last Victory Card, -1 for
the other. Truncation at `max_rounds`: 0 each. With `env()` an illegal action ends the game
with -1 for the offender (0 for the other); `raw_env` raises `IllegalActionError`.

## Decided rules (RULES.md [decided] and gaps)

- Deck: 55 cards as above (from Clash of the Lightsabers); both decks identical.
- IM-1: pawns start on Victory Card 1 (4 steps win with 5 cards). Beginner: no special cards.
- IM-2: no hand limit; deck and discard both empty: drawing stops.
- IM-3: fewer than 3 cards: commit what you have to the earliest battles.
- IM-8: FINAL ATTACK is worth 6, no other effect; ENERGY SHIELD as in the rulebook example.
- IM-9: after two specials cancel the battle continues with a simultaneous play (IM-7).
- IM-11: "majority (or at least 2)" read strictly: 1 win + 2 draws moves nobody.
- IM-13: beginner battles are decided by the two flipped cards alone.
- D-1 (IM-2): the discard pile is shuffled into a new deck as soon as the last card is drawn
  (if it holds cards); a draw that finds the deck empty reshuffles first.
- D-2 (options): with `hands`, nobody draws in round 1; from round 2 everyone draws 7.
- D-3 (IM-3, C-2): committing is three decisions per player (battles 1, 2, 3), iron_man's
  three first; a player with an empty hand is not asked.
- D-4 (IM-3/4): all three battles are fought even with no committed card on a side (total 0,
  0 cards); two empty sides are a standoff.
- D-5 (IM-4/8): a special card flipped against no card takes effect and, as a card, leads
  0 (1 card) to 0 (0 cards).
- D-6 (IM-8/9): in a simultaneous reveal both cards enter the battle; two specials cancel
  (so a shield revealed with an UPGRADE or a shield does nothing); otherwise a revealed
  ENERGY SHIELD resolves first (it may hit the card revealed with it), then the standing.
- D-7 (IM-8): a shield may hit any opposing card, special cards included; the doubling holds
  while at least one UPGRADE of that player remains; the shield itself stays and counts.
- D-8 (IM-7/8): a shield against an empty opposing side does nothing and asks nothing.
- D-9 (IM-7): the players of a simultaneous play are fixed when it starts (all with cards).
- D-10 (IM-9): specials cancelling in a standoff play leave the standoff; another play follows.
- D-11 (IM-10): a battle's winner keeps its cards on the table until round end; the loser's,
  shielded and cancelled cards go to their owner's discard pile at once. Discard piles are
  face up (observed); deck order is secret from everyone.
- D-12 (IM-11/12): pawns move only at round end, so all three battles are always fought; a
  pawn stops on the last Victory Card.
- D-13 (IM-12, C-5): the cap is checked at round end.
- D-14 (IM-13): beginner rounds resolve in the step of the last commit; the outcome is
  observed through `previous_results` / `previous_flipped`.
- D-15 (config): `deck` must hold at least one card; `victory_cards` >= 2, `max_rounds` >= 1.
- D-16 (options): each player must own at least one card; `hands` without `decks` may not
  hold more of a kind than the configured deck.
- D-17 (options, C-6): fixed hands and decks may hold any valid cards, but no more cards in
  all than the configured deck, since that sizes the observation bounds; configure a larger
  `deck` to play bigger fixed decks.
- Rendering shows the public table plus the hand of the player to act (a human's seat).

## Version History

- v0: initial release.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import GameAECEnv, ObservationLayout, Piece, env_metadata, wrap
from .render import render_table
from .rules import (
    COMMIT,
    DRAW,
    NUM_KINDS,
    UNDECIDED,
    IronManWarGame,
    IronManWarState,
    make_game,
)

# Row -1 (NO_CARD / no result) of these tables is all zeros, so indexing encodes "none".
_KIND_ONE_HOT = np.vstack(
    [np.eye(NUM_KINDS, dtype=np.float32), np.zeros((1, NUM_KINDS), np.float32)]
)
_RESULT_ONE_HOT = np.vstack([np.eye(3, dtype=np.float32), np.zeros((1, 3), np.float32)])


def _result_rows(seat: int) -> np.ndarray:
    """One-hot row per battle result + 1: you won, opponent won, draw; zeros if undecided."""
    columns = np.full(4, 3)
    columns[seat + 1], columns[1 - seat + 1], columns[DRAW + 1] = 0, 1, 2
    columns[UNDECIDED + 1] = 3
    return _RESULT_ONE_HOT[columns]


def _gather(rows_per_block: list[int], width: int, seat: int) -> np.ndarray:
    """Indices into a flattened stack of (2, width) tables: per table, the observer's row
    only (1) or the observer's row then the opponent's (2)."""
    index: list[int] = []
    for block, rows in enumerate(rows_per_block):
        for row in (seat,) if rows == 1 else (seat, 1 - seat):
            start = (2 * block + row) * width
            index.extend(range(start, start + width))
    return np.array(index)


def _result_vectors(seat: int) -> dict[tuple[int, ...], np.ndarray]:
    """Every possible round of three battle results -> its 9 one-hot floats for ``seat``."""
    rows = _result_rows(seat)
    values = (UNDECIDED, 0, 1, DRAW)
    return {
        (a, b, c): np.concatenate([rows[a + 1], rows[b + 1], rows[c + 1]])
        for a in values
        for b in values
        for c in values
    }


# Stacks, in encode's order: hands, deck_counts, battle_cards, table, discards (width 8) /
# committed, flipped, previous_flipped (width 3).
_COUNT_GATHER = tuple(_gather([1, 1, 2, 2, 2], NUM_KINDS, seat) for seat in (0, 1))
_KIND_GATHER = tuple(_gather([1, 2, 2], 3, seat) for seat in (0, 1))
_RESULT_VECTORS = (_result_vectors(0), _result_vectors(1))


def observation_layout(game: IronManWarGame) -> ObservationLayout:
    """The observation pieces of ``game``; the docstring table above is generated from this.

    Pieces are grouped by how they are encoded (card counts, one-hot kinds, battle results,
    scalars, one-hot flags) so that ``raw_env.encode`` fills each group with one assignment.
    """
    cards = game.deck_size
    pieces = [
        ("hand", 8, cards, "your hand: count of each kind (kind order above)"),
        ("own_deck", 8, cards, "your deck: count of each kind (order unknown)"),
        ("battle_cards", 16, cards, "per seat: cards in the current battle, count per kind"),
        ("table", 16, cards, "per seat: cards kept on the table from battles won"),
        ("discards", 16, cards, "per seat: discard pile (face up), count per kind"),
        ("own_committed", 24, 1, "your card committed to battle 1, 2, 3: one-hot kind each"),
        ("flipped", 48, 1, "per seat, per battle: one-hot kind flipped at battle start"),
        ("previous_flipped", 48, 1, "last round, per seat, per battle: one-hot kind flipped"),
        ("last_reveal", 16, 1, "per seat: one-hot kind of the latest cards revealed together"),
        ("battle_results", 9, 1, "per battle: one-hot won by you, won by opponent, draw"),
        ("previous_results", 9, 1, "last round, per battle: won by you, by opponent, draw"),
        ("face_down", 6, 1, "per seat, per battle: a committed card still lies face down"),
        ("has_pending", 2, 1, "per seat: has picked in the current simultaneous play"),
        ("battle_totals", 2, 12 * cards, "per seat: total in the current battle (IM-5)"),
        ("battle_card_counts", 2, cards, "per seat: cards in the current battle"),
        ("battles_won", 2, 3, "per seat: battles won this round"),
        ("hand_sizes", 2, cards, "per seat: cards in hand"),
        ("deck_sizes", 2, cards, "per seat: cards in deck"),
        ("discard_sizes", 2, cards, "per seat: cards in discard pile"),
        ("pawns", 2, game.victory_cards, "per seat: Victory Card the pawn stands on"),
        ("round", 1, game.max_rounds, "current round (1-based)"),
        ("own_pending", 8, 1, "your face-down pick in the current simultaneous play"),
        ("battle", 3, 1, "one-hot: battle 1, 2, 3 being fought (or committed for)"),
        ("decision", 4, 1, "one-hot: commit, play_or_concede, standoff_play, shield_target"),
        ("commit_slot", 3, 1, "one-hot: the battle the current commit is for"),
    ]
    return ObservationLayout([Piece(*piece) for piece in pieces])


def _span(layout: ObservationLayout, first: str, last: str) -> slice:
    return slice(layout[first].start, layout[last].stop)


class raw_env(GameAECEnv):
    """Iron Man 2 Game of War; raises ``IllegalActionError`` on an illegal action."""

    metadata = env_metadata("ironman_war_v0")
    build_game = staticmethod(make_game)
    build_layout = staticmethod(observation_layout)

    def __init__(self, render_mode: str | None = None, **config: Any) -> None:
        super().__init__(render_mode, **config)
        layout = self.layout
        self._counts = _span(layout, "hand", "discards")
        self._kinds = _span(layout, "own_committed", "previous_flipped")
        self._last_reveal = layout["last_reveal"].start
        self._battle_results = layout["battle_results"]
        self._previous_results = layout["previous_results"]
        self._scalars = _span(layout, "face_down", "round")
        self._own_pending = layout["own_pending"].start
        self._battle = layout["battle"].start
        self._decision = layout["decision"].start
        self._commit_slot = layout["commit_slot"].start

    def encode(self, state: IronManWarState, seat: int) -> np.ndarray:  # type: ignore[override]
        other = 1 - seat
        obs = self.layout.zeros()
        counts = np.concatenate(
            (state.hands, state.deck_counts, state.battle_cards, state.table, state.discards)
        )
        obs[self._counts] = counts.ravel()[_COUNT_GATHER[seat]]
        kinds = np.concatenate((state.committed, state.flipped, state.previous_flipped))
        obs[self._kinds] = _KIND_ONE_HOT[kinds.ravel()[_KIND_GATHER[seat]]].ravel()
        for rel, kind in enumerate((state.last_reveal[seat], state.last_reveal[other])):
            if kind >= 0:
                obs[self._last_reveal + rel * NUM_KINDS + kind] = 1.0
        results = _RESULT_VECTORS[seat]
        obs[self._battle_results] = results[tuple(state.battle_results)]
        obs[self._previous_results] = results[tuple(state.previous_results)]
        face_down = state.face_down.tolist()
        discards = state.discards.tolist()
        scalars = face_down[seat] + face_down[other]
        for values in (
            state.has_pending,
            state.battle_totals,
            state.battle_card_counts,
            state.battles_won,
            state.hand_sizes,
            state.deck_sizes,
            (sum(discards[0]), sum(discards[1])),
            state.pawns,
        ):
            scalars.append(values[seat])
            scalars.append(values[other])
        scalars.append(state.round)
        obs[self._scalars] = scalars
        if state.has_pending[seat]:
            obs[self._own_pending + state.pending_play[seat]] = 1.0
        obs[self._battle + state.battle] = 1.0
        if state.decision < 4:
            obs[self._decision + state.decision] = 1.0
        if state.decision == COMMIT:
            obs[self._commit_slot + state.commit_slot] = 1.0
        return obs

    def render_text(self, state: IronManWarState) -> str:  # type: ignore[override]
        return render_table(state)


def env(**kwargs: Any):
    """``raw_env`` with PettingZoo's standard wrappers (illegal action: -1 and game over)."""
    return wrap(raw_env(**kwargs))
