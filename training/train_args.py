"""The ``cardarena train`` argument schema: one documented dataclass, ``TrainArgs``, whose
fields are the flags (``schema.add_dataclass_arguments``: docstrings as ``--help``, types from
the annotations, each field's ``rule`` as its check), filled from the per-game tables of
``training.defaults``, and the checks every value passes before a run starts (flags and
``train(TrainArgs(...))`` alike), so a bad value is refused naming the flag, the value and
what is allowed. Each field's ``backends`` metadata says which backend uses it; the other
backend warns when it is set (``ignored_by``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

from cardarena.envs import ENVS
from cardarena.envs.core import InvalidConfigError, check_seed, has_module
from cardarena.envs.core.aec import config_keys

from .defaults import (
    BACKENDS,
    CHECKPOINT_EVERY,
    DEFAULTS,
    FALLBACK,
    MAGNETS,
    MIN_CHECKPOINT_ROLLOUTS,
    PER_GAME,
    VECTOR_DEFAULTS,
    default_checkpoint_every,
)
from .league import SAMPLING_MODES
from .schema import (
    Number,
    Pattern,
    add_dataclass_arguments,
    argtype,
    choices_of,
    default_of,
    meta,
    shown,
)
from .schema import flag_of as schema_flag_of

#: Counts of things kept in memory at once (envs, layer units, threads) stay below this.
_MANY = 1 << 16
_NEVER = 10**12
#: Which backends a field applies to (``backends`` metadata; a field without it: both).
SB3: dict[str, Any] = {"backends": ("sb3",)}
RLLIB: dict[str, Any] = {"backends": ("rllib",)}
VECTOR: dict[str, Any] = {"backends": ("vector",)}
#: The PPO settings both PPO backends (SB3's MaskablePPO and ``training.vector.ppo``) use.
PPO: dict[str, Any] = {"backends": ("sb3", "vector")}
#: torch devices: ``auto`` (CUDA when available), ``cpu``, ``cuda``, ``cuda:N``, ``mps``.
DEVICE = Pattern(r"auto|cpu|mps|cuda(:[0-9]{1,3})?", "auto, cpu, mps, cuda or cuda:N")


@dataclass
class TrainArgs:
    """Train MaskablePPO on ENV against fixed opponents or a self-play league, with
    checkpoints, resume, periodic and final evaluation. Needs the 'train' extra (or, with
    ``--backend rllib``, the 'rllib' extra)."""

    env: str = field(default="promise_war_v0", metadata=meta(positional=True))
    """Env name, e.g. promise_war_v0 (see ``cardarena list``)."""
    steps: int = field(default=200_000, metadata=meta(rule=Number(int, 1, _NEVER)))
    """Total learner decisions (over all envs); on ``--resume`` the total including the steps
    already done."""
    opponent: list[str] | None = field(default=None, metadata=meta(metavar="SPEC"))
    """Agent specs for the other seats, one drawn per episode (default ``random``; with
    ``--selfplay`` the league's baselines, default ``random`` and ``heuristic`` where the env
    has one)."""
    selfplay: bool = False
    """Play a league of the learner's own frozen snapshots mixed with the baselines."""
    out: Path | None = field(default=None, metadata=meta(metavar="DIR"))
    """Output folder (default ``runs/<env>``)."""
    seed: int = field(
        default=0, metadata=meta(rule=Number(int, 0, 2**32 - 1))
    )  # numpy's global seed takes 32 bits
    """Seeds torch, numpy, the envs, the opponents and the evaluation games."""
    resume: bool = False
    """Continue from ``out/latest`` (or a newer ``checkpoints/step_N``): same step counter,
    RNG states and opponent pool."""
    backend: str = field(default="sb3", metadata=meta(choices=BACKENDS))
    """``sb3`` (MaskablePPO, the ``train`` extra), ``vector`` (``training.vector.ppo``: masked
    PPO on the vector engine, thousands of games per step, the ``train`` extra) or
    ``rllib`` (RLlib PPO self-play on Ray, the ``rllib`` extra; ``cardarena.training.rllib``).
    Flags marked for other backends are ignored, with a warning."""
    address: str | None = field(default=None, metadata=meta(metavar="ADDR", **RLLIB))
    """The Ray cluster to join, e.g. ``ray://host:10001`` or ``host:6379`` (default: start a
    local Ray)."""
    num_env_runners: int = field(default=1, metadata=meta(rule=Number(int, 1, 1024), **RLLIB))
    """Ray actors sampling games (1 CPU each)."""
    n_envs: int = field(default=8, metadata=meta(rule=Number(int, 1, 1024), **SB3))
    """In-process envs (DummyVecEnv); 8 is the fast geometry on 2 CPU cores."""
    num_envs: int = field(default=1024, metadata=meta(rule=Number(int, 1, 1 << 16), **VECTOR))
    """Games played side by side on the vector engine; a rollout is ``num_envs x
    rollout_steps`` learner decisions."""
    rollout_steps: int = field(default=32, metadata=meta(rule=Number(int, 1, 1 << 16), **VECTOR))
    """Learner decisions per game per rollout (games continue across rollouts)."""
    minibatch_size: int | None = field(
        default=None, metadata=meta(rule=Number(int, 2, 1 << 24), **VECTOR)
    )
    """Rows per gradient step (at most ``num_envs x rollout_steps``; None: the game's entry
    in ``VECTOR_DEFAULTS``); advantages are normalised per minibatch, so at least 2."""
    precision: str = field(
        default="auto", metadata=meta(choices=("auto", "bfloat16", "float32"), **VECTOR)
    )
    """The hidden layers' matrix products: ``bfloat16`` (autocast; weights, heads and losses
    stay float32), ``float32``, or ``auto``: bfloat16 where the CPU has AMX or AVX-512 BF16
    units, else float32."""
    kl_coef: float = field(default=0.0, metadata=meta(rule=Number(float, 0.0, 1e6), **VECTOR))
    """Weight of the magnet term, ``KL(policy || magnet)``, in the loss (0: none). It holds
    self-play near a reference policy so that it does not drift into a habit a fixed plan
    can beat (Magnetic Mirror Descent)."""
    magnet: str = field(default="uniform", metadata=meta(choices=MAGNETS, **VECTOR))
    """The magnet: ``uniform`` over the legal actions, ``copy`` (the network as it was, copied
    every ``--magnet-every`` rollouts) or ``average`` (an exponential average of the network's
    weights, ``--magnet-rate`` of the way after every rollout)."""
    magnet_every: int = field(default=10, metadata=meta(rule=Number(int, 1, _NEVER), **VECTOR))
    """With ``--magnet copy``: rollouts between copies."""
    magnet_rate: float = field(
        default=0.05, metadata=meta(rule=Number(float, 0.0, 1.0, low_open=True), **VECTOR)
    )
    """With ``--magnet average``: how far the average moves toward the network per rollout."""
    exploiter_every: int = field(default=0, metadata=meta(rule=Number(int, 0, _NEVER), **VECTOR))
    """With ``--selfplay``: steps between exploiter rounds (0: none). Each round trains a
    fresh best response to the main agent as it is (``cardarena exploit``, both starts) and
    adds it to the opponent pool if it clearly beats the main agent (``training.exploiters``)."""
    exploiter_steps: int | None = field(
        default=None, metadata=meta(rule=Number(int, 1, _NEVER), **VECTOR)
    )
    """Training steps of each exploiter start (None: ``--exploiter-every``)."""
    exploiter_games: int = field(default=1000, metadata=meta(rule=Number(int, 1, 10**6), **VECTOR))
    """Fresh games measuring each exploiter against the main agent."""
    sample: bool = field(default=False, metadata=meta(**VECTOR))
    """The trained agent plays by sampling from its policy, not its most likely action: in
    its evaluations, as a snapshot in the league, as the main agent its exploiters answer, and
    in every checkpoint and exported file it writes (an agent spec naming one samples unless
    given ``deterministic=true``). A game that needs mixing (a bluff, a sacrifice on a random
    battle) has a plan that beats every player who always takes its most likely action."""
    num_players: int | None = field(default=None, metadata=meta(rule=Number(int, 2, 64)))
    """Seats at the table for envs that take ``num_players`` (None: the env's default)."""
    n_steps: int | None = field(default=None, metadata=meta(rule=Number(int, 1, 1 << 20), **SB3))
    """Rollout length per env (None: the game's entry in ``DEFAULTS``)."""
    batch_size: int | None = field(default=None, metadata=meta(rule=Number(int, 2, 1 << 24), **SB3))
    """Minibatch size (None: ``DEFAULTS``; SB3 normalises advantages, so at least 2)."""
    net_arch: list[int] | None = field(
        default=None, metadata=meta(rule=Number(int, 1, _MANY), metavar="UNITS", **PPO)
    )
    """Hidden layer sizes of policy and value networks (None: ``DEFAULTS``)."""
    learning_rate: float | None = field(
        default=None, metadata=meta(rule=Number(float, 0.0, 1.0, low_open=True), **PPO)
    )
    """Adam learning rate (None: ``DEFAULTS``)."""
    ent_coef: float | None = field(default=None, metadata=meta(rule=Number(float, 0.0, 1e6), **PPO))
    """Entropy bonus (None: ``DEFAULTS``)."""
    n_epochs: int = field(default=5, metadata=meta(rule=Number(int, 1, 10_000), **PPO))
    """PPO epochs per rollout."""
    gamma: float = field(
        default=0.99, metadata=meta(rule=Number(float, 0.0, 1.0, low_open=True), **PPO)
    )
    """Discount factor."""
    gae_lambda: float = field(default=0.95, metadata=meta(rule=Number(float, 0.0, 1.0), **PPO))
    """GAE's bias-variance trade-off for the advantages (1: Monte Carlo returns)."""
    clip_range: float = field(
        default=0.2, metadata=meta(rule=Number(float, 0.0, 10.0, low_open=True), **PPO)
    )
    """PPO's clipping of the policy ratio."""
    vf_coef: float = field(default=0.5, metadata=meta(rule=Number(float, 0.0, 1e6), **PPO))
    """Weight of the value loss in the PPO loss."""
    max_grad_norm: float = field(
        default=0.5, metadata=meta(rule=Number(float, 0.0, 1e6, low_open=True), **PPO)
    )
    """Gradients are clipped to this global norm."""
    device: str = field(default="cpu", metadata=meta(rule=DEVICE, metavar="DEVICE", **SB3))
    """Torch device for the network (``auto``: CUDA when available). Not a checkpoint
    setting: a resumed run may use another device; checkpoints hold CPU arrays."""
    checkpoint_every: int | None = field(
        default=None, metadata=meta(rule=Number(int, 1, _NEVER), **PPO)
    )
    """Steps between checkpoints (``out/checkpoints/step_<N>`` and ``out/latest``); default
    20000, and with ``--backend vector`` at least 10 rollouts (``--num-envs`` x
    ``--rollout-steps`` x 10): there each checkpoint deals every game anew (for an exact
    resume), so closer ones cut long games short."""
    eval_every: int = field(default=20_000, metadata=meta(rule=Number(int, 0, _NEVER), **PPO))
    """Steps between evaluations against random and the heuristic (0: none during training;
    an env without a heuristic is evaluated against random alone)."""
    eval_games: int = field(default=100, metadata=meta(rule=Number(int, 0, 10**7), **PPO))
    """Games per opponent in each periodic evaluation (seats rotate)."""
    final_eval_games: int = field(default=400, metadata=meta(rule=Number(int, 0, 10**7)))
    """Games per opponent in the final evaluation."""
    snapshot_every: int = field(default=20_000, metadata=meta(rule=Number(int, 1, _NEVER)))
    """With ``--selfplay``: steps between snapshots added to the league pool."""
    league_mode: str = field(default="prioritised", metadata=meta(choices=SAMPLING_MODES, **PPO))
    """With ``--selfplay``: pool sampling, ``prioritised`` (by the learner's loss rate against
    each entry, measured at each evaluation), ``latest`` or ``uniform``. On Iron Man
    ``latest`` drifted to 15-39% against the heuristic, ``prioritised`` held 47-64%."""
    baseline_share: float = field(default=0.5, metadata=meta(rule=Number(float, 0.0, 1.0)))
    """With ``--selfplay``: share of games against the baselines (random, heuristic), the rest
    against snapshots; a league without it forgets the fixed opponents (see ``league.py``)."""
    league_eval_games: int = field(default=20, metadata=meta(rule=Number(int, 0, 10**7), **PPO))
    """With ``--selfplay``: games against each snapshot at each evaluation (loss rates)."""
    max_snapshots: int = field(default=20, metadata=meta(rule=Number(int, 1, 10_000), **PPO))
    """With ``--selfplay``: the oldest snapshots leave the pool beyond this many."""
    rate_games: int = field(default=0, metadata=meta(rule=Number(int, 0, 10**7), **PPO))
    """With ``--selfplay``: games per pairing of a ``run_tournament`` rating of the pool at
    each evaluation (0: off; it grows quadratically with the pool, so it is not cheap)."""
    torch_threads: int = field(default=1, metadata=meta(rule=Number(int, 1, 1024), **PPO))
    """``torch.set_num_threads``."""
    progress: bool = True
    """Progress bar (SB3's with tqdm and rich installed, else a counter line on stderr)."""
    rllib_policies: Literal["shared", "per_seat"] = field(default="shared", metadata=meta(**RLLIB))
    """One policy shared by every seat (self-play; needed by ``--selfplay``) or one per
    seat."""
    rllib_hidden: list[int] = field(
        default_factory=lambda: [128, 128],
        metadata=meta(rule=Number(int, 1, _MANY), metavar="UNITS", **RLLIB),
    )
    """Hidden layer sizes of the RLModule's policy and value MLPs."""
    rllib_train_batch_size: int = field(
        default=2048, metadata=meta(rule=Number(int, 2, 1 << 24), **RLLIB)
    )
    """Env steps per PPO update (``train_batch_size_per_learner``)."""
    rllib_minibatch_size: int = field(
        default=256, metadata=meta(rule=Number(int, 2, 1 << 24), **RLLIB)
    )
    """SGD minibatch size (at most the train batch size)."""
    rllib_num_epochs: int = field(default=5, metadata=meta(rule=Number(int, 1, 10_000), **RLLIB))
    """Passes over each train batch."""
    rllib_lr: float = field(
        default=3e-4, metadata=meta(rule=Number(float, 0.0, 1.0, low_open=True), **RLLIB)
    )
    """Adam learning rate."""
    rllib_entropy_coeff: float = field(
        default=0.01, metadata=meta(rule=Number(float, 0.0, 1e6), **RLLIB)
    )
    """Entropy bonus."""
    rllib_gamma: float = field(
        default=0.99, metadata=meta(rule=Number(float, 0.0, 1.0, low_open=True), **RLLIB)
    )
    """Discount factor."""
    rllib_rollout_fragment_length: int = field(
        default=0, metadata=meta(rule=Number(int, 0, 1 << 20), **RLLIB)
    )
    """Env steps each env runner samples per fragment (0: ``auto``, from the batch size)."""
    rllib_num_envs_per_env_runner: int = field(
        default=1, metadata=meta(rule=Number(int, 1, 1024), **RLLIB)
    )
    """Envs each Ray env runner steps."""
    hyper: dict[str, Any] = field(default_factory=dict, metadata=meta(cli=False))
    """Filled by ``resolved()``: the hyper-parameters actually used."""

    def ppo_settings(self) -> dict[str, Any]:
        """The PPO settings both PPO backends take from these flags as they are (the per-game
        ones are in ``hyper``)."""
        return {
            "n_epochs": self.n_epochs,
            "gamma": self.gamma,
            "gae_lambda": self.gae_lambda,
            "clip_range": self.clip_range,
            "vf_coef": self.vf_coef,
            "max_grad_norm": self.max_grad_norm,
        }

    @property
    def checkpoint_steps(self) -> int:
        """``checkpoint_every`` as ``resolved`` filled it in (its default depends on the
        backend)."""
        if self.checkpoint_every is None:
            raise ValueError("checkpoint_every is filled in by TrainArgs.resolved(); call it first")
        return self.checkpoint_every

    def resolved(self) -> TrainArgs:
        """Checked copy with ``DEFAULTS`` filled in; ``InvalidConfigError`` names the flag,
        the value and what is allowed (every field is checked here, whoever built the args)."""
        if self.env not in ENVS:
            raise InvalidConfigError(
                f"unknown env {self.env!r}; available: {', '.join(sorted(ENVS))}"
            )
        for f in fields(self):
            value, choices = getattr(self, f.name), choices_of(TrainArgs, f.name)
            if choices is not None and value not in choices:
                raise InvalidConfigError(
                    f"{flag_of(f.name)} must be one of {choices}, got {value!r}"
                )
            if isinstance(f.default, bool) and not isinstance(value, bool):
                raise InvalidConfigError(f"{flag_of(f.name)} must be True or False, got {value!r}")
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
            if name in LAYERS:
                _check_layers(name, value)
                continue
            problem = rule.problem(value)
            if problem:
                raise InvalidConfigError(f"{flag_of(name)} {problem}")
        for name, text_rule in TEXT_RULES.items():
            problem = text_rule.problem(getattr(self, name))
            if problem:
                raise InvalidConfigError(f"{flag_of(name)} {problem}")
        if self.rllib_minibatch_size > self.rllib_train_batch_size:
            raise InvalidConfigError(
                f"--rllib-minibatch-size must be at most --rllib-train-batch-size = "
                f"{self.rllib_train_batch_size}, got {self.rllib_minibatch_size}"
            )
        check_seed(self.seed)
        _check_num_players(self.env, self.num_players)
        base = dict(DEFAULTS.get(self.env, FALLBACK))
        if self.backend == "vector":
            base.update(VECTOR_DEFAULTS.get(self.env, VECTOR_DEFAULTS["promise_war_v0"]))
        hyper = {
            key: getattr(self, key) if getattr(self, key) is not None else base[key]
            for key in PER_GAME
        }
        vector = VECTOR_DEFAULTS.get(self.env, VECTOR_DEFAULTS["promise_war_v0"])
        hyper["minibatch_size"] = (
            self.minibatch_size if self.minibatch_size is not None else vector["minibatch_size"]
        )
        rollout = hyper["n_steps"] * self.n_envs
        vector_rollout = self.num_envs * self.rollout_steps
        if self.backend == "vector" and hyper["minibatch_size"] > vector_rollout:
            raise InvalidConfigError(
                f"--minibatch-size must be at most --num-envs x --rollout-steps = "
                f"{self.num_envs} x {self.rollout_steps} = {vector_rollout} (the rollout it "
                f"is drawn from), got {hyper['minibatch_size']}"
            )
        if self.backend == "sb3" and hyper["batch_size"] > rollout:
            raise InvalidConfigError(
                f"--batch-size must be at most --n-steps x --n-envs = {hyper['n_steps']} x "
                f"{self.n_envs} = {rollout} (the rollout it is drawn from), got "
                f"{hyper['batch_size']}"
            )
        if self.exploiter_every and not self.selfplay:
            raise InvalidConfigError(
                f"--exploiter-every {self.exploiter_every} trains exploiters for the self-play "
                "league: add --selfplay (or leave it at 0)"
            )
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        values["hyper"] = hyper
        if self.checkpoint_every is None and self.backend in backends_of("checkpoint_every"):
            values["checkpoint_every"] = default_checkpoint_every(self.backend, vector_rollout)
        values["out"] = Path(self.out) if self.out is not None else Path("runs") / self.env
        return TrainArgs(**values)


