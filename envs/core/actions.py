"""Turning whatever a caller passes as an action into an index, strictly (numpy only).

One rule for every front (``raw_env``/``env()``, ``make_vec``, the Gymnasium and SB3
wrappers, the web API): an action is an *integer*, a Python ``int`` or a numpy integer of
any width (a 0-d or one-element integer array too, what SB3's ``predict`` returns), played
if it is legal. Bools (``True`` is not action 1), floats (even a whole ``1.0``), strings and
None are refused with ``IllegalActionError``, since rounding or truthy-casting them would
play a move the caller did not mean; so is an integer out of ``0..num_actions - 1``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import IllegalActionError


def integer_value(action: Any) -> int | None:
    """``action`` as a Python int if it is an integer under the module's rule (a Python or
    numpy integer, a 0-d or one-element integer array), else None."""
    if type(action) is int:  # the common case, first
        return action
    value = action
    if isinstance(value, np.ndarray) and value.size == 1 and value.dtype.kind in "iu":
        value = value.reshape(()).item()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        return None
    return int(value)


def coerce_action(action: Any, num_actions: int, agent: str) -> int:
    """Return ``action`` as an int in ``[0, num_actions)`` or raise ``IllegalActionError``
    (the module's rule: integers only, never bools, floats, strings or None)."""
    index = action if type(action) is int else integer_value(action)
    if index is None:
        raise IllegalActionError(
            f"action for {agent} must be an integer in 0..{num_actions - 1}, "
            f"got {action!r} ({type(action).__name__})"
        )
    if not 0 <= index < num_actions:
        raise IllegalActionError(
            f"action {index} for {agent} is out of range: the action space is "
            f"Discrete({num_actions}), so 0..{num_actions - 1}"
        )
    return index
