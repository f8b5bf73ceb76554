"""Small validators shared by every game's config and reset-option parsing.

Each raises ``InvalidConfigError`` naming the key, the bad value and what was allowed, so a
typo in a research script fails at once instead of silently playing a different game.

Configs also arrive in files other people wrote (checkpoints, records, tournament specs), so
validation has a bounded cost: a value is quoted in a message through ``show`` (short, never
fails, even for a 5,000-digit integer), a list given as config or reset option holds at most
``MAX_SEQUENCE_LENGTH`` entries (checked before any entry is), and ``bounded_config`` puts
an upper limit on every config value that sizes an allocation (decks, hands, powers) before
the game's own ``make_game`` sees it; each game lists its limits in its env module.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

import numpy as np

from .errors import InvalidConfigError
from .untrusted import show

#: Most entries in one list given as a config value or reset option (a deck, a hand, a
#: draw pile). The largest any game needs is a Cardline draw pile: at most 2,000 cards.
MAX_SEQUENCE_LENGTH = 10_000
#: Largest turn, trick or round cap (``max_turns`` ...): it is an observation bound, and
#: float32 holds every integer up to 2**24 exactly.
MAX_TURN_CAP = 1_000_000
#: Why a cap is bounded, for ``check_at_most`` messages.
CAP_REASON = "it is an observation bound, exact in float32"

_Build = TypeVar("_Build", bound=Callable[..., Any])


def check_known_keys(given: Mapping[str, Any], allowed: Iterable[str], what: str) -> None:
    """Reject keys that are not in ``allowed`` (``what`` names the mapping, e.g. "reset option")."""
    allowed = tuple(allowed)
    unknown = sorted(show(k) for k in given if k not in allowed)
    if unknown:
        raise InvalidConfigError(
            f"unknown {what} {', '.join(unknown[:20])}; allowed: {', '.join(map(repr, allowed))}"
        )


def check_int(value: Any, key: str, low: int, high: int | None = None) -> int:
    """Return ``value`` as int if it is an integer (not bool) in ``[low, high]``."""
    try:
        if isinstance(value, bool):
            raise TypeError
        number = int(value.__index__())
    except (AttributeError, TypeError):
        raise InvalidConfigError(
            f"{key} must be an integer, got {show(value)} ({type(value).__name__})"
        ) from None
    if number < low or (high is not None and number > high):
        bounds = f">= {low}" if high is None else f"in {low}..{high}"
        raise InvalidConfigError(f"{key} must be {bounds}, got {show(number)}")
    return number


def check_choice(value: Any, key: str, choices: Iterable[Any]) -> Any:
    """Return ``value`` if it is one of ``choices``."""
    choices = tuple(choices)
    if value not in choices:
        raise InvalidConfigError(
            f"{key} must be one of {', '.join(map(repr, choices))}, got {show(value)}"
        )
    return value


def is_sequence(value: Any) -> bool:
    """A list, tuple or 1-D numpy array (strings and dicts are not sequences here)."""
    return isinstance(value, (list, tuple)) or (isinstance(value, np.ndarray) and value.ndim == 1)


def check_sequence(value: Any, key: str, max_length: int = MAX_SEQUENCE_LENGTH) -> list[Any]:
    """Return ``value`` as a list if it is a list, tuple or 1-D numpy array of at most
    ``max_length`` entries (checked before the entries are copied or validated)."""
    if not (
        isinstance(value, (list, tuple)) or (isinstance(value, np.ndarray) and value.ndim == 1)
    ):
        raise InvalidConfigError(
            f"{key} must be a list, got {show(value)} ({type(value).__name__})"
        )
    if len(value) > max_length:
        raise InvalidConfigError(
            f"{key} holds {len(value):,} entries; at most {max_length:,} are accepted"
        )
    return value.tolist() if isinstance(value, np.ndarray) else list(value)


def check_at_most(value: Any, key: str, high: int, why: str = "it sizes the game's arrays") -> None:
    """Refuse an integer ``value`` above ``high``; anything else is left to the full check
    (``check_int`` in the game's ``make_game``), which names its own allowed range."""
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        return
    try:
        number = int(value.__index__())
    except TypeError:
        return
    if number > high:
        raise InvalidConfigError(
            f"{key} is {show(number)}; at most {high:,} is accepted ({why}; see the env's Limits)"
        )


def bounded_config(make_game: _Build, check: Callable[[dict[str, Any]], None]) -> _Build:
    """``make_game`` with ``check(config)`` run first on the keyword config it is given.

    ``check`` refuses values too large to allocate for (``InvalidConfigError``) before
    ``make_game`` builds anything. The result keeps ``make_game``'s signature, so the env's
    list of allowed config keys is unchanged.
    """
    signature = inspect.signature(make_game)

    @functools.wraps(make_game)
    def build(*args: Any, **kwargs: Any) -> Any:
        try:
            config = dict(signature.bind(*args, **kwargs).arguments)
        except TypeError:
            return make_game(*args, **kwargs)  # let make_game word the error
        check(config)
        return make_game(*args, **kwargs)

    return build  # type: ignore[return-value]


def check_bool(value: Any, key: str) -> bool:
    """Return ``value`` as bool if it is a bool (numpy's included); 0, 1 and "yes" are refused,
    so a flag never flips on by accident."""
    if not isinstance(value, (bool, np.bool_)):
        raise InvalidConfigError(f"{key} must be True or False, got {show(value)}")
    return bool(value)
