"""``cardarena train ENV --backend vector``: the run around ``training.vector_ppo``.

The same run folder as the SB3 backend (``training.train``): ``checkpoints/step_<N>``,
``latest``, ``snapshots/step_<N>``, ``eval.jsonl``, ``league.json``, ``args.json``, plus
``logs/run_<start>/progress.csv`` (one row per rollout: losses, entropy, mean return and length
of the games that ended) and ``league/step_<N>.json`` (the league's loss rates as they were at
checkpoint ``N``). Checkpoints are the project's safe format (``training.checkpoint``), so
``export``, ``curves``, agent specs and ``eval`` take them as they are.

Exact resume. After each PPO update, in this order: a snapshot joins the league, the learner
is evaluated (fresh games on their own seeds, never the training streams), and a checkpoint is
written. A checkpoint holds the network, Adam's state, the step and update counters and every
generator (the torch generator that samples actions and minibatches, the learner-seat and
opponent generators, each game slot's deal stream); right after writing it, every game is dealt
anew from those generators. A run killed at any moment (SIGKILL included) and resumed from its
last checkpoint therefore continues exactly as the uninterrupted run did from that point: no
step the counter claims is missing from the network, and no later step differs. The games in
flight at a checkpoint end there, their last steps bootstrapped from the value estimate, as
any rollout's unfinished games are.
"""

from __future__ import annotations

import csv
import json
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from cardarena.agents import EnvSpec
from cardarena.agents.vector import VectorPolicy
from cardarena.envs.core import InvalidConfigError
from cardarena.evaluation.evaluate import available_baselines, evaluation_row, print_final
from cardarena.evaluation.evaluate_vector import evaluate_on_vector

from .checkpoint import is_checkpoint, load_checkpoint, save_checkpoint
from .jsonl import append_jsonl
from .league import LeaguePool, measure_league, restore_loss_rates, save_loss_rates
from .resume import (
    check_same_league,
    check_same_settings,
    read_step,
    resume_latest,
    resume_point,
)
from .run_lock import RunLock
from .train_args import MIN_CHECKPOINT_ROLLOUTS, TrainArgs

if TYPE_CHECKING:
    from .vector_ppo import WarmStart

#: ``league/step_<N>.json``: the loss rates a resume from checkpoint ``N`` starts with.
LEAGUE_HISTORY = "league"
#: Columns of ``progress.csv``.
PROGRESS_COLUMNS = (
    "step", "seconds", "cpu_seconds", "steps_per_second", "games_ended", "mean_return",
    "mean_length", "policy_loss", "value_loss", "entropy", "clip_fraction", "kl",
)  # fmt: skip


def _env_config(args: TrainArgs) -> dict[str, Any]:
    return {} if args.num_players is None else {"num_players": args.num_players}


def ppo_config(args: TrainArgs) -> Any:
    """The ``PPOConfig`` of resolved ``args``."""
    from .vector_ppo import PPOConfig, default_precision

    hyper = args.hyper
    precision = default_precision() if args.precision == "auto" else args.precision
    return PPOConfig(
        num_envs=args.num_envs,
        rollout_steps=args.rollout_steps,
        minibatch_size=int(hyper["minibatch_size"]),
        learning_rate=float(hyper["learning_rate"]),
        ent_coef=float(hyper["ent_coef"]),
        net_arch=tuple(hyper["net_arch"]),
        **args.ppo_settings(),
        precision=precision,
        **{key: getattr(args, key) for key in MAGNET_FLAGS},
    )


def train_vector(
    args: TrainArgs,
    *,
    warm_start: WarmStart | None = None,
    evaluate_against: Sequence[str] = (),
    config: Mapping[str, Any] | None = None,
) -> Path:
    """Train as resolved ``args`` say on the vector engine; the final checkpoint's path.

    The hooks ``cardarena exploit`` drives the run with (a resume ignores the first, its
    checkpoint holds the network): ``warm_start``, a network the learner starts from instead
    of a fresh one (``VectorPPO.warm_start``); ``evaluate_against``, agent specs every
    evaluation measures the learner against besides the baselines (``eval.jsonl`` rows get
    their ``win_rate_<spec>``); ``config``, env config besides ``num_players``."""
    try:
        import torch
    except ImportError as missing:
        from .ppo import missing_train_extra

        raise missing_train_extra(missing) from missing
    out: Path = args.out  # type: ignore[assignment]
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(args.torch_threads)
    with RunLock(out):
        return _Run(args, out, warm_start, evaluate_against, config).train()


