"""High Card's vector rules: the smallest ``VectorRules``, proving a new game's vector
engine gets every generic vector check by declaring ``VECTOR`` in its versioned module.

State per slot (struct of arrays): ``hands``/``played`` ``[N, 2, R]`` (1 per rank), ``picks``
``[N, 2]`` (-1: none), ``won`` ``[N, 2]``, ``rounds`` ``[N]``, the ``stock`` ``[N, R]`` with its
top at ``stock[i, stock_size[i] - 1]`` (the reference's list order).
"""

from __future__ import annotations

import numpy as np

from cardarena.envs.core.game import NO_PLAYER
from cardarena.envs.core.kernels import jit, rng_shuffle
from cardarena.envs.vector import VectorRules

from .rules import NUM_PLAYERS, HighCardGame


@jit
def _deal(which, rng, hands, picks, played, won, rounds, stock, stock_size, player, hand_size):
    ranks = hands.shape[2]
    deck = np.empty(ranks, np.int64)
    for i in range(which.shape[0]):
        if not which[i]:
            continue
        for r in range(ranks):
            deck[r] = r
        rng_shuffle(rng, i, deck, ranks)
        hands[i] = 0
        played[i] = 0
        picks[i] = -1
        won[i] = 0
        rounds[i] = 0
        dealt = NUM_PLAYERS * hand_size
        for position in range(dealt):
            hands[i, position % NUM_PLAYERS, deck[position]] = 1
        size = ranks - dealt
        for k in range(size):  # the reference's stock is the rest, reversed (top at the end)
            stock[i, k] = deck[ranks - 1 - k]
        stock_size[i] = size
        player[i] = 0


@jit
def _step(which, actions, hands, picks, played, won, rounds, stock, stock_size, player, rewards):
    for i in range(which.shape[0]):
        if not which[i]:
            continue
        seat = player[i]
        hands[i, seat, actions[i]] = 0
        picks[i, seat] = actions[i]
        rewards[i, 0] = 0.0
        rewards[i, 1] = 0.0
        if seat == 0:
            player[i] = 1
            continue
        for s in range(NUM_PLAYERS):
            played[i, s, picks[i, s]] = 1
        winner = 0 if picks[i, 0] > picks[i, 1] else 1
        won[i, winner] += NUM_PLAYERS
        picks[i] = -1
        rounds[i] += 1
        if stock_size[i] >= NUM_PLAYERS:
            for s in range(NUM_PLAYERS):
                stock_size[i] -= 1
                hands[i, s, stock[i, stock_size[i]]] = 1
        if hands[i].sum() == 0:
            player[i] = NO_PLAYER
            sign = np.sign(won[i, 0] - won[i, 1])
            rewards[i, 0] = sign
            rewards[i, 1] = -sign
        else:
            player[i] = 0


@jit
def _observe(seats, hands, picks, played, won, rounds, stock_size, out):
    ranks = hands.shape[2]
    for i in range(seats.shape[0]):
        seat = seats[i]
        if seat < 0:
            continue
        row = out[i]
        row[:] = 0.0
        other = 1 - seat
        for r in range(ranks):
            row[r] = hands[i, seat, r]
        if picks[i, seat] >= 0:
            row[ranks + picks[i, seat]] = 1.0
        base = 2 * ranks
        for k, s in enumerate((seat, other)):
            row[base + k] = 1.0 if picks[i, s] >= 0 else 0.0
            row[base + 2 + k] = hands[i, s].sum()
            row[base + 4 + k] = won[i, s]
            for r in range(ranks):
                row[base + 6 + k * ranks + r] = played[i, s, r]
        row[base + 6 + 2 * ranks] = stock_size[i]
        row[base + 7 + 2 * ranks] = rounds[i]


class VectorHighCard(VectorRules):
    """``num_envs`` High Card games of one ``HighCardGame``."""

    env_name = "high_card_v0"

    def __init__(self, game: HighCardGame, num_envs: int, observation_size: int) -> None:
        super().__init__(game, num_envs, observation_size)
        n, ranks = self.num_envs, game.num_cards
        self.hands = np.zeros((n, NUM_PLAYERS, ranks), np.int64)
        self.played = np.zeros((n, NUM_PLAYERS, ranks), np.int64)
        self.picks = np.full((n, NUM_PLAYERS), -1, np.int64)
        self.won = np.zeros((n, NUM_PLAYERS), np.int64)
        self.rounds = np.zeros(n, np.int64)
        self.stock = np.zeros((n, ranks), np.int64)
        self.stock_size = np.zeros(n, np.int64)

    def reset_games(self, which: np.ndarray) -> None:
        _deal(which, self.rng, self.hands, self.picks, self.played, self.won, self.rounds,
              self.stock, self.stock_size, self.current_player, self.game.hand_size)  # fmt: skip
        self.rewards[which] = 0.0
        self.terminated[which] = False
        self.truncated[which] = False

    def step_games(self, actions: np.ndarray, which: np.ndarray) -> None:
        _step(which, actions, self.hands, self.picks, self.played, self.won, self.rounds,
              self.stock, self.stock_size, self.current_player, self.rewards)  # fmt: skip
        self.terminated[which] = self.current_player[which] == NO_PLAYER

    def legal_masks(self, out: np.ndarray) -> None:
        seats = np.maximum(self.current_player, 0)
        out[:] = self.hands[np.arange(self.num_envs), seats] > 0
        out[self.current_player < 0] = False

    def observations(self, seats: np.ndarray, out: np.ndarray) -> None:
        _observe(seats, self.hands, self.picks, self.played, self.won, self.rounds,
                 self.stock_size, out)  # fmt: skip
