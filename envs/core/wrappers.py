"""The wrapper stack ``env()`` applies, PettingZoo classic style.

``RejectMalformedActionWrapper`` takes the place of PettingZoo's ``AssertOutOfBoundsWrapper``:
the same job, but it raises ``IllegalActionError`` naming the value (asserts vanish under
``python -O``). Legal-shaped but illegal actions end the game with -1 for the offender through
PettingZoo's own ``TerminateIllegalWrapper``; ``OrderEnforcingWrapper`` is outermost.

Every layer reads the per-step bookkeeping (``agents``, ``agent_selection``, ``rewards`` ...)
straight from the raw env. PettingZoo resolves those through ``__getattr__``, one hop per
layer, which cost more per step than our games themselves; the subclasses below change
nothing else about PettingZoo's wrappers.
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper, OrderEnforcingWrapper, TerminateIllegalWrapper

from .aec import GameAECEnv, coerce_action
from .errors import IllegalActionError

ILLEGAL_ACTION_REWARD = -1.0

_BOOKKEEPING = (
    "agents",
    "agent_selection",
    "rewards",
    "terminations",
    "truncations",
    "infos",
    "_cumulative_rewards",
)


class _ReadsFromRaw:
    """Mixin: bookkeeping attributes are properties reading ``self._raw`` directly."""

    _raw: GameAECEnv


class _ReadsFromRawAfterReset:
    """As ``_ReadsFromRaw``, but before ``reset()`` defers to OrderEnforcingWrapper's error."""

    _raw: GameAECEnv
    _has_reset: bool


def _direct(name: str) -> property:
    return property(lambda self: getattr(self._raw, name), doc=f"The raw env's ``{name}``.")


def _direct_after_reset(name: str) -> property:
    def read(self: Any) -> Any:
        if not self._has_reset:
            raise AttributeError(name)  # Python then calls __getattr__, which explains
        return getattr(self._raw, name)

    return property(read, doc=f"The raw env's ``{name}`` (after reset).")


for _name in _BOOKKEEPING:
    setattr(_ReadsFromRaw, _name, _direct(_name))
    setattr(_ReadsFromRawAfterReset, _name, _direct_after_reset(_name))


class RejectMalformedActionWrapper(_ReadsFromRaw, BaseWrapper):
    """Raise ``IllegalActionError`` for actions outside the action space before anything else."""

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._raw = env.unwrapped

    def step(self, action: Any) -> None:
        raw = self._raw
        agent = raw.agent_selection
        if raw.agents and not (raw.terminations[agent] or raw.truncations[agent]):
            if action is None:
                raise IllegalActionError(
                    f"{agent} is to act: action None is only for agents whose game is over"
                )
            action = coerce_action(action, raw.num_actions, agent)
        elif raw.agents and action is not None:
            raise IllegalActionError(
                f"the game is over for {agent}: the only valid action is None, got {action!r}"
            )
        super().step(action)


class _TerminateIllegal(_ReadsFromRaw, TerminateIllegalWrapper):
    def __init__(self, env: AECEnv, illegal_reward: float) -> None:
        super().__init__(env, illegal_reward)
        self._raw = env.unwrapped


class _OrderEnforcing(_ReadsFromRawAfterReset, OrderEnforcingWrapper):
    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._raw = env.unwrapped


def wrap(raw: GameAECEnv) -> AECEnv:
    """``raw`` with PettingZoo's standard wrappers: an illegal action ends the game, -1 to
    the offender; a malformed one raises ``IllegalActionError``."""
    env: AECEnv = _TerminateIllegal(raw, illegal_reward=ILLEGAL_ACTION_REWARD)
    env = RejectMalformedActionWrapper(env)
    return _OrderEnforcing(env)
