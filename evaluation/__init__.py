"""How agents are measured: games between agents, match records and their replays,
tournaments with ratings, and the statistics behind them (win rates, intervals, ratings).

``evaluate`` plays one agent against another; ``evaluate_vector`` does it on the vector
engine. ``records`` writes each game as a self-describing JSON line that ``replay`` replays
move by move without any agent. ``tournament`` (and ``tournament_vector`` on the vector
engine) plays round robins, ``tournament_results`` turns their games into pair statistics and
ratings, and ``stats`` holds the Wilson interval and Bradley-Terry ratings. Everything here
needs only the core dependencies (heat maps: the ``plot`` extra).
"""

from __future__ import annotations

from .evaluate import GameRecord, MatchResult, evaluate, play_game
from .records import MatchRecord, play_match, read_records, write_records
from .replay import ReplayError, ReplayStep, replay
from .stats import bradley_terry, wilson_interval
from .tournament import PairStats, TournamentResult, run_tournament

__all__ = [
    "GameRecord",
    "MatchRecord",
    "MatchResult",
    "PairStats",
    "ReplayError",
    "ReplayStep",
    "TournamentResult",
    "bradley_terry",
    "evaluate",
    "play_game",
    "play_match",
    "read_records",
    "replay",
    "run_tournament",
    "wilson_interval",
    "write_records",
]
