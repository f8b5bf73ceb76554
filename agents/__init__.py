"""Who plays: random baselines and trained policies, all behind the ``Agent`` protocol.

``MaskablePolicyAgent`` needs the ``train`` extra only when a model is given to it.
"""

from .base import Agent, Observation, legal_actions
from .policy_agent import MaskablePolicyAgent
from .random_agent import RandomAgent

__all__ = ["Agent", "MaskablePolicyAgent", "Observation", "RandomAgent", "legal_actions"]
