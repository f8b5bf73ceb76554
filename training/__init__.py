"""How agents get better: the SB3 bridge, evaluation, and the demo training job.

``SingleAgentEnv`` and ``evaluate`` need only the core dependencies; training itself needs
the ``train`` extra (stable-baselines3, sb3-contrib, torch).
"""

from .evaluate import GameRecord, MatchResult, evaluate, play_game
from .single_agent import SingleAgentEnv

__all__ = ["GameRecord", "MatchResult", "SingleAgentEnv", "evaluate", "play_game"]
