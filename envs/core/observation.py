"""Declare an observation once as named pieces; get the flat tensor, its bounds, named views
and the docstring table from that one declaration (the OpenSpiel observer idea).

Encoders write into ``layout.zeros()`` through the precomputed slices ``layout[name]``, so the
hot path is plain numpy slicing with no dict building.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from gymnasium import spaces


@dataclass(frozen=True)
class Piece:
    """A named block of the flat observation: ``size`` floats in ``[0, high]``."""

    name: str
    size: int
    high: float
    doc: str


class ObservationLayout:
    """Ordered pieces with their offsets into one float32 vector."""

    def __init__(self, pieces: Sequence[Piece]) -> None:
        names = [p.name for p in pieces]
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate observation piece names in {names}")
        self.pieces: tuple[Piece, ...] = tuple(pieces)
        self._slices: dict[str, slice] = {}
        offset = 0
        for piece in self.pieces:
            self._slices[piece.name] = slice(offset, offset + piece.size)
            offset += piece.size
        self.size = offset
        self.high = np.concatenate([np.full(p.size, p.high, dtype=np.float32) for p in self.pieces])

    def __getitem__(self, name: str) -> slice:
        return self._slices[name]

    def zeros(self) -> np.ndarray:
        return np.zeros(self.size, dtype=np.float32)

    def space(self) -> spaces.Box:
        return spaces.Box(low=0.0, high=self.high.copy(), shape=(self.size,), dtype=np.float32)

    def view(self, observation: np.ndarray) -> dict[str, np.ndarray]:
        """Split a flat observation into named pieces (for debugging, tests and notebooks)."""
        return {name: observation[s] for name, s in self._slices.items()}

    def table_rows(self) -> list[str]:
        """One docstring row per piece: ``| start-end | name | doc |`` with inclusive indices."""
        rows = []
        for piece in self.pieces:
            s = self._slices[piece.name]
            index = f"{s.start}" if piece.size == 1 else f"{s.start}-{s.stop - 1}"
            rows.append(f"| {index} | {piece.name} | {piece.doc} |")
        return rows


def unit_scale(space: spaces.Box) -> np.ndarray:
    """Multipliers that map a ``[0, high]`` observation Box onto ``[0, 1]`` (for neural nets).

    Pieces whose high is 0 (nothing to scale) keep factor 1.
    """
    high = np.asarray(space.high, dtype=np.float32)
    return np.where(high > 0, 1.0 / np.where(high > 0, high, 1.0), 1.0).astype(np.float32)
