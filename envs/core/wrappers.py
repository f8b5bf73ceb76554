"""The wrapper stack ``env()`` applies, PettingZoo classic style.

``RejectMalformedActionWrapper`` takes the place of PettingZoo's ``AssertOutOfBoundsWrapper``:
the same job, but it raises ``IllegalActionError`` naming the value (asserts vanish under
``python -O``). Legal-shaped but illegal actions end the game with -1 for the offender through
PettingZoo's own ``TerminateIllegalWrapper``.
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper, OrderEnforcingWrapper, TerminateIllegalWrapper

from .aec import GameAECEnv, coerce_action
from .errors import IllegalActionError

ILLEGAL_ACTION_REWARD = -1.0


def _read_from_raw(name: str) -> property:
    return property(lambda self: getattr(self._raw, name), doc=f"The raw env's ``{name}``.")


class RejectMalformedActionWrapper(BaseWrapper):
    """Raise ``IllegalActionError`` for actions outside the action space before anything else.

    It also reads the per-step bookkeeping straight from the raw env: resolving those through
    PettingZoo's ``__getattr__`` chain, one hop per wrapper, cost more than the game itself.
    """

    agents = _read_from_raw("agents")
    agent_selection = _read_from_raw("agent_selection")
    rewards = _read_from_raw("rewards")
    terminations = _read_from_raw("terminations")
    truncations = _read_from_raw("truncations")
    infos = _read_from_raw("infos")
    _cumulative_rewards = _read_from_raw("_cumulative_rewards")

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
        super().step(action)


def wrap(raw: GameAECEnv) -> AECEnv:
    """``raw`` with PettingZoo's standard wrappers: an illegal action ends the game, -1 to
    the offender; a malformed one raises ``IllegalActionError``."""
    env: AECEnv = TerminateIllegalWrapper(raw, illegal_reward=ILLEGAL_ACTION_REWARD)
    env = RejectMalformedActionWrapper(env)
    return OrderEnforcingWrapper(env)
