"""Turning whatever a caller passes as an action into an index, strictly (numpy only)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .errors import IllegalActionError


def coerce_action(action: Any, num_actions: int, agent: str) -> int:
    """Return ``action`` as an int in ``[0, num_actions)`` or raise ``IllegalActionError``.

    Accepts Python and numpy integers and 0-d / one-element integer arrays (what SB3's
    ``predict`` returns); refuses bools, floats, strings and None, since silently rounding or
    truthy-casting them would play a move the caller did not mean.
    """
    value = action
    if type(value) is int:  # the common case, first
        index = value
    else:
        if isinstance(value, np.ndarray) and value.size == 1 and value.dtype.kind in "iu":
            value = value.reshape(()).item()
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise IllegalActionError(
                f"action for {agent} must be an integer in 0..{num_actions - 1}, "
                f"got {action!r} ({type(action).__name__})"
            )
        index = int(value)
    if not 0 <= index < num_actions:
        raise IllegalActionError(
            f"action {index} for {agent} is out of range: the action space is "
            f"Discrete({num_actions}), so 0..{num_actions - 1}"
        )
    return index