_FIELDS = {f.name: f for f in fields(TrainArgs)}
#: Every numeric ``TrainArgs`` field and what it allows, read off the fields' ``rule``
#: (``test_every_field_is_checked`` keeps it complete): the one table both the flags'
#: ``type=`` and ``TrainArgs.resolved`` check.
RULES: dict[str, Number] = {
    name: f.metadata["rule"]
    for name, f in _FIELDS.items()
    if isinstance(f.metadata.get("rule"), Number)
}
#: The text fields with a rule (``device``).
TEXT_RULES: dict[str, Pattern] = {
    name: f.metadata["rule"]
    for name, f in _FIELDS.items()
    if isinstance(f.metadata.get("rule"), Pattern)
}
#: Fields whose None means "the default" (DEFAULTS or the env's own).
OPTIONAL = tuple(name for name in RULES if default_of(_FIELDS[name]) is None)
#: Fields holding layer sizes; each has at most ``MAX_LAYERS``.
LAYERS = ("net_arch", "rllib_hidden")
MAX_LAYERS = 16


def flag_of(name: str) -> str:
    """``batch_size`` -> ``--batch-size`` (``progress`` is ``--no-progress``)."""
    return schema_flag_of(TrainArgs, name)


def backends_of(name: str) -> tuple[str, ...]:
    """The backends field ``name`` applies to."""
    return tuple(_FIELDS[name].metadata.get("backends", BACKENDS))


