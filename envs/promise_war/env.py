"""
# War! for Promise TCG decks

| Import             | `from cardarena.envs import promise_war_v0`               |
|--------------------|-----------------------------------------------------------|
| Actions            | Discrete                                                  |
| Parallel API       | No                                                        |
| Manual Control     | No                                                        |
| Agents             | `agents= ['player_0', 'player_1']` (2 to 6 players)       |
| Agents             | 2                                                         |
| Action Shape       | Discrete(11)                                              |
| Action Values      | 0 to 10 (the power of the card to play)                   |
| Observation Shape  | (84,)                                                     |
| Observation Values | [0, high] per piece, float32                              |

Each player brings their own deck of cards with a power level. Every player who can play
picks a card face down; all reveal together and the sole highest power takes every revealed
card into its victory pile. Tied players break the tie by playing one card face up and the
rest of their hand face down; the winner of the tiebreak takes the whole pot. The choice that
matters is which card to spend: bluff low and keep strength for tiebreaks, or press. Most
cards won wins. Rules: RULES.md section 2 (PW-1..PW-7). Shape values are for the default
config (2 players, `max_power=10`); see below for the general formula.

## Arguments

`promise_war_v0.env(num_players=2, decks=None, max_power=10, max_tricks=500, render_mode=None)`

- `num_players`: 2 to 6.
- `decks`: one list of powers for every player, or one list per player (each player brings
  their own deck). Powers are integers `0..max_power`; a deck must not be empty.
  Default: 4 copies of each power `1..max_power` (40 cards at `max_power=10`).
- `max_power`: highest power a card may have; the action space is `Discrete(max_power + 1)`.
- `max_tricks`: cap; after that many tricks (a trick includes its tiebreakers) the game is
  truncated (C-5) unless a rule ended it on the same step.
- `render_mode`: `None`, `"ansi"` (render returns the text) or `"human"` (prints it).

`reset(seed=None, options=None)`: `options={"decks": [[powers, top first], ...]}` fixes every
player's draw pile in that order (one list per player, at least one card each). [decided]
Fixed decks may hold any valid powers but must fit the observation bounds set by the
configured decks (no deck longer than the longest configured one, no more cards in all).

## Observation Space

A dict `{"observation": float32 vector, "action_mask": int8 vector}`. The observation holds
only what that player could see at the table. Per-seat pieces are ordered from the observing
player: you first, then the following seats in seat order. With `n` players and
`P = max_power + 1` powers the vector has `P*(n + 4) + 7n + 4` entries, laid out as below
(index ranges for the default 2 players, `P = 11`: 84 entries):

| Index | Piece | Meaning |
|-------|-------|---------|
| 0-10 | hand | your hand: count of cards of each power 0..max_power |
| 11-21 | own_pick | your face-down pick waiting for the reveal (one-hot power) |
| 22-32 | own_deck | your draw pile: count of each power (order unknown) |
| 33-34 | hand_sizes | cards in hand, per seat (you first, then the next seats) |
| 35-36 | deck_sizes | cards in draw pile, per seat |
| 37-38 | victory_sizes | cards in victory pile (the score), per seat |
| 39-40 | sitting_out | 1 if that seat sits out for good (PW-6) |
| 41-42 | in_contest | 1 if that seat plays in the current trick or tiebreak |
| 43-44 | has_picked | 1 if that seat has already picked, face down |
| 45-66 | last_revealed | per seat, one-hot power of the card it revealed last |
| 67-77 | pot_face_up | revealed cards in the pot: count of each power |
| 78-79 | pot_face_down | face-down tiebreak cards in the pot, per seat |
| 80-81 | phase | one-hot: trick, tiebreak |
| 82 | you_in_tiebreak | 1 if you are one of the tied players |
| 83 | tricks_played | tricks completed so far (PW-7 cap) |

Never observed: other players' hands, their picks before the reveal, any draw pile's order,
other players' deck compositions, the powers of face-down pot cards.

### Legal Actions Mask

`action_mask[a] == 1` iff the agent is to act and holds a card of power `a`. All zeros for an
agent who is not to act (C-1).

## Action Space

`Discrete(max_power + 1)`: action `a` plays a card of power `a` from hand: face down in a
trick, face up in a tiebreak (the rest of the hand then goes face down into the pot).

## Rewards

0 until the game ends. Then the sole top scorer (most cards in victory pile) gets +1, players
tied for the top score get 0, everyone else -1. At the cap (truncation) everyone gets 0.
With `env()` an illegal action ends the game with -1 for the offender (others 0); `raw_env`
raises `IllegalActionError`.

## Decided rules (RULES.md [decided] and gaps)

- PW-1: default deck 40 cards, powers 1..10, 4 copies each (generally 4 x `1..max_power`).
- PW-3 / C-3: picks are asked one player after another from player_0; a player who has picked
  is shown only as "has picked" until all reveal together. Who is asked: every player in the
  trick, even with a single card in hand (C-2).
- PW-4: tied players each first draw back up to 3 (in seat order), then those with cards pick
  one card face up (hidden until all tied players picked) and the rest of their hand goes face
  down into the pot at the reveal (2 cards in hand: 1 down, 1 up; 1 card: 0 down). A tied
  player with no card after drawing drops out; one left takes the pot without playing; none
  left: the pot is discarded. A new tie repeats this among the newly tied players only.
- PW-6: a player who starts a trick with an empty hand (and so an empty draw pile) sits out for
  good; the game ends when fewer than two players can play. Cards still in the last player's
  hand or pile do not score.
- PW-7: the cap counts completed tricks; the end rule is checked first, so a game that ends by
  PW-6 on the cap's step terminates rather than truncates.
- Rendering shows the public table plus the hand of the player to act (the seat a human at the
  terminal occupies).

## Version History

- v0: initial release.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..core import GameAECEnv, ObservationLayout, Piece, env_metadata, wrap
from .render import render_table
from .rules import HAND_SIZE, TIEBREAK, PromiseWarGame, PromiseWarState, make_game


def observation_layout(game: PromiseWarGame) -> ObservationLayout:
    """The observation pieces of ``game``; the docstring table above is generated from this."""
    n, powers = game.num_players, game.max_power + 1
    total, deck = game.total_cards, game.largest_deck
    pieces = [
        ("hand", powers, HAND_SIZE, "your hand: count of cards of each power 0..max_power"),
        ("own_pick", powers, 1, "your face-down pick waiting for the reveal (one-hot power)"),
        ("own_deck", powers, deck, "your draw pile: count of each power (order unknown)"),
        ("hand_sizes", n, HAND_SIZE, "cards in hand, per seat (you first, then the next seats)"),
        ("deck_sizes", n, deck, "cards in draw pile, per seat"),
        ("victory_sizes", n, total, "cards in victory pile (the score), per seat"),
        ("sitting_out", n, 1, "1 if that seat sits out for good (PW-6)"),
        ("in_contest", n, 1, "1 if that seat plays in the current trick or tiebreak"),
        ("has_picked", n, 1, "1 if that seat has already picked, face down"),
        ("last_revealed", n * powers, 1, "per seat, one-hot power of the card it revealed last"),
        ("pot_face_up", powers, total, "revealed cards in the pot: count of each power"),
        ("pot_face_down", n, total, "face-down tiebreak cards in the pot, per seat"),
        ("phase", 2, 1, "one-hot: trick, tiebreak"),
        ("you_in_tiebreak", 1, 1, "1 if you are one of the tied players"),
        ("tricks_played", 1, game.max_tricks, "tricks completed so far (PW-7 cap)"),
    ]
    return ObservationLayout([Piece(*piece) for piece in pieces])


class raw_env(GameAECEnv):
    """War! for Promise TCG decks; raises ``IllegalActionError`` on an illegal action."""

    metadata = env_metadata("promise_war_v0")
    build_game = staticmethod(make_game)
    build_layout = staticmethod(observation_layout)

    def __init__(self, render_mode: str | None = None, **config: Any) -> None:
        super().__init__(render_mode, **config)
        layout = self.layout
        self._powers = self.num_actions
        self._start = {piece.name: layout[piece.name].start for piece in layout.pieces}
        # hand_sizes .. has_picked are six consecutive per-seat blocks, filled in one go.
        if self._start["has_picked"] != self._start["hand_sizes"] + 5 * len(self.possible_agents):
            raise RuntimeError("observation layout changed: per-seat blocks are not contiguous")

    def encode(self, state: PromiseWarState, seat: int) -> np.ndarray:  # type: ignore[override]
        start, powers, n = self._start, self._powers, state.num_players
        obs = self.layout.zeros()
        obs[0:powers] = state.hands[seat]
        if state.picks[seat] >= 0:
            obs[start["own_pick"] + state.picks[seat]] = 1.0
        obs[start["own_deck"] : start["own_deck"] + powers] = state.deck_counts[seat]
        live = not (state.terminal or state.truncated)
        contest = [live and other in state.contenders for other in range(n)]
        per_seat: list[int | bool] = []
        for values in (state.hand_sizes, state.deck_sizes, state.victory_sizes,
                       state.sitting_out, contest, state.has_picked):  # fmt: skip
            per_seat.extend(values[seat:])
            per_seat.extend(values[:seat])
        obs[start["hand_sizes"] : start["hand_sizes"] + 6 * n] = per_seat
        revealed = start["last_revealed"]
        for rel in range(n):
            card = state.last_revealed[(seat + rel) % n]
            if card >= 0:
                obs[revealed + rel * powers + card] = 1.0
        obs[start["pot_face_up"] : start["pot_face_up"] + powers] = state.pot_face_up
        down = state.pot_face_down_by_player
        obs[start["pot_face_down"] : start["pot_face_down"] + n] = down[seat:] + down[:seat]
        obs[start["phase"] + state.phase] = 1.0
        if live and state.phase == TIEBREAK and seat in state.contenders:
            obs[start["you_in_tiebreak"]] = 1.0
        obs[start["tricks_played"]] = state.tricks_played
        return obs

    def render_text(self, state: PromiseWarState) -> str:  # type: ignore[override]
        return render_table(state)


def env(**kwargs: Any):
    """``raw_env`` with PettingZoo's standard wrappers (illegal action: -1 and game over)."""
    return wrap(raw_env(**kwargs))
