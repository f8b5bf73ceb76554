"""The ``cardarena train`` argument schema: one documented dataclass, ``TrainArgs``, whose
field docstrings are the ``--help`` texts (the CleanRL way), the per-game hyper-parameter
table ``DEFAULTS``, and the checks every value passes before a run starts (flags and
``train(TrainArgs(...))`` alike), so a bad value is refused naming the flag, the value and
what is allowed.
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from cardarena.envs import ENVS
from cardarena.envs.core import InvalidConfigError, check_seed
from cardarena.envs.core.aec import config_keys

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
        """Checked copy with ``DEFAULTS`` filled in; ``InvalidConfigError`` names the flag,
        the value and what is allowed (every field is checked here, whoever built the args)."""
        if self.env not in ENVS:
            raise InvalidConfigError(
                f"unknown env {self.env!r}; available: {', '.join(sorted(ENVS))}"
            )
        if self.backend not in BACKENDS:
            raise InvalidConfigError(f"--backend must be one of {BACKENDS}, got {self.backend!r}")
        if self.league_mode not in SAMPLING_MODES:
            raise InvalidConfigError(
                f"--league-mode must be one of {SAMPLING_MODES}, got {self.league_mode!r}"
            )
        for name in ("selfplay", "resume", "progress"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidConfigError(
                    f"{flag_of(name)} must be True or False, got {getattr(self, name)!r}"
                )
        _check_optional_text(self.address, "address")
        if self.out is not None and not isinstance(self.out, (str, os.PathLike)):
            raise InvalidConfigError(f"--out must be a folder path, got {self.out!r}")
        if self.opponent is not None:
            if not isinstance(self.opponent, (list, tuple)) or not self.opponent:
                raise InvalidConfigError(
                    f"--opponent must be a non-empty list of agent specs, got {self.opponent!r}"
                )
            for spec in self.opponent:
                _check_optional_text(spec, "opponent")
        for name, rule in RULES.items():
            value = getattr(self, name)
            if value is None and name in OPTIONAL:
                continue
            if name == "net_arch":
                _check_net_arch(value)
                continue
            problem = rule.problem(value)
            if problem:
                raise InvalidConfigError(f"{flag_of(name)} {problem}")
        check_seed(self.seed)
        _check_num_players(self.env, self.num_players)
        base = DEFAULTS.get(self.env, FALLBACK)
        hyper = {
            key: getattr(self, key) if getattr(self, key) is not None else base[key]
            for key in ("n_steps", "batch_size", "net_arch", "learning_rate", "ent_coef")
        }
        rollout = hyper["n_steps"] * self.n_envs
        if hyper["batch_size"] > rollout:
            raise InvalidConfigError(
                f"--batch-size must be at most --n-steps x --n-envs = {hyper['n_steps']} x "
                f"{self.n_envs} = {rollout} (the rollout it is drawn from), got "
                f"{hyper['batch_size']}"
            )
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        values["hyper"] = hyper
        values["out"] = Path(self.out) if self.out is not None else Path("runs") / self.env
        return TrainArgs(**values)


@dataclass(frozen=True)
class Number:
    """What a numeric flag allows: an ``int`` or a finite ``float`` within bounds. The one
    definition both the argparse ``type=`` (``argtype``) and ``TrainArgs.resolved`` check, so
    a value is refused the same way from the shell and from Python."""

    kind: type = int
    low: float | None = None
    high: float | None = None
    low_open: bool = False

    def describe(self) -> str:
        """``an integer >= 1``, ``a finite number in (0, 1]`` ..."""
        what = "an integer" if self.kind is int else "a finite number"
        low, high = self._shown(self.low), self._shown(self.high)
        if self.low is not None and self.high is not None:
            return f"{what} in {'(' if self.low_open else '['}{low}, {high}]"
        if self.low is not None:
            return f"{what} {'>' if self.low_open else '>='} {low}"
        if self.high is not None:
            return f"{what} <= {high}"
        return what

    def _shown(self, bound: float | None) -> str:
        return str(int(bound)) if self.kind is int and bound is not None else f"{bound:g}"

    def problem(self, value: Any) -> str | None:
        """None if ``value`` is allowed, else ``must be <what is allowed>, got <value>``."""
        wrong = f"must be {self.describe()}, got {_shown(value)}"
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return wrong
        if self.kind is int and not isinstance(value, int):
            return wrong
        if isinstance(value, float) and not math.isfinite(value):
            return wrong
        if self.low is not None and (value <= self.low if self.low_open else value < self.low):
            return wrong
        if self.high is not None and value > self.high:
            return wrong
        return None

    def parse(self, text: str) -> int | float:
        """``text`` as this number; ``ValueError`` saying what is allowed."""
        stripped = text.strip()
        value: int | float
        if self.kind is int:
            if not _INT.fullmatch(stripped):
                raise ValueError(f"must be {self.describe()}, got {_shown(text)}")
            value = int(stripped)
        else:
            try:
                value = float(stripped)
            except ValueError:
                raise ValueError(f"must be {self.describe()}, got {_shown(text)}") from None
        problem = self.problem(value)
        if problem:
            raise ValueError(f"must be {self.describe()}, got {_shown(text)}")
        return value


#: An integer literal: at most 40 ASCII digits (``int()`` would also take ``1_000``, other
#: scripts' digits, and thousands of digits at quadratic cost).
_INT = re.compile(r"[+-]?[0-9]{1,40}")
#: Counts of things kept in memory at once (envs, layer units, threads) stay below this.
_MANY = 1 << 16
_NEVER = 10**12


def argtype(flag: str, rule: Number) -> Callable[[str], int | float]:
    """An argparse ``type=`` for ``rule``: a bad value is argparse's usage error naming
    ``flag``, the value and what is allowed."""

    def convert(text: str) -> int | float:
        try:
            return rule.parse(text)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    convert.__name__ = rule.describe()  # argparse names the type in some messages
    return convert


#: Every numeric ``TrainArgs`` field and what it allows (``test_every_field_is_checked``
#: keeps this table complete).
RULES: dict[str, Number] = {
    "steps": Number(int, 1, _NEVER),
    "seed": Number(int, 0, 2**32 - 1),  # numpy's global seed (SB3) takes 32 bits
    "num_env_runners": Number(int, 1, 1024),
    "n_envs": Number(int, 1, 1024),
    "num_players": Number(int, 2, 64),
    "n_steps": Number(int, 1, 1 << 20),
    "batch_size": Number(int, 2, 1 << 24),  # SB3 normalises advantages: at least 2
    "net_arch": Number(int, 1, _MANY),
    "learning_rate": Number(float, 0.0, 1.0, low_open=True),
    "ent_coef": Number(float, 0.0, 1e6),
    "n_epochs": Number(int, 1, 10_000),
    "gamma": Number(float, 0.0, 1.0, low_open=True),
    "checkpoint_every": Number(int, 1, _NEVER),
    "eval_every": Number(int, 0, _NEVER),
    "eval_games": Number(int, 0, 10**7),
    "final_eval_games": Number(int, 0, 10**7),
    "snapshot_every": Number(int, 1, _NEVER),
    "baseline_share": Number(float, 0.0, 1.0),
    "league_eval_games": Number(int, 0, 10**7),
    "max_snapshots": Number(int, 1, 10_000),
    "rate_games": Number(int, 0, 10**7),
    "torch_threads": Number(int, 1, 1024),
}
#: Fields whose None means "the default" (DEFAULTS or the env's own).
OPTIONAL = ("num_players", "n_steps", "batch_size", "net_arch", "learning_rate", "ent_coef")
#: ``net_arch`` has at most this many hidden layers.
MAX_LAYERS = 16


def flag_of(name: str) -> str:
    """``batch_size`` -> ``--batch-size`` (``progress`` is ``--no-progress``)."""
    return "--no-progress" if name == "progress" else "--" + name.replace("_", "-")


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _check_net_arch(value: Any) -> None:
    rule = RULES["net_arch"]
    if not isinstance(value, (list, tuple)) or not 1 <= len(value) <= MAX_LAYERS:
        raise InvalidConfigError(
            f"--net-arch must be 1 to {MAX_LAYERS} layer sizes, each {rule.describe()}, "
            f"got {_shown(value)}"
        )
    for units in value:
        problem = rule.problem(units)
        if problem:
            raise InvalidConfigError(f"--net-arch: each layer size {problem}")


def _check_optional_text(value: Any, name: str) -> None:
    if value is not None and (not isinstance(value, str) or not value.strip()):
        raise InvalidConfigError(f"{flag_of(name)} must be a non-empty string, got {value!r}")


def _check_num_players(env: str, num_players: int | None) -> None:
    """``num_players`` within the env's range, and only for an env that takes it."""
    if num_players is None:
        return
    module = ENVS[env]
    metadata = module.raw_env.metadata
    keys = config_keys(module.raw_env.build_game)
    if keys is not None and "num_players" not in keys:
        raise InvalidConfigError(
            f"--num-players: {env} always seats {metadata['max_players']} players, "
            f"got {num_players}; leave the flag out"
        )
    low, high = metadata["min_players"], metadata["max_players"]
    if not low <= num_players <= high:
        raise InvalidConfigError(
            f"--num-players must be in {low}..{high} for {env}, got {num_players}"
        )


