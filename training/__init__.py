"""How agents get better: the SB3 bridge, evaluation, and the demo training job.

``SingleAgentEnv`` and ``evaluate`` need only the core dependencies; training itself needs
the ``train`` extra (stable-baselines3, sb3-contrib, torch).
"""

from .evaluate import GameRecord, MatchResult, evaluate, play_game
from .single_agent import SingleAgentEnv

__all__ = ["GameRecord", "MatchResult", "SingleAgentEnv", "evaluate", "play_game"]

# Match records, tournaments with ratings, and replays (core dependencies only; heat maps need
# the ``plot`` extra).
from .records import MatchRecord, play_match, read_records, write_records
from .replay import ReplayError, ReplayStep, replay
from .stats import bradley_terry, wilson_interval
from .tournament import PairStats, TournamentResult, run_tournament

__all__ += [
    "MatchRecord",
    "PairStats",
    "ReplayError",
    "ReplayStep",
    "TournamentResult",
    "bradley_terry",
    "play_match",
    "read_records",
    "replay",
    "run_tournament",
    "wilson_interval",
    "write_records",
]
