"""What the vector engines' compiled loops share: an optional JIT and a per-game generator.

Each game's vector rules (``envs/<game>/vector.py``) are plain Python loops over state arrays,
written in the subset of Python that numba compiles. With numba installed (the ``fast`` extra)
``jit`` compiles them (``cache=True``: once per machine, in ``__pycache__``); without it, or with
``CARDARENA_JIT=0`` or numba's own ``NUMBA_DISABLE_JIT=1``, the very same functions run as
Python, slowly, with identical results (a test compares the two).

Randomness: every game slot owns one 64-bit SplitMix64 state (``rng`` arrays of uint64), seeded
from the batch seed and the slot index alone (``slot_seeds``), so a game's cards do not depend
on how many games run beside it. SplitMix64 (Steele, Lea and Flood 2014) passes BigCrush and is
a few instructions; draws below ``n`` use the top 53 bits as a double, exact in Python and
numba alike (bias below 2**-40 for the pile sizes here).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

F = TypeVar("F", bound=Callable[..., Any])

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S11 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(11)
_TO_UNIT = 1.0 / 9007199254740992.0  # 2**-53


def _numba() -> Any:
    if os.environ.get("CARDARENA_JIT", "1") == "0":
        return None
    try:
        import numba
    except ImportError:
        return None
    return numba


_NUMBA = _numba()
#: Whether ``jit`` compiles (numba importable and not switched off).
JIT_ENABLED = _NUMBA is not None and os.environ.get("NUMBA_DISABLE_JIT", "0") != "1"


def jit(function: F) -> F:
    """Compile ``function`` with numba (nopython, cached) when available; else return it."""
    if _NUMBA is None:
        return function
    return _NUMBA.njit(cache=True, nogil=True)(function)


@jit
def rng_next(rng: np.ndarray, slot: int) -> np.uint64:
    """The next 64 random bits of game ``slot``'s SplitMix64 stream (advances ``rng[slot]``)."""
    z = rng[slot] + _GOLDEN
    rng[slot] = z
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@jit
def rng_below(rng: np.ndarray, slot: int, n: int) -> int:
    """A uniform integer in ``[0, n)`` from game ``slot``'s stream (``n >= 1``)."""
    unit = float(rng_next(rng, slot) >> _S11) * _TO_UNIT
    return int(unit * n)


@jit
def rng_shuffle(rng: np.ndarray, slot: int, values: np.ndarray, count: int) -> None:
    """Fisher-Yates shuffle of ``values[:count]`` in place with game ``slot``'s stream."""
    for i in range(count - 1, 0, -1):
        j = rng_below(rng, slot, i + 1)
        values[i], values[j] = values[j], values[i]


def _splitmix(values: np.ndarray) -> np.ndarray:
    z = values + _GOLDEN
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


def slot_seeds(seed: int, slots: np.ndarray) -> np.ndarray:
    """One generator state per game slot, from ``seed`` (any non-negative int) and the slot
    indices alone: ``slot_seeds(s, [k])`` is the same in every batch that has slot ``k``.

    ``splitmix(k ^ splitmix(h))``, ``h`` the seed's 64-bit hash: one-to-one in the slot for a
    seed and in the hash for a slot, so slot ``k`` of two seeds never starts the same game
    (unless their hashes collide). An earlier form mixed the slot into the hash twice and
    cancelled it at slot 0, which then dealt the same game under every seed."""
    base = np.random.SeedSequence(seed).generate_state(1, np.uint64)[0]
    slots = np.asarray(slots, np.uint64)
    with np.errstate(over="ignore"):
        return _splitmix(slots ^ _splitmix(np.full(slots.shape, base, np.uint64)))


def generator_of(rng: np.ndarray, slot: int) -> np.random.Generator:
    """A numpy ``Generator`` derived from game ``slot``'s stream, for the reference rules state
    ``state_of`` returns (its future chance then differs from the batch's; tests compare the
    reshuffled piles as multisets)."""
    return np.random.Generator(np.random.PCG64(int(rng[slot])))


@jit
def random_legal_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniform legal action per row of bool ``masks [N, A]`` (0 in a row with none),
    drawn from the numpy ``rng``'s uniforms (one per row), so the same generator state gives
    the same actions with or without the JIT."""
    n, width = masks.shape
    out = np.zeros(n, np.int64)
    uniforms = rng.random(size=(n,))
    for i in range(n):
        count = 0
        for a in range(width):
            count += masks[i, a]
        if count == 0:
            continue
        target = int(uniforms[i] * count)
        for a in range(width):
            if masks[i, a]:
                if target == 0:
                    out[i] = a
                    break
                target -= 1
    return out


@jit
def checked_actions(
    actions: np.ndarray, masks: np.ndarray, done: np.ndarray, out: np.ndarray
) -> int:
    """Copy ``actions`` into int64 ``out`` (0 where ``done``, whose action is ignored); the
    first game whose action is out of range or not in its mask row, or -1 if none is."""
    width = masks.shape[1]
    for i in range(actions.shape[0]):
        if done[i]:
            out[i] = 0
            continue
        action = actions[i]
        if action < 0 or action >= width or not masks[i, action]:
            return i
        out[i] = action
    return -1


@jit
def best_actions(scores: np.ndarray, uniforms: np.ndarray, tolerance: float) -> np.ndarray:
    """Per row of float ``scores [M, A]``, the action with the highest score; scores within
    ``tolerance`` of the best tie, and ``uniforms[i]`` (in [0, 1)) picks among row ``i``'s ties
    uniformly. ``-inf`` marks actions that are not candidates."""
    rows, width = scores.shape
    out = np.zeros(rows, np.int64)
    for i in range(rows):
        best = -np.inf
        for a in range(width):
            if scores[i, a] > best:
                best = scores[i, a]
        if best == -np.inf:
            continue
        ties = 0
        for a in range(width):
            if scores[i, a] >= best - tolerance:
                ties += 1
        target = int(uniforms[i] * ties)
        for a in range(width):
            if scores[i, a] >= best - tolerance:
                if target == 0:
                    out[i] = a
                    break
                target -= 1
    return out