def ignored_by(args: TrainArgs, backend: str) -> list[str]:
    """The fields set away from their defaults that ``backend`` does not use (sorted)."""
    return sorted(
        f.name
        for f in fields(TrainArgs)
        if backend not in backends_of(f.name) and getattr(args, f.name) != default_of(f)
    )


def _check_layers(name: str, value: Any) -> None:
    rule, flag = RULES[name], flag_of(name)
    if not isinstance(value, (list, tuple)) or not 1 <= len(value) <= MAX_LAYERS:
        raise InvalidConfigError(
            f"{flag} must be 1 to {MAX_LAYERS} layer sizes, each {rule.describe()}, "
            f"got {shown(value)}"
        )
    for units in value:
        problem = rule.problem(units)
        if problem:
            raise InvalidConfigError(f"{flag}: each layer size {problem}")


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
    notes: dict[str, str] = {}
    for f in fields(TrainArgs):
        note = []
        if f.name in PER_GAME:
            note.append("Defaults: " + ", ".join(f"{e} {v[f.name]}" for e, v in DEFAULTS.items()))
        if any(f.name in v for v in VECTOR_DEFAULTS.values()):
            note.append(
                "With --backend vector: "
                + ", ".join(f"{e} {v[f.name]}" for e, v in VECTOR_DEFAULTS.items())
            )
        backends = backends_of(f.name)
        if len(backends) < len(BACKENDS):
            note.append(f"[{' and '.join(backends)} only]")
        notes[f.name] = " ".join(note)
    add_dataclass_arguments(parser, TrainArgs, notes)
    parser.epilog = (  # argparse %-formats an epilog only if it holds "%(prog)"
        "Writes out/checkpoints/step_N, out/latest, out/eval.jsonl and "
        "out/logs/run_*/progress.csv; "
        "TensorBoard logs too when the tensorboard package is installed "
        f"({'installed' if has_module('tensorboard') else 'not installed'} here)."
    )


def args_from_namespace(ns: Any) -> TrainArgs:
    """The ``TrainArgs`` of parsed ``cardarena train`` flags (unchecked: see ``resolved``)."""
    return TrainArgs(
        **{f.name: getattr(ns, f.name) for f in fields(TrainArgs) if hasattr(ns, f.name)}
    )


__all__ = [
    "BACKENDS",
    "CHECKPOINT_EVERY",
    "DEFAULTS",
    "DEVICE",
    "FALLBACK",
    "MAGNETS",
    "MIN_CHECKPOINT_ROLLOUTS",
    "OPTIONAL",
    "PER_GAME",
    "RULES",
    "VECTOR_DEFAULTS",
    "Number",
    "TrainArgs",
    "add_arguments",
    "args_from_namespace",
    "argtype",
    "backends_of",
    "default_checkpoint_every",
    "flag_of",
    "ignored_by",
]
