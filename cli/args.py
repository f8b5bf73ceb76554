"""The flags of the ``cardarena`` subcommands other than ``train`` (``TrainArgs``, the training
config in ``training.train_args``) and ``bench`` (``BenchArgs``, with the benchmarks): one
documented dataclass per subcommand, from which ``training.schema.add_dataclass_arguments``
generates its flags. A class's first docstring line is the subcommand's one-line help, the
whole docstring its description.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from cardarena.training.exploit import DEFAULT_GAMES, EVAL_GAMES, EVALUATIONS, STARTS
from cardarena.training.schema import Number, meta

#: What the commands' numeric flags allow (checked by argparse, and again in the commands).
SEED = Number(int, 0, 2**64 - 1)
GAMES = Number(int, 1, 1_000_000)
JOBS = Number(int, 1, 256)
GAME_INDEX = Number(int, 0, 10**9)
MIN_STEP = Number(int, 0, 10**15)
PORT = Number(int, 0, 65535)
MAX_GAMES = Number(int, 1, 100_000)
IDLE_MINUTES = Number(float, 0.1, 10_080)
WORKERS = Number(int, 1, 64)
THINK_SECONDS = Number(float, 0.01, 3600)
STEPS = Number(int, 1, 10**12)
TRAIN_SEED = Number(int, 0, 2**32 - 1)
EVALS = Number(int, 1, 1000)
ENVS_RULE = Number(int, 1, 1 << 16)
PLAYERS = Number(int, 2, 64)


@dataclass
class ListArgs:
    """the envs, their players and games"""


@dataclass
class PlayArgs:
    """play an env yourself at the terminal"""

    env: str = field(metadata=meta(positional=True))
    """Env name, e.g. promise_war_v0 (see ``cardarena list``)."""
    vs: str = "random"
    """Agent spec for every other seat."""
    seat: str | None = None
    """Your seat (default: the first)."""
    seed: int | None = field(default=None, metadata=meta(rule=SEED, metavar="S"))
    """Seed of the deal (default: a fresh deal; the seed is printed so it can be dealt again)."""
    record: str | None = None
    """Append the game to this JSON-lines file."""
    config: list[str] | None = field(default=None, metadata=meta(nargs="*", metavar="KEY=VALUE"))
    """Env config."""


@dataclass
class RulesArgs:
    """print the rules of an env as implemented (envs/rulebooks/ENV.md)"""

    env: str = field(metadata=meta(positional=True))
    """Env name (see ``cardarena list``), or ``common`` for the rules all games share."""
    short: bool = False
    """Only the rules in short (what ``?`` prints at the play prompt)."""


@dataclass
class ServeArgs:
    """play in a browser: a web table for every env (extra 'web')"""

    host: str = "127.0.0.1"
    """Address to listen on (the default serves this machine only)."""
    port: int = field(default=8000, metadata=meta(rule=PORT, metavar="P"))
    """Port to listen on (0: a free one, printed)."""
    vs: str = "heuristic"
    """Default agent spec for every other seat (a page may ask for another)."""
    max_games: int = field(default=200, metadata=meta(rule=MAX_GAMES, metavar="N"))
    """Games kept at once; the longest idle one makes room for a new one."""
    idle_minutes: float = field(default=30.0, metadata=meta(rule=IDLE_MINUTES, metavar="M"))
    """A game untouched this long is forgotten."""
    allowed_host: list[str] | None = field(default=None, metadata=meta(metavar="NAME"))
    """A host name the server answers to besides 127.0.0.1, localhost, [::1] and --host
    (the name people type to reach it; any other Host header is refused)."""
    deck: list[str] | None = field(default=None, metadata=meta(metavar="NAME=PATH"))
    """Serve a deck or characters file (CSV or JSON) by name: read now, a page then asks for
    it with config {"deck": "NAME"} (requests never name files)."""
    workers: int = field(default=2, metadata=meta(rule=WORKERS, metavar="N"))
    """Threads for the opponents' turns; more requests wait for one."""
    think_seconds: float = field(default=1.0, metadata=meta(rule=THINK_SECONDS, metavar="S"))
    """Most seconds a search opponent (ismcts) thinks about one move."""