def add_arguments(parser: Any) -> None:
    """The ``cardarena train`` flags, one per ``TrainArgs`` field."""
    defaults = TrainArgs()
    parser.add_argument("env", help="env name, e.g. promise_war_v0 (see `cardarena list`)")
    docs = _field_docs()
    for f in fields(TrainArgs):
        if f.name in ("env", "hyper"):
            continue
        flag = flag_of(f.name)
        default = getattr(defaults, f.name)
        doc = docs.get(f.name, "")
        if f.name in ("n_steps", "batch_size", "net_arch", "learning_rate", "ent_coef"):
            doc += " Defaults: " + ", ".join(f"{e} {v[f.name]}" for e, v in DEFAULTS.items())
        if f.name in RULES:
            doc += f" Allowed: {RULES[f.name].describe()}."
        doc = _escape(doc)
        if f.name == "progress":
            parser.add_argument(flag, dest="progress", action="store_false", help=doc)
        elif isinstance(default, bool):
            parser.add_argument(flag, action="store_true", help=doc)
        elif f.name == "opponent":
            parser.add_argument(flag, action="append", metavar="SPEC", help=doc + " Repeatable.")
        elif f.name == "net_arch":
            parser.add_argument(
                flag, type=argtype(flag, RULES[f.name]), nargs="+", metavar="UNITS", help=doc
            )
        elif f.name == "out":
            parser.add_argument(flag, type=Path, metavar="DIR", help=doc)
        elif f.name == "backend":
            parser.add_argument(flag, choices=BACKENDS, default=default, help=doc)
        elif f.name == "address":
            parser.add_argument(flag, metavar="ADDR", help=doc)
        elif f.name == "league_mode":
            parser.add_argument(flag, choices=SAMPLING_MODES, default=default, help=doc)
        else:
            rule = RULES[f.name]
            metavar = "N" if rule.kind is int else "X"
            parser.add_argument(
                flag, type=argtype(flag, rule), default=default, metavar=metavar, help=doc
            )
    parser.epilog = (  # argparse %-formats an epilog only if it holds "%(prog)"
        "Writes out/checkpoints/step_N, out/latest, out/eval.jsonl and "
        "out/logs/run_*/progress.csv; "
        "TensorBoard logs too when the tensorboard package is installed "
        f"({'installed' if _has_module('tensorboard') else 'not installed'} here)."
    )


def _escape(text: str) -> str:
    """argparse %-formats help texts (``%(default)s``): a literal ``%`` must be doubled."""
    return text.replace("%", "%%")


def args_from_namespace(ns: Any) -> TrainArgs:
    """The ``TrainArgs`` of parsed ``cardarena train`` flags (unchecked: see ``resolved``)."""
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


__all__ = [
    "BACKENDS",
    "DEFAULTS",
    "FALLBACK",
    "OPTIONAL",
    "RULES",
    "Number",
    "TrainArgs",
    "add_arguments",
    "args_from_namespace",
    "argtype",
    "flag_of",
]
