"""
# War! for Promise TCG decks

| Import             | `from cardarena.envs import promise_war_v0`               |
|--------------------|-----------------------------------------------------------|
| Actions            | Discrete                                                  |
| Parallel API       | No                                                        |
| Manual Control     | No                                                        |
| Agents             | `agents= ['player_0', 'player_1']` (2 to 8 players)       |
| Agents             | 2                                                         |
| Action Shape       | Discrete(11)                                              |
| Action Values      | 0 to 10 (the power of the card to play)                   |
| Observation Shape  | (106,)                                                    |
| Observation Values | [low, high] per piece (table below), float32              |
| State Shape        | (151,)                                                    |

Each player brings their own deck of cards with a power level. Every player who can play
picks a card face down; all reveal together and the sole highest power takes every revealed
card into its victory pile. Tied players break the tie by playing one card face up and the
rest of their hand face down; the winner of the tiebreak takes the whole pot. The choice that
matters is which card to spend: bluff low and keep strength for tiebreaks, or press. Most
cards won wins. Rules: envs/rulebooks/promise_war_v0.md (PW-1..PW-7). Shape values are for the
default config (2 players, `max_power=10`); see below for the general formula.

## Arguments

`promise_war_v0.env(num_players=2, decks=None, max_power=10, max_tricks=500, render_mode=None)`

- `num_players`: 2 to 8.
- `decks`: one list of powers for every player, or one list per player (each player brings
  their own deck). Powers are integers `0..max_power`; a deck must not be empty.
  Default: 4 copies of each power `1..max_power` (40 cards at `max_power=10`).
- `max_power`: highest power a card may have; the action space is `Discrete(max_power + 1)`.
- `max_tricks`: cap; after that many tricks (a trick includes its tiebreakers) the game is
  truncated (C-5) unless a rule ended it on the same step.
- `render_mode`: `None` (`render()` warns and returns None), `"ansi"` (`render()` returns the
  text) or `"human"` (prints it after `reset()` and after every move, and on `render()`).
- `normalize_observation`: False (raw counts) or True (the observation Box is `[0, 1]` float32,
  scaled by `ObservationScaler`, for clients that do not scale; `state()` stays raw).

Any other keyword raises `InvalidConfigError` naming it and the allowed keys.

`reset(seed=None, options=None)`: `options={"decks": [[powers, top first], ...]}` fixes every
player's draw pile in that order: a list in seat order, or a dict keyed by agent name, covering
every player, at least one card each. Unknown option keys are ignored with a `UserWarning`
(C-6). [decided] Fixed decks may hold any valid powers but must fit the observation bounds set
by the configured decks (no deck longer than the longest configured one, no more cards in all).

## Observation Space

A dict `{"observation": float32 vector, "action_mask": int8 vector}`. The observation holds
only what that player could see at the table. Per-seat pieces (shape `n` or `n x P`) are
ordered from the observing player: you first, then the following seats in seat order. With
`n` players and `P = max_power + 1` powers the vector has `P*(2n + 4) + 7n + 4` entries, laid
out as below (index ranges for the default 2 players, `P = 11`: 106 entries; `layout.view(obs)`
splits a vector into these named pieces in their shapes):

| Index | Piece | Shape | Values | Meaning |
|-------|-------|-------|--------|---------|
| 0-10 | hand | 11 | 0..3 | your hand: count of cards of each power |
| 11-21 | own_pick | 11 | 0..1 | your face-down pick waiting for the reveal (one-hot) |
| 22-32 | own_deck | 11 | 0..40 | your draw pile: count of each power (order unknown) |
| 33-34 | hand_sizes | 2 | 0..3 | cards in hand, per seat |
| 35-36 | deck_sizes | 2 | 0..40 | cards in draw pile, per seat |
| 37-38 | victory_sizes | 2 | 0..80 | cards in victory pile (the score), per seat |
| 39-40 | sitting_out | 2 | 0..1 | 1 if that seat sits out for good (PW-6) |
| 41-42 | has_picked | 2 | 0..1 | 1 if that seat has already picked, face down |
| 43-44 | pot_face_down | 2 | 0..80 | face-down tiebreak cards in the pot, per seat |
| 45-46 | in_contest | 2 | 0..1 | 1 if that seat plays in the current trick or tiebreak |
| 47-68 | last_revealed | 2x11 | 0..1 | per seat, one-hot power it revealed last |
| 69-90 | revealed | 2x11 | 0..40 | per seat, count of each power shown face up |
| 91-101 | pot_face_up | 11 | 0..80 | revealed cards in the pot: count of each power |
| 102-103 | phase | 2 | 0..1 | one-hot: trick, tiebreak |
| 104 | you_in_tiebreak | 1 | 0..1 | 1 if you are one of the tied players |
| 105 | tricks_played | 1 | 0..500 | tricks completed so far (PW-7 cap) |

`revealed` is the public history: every card a seat has shown face up (in tricks and
tiebreaks) stays counted, so a memoryless policy can count cards. Never observed: other
players' hands, their picks before the reveal, any draw pile's order, other players' unseen
cards, the powers of face-down pot cards.

### Legal Actions Mask

`action_mask[a] == 1` iff the agent is to act and holds a card of power `a`. All zeros for an
agent who is not to act (C-1). `env.unwrapped.action_mask(agent)` gives it without encoding an
observation.

## Action Space

`Discrete(max_power + 1)`: action `a` plays a card of power `a` from hand: face down in a
trick, face up in a tiebreak (the rest of the hand then goes face down into the pot).

## State

`env.state()` (in `env.state_space`) is the full-information vector for centralised critics
and debugging: every hand, pick and draw-pile composition (not its order, which is chance to
come), in absolute seat order. `5nP + 8n + 2P + 3` entries; for the default config:

| Index | Piece | Shape | Values | Meaning |
|-------|-------|-------|--------|---------|
| 0-21 | hands | 2x11 | 0..3 | per seat: count of each power in hand |
| 22-43 | picks | 2x11 | 0..1 | per seat: face-down pick not yet revealed (one-hot) |
| 44-65 | decks | 2x11 | 0..40 | per seat: draw pile, count of each power |
| 66-67 | hand_sizes | 2 | 0..3 | cards in hand, per seat |
| 68-69 | deck_sizes | 2 | 0..40 | cards in draw pile, per seat |
| 70-71 | victory_sizes | 2 | 0..80 | cards in victory pile (the score), per seat |
| 72-73 | sitting_out | 2 | 0..1 | 1 if that seat sits out for good (PW-6) |
| 74-75 | in_contest | 2 | 0..1 | 1 if that seat plays in the current trick or tiebreak |
| 76-77 | has_picked | 2 | 0..1 | 1 if that seat has already picked, face down |
| 78-99 | last_revealed | 2x11 | 0..1 | per seat, one-hot power it revealed last |
| 100-121 | revealed | 2x11 | 0..40 | per seat, count of each power shown face up |
| 122-132 | pot_face_up | 11 | 0..80 | revealed cards in the pot: count of each power |
| 133-143 | pot_face_down | 11 | 0..80 | face-down cards in the pot, per power |
| 144-145 | pot_face_down_sizes | 2 | 0..80 | face-down cards in the pot, per seat |
| 146-147 | phase | 2 | 0..1 | one-hot: trick, tiebreak |
| 148-149 | to_act | 2 | 0..1 | one-hot: the seat to act (none once the game is over) |
| 150 | tricks_played | 1 | 0..500 | tricks completed so far (PW-7 cap) |

## Rewards

0 until the game ends. Then the sole top scorer (most cards in victory pile) gets +1, players
tied for the top score get 0, everyone else -1. At the cap (truncation) everyone gets 0.
With `env()` an illegal action ends the game (terminated) with -1 for the offender and 0 for
everyone else; `raw_env` raises `IllegalActionError`. `metadata["zero_sum"]` is True only with
2 players (with more, one +1 meets several -1).

## Infos

The six keys of `cardarena.envs.core.infos`, numbers and numeric arrays of one dtype and shape
from `reset()` on (strings and a dict before 0.2.0: CHANGELOG.md): `outcome`, `scores`,
`winners` (per seat), `steps`, `offender` (a seat index, -1 for nobody), `illegal_action`. Here
`scores` counts the cards in each victory pile, `winners` marks each seat with reward +1 and
`steps` counts decisions; the outcome is `TERMINATED`, `TRUNCATED` or `ILLEGAL_ACTION`.

## Decided rules (envs/rulebooks/promise_war_v0.md [decided] and gaps)

- Players: 2 to 8 (the rulebook says "2 or more"; 8 bounds the observation).
- PW-1: default deck 40 cards, powers 1..10, 4 copies each (generally 4 x `1..max_power`).
- PW-3 / C-3: picks are asked one player after another from player_0; a player who has picked
  is shown only as "has picked" until all reveal together. Who is asked: every player in the
  trick, even with a single card in hand (C-2).
- PW-4: tied players each first draw back up to 3 (in seat order), then those with cards pick
  one card face up (hidden until all tied players picked) and the rest of their hand goes face
  down into the pot at the reveal (2 cards in hand: 1 down, 1 up; 1 card: 0 down). A tied
  player with no card after drawing drops out; one left takes the pot without playing; none
  left: the pot is discarded. A new tie repeats this among the newly tied players only.
- PW-5: after each trick (with its tiebreakers) everyone draws back up to 3 from their own
  pile, in seat order (the rulebook says nothing about drawing after setup).
- PW-6: a player who starts a trick with an empty hand (and so an empty draw pile) sits out for
  good; the game ends when fewer than two players can play. Cards still in the last player's
  hand or pile do not score.
- PW-7: the cap counts completed tricks; the end rule is checked first, so a game that ends by
  PW-6 on the cap's step terminates rather than truncates.
- Rendering shows the public table plus the hand of the player to act (the seat a human at the
  terminal occupies).

## Limits

Configs come from other people's files too, so sizes are bounded before anything is built
(`InvalidConfigError` names the value and the limit): `max_power` is at most 100 (it sizes
the action space and every per-power piece), each deck holds at most 10,000 cards (config
and `options['decks']` alike), and `max_tricks` is at most 1,000,000.

## Version History

- v0: initial release. Later additions that change no rule: 2 to 8 players (was 2 to 6), the
  `revealed` history and the `State` vector in the observation/state API, end-of-game infos.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..core import GameAECEnv, ObservationLayout, Piece, env_metadata, wrap
from ..core.events import Event
from ..core.validation import CAP_REASON, MAX_TURN_CAP, bounded_config, check_at_most
from .render import render_table
from .rules import (
    HAND_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    TIEBREAK,
    PromiseWarGame,
    PromiseWarState,
    make_game,
)
from .story import describe
from .view import table_svg, table_view

#: The one line a new player reads first (envs/rulebooks/promise_war_v0.md says the same).
HOW_TO_WIN = (
    "Take the most cards into your victory pile: the sole highest card of each trick takes "
    "every card played, and tied players play again for the whole pot."
)


def viewer_pieces(game: PromiseWarGame, omniscient: bool) -> list[Piece]:
    """Every piece one viewer gets, in vector order: a seat (``omniscient=False``: per-seat
    rows from the observer on, its own hidden cards only) or the state (absolute seat order,
    every hidden card). One list, so the two views cannot drift apart."""
    n, powers = game.num_players, game.max_power + 1
    total, deck = game.total_cards, game.largest_deck
    in_contest = Piece("in_contest", n, 1, "1 if that seat plays in the current trick or tiebreak")
    has_picked = Piece("has_picked", n, 1, "1 if that seat has already picked, face down")
    if omniscient:
        hidden = [
            Piece("hands", (n, powers), HAND_SIZE, "per seat: count of each power in hand"),
            Piece("picks", (n, powers), 1, "per seat: face-down pick not yet revealed (one-hot)"),
            Piece("decks", (n, powers), deck, "per seat: draw pile, count of each power"),
        ]
        contest = [in_contest, has_picked]
        pot = [
            Piece("pot_face_down", powers, total, "face-down cards in the pot, per power"),
            Piece("pot_face_down_sizes", n, total, "face-down cards in the pot, per seat"),
        ]
        own_role = [Piece("to_act", n, 1, "one-hot: the seat to act (none once the game is over)")]
    else:
        hidden = [
            Piece("hand", powers, HAND_SIZE, "your hand: count of cards of each power"),
            Piece("own_pick", powers, 1, "your face-down pick waiting for the reveal (one-hot)"),
            Piece("own_deck", powers, deck, "your draw pile: count of each power (order unknown)"),
        ]
        contest = [
            has_picked,
            Piece("pot_face_down", n, total, "face-down tiebreak cards in the pot, per seat"),
            in_contest,
        ]
        pot = []
        own_role = [Piece("you_in_tiebreak", 1, 1, "1 if you are one of the tied players")]
    return [
        *hidden,
        Piece("hand_sizes", n, HAND_SIZE, "cards in hand, per seat"),
        Piece("deck_sizes", n, deck, "cards in draw pile, per seat"),
        Piece("victory_sizes", n, total, "cards in victory pile (the score), per seat"),
        Piece("sitting_out", n, 1, "1 if that seat sits out for good (PW-6)"),
        *contest,
        Piece("last_revealed", (n, powers), 1, "per seat, one-hot power it revealed last"),
        Piece("revealed", (n, powers), deck, "per seat, count of each power shown face up"),
        Piece("pot_face_up", powers, total, "revealed cards in the pot: count of each power"),
        *pot,
        Piece("phase", 2, 1, "one-hot: trick, tiebreak"),
        *own_role,
        Piece("tricks_played", 1, game.max_tricks, "tricks completed so far (PW-7 cap)"),
    ]


def observation_layout(game: PromiseWarGame) -> ObservationLayout:
    """A seat's observation (the docstring table above is generated from it): per-seat pieces
    (first dimension ``n``) run from the observer, then the following seats in seat order. The
    span ``seat_counts`` lets the encoder fill the six per-seat counts with one assignment."""
    return ObservationLayout(
        viewer_pieces(game, omniscient=False),
        spans={"seat_counts": ("hand_sizes", "pot_face_down")},
    )


def state_layout(game: PromiseWarGame) -> ObservationLayout:
    """The full-information state (``env.state()``): every seat in absolute seat order."""
    return ObservationLayout(viewer_pieces(game, omniscient=True))


#: Config limits (see "Limits" above).
MAX_POWER_LIMIT = 100


def check_limits(config: dict[str, Any]) -> None:
    """Refuse a power range or trick cap too large to allocate for (deck lengths are
    bounded by ``check_sequence``)."""
    check_at_most(config.get("max_power"), "max_power", MAX_POWER_LIMIT)
    check_at_most(config.get("max_tricks"), "max_tricks", MAX_TURN_CAP, CAP_REASON)


class raw_env(GameAECEnv):
    """War! for Promise TCG decks; raises ``IllegalActionError`` on an illegal action."""

    metadata = env_metadata("promise_war_v0", MIN_PLAYERS, MAX_PLAYERS)
    build_game = staticmethod(bounded_config(make_game, check_limits))
    build_layout = staticmethod(observation_layout)
    build_state_layout = staticmethod(state_layout)
    #: Representative configurations; the conformance suite runs every generic check on each.
    example_configs = (
        {},
        {"num_players": 3},
        {"num_players": 8},
        {"num_players": 3, "max_power": 2, "decks": [0, 0, 1, 1, 2, 2], "max_tricks": 6},
    )

    def __init__(self, render_mode: str | None = None, **config: Any) -> None:
        super().__init__(render_mode, **config)
        n = len(self.possible_agents)
        #: Row order of per-seat pieces for each observer: itself, then the next seats.
        self._rotation = [np.roll(np.arange(n), -seat) for seat in range(n)]

    def encode(  # type: ignore[override]
        self, state: PromiseWarState, seat: int, views: dict[str, np.ndarray]
    ) -> None:
        views["hand"][:] = state.hands[seat]
        if state.picks[seat] >= 0:
            views["own_pick"][state.picks[seat]] = 1.0
        views["own_deck"][:] = state.deck_counts[seat]
        hand, deck, won = state.hand_sizes, state.deck_sizes, state.victory_sizes
        out, picked, down = state.sitting_out, state.has_picked, state.pot_face_down_by_player
        views["seat_counts"][:] = (
            hand[seat:] + hand[:seat] + deck[seat:] + deck[:seat] + won[seat:] + won[:seat]
            + out[seat:] + out[:seat] + picked[seat:] + picked[:seat] + down[seat:] + down[:seat]
        )  # fmt: skip
        self._encode_table(state, seat, views)
        live = not (state.terminal or state.truncated)
        if live and state.phase == TIEBREAK and seat in state.contenders:
            views["you_in_tiebreak"][0] = 1.0

    def encode_state(  # type: ignore[override]
        self, state: PromiseWarState, views: dict[str, np.ndarray]
    ) -> None:
        powers = state.game.max_power + 1
        views["hands"][:] = state.hands
        for seat, pick in enumerate(state.picks):
            if pick >= 0:
                views["picks"][seat, pick] = 1.0
        views["decks"][:] = state.deck_counts
        views["hand_sizes"][:] = state.hand_sizes
        views["deck_sizes"][:] = state.deck_sizes
        views["victory_sizes"][:] = state.victory_sizes
        views["sitting_out"][:] = state.sitting_out
        views["has_picked"][:] = state.has_picked
        self._encode_table(state, 0, views)
        if not (state.terminal or state.truncated):
            views["to_act"][state.current_player()] = 1.0
        if state.pot_face_down:
            views["pot_face_down"][:] = np.bincount(state.pot_face_down, minlength=powers)
        views["pot_face_down_sizes"][:] = state.pot_face_down_by_player

    def _encode_table(
        self, state: PromiseWarState, first: int, views: dict[str, np.ndarray]
    ) -> None:
        """The pieces every viewer shares, per-seat rows from seat ``first`` on: the
        observer, or 0 for the state (absolute seat order)."""
        n = state.num_players
        if not (state.terminal or state.truncated):
            in_contest = views["in_contest"]
            for other in state.contenders:
                in_contest[(other - first) % n] = 1.0
        last_revealed = views["last_revealed"]
        for rel in range(n):
            card = state.last_revealed[(first + rel) % n]
            if card >= 0:
                last_revealed[rel, card] = 1.0
        views["revealed"][:] = state.revealed[self._rotation[first]]
        views["pot_face_up"][:] = state.pot_face_up
        views["phase"][state.phase] = 1.0
        views["tricks_played"][0] = state.tricks_played

    def render_text(self, state: PromiseWarState) -> str:  # type: ignore[override]
        return render_table(state)

    # --- presentation for people (text play, the web table) --------------------------------
    how_to_win = HOW_TO_WIN

    def describe_event(self, event: Event, viewer: int) -> str:
        return describe(event, viewer, tuple(self.possible_agents))

    def table_view(self, seat: int) -> dict[str, Any]:
        state: PromiseWarState = self.game_state  # type: ignore[assignment]
        return table_view(state, seat)

    def table_svg(self, view: dict[str, Any], actions: Sequence[tuple[int, str]]) -> str:
        return table_svg(view, actions)


def env(**kwargs: Any):
    """``raw_env`` with the standard wrapper (illegal action: -1 and game over)."""
    return wrap(raw_env(**kwargs))