@dataclass
class EvalArgs:
    """round-robin tournament of agents, with ratings"""

    env: str = field(metadata=meta(positional=True))
    """Env name."""
    agents: list[str] = field(metadata=meta(positional=True, nargs="+"))
    """Agent specs, e.g. random heuristic."""
    games: int = field(default=100, metadata=meta(rule=GAMES, metavar="N"))
    """Games per pairing (per group of agents at the table in multi-player envs)."""
    jobs: int = field(default=1, metadata=meta(rule=JOBS, metavar="J"))
    """Worker processes."""
    seed: int = field(default=0, metadata=meta(rule=SEED, metavar="S"))
    """First game's seed."""
    out: str | None = None
    """Folder for results.json, games.jsonl (not with --vector), win_rates.png."""
    config: list[str] | None = field(default=None, metadata=meta(nargs="*", metavar="KEY=VALUE"))
    """Env config."""
    quiet: bool = False
    """No progress bar."""
    vector: bool = False
    """Play each pairing's games side by side on the vector engine (--jobs: pairings in
    parallel; every agent needs a vector form; records without actions)."""
    # Last: below this line the name ``field`` is this attribute, not dataclasses.field.
    field: str | None = field(default=None, metadata=meta(metavar="SPEC"))
    """Play each listed agent alone against SPEC in every other seat, seats rotated, on the
    vector engine; prints each agent's win/draw/loss with the 95% interval of its win share
    (--games N per agent; --out: field.json)."""


@dataclass
class ReplayArgs:
    """replay a recorded game step by step"""

    file: str = field(metadata=meta(positional=True))
    """JSON-lines file of match records."""
    game: int = field(default=0, metadata=meta(rule=GAME_INDEX, metavar="K"))
    """Which game in the file (0-based)."""
    step: bool = False
    """Wait for enter after each step."""
    any_version: bool = False
    """Replay a record written by another cardarena version (may fail at any step)."""


@dataclass
class ExportArgs:
    """a checkpoint's policy as a small numpy-only file (pretrained:path=...)"""

    checkpoint: Path = field(metadata=meta(positional=True))
    """Checkpoint folder (runs/ENV/latest; a run folder means its latest), or a run with
    --best."""
    out: Path = field(metadata=meta(positional=True))
    """The .npz file to write."""
    best: str | None = field(
        default=None, metadata=meta(choices=("random", "heuristic"), metavar="OPPONENT")
    )
    """CHECKPOINT is a ``cardarena train --out`` folder: export the checkpoint whose periodic
    evaluation against OPPONENT (random or heuristic) was best."""
    min_step: int = field(default=0, metadata=meta(rule=MIN_STEP, metavar="N"))
    """With --best: only checkpoints from this step on."""
    value: bool = False
    """Also write the value network (about twice the size): search reads it as its estimate
    of a position (agent spec ismcts:policy=OUT.npz,leaf=value)."""


@dataclass
class CurvesArgs:
    """learning-curve PNG (win rates over steps) from train output folders"""

    runs: list[Path] = field(metadata=meta(positional=True, nargs="+"))
    """cardarena train --out folders."""
    out: Path = Path("learning_curves.png")
    """The PNG file to write."""


