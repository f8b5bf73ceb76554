"""How agents get better: the SB3 bridge, evaluation, match records, tournaments with ratings,
replays, checkpoints, the ``cardarena`` command and the demo training job.

Everything here needs only the core dependencies except training itself (the ``train`` extra:
stable-baselines3, sb3-contrib, torch) and heat maps (the ``plot`` extra). Importing this
package registers every env's single-agent bridge with Gymnasium as
``cardarena/<game>-single-v<N>``.
"""

from .checkpoint import Checkpoint, load_checkpoint, save_checkpoint
from .evaluate import GameRecord, MatchResult, evaluate, play_game
from .gym_registration import GYM_IDS, gym_id
from .records import MatchRecord, play_match, read_records, write_records
from .replay import ReplayError, ReplayStep, replay
from .single_agent import SingleAgentEnv
from .stats import bradley_terry, wilson_interval
from .tournament import PairStats, TournamentResult, run_tournament

__all__ = [
    "GYM_IDS",
    "Checkpoint",
    "GameRecord",
    "MatchRecord",
    "MatchResult",
    "PairStats",
    "ReplayError",
    "ReplayStep",
    "SingleAgentEnv",
    "TournamentResult",
    "bradley_terry",
    "evaluate",
    "gym_id",
    "load_checkpoint",
    "play_game",
    "play_match",
    "read_records",
    "replay",
    "run_tournament",
    "save_checkpoint",
    "wilson_interval",
    "write_records",
]
