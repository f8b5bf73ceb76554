"""Declare an observation once as named pieces; get the flat tensor, its bounds, named views
and the docstring table from that one declaration (the OpenSpiel observer idea).

An encoder never knows an offset or a size: it owns an ``ObservationBuffer`` and writes into
``buffer.views[name]``, each a writable numpy view of one piece in that piece's own shape
(``(num_seats, powers)`` for a per-seat count table, say). ``buffer.snapshot()`` clears
nothing and returns a copy, so the hot path is one ``fill(0)``, plain numpy assignments and
one ``copy()``.

``ObservationScaler`` maps an observation Box onto ``[0, 1]``; the SB3 bridge and every
policy agent use it, so a network sees the same inputs in training and in evaluation.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from gymnasium import spaces


@dataclass(frozen=True)
class Piece:
    """A named block of the flat observation: values in ``[low, high]``, in ``shape``.

    ``shape`` is an int for a flat block or a tuple such as ``(num_seats, powers)``; per-seat
    rows are ordered from the observer (you first, then the following seats).
    """

    name: str
    shape: int | tuple[int, ...]
    high: float
    doc: str
    low: float = 0.0
    dims: tuple[int, ...] = field(init=False, repr=False, compare=False)
    size: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        dims = (self.shape,) if isinstance(self.shape, (int, np.integer)) else tuple(self.shape)
        dims = tuple(int(d) for d in dims)
        if not dims or any(d < 1 for d in dims):
            raise ValueError(f"piece {self.name!r}: shape must be positive, got {self.shape!r}")
        if not self.low <= self.high:
            raise ValueError(f"piece {self.name!r}: low {self.low} > high {self.high}")
        object.__setattr__(self, "dims", dims)
        object.__setattr__(self, "size", int(np.prod(dims)))


class ObservationLayout:
    """Ordered pieces with their offsets into one float32 vector.

    ``spans`` name runs of consecutive pieces (``{"seat_counts": ("hand_sizes",
    "pot_face_down")}``, first and last piece inclusive): an encoder may fill such a run with
    one flat assignment, which is much cheaper than one assignment per small piece.
    """

    def __init__(
        self, pieces: Sequence[Piece], spans: dict[str, tuple[str, str]] | None = None
    ) -> None:
        names = [p.name for p in pieces]
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate observation piece names in {names}")
        self.pieces: tuple[Piece, ...] = tuple(pieces)
        self._slices: dict[str, slice] = {}
        offset = 0
        for piece in self.pieces:
            self._slices[piece.name] = slice(offset, offset + piece.size)
            offset += piece.size
        self.spans: dict[str, slice] = {}
        for span, (first, last) in (spans or {}).items():
            if span in self._slices or first not in self._slices or last not in self._slices:
                raise ValueError(f"span {span!r}: {first!r}..{last!r} must name pieces")
            start, stop = self._slices[first].start, self._slices[last].stop
            if stop <= start:
                raise ValueError(f"span {span!r}: {last!r} comes before {first!r}")
            self.spans[span] = slice(start, stop)
        self.size = offset
        self.low = np.concatenate([np.full(p.size, p.low, np.float32) for p in self.pieces])
        self.high = np.concatenate([np.full(p.size, p.high, np.float32) for p in self.pieces])

    def __getitem__(self, name: str) -> slice:
        """The flat index range of piece ``name``."""
        return self._slices[name]

    def __contains__(self, name: object) -> bool:
        return name in self._slices

    def piece(self, name: str) -> Piece:
        return self.pieces[list(self._slices).index(name)]

    def zeros(self) -> np.ndarray:
        return np.zeros(self.size, dtype=np.float32)

    def space(self) -> spaces.Box:
        return spaces.Box(low=self.low.copy(), high=self.high.copy(), dtype=np.float32)

    def buffer(self) -> ObservationBuffer:
        """A reusable buffer with one writable, pre-shaped view per piece (for encoders)."""
        return ObservationBuffer(self)

    def view(self, observation: np.ndarray) -> dict[str, np.ndarray]:
        """Split a flat observation into named pieces, each in its own shape (read-only use:
        debugging, tests and notebooks)."""
        return {p.name: observation[self._slices[p.name]].reshape(p.dims) for p in self.pieces}

    def table_rows(self) -> list[str]:
        """One docstring row per piece: ``| start-end | name | shape | low..high | doc |``."""
        rows = []
        for piece in self.pieces:
            s = self._slices[piece.name]
            index = f"{s.start}" if piece.size == 1 else f"{s.start}-{s.stop - 1}"
            shape = "x".join(map(str, piece.dims))
            values = f"{_number(piece.low)}..{_number(piece.high)}"
            rows.append(f"| {index} | {piece.name} | {shape} | {values} | {piece.doc} |")
        return rows


def _number(value: float) -> str:
    return f"{value:g}"


class ObservationBuffer:
    """One flat float32 array and a writable view of it per piece, shaped like the piece."""

    def __init__(self, layout: ObservationLayout) -> None:
        self.layout = layout
        self.array = layout.zeros()
        self.views: dict[str, np.ndarray] = {
            p.name: self.array[layout[p.name]].reshape(p.dims) for p in layout.pieces
        }
        for span, where in layout.spans.items():
            self.views[span] = self.array[where]

    def __reduce__(self) -> tuple[type, tuple[ObservationLayout]]:
        # Copies and pickles are rebuilt from the layout: a deep copy of numpy views would
        # no longer share memory with the copied array.
        return (ObservationBuffer, (self.layout,))

    def clear(self) -> dict[str, np.ndarray]:
        """Zero the buffer and return the views to write into."""
        self.array.fill(0.0)
        return self.views

    def snapshot(self) -> np.ndarray:
        """An independent copy of the flat observation written so far."""
        return self.array.copy()


#: The widest range a network input spans per unit (``network_scaler``): a dimension whose
#: bounds are wider (a count of up to 55 cards, a battle total of up to 660) is divided by
#: this, not by its whole range.
NETWORK_MAX_SPAN = 10.0


class ObservationScaler:
    """Affine map of an observation Box: ``(x - low) * scale``, with ``scale = 1 / span``, or
    with ``max_span`` ``1 / min(span, max_span)``.

    Without ``max_span`` the Box maps onto ``[0, 1]`` (the env's ``normalize_observation``
    and every network trained before ``network_scaler``). With it, a dimension whose bounds
    are far wider than the values a game reaches keeps a readable step: at ``1 / 660`` a
    battle total that rises by one moves its input by 0.0015, a change a network of Adam
    steps learns to see only after far more updates than training makes (measured: Iron Man
    against a fixed plan, docs/site/training.md).

    Built from the Box (and ``max_span``) alone, so any two places that build one for the
    same env feed a network identical inputs; checkpoints and exported policies keep the
    arrays they were trained with, and readers accept any of ``known_scalers``. Dimensions
    whose low equals their high map to 0.
    """

    def __init__(self, box: spaces.Box, max_span: float | None = None) -> None:
        if not isinstance(box, spaces.Box):
            raise TypeError(f"ObservationScaler needs a gymnasium Box, got {box!r}")
        low = np.asarray(box.low, dtype=np.float32)
        high = np.asarray(box.high, dtype=np.float32)
        if not (np.isfinite(low).all() and np.isfinite(high).all()):
            raise ValueError("ObservationScaler needs finite Box bounds")
        if max_span is not None and not (math.isfinite(max_span) and max_span > 0):
            raise ValueError(f"max_span must be a finite number above 0, got {max_span!r}")
        span = high - low
        unit = span if max_span is None else np.minimum(span, np.float32(max_span))
        self.offset = low
        self.scale = np.where(span > 0, 1.0 / np.where(span > 0, unit, 1.0), 0.0).astype(np.float32)
        top = 1.0 if max_span is None else np.maximum(span * self.scale, 1.0).astype(np.float32)
        self.space = spaces.Box(0.0, top, low.shape, dtype=np.float32)

    def __call__(self, observation: np.ndarray) -> np.ndarray:
        return ((observation - self.offset) * self.scale).astype(np.float32, copy=False)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, ObservationScaler)
            and np.array_equal(self.offset, other.offset)
            and np.array_equal(self.scale, other.scale)
        )

    __hash__ = None  # type: ignore[assignment]


def network_scaler(box: spaces.Box) -> ObservationScaler:
    """The scaler new networks are trained with: ``max_span=NETWORK_MAX_SPAN``."""
    return ObservationScaler(box, NETWORK_MAX_SPAN)


def known_scalers(box: spaces.Box) -> list[ObservationScaler]:
    """Every scaler a saved network of this Box may have been trained with: the network
    scaler, and the ``[0, 1]`` one of the networks trained before it."""
    return [network_scaler(box), ObservationScaler(box)]


def bounds_digest(box: spaces.Box) -> str:
    """A short fingerprint of ``box``'s bounds, which a saved network records beside its
    scaler (``observation_bounds``): a capped scaler no longer tells bounds of 55 from 40."""
    low = np.ascontiguousarray(box.low, dtype=np.float32)
    high = np.ascontiguousarray(box.high, dtype=np.float32)
    digest = hashlib.sha256(repr(low.shape).encode() + low.tobytes() + high.tobytes())
    return digest.hexdigest()[:16]


def matching_scaler(
    box: spaces.Box, offset: np.ndarray, scale: np.ndarray, bounds: str | None = None
) -> ObservationScaler | None:
    """The scaler of ``box`` whose arrays are ``offset`` and ``scale``, for a network that
    recorded ``bounds`` (``bounds_digest`` of the Box it was trained on): any of
    ``known_scalers`` when they are ``box``'s; without a record (a network saved before
    ``network_scaler``) only the ``[0, 1]`` scaler, whose arrays are the bounds. None: the
    env's bounds changed since the network was trained."""
    if bounds is None:
        candidates = [ObservationScaler(box)]
    elif bounds != bounds_digest(box):
        return None
    else:
        candidates = known_scalers(box)
    for scaler in candidates:
        if np.array_equal(scaler.offset, offset) and np.array_equal(scaler.scale, scale):
            return scaler
    return None
