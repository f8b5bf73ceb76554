"""``cardarena train ENV``: MaskablePPO on the single-agent bridge, with checkpoints, resume,
periodic evaluation and an optional self-play league.

Output folder (``--out``, default ``runs/<env>``)::

    out/
      checkpoints/step_<N>/   a checkpoint every ``checkpoint_every`` steps (and the final one)
      latest/                 the newest checkpoint (``--resume`` continues from here)
      snapshots/step_<N>/     self-play snapshots (``--selfplay``), frozen league opponents
      logs/run_<start>/       SB3 logger: progress.csv, TensorBoard events if installed
      eval.jsonl              one JSON line per periodic evaluation (and the final one)
      league.json             with ``--selfplay``: the league's last measured loss rates

Every checkpoint is written atomically (``save_checkpoint``), so a run killed at any moment
resumes from its last checkpoint; each run (and each resume) logs into its own ``logs/run_*``
folder, and ``eval.jsonl`` is only appended to, so nothing written before a kill is lost.
Needs the ``train`` extra.
"""

from __future__ import annotations

import json
import sys
import time
import warnings
from dataclasses import asdict
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import numpy as np

from cardarena.agents import EnvSpec, MaskablePolicyAgent
from cardarena.agents.numpy_policy import NumpyPolicyAgent, from_sb3_policy
from cardarena.envs import make
from cardarena.envs.core import InvalidConfigError
from cardarena.evaluation.evaluate import available_baselines, evaluate, evaluation_row, print_final

from .checkpoint import (
    capture_rng_state,
    is_checkpoint,
    load_checkpoint,
    rebuild_model,
    restore_rng_state,
    save_checkpoint,
)
from .jsonl import append_jsonl
from .league import (
    LEAGUE_FILE,
    LeaguePool,
    measure_league,
    restore_loss_rates,
    save_loss_rates,
)
from .ppo import build_model, missing_train_extra
from .resume import (
    LEAGUE_SETTINGS,
    check_same_league,
    read_step,
    resume_latest,
    resume_point,
)
from .run_lock import RunLock
from .single_agent import SingleAgentEnv
from .train_args import (
    DEFAULTS,
    FALLBACK,
    TrainArgs,
    add_arguments,
    args_from_namespace,
    flag_of,
    ignored_by,
)


def _has(module: str) -> bool:
    try:
        return find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def _env_config(args: TrainArgs) -> dict[str, Any]:
    return {} if args.num_players is None else {"num_players": args.num_players}


class _Trainer:
    """Holds what the callback needs: the vec env, pool, output paths and counters."""

    def __init__(self, args: TrainArgs, vec_env: Any, pool: LeaguePool | None) -> None:
        self.args = args
        self.vec_env = vec_env
        self.pool = pool
        self.out: Path = args.out  # type: ignore[assignment]
        self.spec = EnvSpec(args.env, _env_config(args))
        self.scaler = vec_env.envs[0].scaler
        self.opponents = list(args.opponent or [])
        #: What every evaluation plays against: the baselines this env has.
        self.baselines = available_baselines(self.spec)

    def env_fn(self) -> Any:
        return make(self.args.env, **_env_config(self.args))

    # --- checkpoints ---------------------------------------------------------------------
    def rng_state(self) -> dict[str, Any]:
        state = capture_rng_state(None)
        state["envs"] = [env.np_random.bit_generator.state for env in self.vec_env.envs]
        return state

    def restore_rng(self, state: dict[str, Any] | None) -> None:
        if not state:
            return
        restore_rng_state(state)
        for env, env_state in zip(self.vec_env.envs, state.get("envs") or [], strict=False):
            generator = np.random.default_rng()
            generator.bit_generator.state = env_state
            env.np_random = generator

    def pool_specs(self) -> list[str]:
        return self.pool.entries if self.pool is not None else self.opponents

    def save(self, model: Any, step: int) -> Path:
        rng = self.rng_state()
        path = save_checkpoint(
            self.out / "checkpoints" / f"step_{step}",
            model, self.spec, self.scaler, step, rng, self.pool_specs(),
        )  # fmt: skip
        save_checkpoint(
            self.out / "latest", model, self.spec, self.scaler, step, rng, self.pool_specs()
        )
        return path

    def snapshot(self, model: Any, step: int) -> None:
        assert self.pool is not None
        path = self.out / "snapshots" / f"step_{step}"
        if not is_checkpoint(path):  # one left by a killed run stays as it was
            save_checkpoint(path, model, self.spec, self.scaler, step)
        self.pool.add_snapshot(path)

    # --- evaluation ----------------------------------------------------------------------
    def evaluate(self, model: Any, step: int, games: int, final: bool = False) -> dict[str, Any]:
        agent = _evaluation_agent(model, self.scaler)
        seed = self.args.seed + 1_000_000 + step  # games never seen in training

        def play(opponent: str, games: int) -> Any:
            return evaluate(self.env_fn, agent, opponent, games, seed)

        row = evaluation_row(self.args.env, step, final, self.baselines, games, play)
        if self.pool is not None and not final:
            rates = measure_league(self.pool, row, play, self.args.league_eval_games)
            row["league_loss_rates"] = rates
            save_loss_rates(self.out, self.pool, step)
            if self.args.rate_games > 0 and len(self.pool.entries) >= 2:
                from cardarena.evaluation.tournament import run_tournament

                ratings = run_tournament(
                    self.args.env,
                    self.pool.entries,
                    self.args.rate_games,
                    config=_env_config(self.args),
                    seed=self.args.seed,
                ).ratings
                row["league_ratings"] = {spec: list(r) for spec, r in ratings.items()}
        append_jsonl(self.out / "eval.jsonl", [row])
        return row


