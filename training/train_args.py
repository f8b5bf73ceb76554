"""The ``cardarena train`` argument schema: one documented dataclass, ``TrainArgs``, whose
field docstrings are the ``--help`` texts (the CleanRL way), the per-game hyper-parameter
table ``DEFAULTS``, and the checks every value passes before a run starts (flags and
``train(TrainArgs(...))`` alike), so a bad value is refused naming the flag, the value and
what is allowed.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from cardarena.envs import ENVS
from cardarena.envs.core import InvalidConfigError

from .league import SAMPLING_MODES

#: Per-game hyper-parameters: the one place to tune them. ``n_steps`` is per env, so a
#: rollout is ``n_steps * n_envs`` decisions (1024 with the default 8 envs).
DEFAULTS: dict[str, dict[str, Any]] = {
    "promise_war_v0": {
        "n_steps": 128,
        "batch_size": 256,
        "net_arch": [128, 128],
        "learning_rate": 3e-4,
        "ent_coef": 0.01,
    },
    "ironman_war_v0": {
        "n_steps": 128,
        "batch_size": 256,
        "net_arch": [128, 128],
        "learning_rate": 3e-4,
        "ent_coef": 0.01,
    },
    "beast_wars_v0": {
        "n_steps": 128,
        "batch_size": 256,
        "net_arch": [256, 256],
        "learning_rate": 3e-4,
        "ent_coef": 0.01,
    },
    "cardline_v0": {
        "n_steps": 128,
        "batch_size": 256,
        "net_arch": [256, 256],
        "learning_rate": 3e-4,
        "ent_coef": 0.02,
    },
}
#: The ``--backend`` choices.
BACKENDS = ("sb3", "rllib")
#: For an env without its own entry in ``DEFAULTS``.
FALLBACK = DEFAULTS["promise_war_v0"]


@dataclass
class TrainArgs:
    env: str = "promise_war_v0"
    """Which registered env to train on (``cardarena list``)."""
    steps: int = 200_000
    """Total learner decisions (over all envs); on ``--resume`` the total including the steps
    already done."""
    opponent: list[str] | None = None
    """Agent specs for the other seats, one drawn per episode (default ``random``; with
    ``--selfplay`` the league's baselines, default ``random`` and ``heuristic``)."""
    selfplay: bool = False
    """Play a league of the learner's own frozen snapshots mixed with the baselines."""
    out: Path | None = None
    """Output folder (default ``runs/<env>``)."""
    seed: int = 0
    """Seeds torch, numpy, the envs, the opponents and the evaluation games."""
    resume: bool = False
    """Continue from ``out/latest`` (or a newer ``checkpoints/step_N``): same step counter,
    RNG states and opponent pool."""
    backend: str = "sb3"
    """``sb3`` (MaskablePPO, the ``train`` extra) or ``rllib`` (RLlib PPO self-play on Ray, the
    ``rllib`` extra; ``cardarena.training.rllib``). With ``rllib`` these flags apply: steps
    (env steps of all seats), out, seed, resume, opponent, selfplay, snapshot_every,
    baseline_share, num_players, final_eval_games, address, num_env_runners; the others
    are MaskablePPO's and are ignored with a warning."""
    address: str | None = None
    """With ``--backend rllib``: the Ray cluster to join, e.g. ``ray://host:10001`` or
    ``host:6379`` (default: start a local Ray)."""
    num_env_runners: int = 1
    """With ``--backend rllib``: Ray actors sampling games (1 CPU each)."""
    n_envs: int = 8
    """In-process envs (DummyVecEnv); 8 is the fast geometry on 2 CPU cores."""
    num_players: int | None = None
    """Seats at the table for envs that take ``num_players`` (None: the env's default)."""
    n_steps: int | None = None
    """Rollout length per env (None: the game's entry in ``DEFAULTS``)."""
    batch_size: int | None = None
    """Minibatch size (None: ``DEFAULTS``)."""
    net_arch: list[int] | None = None
    """Hidden layer sizes of policy and value networks (None: ``DEFAULTS``)."""
    learning_rate: float | None = None
    """Adam learning rate (None: ``DEFAULTS``)."""
    ent_coef: float | None = None
    """Entropy bonus (None: ``DEFAULTS``)."""
    n_epochs: int = 5
    """PPO epochs per rollout."""
    gamma: float = 0.99
    """Discount factor."""
    checkpoint_every: int = 20_000
    """Steps between checkpoints (``out/checkpoints/step_<N>`` and ``out/latest``)."""
    eval_every: int = 20_000
    """Steps between evaluations against random and the heuristic (0: none during training)."""
    eval_games: int = 100
    """Games per opponent in each periodic evaluation (seats rotate)."""
    final_eval_games: int = 400
    """Games per opponent in the final evaluation."""
    snapshot_every: int = 20_000
    """With ``--selfplay``: steps between snapshots added to the league pool."""
    league_mode: str = "prioritised"
    """With ``--selfplay``: pool sampling, ``prioritised`` (by the learner's loss rate against
    each entry, measured at each evaluation), ``latest`` or ``uniform``. On Iron Man
    ``latest`` drifted to 15-39% against the heuristic, ``prioritised`` held 47-64%."""
    baseline_share: float = 0.5
    """With ``--selfplay``: share of games against the baselines (random, heuristic), the rest
    against snapshots; a league without it forgets the fixed opponents (see ``league.py``)."""
    league_eval_games: int = 20
    """With ``--selfplay``: games against each snapshot at each evaluation (loss rates)."""
    max_snapshots: int = 20
    """With ``--selfplay``: the oldest snapshots leave the pool beyond this many."""
    rate_games: int = 0
    """With ``--selfplay``: games per pairing of a ``run_tournament`` rating of the pool at
    each evaluation (0: off; it grows quadratically with the pool, so it is not cheap)."""
    torch_threads: int = 1
    """``torch.set_num_threads``."""
    progress: bool = True
    """Progress bar (SB3's with tqdm and rich installed, else a counter line on stderr)."""
    hyper: dict[str, Any] = field(default_factory=dict, repr=False)
    """Filled by ``resolved()``: the hyper-parameters actually used."""

    def resolved(self) -> TrainArgs:
        """Checked copy with ``DEFAULTS`` filled in."""
        if self.env not in ENVS:
            raise InvalidConfigError(
                f"unknown env {self.env!r}; available: {', '.join(sorted(ENVS))}"
            )
        if self.backend not in BACKENDS:
            raise InvalidConfigError(f"backend must be one of {BACKENDS}, got {self.backend!r}")
        if self.league_mode not in SAMPLING_MODES:
            raise InvalidConfigError(
                f"league mode must be one of {SAMPLING_MODES}, got {self.league_mode!r}"
            )
        for name in ("steps", "n_envs", "checkpoint_every", "snapshot_every"):
            if getattr(self, name) < 1:
                raise InvalidConfigError(f"{name} must be positive, got {getattr(self, name)}")
        base = DEFAULTS.get(self.env, FALLBACK)
        hyper = {
            key: getattr(self, key) if getattr(self, key) is not None else base[key]
            for key in ("n_steps", "batch_size", "net_arch", "learning_rate", "ent_coef")
        }
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        values["hyper"] = hyper
        values["out"] = Path(self.out) if self.out is not None else Path("runs") / self.env
        return TrainArgs(**values)


def add_arguments(parser: Any) -> None:
    """The ``cardarena train`` flags, one per ``TrainArgs`` field."""
    defaults = TrainArgs()
    parser.add_argument("env", help="env name, e.g. promise_war_v0 (see `cardarena list`)")
    docs = _field_docs()
    for f in fields(TrainArgs):
        if f.name in ("env", "hyper"):
            continue
        flag = "--" + f.name.replace("_", "-")
        default = getattr(defaults, f.name)
        doc = docs.get(f.name, "")
        if f.name in ("n_steps", "batch_size", "net_arch", "learning_rate", "ent_coef"):
            doc += " Defaults: " + ", ".join(f"{e} {v[f.name]}" for e, v in DEFAULTS.items())
        if f.name == "progress":
            parser.add_argument("--no-progress", dest="progress", action="store_false", help=doc)
        elif isinstance(default, bool):
            parser.add_argument(flag, action="store_true", help=doc)
        elif f.name == "opponent":
            parser.add_argument(flag, action="append", metavar="SPEC", help=doc + " Repeatable.")
        elif f.name == "net_arch":
            parser.add_argument(flag, type=int, nargs="+", metavar="UNITS", help=doc)
        elif f.name == "out":
            parser.add_argument(flag, type=Path, metavar="DIR", help=doc)
        elif f.name == "backend":
            parser.add_argument(flag, choices=BACKENDS, default=default, help=doc)
        elif f.name == "address":
            parser.add_argument(flag, metavar="ADDR", help=doc)
        elif f.name == "league_mode":
            parser.add_argument(flag, choices=SAMPLING_MODES, default=default, help=doc)
        else:
            floats = ("learning_rate", "ent_coef", "gamma", "baseline_share")
            kind = float if f.name in floats else int
            parser.add_argument(flag, type=kind, default=default, help=doc)
    parser.epilog = (
        "Writes out/checkpoints/step_N, out/latest, out/eval.jsonl and "
        "out/logs/run_*/progress.csv; "
        "TensorBoard logs too when the tensorboard package is installed "
        f"({'installed' if _has_module('tensorboard') else 'not installed'} here)."
    )


def args_from_namespace(ns: Any) -> TrainArgs:
    return TrainArgs(
        **{f.name: getattr(ns, f.name) for f in fields(TrainArgs) if hasattr(ns, f.name)}
    )


def _field_docs() -> dict[str, str]:
    """Each field's docstring, read from this module's source."""
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(TrainArgs))
    body = tree.body[0].body  # type: ignore[attr-defined]
    docs: dict[str, str] = {}
    for node, following in itertools.pairwise(body):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
        ):
            docs[node.target.id] = " ".join(str(following.value.value).split())
    return docs


def _has_module(module: str) -> bool:
    from importlib.util import find_spec

    try:
        return find_spec(module) is not None
    except (ImportError, ValueError):
        return False


__all__ = ["BACKENDS", "DEFAULTS", "FALLBACK", "TrainArgs", "add_arguments", "args_from_namespace"]
