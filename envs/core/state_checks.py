"""Cheap checks of a rules state that came from outside, before ``set_state`` loads it.

``GameAECEnv.set_state`` and ``BatchEnv.set_state`` continue a game from a state somebody else
built or edited (search, tests, a saved position). The rules trust their own states and index
with them, so a tampered one fails far from its cause (a bare ``IndexError`` several steps
later) or, worse, plays on silently with cards that do not exist. ``check_loaded_state`` is
the one gate both call: the game's own ``check_state()`` (beside its state in ``rules.py``:
field types, shapes, ranges and the conservation of cards), then what every game answers the
same way (who acts, the mask, the returns). Every check is O(state size) numpy or list work,
never a replay, and refuses with ``InvalidConfigError`` naming the field, the bad value and
what was allowed. Nothing here changes the state.

The helpers below are what a ``check_state`` is written with; numpy and the standard library
only, so the pure rules may import them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any, NoReturn

import numpy as np

from .errors import CardArenaError, InvalidConfigError
from .game import NO_PLAYER
from .untrusted import show


def refuse(field: str, value: Any, allowed: str) -> NoReturn:
    """Raise the one error of a state check: ``state.<field> is <value>; <allowed>``."""
    raise InvalidConfigError(f"state.{field} is {show(value)}; {allowed}")


def _is_int(value: Any) -> bool:
    return type(value) is int or (
        isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
    )


def field_int(value: Any, field: str, low: int, high: int) -> int:
    """``value`` as an int if it is an integer (not a bool) in ``low..high``."""
    if not _is_int(value):
        refuse(field, value, f"must be an integer in {low}..{high}")
    number = int(value)
    if not low <= number <= high:
        refuse(field, number, f"allowed: {low}..{high}")
    return number


def field_flag(value: Any, field: str) -> bool:
    """``value`` as a bool if it is one (numpy's included); 0 and 1 are refused."""
    if not isinstance(value, (bool, np.bool_)):
        refuse(field, value, "must be True or False")
    return bool(value)


def field_list(
    value: Any, field: str, length: int | None = None, max_length: int | None = None
) -> list[Any]:
    """``value`` if it is a list (what the rules mutate in place) of ``length`` entries, or
    of at most ``max_length`` when that is given."""
    if type(value) is not list:
        refuse(field, value, f"must be a list, not {type(value).__name__}")
    if length is not None and len(value) != length:
        refuse(field, value, f"must hold {length} entries, not {len(value)}")
    if max_length is not None and len(value) > max_length:
        refuse(field, value, f"holds {len(value)} entries; at most {max_length} are allowed")
    return value


def field_ints(
    value: Any,
    field: str,
    low: int,
    high: int,
    length: int | None = None,
    max_length: int | None = None,
) -> list[int]:
    """``value`` if it is a list (sized as ``field_list`` says) of integers in ``low..high``."""
    items = field_list(value, field, length, max_length)
    if not all(type(item) is int for item in items):
        for index, item in enumerate(items):
            if not _is_int(item):
                refuse(f"{field}[{index}]", item, f"must be an integer in {low}..{high}")
    if items and (min(items) < low or max(items) > high):
        index = next(i for i, item in enumerate(items) if not low <= item <= high)
        refuse(f"{field}[{index}]", items[index], f"allowed: {low}..{high}")
    return items


def field_flags(value: Any, field: str, length: int) -> list[bool]:
    """``value`` if it is a list of ``length`` bools."""
    items = field_list(value, field, length)
    for index, item in enumerate(items):
        field_flag(item, f"{field}[{index}]")
    return items


def field_array(
    value: Any,
    field: str,
    dtype: type | np.dtype,
    shape: tuple[int, ...],
    low: int | float | None = None,
    high: int | float | None = None,
) -> np.ndarray:
    """``value`` if it is a numpy array of exactly ``dtype`` and ``shape`` whose entries lie in
    ``low..high`` (either bound may be None)."""
    if not isinstance(value, np.ndarray):
        refuse(field, value, f"must be a numpy array of {np.dtype(dtype)}, shape {shape}")
    if value.dtype != np.dtype(dtype):
        refuse(field, value, f"must have dtype {np.dtype(dtype)}, not {value.dtype}")
    if value.shape != shape:
        refuse(field, value, f"must have shape {shape}, not {value.shape}")
    if value.size and (low is not None or high is not None):
        bad = np.zeros(value.shape, dtype=bool)
        if low is not None:
            bad |= value < low
        if high is not None:
            bad |= value > high
        if value.dtype.kind == "f":
            bad |= ~np.isfinite(value)
        if bad.any():
            where = tuple(int(i) for i in np.argwhere(bad)[0])
            index = "".join(f"[{i}]" for i in where)
            allowed = f"{'-inf' if low is None else low}..{'inf' if high is None else high}"
            refuse(f"{field}{index}", value[where].item(), f"allowed: {allowed}")
    return value


def field_generator(value: Any, field: str) -> None:
    """The state's random generator: later reshuffles draw from it."""
    if not isinstance(value, np.random.Generator):
        refuse(field, value, "must be a numpy.random.Generator")


def field_events(state: Any) -> None:
    """The opt-in event log (``core.events``): None or a list."""
    events = getattr(state, "events", None)
    if events is not None and type(events) is not list:
        refuse("events", events, "must be None (not recording) or a list of events")


def field_same(value: Any, field: str, expected: Any, why: str) -> None:
    """Refuse ``value`` unless it equals ``expected`` (``why`` says where that comes from)."""
    if isinstance(value, np.ndarray) or isinstance(expected, np.ndarray):
        same = np.array_equal(value, expected)
    else:
        same = value == expected
    if not same:
        refuse(field, value, f"must be {show(expected)} ({why})")


def field_distinct(items: Iterable[int], field: str, what: str = "entry") -> None:
    """Refuse a repeated entry (a seat listed twice, a character picked twice)."""
    seen: set[int] = set()
    for index, item in enumerate(items):
        if item in seen:
            refuse(f"{field}[{index}]", item, f"repeats an earlier {what}; each appears once")
        seen.add(item)


def check_loaded_state(state: Any) -> None:
    """Refuse ``state`` (``InvalidConfigError``) if its rules could not have reached it, as far
    as cheap checks can tell; the caller has already checked that it is of the right game.

    Runs the state's own ``check_state()`` (a game without one gets only the generic checks),
    then the protocol every game shares. A state so broken that its own rules cannot read it
    (a missing attribute, an index out of range) is refused the same way, never with a bare
    ``AttributeError``/``IndexError`` from deep inside the rules.
    """
    try:
        own_check = getattr(state, "check_state", None)
        if own_check is not None:
            own_check()
        _check_protocol(state)
    except CardArenaError:
        raise
    except (AttributeError, IndexError, KeyError, TypeError, ValueError) as error:
        raise InvalidConfigError(
            f"the state cannot be read by its own rules ({type(error).__name__}: "
            f"{show(str(error), 200)}); set_state takes states the rules reached"
        ) from None


def _check_protocol(state: Any) -> None:
    """What every ``GameState`` answers the same way: over means nobody acts and only then
    returns are paid; otherwise a seat acts and has at least one legal action."""
    game = state.game
    players = len(game.agent_names)
    terminal = field_flag(state.is_terminal(), "is_terminal()")
    truncated = field_flag(state.is_truncated(), "is_truncated()")
    if terminal and truncated:
        refuse("truncated", truncated, "a terminal game is not also truncated (C-5)")
    returns = state.returns()
    if not isinstance(returns, tuple) or len(returns) != players:
        refuse("_returns", returns, f"must be a tuple of {players} floats, one per seat")
    for seat, value in enumerate(returns):
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            refuse(f"_returns[{seat}]", value, "must be a float")
        if not math.isfinite(value):
            refuse(f"_returns[{seat}]", value, "must be finite")
    if not terminal and any(returns):
        refuse("_returns", returns, "must be all zeros until the game is terminal")
    seat = state.current_player()
    if terminal or truncated:
        if seat != NO_PLAYER:
            refuse("current_player()", seat, f"must be NO_PLAYER ({NO_PLAYER}): the game is over")
        return
    field_int(seat, "current_player()", 0, players - 1)
    mask = state.legal_action_mask()
    actions = int(game.num_actions)
    if not isinstance(mask, np.ndarray) or mask.dtype != np.bool_ or mask.shape != (actions,):
        refuse("legal_action_mask()", mask, f"must be a bool array of shape ({actions},)")
    if not mask.any():
        refuse(
            "legal_action_mask()",
            "no legal action",
            f"the seat to act ({game.agent_names[seat]}) must have at least one (C-2)",
        )


__all__ = [
    "check_loaded_state",
    "field_array",
    "field_distinct",
    "field_events",
    "field_flag",
    "field_flags",
    "field_generator",
    "field_int",
    "field_ints",
    "field_list",
    "field_same",
    "refuse",
]
