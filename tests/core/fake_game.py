"""A tiny scripted game for testing the shared core on its own: "high card".

Each player is dealt ``cards`` secret cards (values 0..4). A round: every player, in seat order,
picks a card face down; all reveal; the sole highest card scores a point. When hands are empty
the sole top scorer gets +1, everyone else -1 (a tie at the top: 0 for the tied, -1 for the
rest). ``max_rounds`` caps the game (truncation).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardarena.envs.core import (
    NO_PLAYER,
    GameAECEnv,
    ObservationLayout,
    Piece,
    RulesState,
    env_metadata,
    wrap,
)
from cardarena.envs.core.options import check_reset_options, per_player
from cardarena.envs.core.validation import check_int

VALUES = 5


class HighCardGame:
    def __init__(self, num_players: int = 2, cards: int = 2, max_rounds: int = 10) -> None:
        self.num_players = check_int(num_players, "num_players", 2, 4)
        self.cards = check_int(cards, "cards", 1, 3)
        self.max_rounds = check_int(max_rounds, "max_rounds", 1)
        self.agent_names = tuple(f"player_{i}" for i in range(self.num_players))
        self.num_actions = VALUES
        self.zero_sum = self.num_players == 2

    def new_initial_state(self, rng: np.random.Generator, options: Any = None) -> HighCardState:
        options = check_reset_options(options, ("hands",))
        if "hands" in options:
            hands = [list(h) for h in per_player(options["hands"], "hands", self.agent_names)]
        else:
            hands = rng.integers(0, VALUES, (self.num_players, self.cards)).tolist()
        return HighCardState(self, hands)


class HighCardState(RulesState):
    def __init__(self, game: HighCardGame, hands: list[list[int]]) -> None:
        self.game = game
        self.hands = hands
        self.picks = [-1] * game.num_players
        self.points = [0] * game.num_players
        self.last_revealed = [-1] * game.num_players
        self.to_act = 0
        self.rounds = 0
        self.terminal = self.truncated = False
        self._returns = (0.0,) * game.num_players

    def current_player(self) -> int:
        return NO_PLAYER if self.terminal or self.truncated else self.to_act

    def legal_action_mask(self) -> np.ndarray:
        mask = np.zeros(VALUES, dtype=bool)
        if self.current_player() != NO_PLAYER:
            mask[self.hands[self.to_act]] = True
        return mask

    def apply_legal_action(self, action: int) -> None:
        self.hands[self.to_act].remove(action)
        self.picks[self.to_act] = action
        self.to_act += 1
        if self.to_act < self.game.num_players:
            return
        self.last_revealed = self.picks
        self.picks = [-1] * self.game.num_players
        best = max(self.last_revealed)
        if self.last_revealed.count(best) == 1:
            self.points[self.last_revealed.index(best)] += 1
        self.rounds += 1
        self.to_act = 0
        if not self.hands[0]:
            self.terminal = True
            top = max(self.points)
            sole = self.points.count(top) == 1
            self._returns = tuple((1.0 if sole else 0.0) if p == top else -1.0 for p in self.points)
        elif self.rounds >= self.game.max_rounds:
            self.truncated = True

    def scores(self) -> tuple[int, ...]:
        return tuple(self.points)

    def action_to_string(self, action: int) -> str:
        return f"play {action}"

    def resample_from_infostate(self, seat: int, rng: np.random.Generator) -> HighCardState:
        twin = self.clone()
        for other in range(self.game.num_players):
            if other != seat:
                twin.hands[other] = rng.integers(0, VALUES, len(self.hands[other])).tolist()
                if twin.picks[other] >= 0:
                    twin.picks[other] = int(rng.integers(0, VALUES))
        return twin


def observation_layout(game: HighCardGame) -> ObservationLayout:
    n = game.num_players
    return ObservationLayout(
        [
            Piece("hand", VALUES, game.cards, "your cards: count per value"),
            Piece("own_pick", VALUES, 1, "your face-down pick"),
            Piece("has_picked", n, 1, "per seat (you first)"),
            Piece("points", n, game.cards, "per seat (you first)"),
            Piece("last_revealed", (n, VALUES), 1, "per seat (you first), one-hot"),
            Piece("balance", 1, 3, "points lead over the best other seat", low=-3),
        ]
    )


def state_layout(game: HighCardGame) -> ObservationLayout:
    n = game.num_players
    return ObservationLayout(
        [
            Piece("hands", (n, VALUES), game.cards, "per seat: count per value"),
            Piece("picks", (n, VALUES), 1, "per seat: face-down pick"),
            Piece("points", n, game.cards, "per seat"),
            Piece("to_act", n, 1, "one-hot"),
        ]
    )


class HighCardEnv(GameAECEnv):
    metadata = env_metadata("high_card_v0", 2, 4)
    build_game = HighCardGame
    build_layout = staticmethod(observation_layout)
    build_state_layout = staticmethod(state_layout)
    example_configs = ({}, {"num_players": 3, "cards": 3})

    def encode(self, state: HighCardState, seat: int, views: dict[str, np.ndarray]) -> None:  # type: ignore[override]
        n = state.game.num_players
        order = [(seat + k) % n for k in range(n)]
        for card in state.hands[seat]:
            views["hand"][card] += 1
        if state.picks[seat] >= 0:
            views["own_pick"][state.picks[seat]] = 1
        views["has_picked"][:] = [state.picks[s] >= 0 for s in order]
        views["points"][:] = [state.points[s] for s in order]
        for rel, s in enumerate(order):
            if state.last_revealed[s] >= 0:
                views["last_revealed"][rel, state.last_revealed[s]] = 1
        views["balance"][0] = state.points[seat] - max(state.points[s] for s in order[1:])

    def encode_state(self, state: HighCardState, views: dict[str, np.ndarray]) -> None:  # type: ignore[override]
        for seat, hand in enumerate(state.hands):
            for card in hand:
                views["hands"][seat, card] += 1
            if state.picks[seat] >= 0:
                views["picks"][seat, state.picks[seat]] = 1
        views["points"][:] = state.points
        if state.current_player() != NO_PLAYER:
            views["to_act"][state.current_player()] = 1

    def render_text(self, state: HighCardState) -> str:  # type: ignore[override]
        return f"round {state.rounds}: points {state.points}"


def env(**config: Any):
    return wrap(HighCardEnv(**config))