def _evaluation_agent(model: Any, scaler: Any) -> Any:
    """The model's current greedy policy for evaluation games: copied into numpy (same actions,
    a fraction of ``model.predict``'s cost per decision) when it is a plain MlpPolicy."""
    try:
        return NumpyPolicyAgent(from_sb3_policy(model.policy, scaler, {}))
    except InvalidConfigError:
        return MaskablePolicyAgent(model, scaler)


class _AfterUpdate:
    """Runs right after every PPO update (``build_model(after_update=...)``): snapshots,
    evaluations and checkpoints happen there, where the step counter and the network agree,
    so a checkpoint at step N holds exactly the updates of the rollouts up to N."""

    def __init__(self, trainer: _Trainer, start_step: int, total: int) -> None:
        args = self.args = trainer.args
        self.trainer, self.start_step, self.total = trainer, start_step, total
        self.model: Any = None
        self.next_ckpt = (start_step // args.checkpoint_steps + 1) * args.checkpoint_steps
        self.next_eval = (
            (start_step // args.eval_every + 1) * args.eval_every if args.eval_every else None
        )
        self.next_snap = (start_step // args.snapshot_every + 1) * args.snapshot_every
        self.last_print = 0.0
        self.started = time.perf_counter()

    def __call__(self) -> None:
        args, trainer, model = self.args, self.trainer, self.model
        step = int(model.num_timesteps)
        if trainer.pool is not None and step >= self.next_snap:
            trainer.snapshot(model, step)
            self.next_snap = (step // args.snapshot_every + 1) * args.snapshot_every
        if self.next_eval is not None and step >= self.next_eval:
            row = trainer.evaluate(model, step, args.eval_games)
            for name in trainer.baselines:
                model.logger.record(f"eval/win_rate_{name}", row[f"win_rate_{name}"])
            self.next_eval = (step // args.eval_every + 1) * args.eval_every
        if step >= self.next_ckpt:
            trainer.save(model, step)
            self.next_ckpt = (step // args.checkpoint_steps + 1) * args.checkpoint_steps
        if args.progress and time.perf_counter() - self.last_print > 1.0:
            self.last_print = time.perf_counter()
            rate = (step - self.start_step) / max(self.last_print - self.started, 1e-9)
            print(f"\r{args.env}: step {step}/{self.total} ({rate:.0f}/s)", end="", file=sys.stderr)


def train(args: TrainArgs) -> Path:
    """Train as ``args`` says; returns the final checkpoint's path (with ``backend="rllib"``,
    the run folder)."""
    if args.backend == "rllib":
        return _train_rllib(args)
    if args.backend == "vector":
        from .train_vector import train_vector, warn_short_checkpoints

        args = args.resolved()
        _warn_ignored(args, "vector", "other backends only")
        warn_short_checkpoints(args)
        return train_vector(args)
    try:
        import torch
        from stable_baselines3.common.logger import configure
        from stable_baselines3.common.vec_env import DummyVecEnv
    except ImportError as missing:
        raise missing_train_extra(missing) from missing
    args = args.resolved()
    _warn_ignored(args, "sb3", "other backends only")
    out: Path = args.out  # type: ignore[assignment]
    out.mkdir(parents=True, exist_ok=True)
    with RunLock(out):
        return _train_locked(args, out, torch, configure, DummyVecEnv)


def _train_locked(
    args: TrainArgs, out: Path, torch: Any, configure: Any, vec_env_type: Any
) -> Path:
    """``train`` once this process holds the run folder's lock."""
    if args.resume:
        check_same_league(out, args)
    latest = resume_latest(out) if args.resume else resume_point(out)
    checkpoint = (
        load_checkpoint(latest, expect_env=EnvSpec(args.env, _env_config(args)))
        if args.resume
        else None
    )
    if not args.resume and read_step(latest) is not None:
        raise InvalidConfigError(f"{out} already holds a run; pass --resume or another --out")

    # Seeding: torch for the network, numpy for SB3 internals, the vec env's seeds for deals,
    # seats and opponents (the bridge's own generators). A resume restores all of them.
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    torch.set_num_threads(args.torch_threads)

    pool: LeaguePool | None = None
    spec = EnvSpec(args.env, _env_config(args))
    baselines = args.opponent or (available_baselines(spec) if args.selfplay else ["random"])
    if args.selfplay:
        snapshots: list[str] = []
        if checkpoint is not None:
            snapshots = [s for s in checkpoint.opponents if s not in baselines]
        pool = LeaguePool(
            baselines,
            snapshots,
            args.league_mode,
            max_snapshots=args.max_snapshots,
            baseline_share=args.baseline_share,
        )
        if checkpoint is not None:
            restore_loss_rates(out, pool, checkpoint.step)
    opponent: Any = pool if pool is not None else list(baselines)
    config = _env_config(args)
    vec_env = vec_env_type(
        [lambda: SingleAgentEnv(args.env, opponent=opponent, env_config=config)] * args.n_envs
    )
    args.opponent = list(baselines)
    trainer = _Trainer(args, vec_env, pool)
    start_step = checkpoint.step if checkpoint is not None else 0
    after_update = _AfterUpdate(trainer, start_step, args.steps)
    if checkpoint is None:
        model = build_model(
            vec_env,
            args.hyper,
            seed=args.seed,
            after_update=after_update,
            device=args.device,
            **args.ppo_settings(),
        )
        (out / "args.json").write_text(json.dumps(asdict(args), default=str, indent=2))
    else:
        model = rebuild_model(checkpoint, vec_env, after_update, seed=args.seed, device=args.device)
        trainer.restore_rng(checkpoint.rng_state)
    after_update.model = model
    formats = ["csv"] + (["tensorboard"] if _has("tensorboard") else [])
    model.set_logger(configure(str(out / "logs" / f"run_{start_step}"), formats))

    remaining = max(args.steps - start_step, 0)
    started = time.perf_counter()
    if remaining:
        model.learn(
            total_timesteps=remaining,
            reset_num_timesteps=checkpoint is None,
            progress_bar=args.progress and _has("tqdm") and _has("rich"),
        )
    seconds = time.perf_counter() - started
    if args.progress:
        print(file=sys.stderr)
    step = int(model.num_timesteps)
    final = out / "checkpoints" / f"step_{step}"
    if read_step(final) != step:  # never rewrite a saved step
        final = trainer.save(model, step)
    row = trainer.evaluate(model, step, args.final_eval_games, final=True)
    print_final(args.env, row, step - start_step, seconds, final, "sb3")
    vec_env.close()
    return final


def _warn_ignored(args: TrainArgs, backend: str, why: str) -> None:
    """Warn about the flags set that ``backend`` does not use (each field's ``backends``)."""
    ignored = ignored_by(args, backend)
    if ignored:
        flags = ", ".join(flag_of(name) for name in ignored)
        warnings.warn(f"--backend {backend} ignores {flags} ({why})", UserWarning, stacklevel=3)


def _train_rllib(args: TrainArgs) -> Path:
    """``--backend rllib``: hand over to ``cardarena.training.rllib`` (imported only here)."""
    if not _has("ray"):
        raise SystemExit(
            "--backend rllib needs the 'rllib' extra (ray is missing), in a venv of its own "
            "since Ray pins its own gymnasium: make .venv-rllib/.installed in the cardarena "
            "clone, then .venv-rllib/bin/cardarena train --backend rllib ..."
        )
    from .rllib import train_from_args

    _warn_ignored(args, "rllib", "other backends only")
    out = Path(args.out) if args.out is not None else Path("runs") / f"{args.env}_rllib"
    resolved = args.resolved()
    resolved.out = out
    summary = train_from_args(resolved)
    for policy, row in summary["policies"].items():
        print(f"{policy}: vs random {row.get('summary', '')}")
        print(f"  play it as pretrained:path={row['path']}")
    return out


__all__ = [
    "DEFAULTS",
    "FALLBACK",
    "LEAGUE_FILE",
    "LEAGUE_SETTINGS",
    "TrainArgs",
    "add_arguments",
    "args_from_namespace",
    "build_model",
    "read_step",
    "restore_loss_rates",
    "resume_point",
    "save_loss_rates",
    "train",
]
