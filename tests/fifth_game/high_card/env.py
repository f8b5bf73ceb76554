"""
# High Card (the test suite's fifth game)

| Import             | `from fifth_game import high_card_v0` (tests only)        |
|--------------------|-----------------------------------------------------------|
| Actions            | Discrete                                                  |
| Parallel API       | No                                                        |
| Manual Control     | No                                                        |
| Agents             | `agents= ['player_0', 'player_1']`                        |
| Agents             | 2                                                         |
| Action Shape       | Discrete(6)                                               |
| Action Values      | 0 to 5 (the rank to play, minus one)                      |
| Observation Shape  | (32,)                                                     |
| Observation Values | [low, high] per piece (table below), float32              |
| State Shape        | (50,)                                                     |

A deck of distinct ranks `1..num_cards` is shuffled and each player is dealt `hand_size`
cards; the rest is a face-down stock. Each round player_0, then player_1, picks a card face
down; both are revealed together and the higher rank wins both cards. Both then draw from the
stock. Most cards won wins. It exists to prove that a game registered with
`cardarena.envs.register_env` gets every generic test, and that a game needs no heuristic and
no shipped agent (docs/adding_a_game.md). Rules: `high_card/rules.py` (HC-1..HC-5). Shape
values are for the default config (`num_cards=6`, `hand_size=2`).

## Arguments

`high_card_v0.env(num_cards=6, hand_size=2, render_mode=None)`

- `num_cards`: 2 to 20 ranks, one card each; the action space is `Discrete(num_cards)`.
- `hand_size`: 1 to `num_cards // 2` cards dealt to each player.
- `render_mode`: `None`, `"ansi"` (render returns the text) or `"human"` (prints it).

Any other keyword raises `InvalidConfigError` naming it and the allowed keys.

`reset(seed=None, options=None)`: `options={"deck": [ranks, top first]}` fixes the deal: every
rank once; cards are dealt in turn from the top, player_0 first. Unknown option keys are ignored
with a `UserWarning` (C-6).

## Observation Space

A dict `{"observation": float32 vector, "action_mask": int8 vector}`. The observation holds
only what that player could see at the table. Per-seat pieces are ordered from the observing
player: you first, then the other seat. For the default config (`layout.view(obs)` splits a
vector into these named pieces in their shapes):

| Index | Piece | Shape | Values | Meaning |
|-------|-------|-------|--------|---------|
| 0-5 | hand | 6 | 0..1 | your hand: 1 for each rank you hold |
| 6-11 | own_pick | 6 | 0..1 | your face-down pick waiting for the reveal (one-hot) |
| 12-13 | has_picked | 2 | 0..1 | 1 if that seat has picked, face down (you first) |
| 14-15 | hand_sizes | 2 | 0..2 | cards in hand, per seat |
| 16-17 | won | 2 | 0..6 | cards won (the score), per seat |
| 18-29 | played | 2x6 | 0..1 | per seat, 1 for each rank it has shown face up |
| 30 | stock_size | 1 | 0..2 | cards left in the face-down stock |
| 31 | rounds_played | 1 | 0..3 | rounds revealed so far |

Never observed: the other player's hand and face-down pick, the stock.

### Legal Actions Mask

`action_mask[a] == 1` iff the agent is to act and holds rank `a + 1`. All zeros for an agent
who is not to act (C-1).

## Action Space

`Discrete(num_cards)`: action `a` picks the card of rank `a + 1` from hand, face down.

## State

`env.state()` (in `env.state_space`) is the full-information vector: both hands, both picks and
the stock's ranks (not its order), in absolute seat order. For the default config:

| Index | Piece | Shape | Values | Meaning |
|-------|-------|-------|--------|---------|
| 0-11 | hands | 2x6 | 0..1 | per seat: 1 for each rank in hand |
| 12-23 | picks | 2x6 | 0..1 | per seat: face-down pick not yet revealed (one-hot) |
| 24-29 | stock | 6 | 0..1 | 1 for each rank in the stock (not its order) |
| 30-31 | hand_sizes | 2 | 0..2 | cards in hand, per seat |
| 32-33 | won | 2 | 0..6 | cards won, per seat |
| 34-45 | played | 2x6 | 0..1 | per seat, 1 for each rank it has shown face up |
| 46 | stock_size | 1 | 0..2 | cards left in the stock |
| 47-48 | to_act | 2 | 0..1 | one-hot: the seat to act (none once the game is over) |
| 49 | rounds_played | 1 | 0..3 | rounds revealed so far |

## Rewards

0 until the game ends. Then more cards won: +1, fewer: -1, as many: 0 (HC-5). The game always
ends by its rules, so it is never truncated. With `env()` an illegal action ends the game
(terminated) with -1 for the offender and 0 for the other player; `raw_env` raises
`IllegalActionError`.

## Infos

Empty during the game. At the end every agent's info holds `outcome`, `scores` (cards won),
`winners` and `steps`, as in every cardarena env.

## Decided rules

- HC-2: picks are asked one after another from player_0 (C-3); player_1 sees only that
  player_0 has picked.
- HC-4: both draw only while the stock holds a card for each, so the hands stay equal and a
  last odd card stays in the stock, unseen, to the end.

## Version History

- v0: initial release.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardarena.envs.core import GameAECEnv, ObservationLayout, Piece, env_metadata, wrap

from .render import render_table
from .rules import NUM_PLAYERS, HighCardGame, HighCardState, make_game


def observation_layout(game: HighCardGame) -> ObservationLayout:
    """The observation pieces of ``game``; the docstring table above is generated from this.
    Per-seat pieces are ordered from the observer: you, then the other seat."""
    n, ranks = NUM_PLAYERS, game.num_cards
    return ObservationLayout(
        [
            Piece("hand", ranks, 1, "your hand: 1 for each rank you hold"),
            Piece("own_pick", ranks, 1, "your face-down pick waiting for the reveal (one-hot)"),
            Piece("has_picked", n, 1, "1 if that seat has picked, face down (you first)"),
            Piece("hand_sizes", n, game.hand_size, "cards in hand, per seat"),
            Piece("won", n, game.num_cards, "cards won (the score), per seat"),
            Piece("played", (n, ranks), 1, "per seat, 1 for each rank it has shown face up"),
            Piece("stock_size", 1, game.stock_cards, "cards left in the face-down stock"),
            Piece("rounds_played", 1, game.num_rounds, "rounds revealed so far"),
        ]
    )


def state_layout(game: HighCardGame) -> ObservationLayout:
    """The full-information state (``env.state()``): every seat in absolute seat order."""
    n, ranks = NUM_PLAYERS, game.num_cards
    return ObservationLayout(
        [
            Piece("hands", (n, ranks), 1, "per seat: 1 for each rank in hand"),
            Piece("picks", (n, ranks), 1, "per seat: face-down pick not yet revealed (one-hot)"),
            Piece("stock", ranks, 1, "1 for each rank in the stock (not its order)"),
            Piece("hand_sizes", n, game.hand_size, "cards in hand, per seat"),
            Piece("won", n, game.num_cards, "cards won, per seat"),
            Piece("played", (n, ranks), 1, "per seat, 1 for each rank it has shown face up"),
            Piece("stock_size", 1, game.stock_cards, "cards left in the stock"),
            Piece("to_act", n, 1, "one-hot: the seat to act (none once the game is over)"),
            Piece("rounds_played", 1, game.num_rounds, "rounds revealed so far"),
        ]
    )


class raw_env(GameAECEnv):
    """High Card; raises ``IllegalActionError`` on an illegal action."""

    metadata = env_metadata("high_card_v0", NUM_PLAYERS, NUM_PLAYERS)
    build_game = staticmethod(make_game)
    build_layout = staticmethod(observation_layout)
    build_state_layout = staticmethod(state_layout)
    #: Representative configurations; the conformance suite runs every generic check on each.
    example_configs = (
        {},
        {"num_cards": 4, "hand_size": 1},
        {"num_cards": 9, "hand_size": 3},
    )

    def encode(  # type: ignore[override]
        self, state: HighCardState, seat: int, views: dict[str, np.ndarray]
    ) -> None:
        order = [seat, 1 - seat]
        views["hand"][:] = state.hands[seat]
        if state.picks[seat] >= 0:
            views["own_pick"][state.picks[seat]] = 1.0
        views["has_picked"][:] = [state.has_picked[s] for s in order]
        views["hand_sizes"][:] = [state.hand_sizes[s] for s in order]
        views["won"][:] = [state.won[s] for s in order]
        views["played"][:] = state.played[order]
        views["stock_size"][0] = len(state.stock)
        views["rounds_played"][0] = state.rounds_played

    def encode_state(  # type: ignore[override]
        self, state: HighCardState, views: dict[str, np.ndarray]
    ) -> None:
        views["hands"][:] = state.hands
        for seat, pick in enumerate(state.picks):
            if pick >= 0:
                views["picks"][seat, pick] = 1.0
        views["stock"][state.stock] = 1.0
        views["hand_sizes"][:] = state.hand_sizes
        views["won"][:] = state.won
        views["played"][:] = state.played
        views["stock_size"][0] = len(state.stock)
        if not state.is_terminal():
            views["to_act"][state.current_player()] = 1.0
        views["rounds_played"][0] = state.rounds_played

    def render_text(self, state: HighCardState) -> str:  # type: ignore[override]
        return render_table(state)


def env(**kwargs: Any):
    """``raw_env`` with the standard wrapper (illegal action: -1 and game over)."""
    return wrap(raw_env(**kwargs))
