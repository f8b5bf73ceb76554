"""Reset-option parsing shared by every game (C-6, envs/rulebooks/common.md).

Each game lists its own option keys and validates their values; what is common lives here:
unknown keys warn instead of raising (PettingZoo's ``api_test`` probes
``reset(options={"options": 1})`` and must pass), and per-player options must cover every
player, given either in seat order or keyed by agent name.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from .errors import InvalidConfigError
from .untrusted import show

# Frames from these modules are skipped when pointing a warning at its cause, so it names the
# user's reset() call rather than the game or wrapper that passed the options along.
_INTERNAL_MODULES = ("cardarena.", "pettingzoo.utils.")


def per_player(value: Any, key: str, agent_names: Sequence[str]) -> list[Any]:
    """Return one entry per seat, in seat order, from a list/tuple or a dict keyed by agent.

    ``key`` names the option in messages (e.g. ``"options['hands']"``). A dict must name every
    agent (C-6: options cover every player) and nothing else, so a misspelt agent fails at once.
    Entries are returned as given; each game validates them.
    """
    agents = ", ".join(map(repr, agent_names))
    if isinstance(value, (list, tuple)):
        if len(value) != len(agent_names):
            raise InvalidConfigError(
                f"{key} must have one entry per player ({len(agent_names)}: {agents}), "
                f"got {len(value)}: {show(value)}"
            )
        return list(value)
    if isinstance(value, Mapping):
        unknown = [name for name in value if name not in agent_names]
        if unknown:
            raise InvalidConfigError(
                f"{key} has unknown agent(s) {', '.join(map(show, unknown[:20]))}; agents: {agents}"
            )
        missing = [name for name in agent_names if name not in value]
        if missing:
            raise InvalidConfigError(
                f"{key} must cover every player: missing {', '.join(map(repr, missing))} "
                f"(agents: {agents})"
            )
        return [value[name] for name in agent_names]
    raise InvalidConfigError(
        f"{key} must be a list with one entry per player in seat order ({agents}) or a dict "
        f"agent -> entry, got {show(value)} ({type(value).__name__})"
    )


def check_reset_options(options: Any, allowed: Sequence[str]) -> dict[str, Any]:
    """Return the known reset options as a new dict; ``None`` means no options.

    A non-dict raises ``InvalidConfigError``. Unknown keys are dropped with a ``UserWarning``
    naming them and the allowed keys (C-6), pointed at the caller's ``reset`` line. Values are
    returned unchanged: each game validates its own.
    """
    if options is None:
        return {}
    allowed_text = ", ".join(map(repr, allowed)) or "none"
    if not isinstance(options, Mapping):
        raise InvalidConfigError(
            f"reset options must be a dict, got {show(options)} ({type(options).__name__}); "
            f"allowed keys: {allowed_text}"
        )
    unknown = [key for key in options if key not in allowed]
    if unknown:
        warnings.warn(
            f"ignoring unknown reset option(s) {', '.join(map(show, unknown[:20]))}; "
            f"allowed: {allowed_text}",
            UserWarning,
            stacklevel=_caller_stacklevel(),
        )
    return {key: value for key, value in options.items() if key in allowed}


def _caller_stacklevel() -> int:
    """``stacklevel`` for a warning raised in our caller: the first frame outside cardarena."""
    frame = inspect.currentframe()
    # Level 1 is the function that calls warnings.warn, i.e. our caller.
    frame = frame.f_back if frame is not None else None
    level = 1
    while frame is not None and frame.f_globals.get("__name__", "").startswith(_INTERNAL_MODULES):
        frame = frame.f_back
        level += 1
    return level if frame is not None else 1
