"""What an agent is: something that picks a legal action from its own observation dict.

Agents see only ``{"observation", "action_mask"}`` (never the rules state), so the same agent
plays through the AEC API, inside the SB3 bridge, or against a human.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

Observation = dict[str, np.ndarray]


@runtime_checkable
class Agent(Protocol):
    def act(self, observation: Observation) -> int:
        """A legal action (``observation["action_mask"][action] == 1``)."""
        ...


def legal_actions(observation: Observation) -> np.ndarray:
    """Indices of the legal actions; raises ``ValueError`` when there is none."""
    legal = np.flatnonzero(observation["action_mask"])
    if legal.size == 0:
        raise ValueError(
            "no legal action in this observation (all-zero action_mask): "
            "only the agent to act may be asked for an action"
        )
    return legal
