"""Small validators shared by every game's config and reset-option parsing.

Each raises ``InvalidConfigError`` naming the key, the bad value and what was allowed, so a
typo in a research script fails at once instead of silently playing a different game.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from .errors import InvalidConfigError


def check_known_keys(given: Mapping[str, Any], allowed: Iterable[str], what: str) -> None:
    """Reject keys that are not in ``allowed`` (``what`` names the mapping, e.g. "reset option")."""
    allowed = tuple(allowed)
    unknown = sorted(str(k) for k in given if k not in allowed)
    if unknown:
        raise InvalidConfigError(
            f"unknown {what} {', '.join(map(repr, unknown))}; "
            f"allowed: {', '.join(map(repr, allowed))}"
        )


def check_int(value: Any, key: str, low: int, high: int | None = None) -> int:
    """Return ``value`` as int if it is an integer (not bool) in ``[low, high]``."""
    try:
        if isinstance(value, bool):
            raise TypeError
        number = int(value.__index__())
    except (AttributeError, TypeError):
        raise InvalidConfigError(
            f"{key} must be an integer, got {value!r} ({type(value).__name__})"
        ) from None
    if number < low or (high is not None and number > high):
        bounds = f">= {low}" if high is None else f"in {low}..{high}"
        raise InvalidConfigError(f"{key} must be {bounds}, got {number}")
    return number


def check_choice(value: Any, key: str, choices: Iterable[Any]) -> Any:
    """Return ``value`` if it is one of ``choices``."""
    choices = tuple(choices)
    if value not in choices:
        raise InvalidConfigError(
            f"{key} must be one of {', '.join(map(repr, choices))}, got {value!r}"
        )
    return value


def is_sequence(value: Any) -> bool:
    """A list, tuple or 1-D numpy array (strings and dicts are not sequences here)."""
    return isinstance(value, (list, tuple)) or (isinstance(value, np.ndarray) and value.ndim == 1)


def check_sequence(value: Any, key: str) -> list[Any]:
    """Return ``value`` as a list if it is a list, tuple or 1-D numpy array."""
    if isinstance(value, np.ndarray) and value.ndim == 1:
        return value.tolist()
    if not isinstance(value, (list, tuple)):
        raise InvalidConfigError(f"{key} must be a list, got {value!r} ({type(value).__name__})")
    return list(value)
