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


class RejectMalformedActionWrapper(BaseWrapper):
    """Raise ``IllegalActionError`` for actions outside the action space before anything else."""

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.agents and not (self.terminations[agent] or self.truncations[agent]):
            if action is None:
                raise IllegalActionError(
                    f"{agent} is to act: action None is only for agents whose game is over"
                )
            action = coerce_action(action, self.action_space(agent).n, agent)
        super().step(action)


def wrap(raw: GameAECEnv) -> AECEnv:
    """``raw`` with PettingZoo's standard wrappers: an illegal action ends the game, -1 to
    the offender; a malformed one raises ``IllegalActionError``."""
    env: AECEnv = TerminateIllegalWrapper(raw, illegal_reward=ILLEGAL_ACTION_REWARD)
    env = RejectMalformedActionWrapper(env)
    return OrderEnforcingWrapper(env)