@dataclass
class ExploitArgs:
    """approximate exploitability: train a best response to AGENT and measure what it wins.

    PPO on the vector engine (extra 'train') learns against the frozen AGENT in every other
    seat, seats rotated. An agent with a network (pretrained, an exported .npz, a checkpoint
    folder) gets two starts, warm-started from its own weights and from scratch (--start
    both); any other agent (heuristic, random, a search agent, played row by row and slowly
    when it has no vector form) from scratch, or with --warm-from SPEC from another agent's
    network. Each final network is then measured on
    --games fresh games against AGENT. The approximate exploitability is the best
    response's win rate (wins / games) with its 95% Wilson interval, and for two-player
    zero-sum games also its expected return (wins - losses) / games: a lower bound on what
    a true best response wins, next to the agent's own self-play rate on the same games.
    Writes OUT/exploit.json, OUT/exploit.png (extra 'plot') and OUT/scratch, OUT/agent or
    OUT/warm (the training runs)."""

    env: str = field(metadata=meta(positional=True))
    """Env name, e.g. promise_war_v0 (see ``cardarena list``)."""
    agent: str = field(metadata=meta(positional=True))
    """The agent spec to exploit (pretrained, heuristic, random, FILE.npz, a checkpoint
    folder ...)."""
    steps: int | None = field(default=None, metadata=meta(rule=STEPS, metavar="N"))
    """Learner decisions per start, rounded up to whole rollouts (default: the agent's own
    training budget when its file records one, else 2,000,000)."""
    out: Path | None = field(default=None, metadata=meta(metavar="DIR"))
    """Output folder (default ``runs/exploit/<env>/<agent>``); must not hold a run yet
    (unless ``--resume``)."""
    seed: int = field(default=0, metadata=meta(rule=TRAIN_SEED, metavar="S"))
    """Seeds the training; the measurement's games come from a stream derived from it that
    the training and its evaluations never use."""
    start: str | None = field(default=None, metadata=meta(choices=STARTS))
    """``scratch``, ``agent`` (warm start from the agent's network) or ``both`` (the default
    when the agent has a network that fits, else ``scratch``)."""
    warm_from: str | None = field(default=None, metadata=meta(metavar="SPEC"))
    """Start the one best response from another agent's network instead (e.g.
    ``pretrained`` against a search agent, so that a short budget refines a strong player);
    not with ``--start``. Writes OUT/warm."""
    games: int = field(default=DEFAULT_GAMES, metadata=meta(rule=GAMES, metavar="G"))
    """Fresh games of the final measurement, per start."""
    eval_games: int = field(default=EVAL_GAMES, metadata=meta(rule=GAMES, metavar="G"))
    """Games of each periodic evaluation (the learning curve), against the agent."""
    evaluations: int = field(default=EVALUATIONS, metadata=meta(rule=EVALS, metavar="N"))
    """Periodic evaluations per training run (the learning curve's points)."""
    num_envs: int | None = field(default=None, metadata=meta(rule=ENVS_RULE, metavar="N"))
    """Games side by side while training (default: the trainer's, 1024). A search agent
    plays each row in Python, so fewer, with a smaller ``--rollout-steps`` and
    ``--minibatch-size``, give more updates per opponent move."""
    rollout_steps: int | None = field(default=None, metadata=meta(rule=ENVS_RULE, metavar="N"))
    """Learner decisions per game per rollout (default: the trainer's, 32)."""
    minibatch_size: int | None = field(default=None, metadata=meta(rule=ENVS_RULE, metavar="N"))
    """Rows per gradient step, at most ``num_envs x rollout_steps`` (default: the game's)."""
    num_players: int | None = field(default=None, metadata=meta(rule=PLAYERS, metavar="P"))
    """Seats at the table for envs that take ``num_players`` (None: the env's default)."""
    config: list[str] | None = field(default=None, metadata=meta(nargs="*", metavar="KEY=VALUE"))
    """Env config."""
    progress: bool = True
    """A counter line on stderr while training (``--no-progress``: none)."""
    jobs: int = field(default=1, metadata=meta(rule=JOBS, metavar="J"))
    """Worker processes that make a search agent's moves (it has no vector form): the same
    moves and results for every J, in about 1/J of the time on J free cores."""
    resume: bool = False
    """Continue a run cut short in --out (same command): each start from its last checkpoint,
    then the measurement; the same exploit.json as an uninterrupted run."""


__all__ = [
    "GAMES",
    "GAME_INDEX",
    "IDLE_MINUTES",
    "JOBS",
    "MAX_GAMES",
    "MIN_STEP",
    "PLAYERS",
    "PORT",
    "SEED",
    "STEPS",
    "THINK_SECONDS",
    "TRAIN_SEED",
    "WORKERS",
    "CurvesArgs",
    "EvalArgs",
    "ExploitArgs",
    "ExportArgs",
    "ListArgs",
    "PlayArgs",
    "ReplayArgs",
    "RulesArgs",
    "ServeArgs",
]
