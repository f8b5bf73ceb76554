"""Beast Wars: draft and field the strongest characters, attack when the expected battle
favours you, reinforce, and otherwise advance without walking into a bad fight.

The character table is public data (the config), so every number of both faces of every
character on the board is known; the battle deck's composition is in the observation. A
battle's odds follow from them: each side's number is its own character's number in the
colour of its own card (a Mutate flips the face first) plus the card's bonus, both cards
drawn from the remaining deck. An attack is scored by its expected gain in characters: a
win that pushes the defender off the board or into an occupied space removes it, a loss
that does the same to the attacker costs it, a plain push is worth a little.

- **Selection**: the characters with the highest average numbers (beast face weighted a
  little more, since every character starts and re-enters beast side up).
- **Placement**: the three strongest in the first row, the strongest in the middle column.
- **Play**: the best attack if its expected gain is clearly positive; else a reinforcement
  (strongest reserve character) when the reserve has one and a first-row space is free;
  else the move that best closes in on the enemy while staying out of attacks that favour it.
"""

from __future__ import annotations

import numpy as np

from cardarena.envs.beast_wars.rules import (
    ATTACK_BASE,
    CARD_BONUS,
    CARD_TYPES,
    COLOURS,
    COLUMNS,
    FIRST_ROWS,
    MAX_FACTION,
    MUTATE,
    NEIGHBOURS,
    OFF_BOARD,
    OPPOSITE,
    PASS,
    PICK_BASE,
    PLAY,
    REINFORCE_BASE,
    SELECT,
)

from ..base import EnvSpec, Observation
from .common import EnvData, choose, legal

EMPTY, MINE, ENEMY = 0, 1, 2
_NEIGHBOURS = NEIGHBOURS.tolist()
_CARD_KINDS = len(COLOURS) * len(CARD_TYPES)
_COLOUR_OF = np.repeat(np.arange(len(COLOURS)), len(CARD_TYPES))
_TYPE_OF = np.tile(np.arange(len(CARD_TYPES)), len(COLOURS))
_BONUS = np.asarray(CARD_BONUS, dtype=np.float64)[_TYPE_OF]
_MUTATES = _TYPE_OF == MUTATE
#: Weight of the beast face in a character's draft strength.
BEAST_WEIGHT = 0.6