class _Run:
    """One training run: the learner, its league, its folder."""

    def __init__(
        self,
        args: TrainArgs,
        out: Path,
        warm_start: WarmStart | None = None,
        evaluate_against: Sequence[str] = (),
        config: Mapping[str, Any] | None = None,
    ) -> None:
        from .vector_env import LearnerBatch
        from .vector_ppo import VectorPPO

        self.args, self.out = args, out
        self.spec = EnvSpec(args.env, {**(config or {}), **_env_config(args)})
        if args.resume:
            check_same_league(out, args)
        latest = resume_latest(out) if args.resume else resume_point(out)
        self.checkpoint = load_checkpoint(latest, self.spec) if args.resume else None
        if not args.resume and read_step(latest) is not None:
            raise InvalidConfigError(f"{out} already holds a run; pass --resume or another --out")
        if self.checkpoint is not None:
            check_same_settings(out, args, GEOMETRY, "rollout flags")
            check_same_settings(out, args, MAGNET_FLAGS, "magnet flags")
            check_same_settings(out, args, EXPLOITER_FLAGS, "exploiter flags")
        self.baselines = available_baselines(self.spec)
        extra = [spec for spec in evaluate_against if spec not in self.baselines]
        self.evaluated = [*self.baselines, *dict.fromkeys(extra)]
        opponents = args.opponent or (self.baselines if args.selfplay else ["random"])
        self.opponents = list(opponents)
        self.pool: LeaguePool | None = None
        if args.selfplay:
            snapshots = [] if self.checkpoint is None else self.checkpoint.opponents
            self.pool = LeaguePool(
                self.opponents,
                [s for s in snapshots if s not in self.opponents],
                args.league_mode,
                max_snapshots=args.max_snapshots,
                baseline_share=args.baseline_share,
            )
            if self.checkpoint is not None:
                step = self.checkpoint.step
                restore_loss_rates(out, self.pool, step, _league_at(step))
        self.batch = LearnerBatch(
            args.env,
            args.num_envs,
            args.seed,
            self.pool if self.pool is not None else self.opponents,
            True,
            dict(self.spec.config),
        )
        self.scaler = self.batch.scaler
        self.model = VectorPPO(self.batch, ppo_config(args), args.seed)
        if self.checkpoint is None:
            saved = {**asdict(args), "precision_used": self.model.config.precision}
            if config:
                saved["env_config"] = dict(self.spec.config)
            if warm_start is not None:
                loaded = self.model.warm_start(warm_start)
                saved["warm_start"] = {"source": warm_start.source, "loaded": loaded}
            (out / "args.json").write_text(json.dumps(saved, default=str, indent=2))
        else:
            self._restore(self.checkpoint)
        self.start_step = self.model.num_timesteps
        self.next = {
            name: (self.start_step // every + 1) * every if every else None
            for name, every in (
                ("snapshot", args.snapshot_every if self.pool is not None else 0),
                ("exploiter", args.exploiter_every if self.pool is not None else 0),
                ("eval", args.eval_every),
                ("checkpoint", args.checkpoint_steps),
            )
        }

    # --- checkpoints --------------------------------------------------------------------
    def _rng_state(self) -> dict[str, Any]:
        batch = self.batch
        return {
            "numpy": None,
            "torch": self.model.generator.get_state(),
            "vector": {
                "seat": batch.seat_rng.bit_generator.state,
                "opponent": batch.opponent_rng.bit_generator.state,
                "slots": [int(x) for x in batch.rules.rng],
            },
        }

    def _restore(self, checkpoint: Any) -> None:
        import torch

        from .ppo import restore_model_state

        model, batch = self.model, self.batch
        restore_model_state(
            model, checkpoint.network, checkpoint.moments or None, checkpoint.param_groups or None
        )
        model.num_timesteps, model._n_updates = checkpoint.step, checkpoint.n_updates
        if model.magnet is not None and checkpoint.magnet is not None:
            model.magnet.load(checkpoint.magnet)
        elif model.magnet is not None:  # a run that had no magnet to keep: it starts here
            model.magnet.follow()
        state = checkpoint.rng_state or {}
        vector = state.get("vector")
        if not isinstance(vector, dict) or state.get("torch") is None:
            raise InvalidConfigError(
                f"checkpoint {str(checkpoint.path)!r} was not written by --backend vector "
                "(no engine generator states): resume it with the backend that wrote it"
            )
        slots = vector.get("slots")
        if not isinstance(slots, list) or len(slots) != batch.num_envs:
            raise InvalidConfigError(
                f"checkpoint {str(checkpoint.path)!r} holds {len(slots or [])} game streams, "
                f"but --num-envs is {batch.num_envs}: resume with the run's own --num-envs"
            )
        try:
            model.generator.set_state(torch.as_tensor(state["torch"], dtype=torch.uint8))
            batch.seat_rng.bit_generator.state = vector["seat"]
            batch.opponent_rng.bit_generator.state = vector["opponent"]
            batch.rules.rng[:] = np.array(slots, dtype=np.uint64)
        except (TypeError, ValueError, KeyError, RuntimeError, OverflowError) as error:
            raise InvalidConfigError(
                f"checkpoint {str(checkpoint.path)!r}: corrupt generator state ({error})"
            ) from None

    def save(self, step: int) -> Path:
        if self.pool is not None:
            save_loss_rates(self.out, self.pool, step, _league_at(step))
        specs = self.pool.entries if self.pool is not None else self.opponents
        rng = self._rng_state()
        path = save_checkpoint(
            self.out / "checkpoints" / f"step_{step}",
            self.model, self.spec, self.scaler, step, rng, specs,
        )  # fmt: skip
        save_checkpoint(self.out / "latest", self.model, self.spec, self.scaler, step, rng, specs)
        return path

    def snapshot(self, step: int) -> None:
        assert self.pool is not None
        path = self.out / "snapshots" / f"step_{step}"
        if not is_checkpoint(path):  # one left by a killed run stays as it was
            save_checkpoint(path, self.model, self.spec, self.scaler, step)
        self.pool.add_snapshot(path)

    def exploiter(self, step: int) -> None:
        """An exploiter round (``training.exploiters``): one that wins joins the pool."""
        from .exploiters import exploiter_round

        assert self.pool is not None
        args = self.args
        row = exploiter_round(
            self.out,
            step,
            self.spec,
            lambda path: save_checkpoint(path, self.model, self.spec, self.scaler, step),
            steps=args.exploiter_steps or args.exploiter_every,
            games=args.exploiter_games,
            seed=(args.seed + step // args.exploiter_every) % 2**32,
            train={key: getattr(args, key) for key in EXPLOITER_SETTINGS},
        )
        if row["joins"] and row["checkpoint"] not in self.pool.entries:
            self.pool.add_snapshot(row["checkpoint"])

    # --- evaluation ---------------------------------------------------------------------
    def learner(self) -> VectorPolicy:
        """The current network's greedy policy, in numpy (as every opponent plays)."""
        meta = {"env": self.args.env, "source": f"{self.out} (training)"}
        return VectorPolicy(self.model.numpy_policy(self.scaler, meta))

    def evaluate(self, step: int, games: int, final: bool = False) -> dict[str, Any]:
        args = self.args
        learner = self.learner()
        seed = args.seed + 1_000_000 + step  # games never seen in training

        def play(opponent: str, games: int) -> Any:
            return evaluate_on_vector(self.spec, learner, opponent, games, seed)

        row = evaluation_row(args.env, step, final, self.evaluated, games, play)
        if self.pool is not None and not final:
            rates = measure_league(self.pool, row, play, args.league_eval_games)
            row["league_loss_rates"] = rates
            save_loss_rates(self.out, self.pool, step)
        append_jsonl(self.out / "eval.jsonl", [row])
        return row

    # --- the loop -----------------------------------------------------------------------
    def _due(self, name: str, step: int, every: int) -> bool:
        due = self.next[name] is not None and step >= self.next[name]  # type: ignore[operator]
        if due:
            self.next[name] = (step // every + 1) * every
        return due

    def _after_update(self, step: int) -> None:
        args = self.args
        if self.pool is not None and self._due("snapshot", step, args.snapshot_every):
            self.snapshot(step)
        if self.pool is not None and self._due("exploiter", step, args.exploiter_every):
            self.exploiter(step)
        if self._due("eval", step, args.eval_every):
            self.evaluate(step, args.eval_games)
        if self._due("checkpoint", step, args.checkpoint_steps):
            self.save(step)
            self.batch.reset()  # every game dealt anew from the saved generators

    def train(self) -> Path:
        args, model = self.args, self.model
        _warn_emulated_bfloat16(args)
        logs = self.out / "logs" / f"run_{self.start_step}"
        logs.mkdir(parents=True, exist_ok=True)
        self.batch.reset()
        started = time.perf_counter()
        last_print = 0.0
        with open(logs / "progress.csv", "a", newline="") as handle:
            writer = csv.DictWriter(handle, PROGRESS_COLUMNS)
            if handle.tell() == 0:
                writer.writeheader()
            while model.num_timesteps < args.steps:
                stats = model.learn_rollout()
                step = model.num_timesteps
                seconds = time.perf_counter() - started
                rate = (step - self.start_step) / max(seconds, 1e-9)
                returns, lengths = model.finished_returns, model.finished_lengths
                writer.writerow(
                    {
                        "step": step,
                        "seconds": round(seconds, 3),
                        "cpu_seconds": round(time.process_time(), 3),
                        "steps_per_second": round(rate, 1),
                        "games_ended": len(returns),
                        "mean_return": round(float(np.mean(returns)), 5) if returns else "",
                        "mean_length": round(float(np.mean(lengths)), 3) if lengths else "",
                        **{key: round(value, 6) for key, value in stats.items()},
                    }
                )
                handle.flush()
                self._after_update(step)
                if args.progress and time.perf_counter() - last_print > 1.0:
                    last_print = time.perf_counter()
                    mean = f"{np.mean(returns):+.3f}" if returns else "n/a"
                    print(
                        f"\r{args.env}: step {step}/{args.steps} ({rate:.0f}/s), "
                        f"mean return {mean}   ",
                        end="",
                        file=sys.stderr,
                    )
        if args.progress:
            print(file=sys.stderr)
        seconds = time.perf_counter() - started
        step = model.num_timesteps
        final = self.out / "checkpoints" / f"step_{step}"
        if read_step(final) != step:  # never rewrite a saved step
            final = self.save(step)
        row = self.evaluate(step, args.final_eval_games, final=True)
        print_final(args.env, row, step - self.start_step, seconds, final, "vector")
        return final


#: Settings a vector resume must repeat: they shape the rollout and its generators.
GEOMETRY = ("num_envs", "rollout_steps", "minibatch_size", "seed", "num_players")
#: The main run's settings its exploiters train with (the rest: ``cardarena exploit``'s).
EXPLOITER_SETTINGS = (
    "num_envs", "rollout_steps", "minibatch_size", "torch_threads", "precision", "n_epochs",
)  # fmt: skip
#: The magnet term's flags: a resume repeats them (the checkpoint holds the magnet itself).
MAGNET_FLAGS = ("kl_coef", "magnet", "magnet_every", "magnet_rate")
#: The exploiter rounds' flags: a resume repeats them (they decide what joins the pool).
EXPLOITER_FLAGS = ("exploiter_every", "exploiter_steps", "exploiter_games")


def warn_short_checkpoints(args: TrainArgs) -> None:
    """Say so when ``--checkpoint-every`` was set under ``MIN_CHECKPOINT_ROLLOUTS`` rollouts:
    every checkpoint ends the games in flight (for an exact resume), so games longer than the
    interval's moves per game never reach their end and their rewards. ``cardarena train``
    says it (the default never is); ``exploit`` and the league choose their own interval."""
    rollout = args.num_envs * args.rollout_steps
    if args.checkpoint_steps < MIN_CHECKPOINT_ROLLOUTS * rollout:
        print(
            f"note: --checkpoint-every {args.checkpoint_every:,} is under "
            f"{MIN_CHECKPOINT_ROLLOUTS} rollouts ({MIN_CHECKPOINT_ROLLOUTS * rollout:,} steps "
            f"at --num-envs {args.num_envs} x --rollout-steps {args.rollout_steps}); each "
            "checkpoint deals every game anew, so long games are cut short",
            file=sys.stderr,
        )


def _warn_emulated_bfloat16(args: TrainArgs) -> None:
    """Say so when ``--precision bfloat16`` is asked for on a CPU that has no bfloat16 matrix
    units: torch then emulates it, several times slower than float32 (``auto`` would have
    picked float32)."""
    from .vector_ppo import default_precision

    if args.precision == "bfloat16" and default_precision() != "bfloat16":
        print(
            "note: --precision bfloat16 on a CPU without AMX or AVX-512 BF16: torch emulates "
            "it, several times slower than float32 (--precision auto picks float32 here)",
            file=sys.stderr,
        )


def _league_at(step: int) -> str:
    """The loss rates a resume from checkpoint ``step`` restores, inside the run folder."""
    return f"{LEAGUE_HISTORY}/step_{step}.json"


__all__ = ["GEOMETRY", "LEAGUE_HISTORY", "PROGRESS_COLUMNS", "ppo_config", "train_vector"]