def _distance(a: int, b: int) -> int:
    return abs(a // COLUMNS - b // COLUMNS) + abs(a % COLUMNS - b % COLUMNS)


class BeastWarsStrategy:
    """The Beast Wars heuristic (module docstring).

    ``attack_margin`` is the expected gain (in characters) an attack needs; ``push`` the
    worth of pushing a character without removing it; ``caution`` how much a move avoids
    spaces where the enemy's best attack on it has a positive expected gain.
    """

    def __init__(
        self,
        env_spec: EnvSpec,
        attack_margin: float = 0.05,
        push: float = 0.1,
        caution: float = 1.0,
    ) -> None:
        self.data = EnvData(env_spec)
        self.layout = self.data.layout
        #: numbers[piece, face, colour], piece = faction * 12 + id.
        self.numbers = np.asarray(self.data.game.characters.numbers, dtype=np.float64)
        faces = self.numbers[:, 0].mean(axis=1), self.numbers[:, 1].mean(axis=1)
        self.strength = BEAST_WEIGHT * faces[0] + (1 - BEAST_WEIGHT) * faces[1]
        #: A character's worth in the material count: 1, a little more for strong ones. The
        #: mean is over the table's characters (not the empty ids past a faction's size): a
        #: table whose numbers are all 0 is valid and gives every character worth 1.
        sizes = self.data.game.characters.sizes
        real = np.concatenate([seat * MAX_FACTION + np.arange(n) for seat, n in enumerate(sizes)])
        self.worth = 1.0 + 0.05 * (self.strength - self.strength[real].mean())
        self.attack_margin = attack_margin
        self.push = push
        self.caution = caution
        self.side = 0

    def start_game(self, seat: str, rng: np.random.Generator) -> None:
        self.side = self.data.seat_index(seat)

    # --- decisions -------------------------------------------------------------------------
    def act(self, observation: Observation, rng: np.random.Generator) -> int:
        actions = legal(observation)
        view = self.layout.view(observation["observation"])
        phase = int(np.argmax(view["phase"]))
        if actions[0] >= PICK_BASE and actions[-1] < PASS:
            return self._setup(view, phase, actions, rng)
        if phase != PLAY or (actions.size == 1 and actions[0] == PASS):
            return choose(actions, np.zeros(actions.size), rng)
        return self._play(view, actions, rng)

    def _setup(self, view: dict[str, np.ndarray], phase: int, actions: np.ndarray, rng) -> int:
        base = self.side * MAX_FACTION
        members = actions - PICK_BASE
        strength = self.strength[base + members]
        if phase == SELECT:
            return choose(actions, strength, rng)
        # Placement, columns 0, 1, 2 in turn: the strongest goes to the middle column.
        placed = int((view["cell_owner"][list(FIRST_ROWS[self.side]), MINE] > 0).sum())
        if placed == 0 and members.size > 1:
            second = np.sort(strength)[-2]
            return choose(actions, -np.abs(strength - second), rng)
        return choose(actions, strength, rng)

    def _play(self, view: dict[str, np.ndarray], actions: np.ndarray, rng) -> int:
        board = Board.from_view(view, self.side)
        odds = Odds(self.numbers, view)
        attacks = actions[(actions >= ATTACK_BASE) & (actions < REINFORCE_BASE)]
        if attacks.size:
            gains = np.array([self.attack_gain(board, odds, int(a) - ATTACK_BASE) for a in attacks])
            if gains.max() > self.attack_margin:
                return choose(attacks, gains, rng)
        reinforcements = actions[(actions >= REINFORCE_BASE) & (actions < PICK_BASE)]
        if reinforcements.size:
            return self._reinforce(board, odds, reinforcements, rng)
        moves = actions[actions < ATTACK_BASE]
        if moves.size:
            scores = np.array([self.move_score(board, odds, int(a)) for a in moves])
            return choose(moves, scores, rng)
        if attacks.size:  # only attacks left, none good: the least bad one
            gains = np.array([self.attack_gain(board, odds, int(a) - ATTACK_BASE) for a in attacks])
            return choose(attacks, gains, rng)
        return choose(actions, np.zeros(actions.size), rng)

    def _reinforce(self, board: Board, odds: Odds, actions: np.ndarray, rng) -> int:
        scores = []
        base = self.side * MAX_FACTION
        for action in actions:
            cell, member = divmod(int(action) - REINFORCE_BASE, MAX_FACTION)
            piece = base + member
            after = board.copy()
            after.owner[cell], after.piece[cell], after.face[cell] = MINE, piece, 0
            danger = self.danger(after, odds, cell)
            scores.append(self.strength[piece] - 2.0 * self.caution * danger)
        return choose(actions, np.array(scores), rng)

    # --- evaluation ------------------------------------------------------------------------
    def attack_gain(self, board: Board, odds: Odds, code: int) -> float:
        """Expected characters gained by the attack ``code`` = ``cell * 4 + dir`` (of either
        side: the attacker is whoever stands on ``cell``)."""
        cell, direction = divmod(code, 4)
        target = _NEIGHBOURS[cell][direction]
        attacker, defender = int(board.piece[cell]), int(board.piece[target])
        win, lose = odds.chances(attacker, int(board.face[cell]), defender, int(board.face[target]))
        behind = _NEIGHBOURS[target][direction]
        gain = self.worth[defender] if board.blocked(behind) else self.push
        back = _NEIGHBOURS[cell][OPPOSITE[direction]]
        loss = self.worth[attacker] if board.blocked(back) else self.push
        return win * gain - lose * loss

    def danger(self, board: Board, odds: Odds, cell: int) -> float:
        """The best expected gain of an enemy attack on the character on ``cell``."""
        worst = 0.0
        for direction in range(4):
            source = _NEIGHBOURS[cell][direction]
            if source != OFF_BOARD and board.owner[source] == ENEMY:
                towards = OPPOSITE[direction]
                worst = max(worst, self.attack_gain(board, odds, source * 4 + towards))
        return worst

    def move_score(self, board: Board, odds: Odds, action: int) -> float:
        cell, direction = divmod(action, 4)
        target = _NEIGHBOURS[cell][direction]
        enemies = np.flatnonzero(board.owner == ENEMY)
        before_danger = self.danger(board, odds, cell)
        after = board.copy()
        after.move(cell, target)
        after_danger = self.danger(after, odds, target)
        # Friends left behind may now stand exposed, or covered: count everyone's danger.
        exposure = sum(
            self.danger(after, odds, int(c)) - self.danger(board, odds, int(c))
            for c in np.flatnonzero(board.owner == MINE)
            if c != cell
        )
        advance = 0.0
        if enemies.size:
            near_before = min(_distance(cell, int(e)) for e in enemies)
            near_after = min(_distance(target, int(e)) for e in enemies)
            advance = near_before - near_after
        chances = 0.0
        for direction_next in range(4):
            victim = _NEIGHBOURS[target][direction_next]
            if victim != OFF_BOARD and after.owner[victim] == ENEMY:
                gain = self.attack_gain(after, odds, target * 4 + direction_next)
                chances = max(chances, gain)
        return (
            0.3 * advance + 0.5 * chances - self.caution * (after_danger - before_danger + exposure)
        )


class Board:
    """The public board from one side's view: owner (EMPTY / MINE / ENEMY), piece id and face
    per cell."""

    def __init__(self, owner: np.ndarray, piece: np.ndarray, face: np.ndarray) -> None:
        self.owner = owner
        self.piece = piece
        self.face = face

    @classmethod
    def from_view(cls, view: dict[str, np.ndarray], side: int) -> Board:
        owner = np.argmax(view["cell_owner"], axis=1)
        ids = np.argmax(view["cell_character"], axis=1)
        faction = np.where(owner == MINE, side, 1 - side)
        piece = np.where(owner == EMPTY, -1, faction * MAX_FACTION + ids)
        face = np.argmax(view["cell_face"], axis=1)
        return cls(owner, piece, face)

    def copy(self) -> Board:
        return Board(self.owner.copy(), self.piece.copy(), self.face.copy())

    def blocked(self, cell: int) -> bool:
        """A character pushed towards ``cell`` is removed (off the board, or occupied)."""
        return cell == OFF_BOARD or self.owner[cell] != EMPTY

    def move(self, source: int, target: int) -> None:
        for array in (self.owner, self.piece, self.face):
            array[target] = array[source]
        self.owner[source], self.piece[source], self.face[source] = EMPTY, -1, 0


class Odds:
    """Battle odds for this turn's deck: each side's number per card kind, and the chance
    that the attacker's number beats, or loses to, the defender's (a called-off battle, equal
    numbers, counts as neither)."""

    def __init__(self, numbers: np.ndarray, view: dict[str, np.ndarray]) -> None:
        self.numbers = numbers
        deck = view["deck"].ravel().astype(np.float64)
        discards = view["discards"].ravel().astype(np.float64)
        #: ``draw[i, j]``: the chance that the attacker draws card kind i and the defender j.
        self.draw = draw_chances(deck, discards)
        self._cache: dict[tuple[int, int, int, int], tuple[float, float]] = {}

    def card_numbers(self, piece: int, face: int) -> np.ndarray:
        """The character's number for each of the 16 card kinds (Mutate flips first)."""
        faces = np.where(_MUTATES, 1 - face, face)
        return self.numbers[piece, faces, _COLOUR_OF] + _BONUS

    def chances(
        self, attacker: int, a_face: int, defender: int, d_face: int
    ) -> tuple[float, float]:
        key = (attacker, a_face, defender, d_face)
        found = self._cache.get(key)
        if found is None:
            mine = self.card_numbers(attacker, a_face)
            theirs = self.card_numbers(defender, d_face)
            difference = np.subtract.outer(mine, theirs)
            weights = self.draw
            found = (float(weights[difference > 0].sum()), float(weights[difference < 0].sum()))
            self._cache[key] = found
        return found


def draw_chances(deck: np.ndarray, discards: np.ndarray) -> np.ndarray:
    """``[i, j]``: the chance that a battle's attacker draws card kind i and the defender j
    (BW-3, BW-6): the attacker takes the top card and the defender the next, both without
    replacement; an empty deck first becomes the shuffled discard pile, and the battle's own
    cards reach the discard pile only after it, so with one card left the defender draws
    from the reshuffled discards."""
    if deck.sum() == 0:
        deck, discards = discards, np.zeros_like(discards)
    total = deck.sum()
    if total >= 2:
        return (np.outer(deck, deck) - np.diag(deck)) / (total * (total - 1))
    rest = discards.sum()
    if total == 1 and rest > 0:
        return np.outer(deck, discards) / rest
    return np.full((_CARD_KINDS, _CARD_KINDS), 1.0 / _CARD_KINDS**2)  # no cards: no knowledge
