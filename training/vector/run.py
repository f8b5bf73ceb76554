"""``cardarena train ENV --backend vector``: ``training.vector.ppo`` on the shared run loop.

``training.run`` keeps the folder, the league, the schedule, the checkpoints and the
evaluations, as for SB3; this backend adds ``logs/run_<start>/progress.csv`` (one row per
rollout: losses, entropy, mean return and length of the games that ended), the exploiter
rounds of ``--exploiter-every`` and the generator states of the vector engine. Checkpoints are
the project's safe format (``training.checkpoint``), so ``export``, ``curves``, agent specs
and ``eval`` take them as they are.

Exact resume. After each PPO update, in this order: a snapshot joins the league, an exploiter
round runs when due, the learner is evaluated (fresh games on their own seeds, never the
training streams), and a checkpoint is written. A checkpoint holds the network, Adam's state,
the step and update counters and every generator (the torch generator that samples actions and
minibatches, the learner-seat and opponent generators, each game slot's deal stream); right
after writing it, every game is dealt anew from those generators. A run killed at any moment
(SIGKILL included) and resumed from its last checkpoint therefore continues exactly as the
uninterrupted run did from that point: no step the counter claims is missing from the network,
and no later step differs. The games in flight at a checkpoint end there, their last steps
bootstrapped from the value estimate, as any rollout's unfinished games are.
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
from cardarena.envs.core import InvalidConfigError, network_scaler
from cardarena.evaluation.evaluate_vector import evaluate_on_vector

from ..run import LEAGUE_HISTORY, Run, missing_train_extra
from ..run_lock import RunLock
from ..train_args import MIN_CHECKPOINT_ROLLOUTS, TrainArgs

if TYPE_CHECKING:
    from .ppo import WarmStart

#: Columns of ``progress.csv``.
PROGRESS_COLUMNS = (
    "step", "seconds", "cpu_seconds", "steps_per_second", "games_ended", "mean_return",
    "mean_length", "policy_loss", "value_loss", "entropy", "clip_fraction", "kl",
)  # fmt: skip


def _env_config(args: TrainArgs) -> dict[str, Any]:
    return {} if args.num_players is None else {"num_players": args.num_players}


def ppo_config(args: TrainArgs) -> Any:
    """The ``PPOConfig`` of resolved ``args``."""
    from .config import PPOConfig, default_precision

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
        raise missing_train_extra(missing) from missing
    out: Path = args.out  # type: ignore[assignment]
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(args.torch_threads)
    with RunLock(out):
        return VectorRun(args, out, warm_start, evaluate_against, config).train()


class VectorRun(Run):
    """One run on the vector engine: a ``LearnerBatch`` and a ``VectorPPO`` learning from it."""

    backend = "vector"
    trains_exploiters = True

    def __init__(
        self,
        args: TrainArgs,
        out: Path,
        warm_start: WarmStart | None = None,
        evaluate_against: Sequence[str] = (),
        config: Mapping[str, Any] | None = None,
    ) -> None:
        from .batch import LearnerBatch
        from .ppo import VectorPPO

        spec = EnvSpec(args.env, {**(config or {}), **_env_config(args)})
        checks = [
            (GEOMETRY, "rollout flags"),
            (MAGNET_FLAGS, "magnet flags"),
            (EXPLOITER_FLAGS, "exploiter flags"),
            (("sample",), "--sample flag"),
        ]
        super().__init__(args, out, spec, checks, evaluate_against)
        self.samples = args.sample
        self.batch = LearnerBatch(
            args.env,
            args.num_envs,
            args.seed,
            self.pool if self.pool is not None else self.opponents,
            True,
            dict(self.spec.config),
        )
        # A new run's inputs are network_scaler's; a resumed one keeps the scaler it has.
        box = self.batch.engine.observation_space
        self.batch.scaler = (
            network_scaler(box) if self.checkpoint is None else self.checkpoint.scaler
        )
        self.scaler = self.batch.scaler
        self.model = self.learner = VectorPPO(self.batch, ppo_config(args), args.seed)
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

    # --- generators -----------------------------------------------------------------------
    def rng_state(self) -> dict[str, Any]:
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

        model, batch = self.model, self.batch
        model.restore(checkpoint)
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

    def exploiter(self, step: int) -> None:
        """An exploiter round (``training.exploiters``): one that wins joins the league."""
        from ..exploiters import exploiter_round

        assert self.pool is not None
        args = self.args
        row = exploiter_round(
            self.out,
            step,
            self.spec,
            lambda path: self.save_to(path, step),
            steps=args.exploiter_steps or args.exploiter_every,
            games=args.exploiter_games,
            seed=(args.seed + step // args.exploiter_every) % 2**32,
            train={key: getattr(args, key) for key in EXPLOITER_SETTINGS},
        )
        if row["joins"] and row["checkpoint"] not in self.pool.entries:
            self.pool.add_snapshot(row["checkpoint"])

    # --- evaluation ----------------------------------------------------------------------
    def evaluation_agent(self) -> VectorPolicy:
        """The current network's policy in numpy, greedy or with ``--sample`` sampled (as
        its snapshots play)."""
        meta = {"env": self.args.env, "source": f"{self.out} (training)"}
        return VectorPolicy(self.model.numpy_policy(self.scaler, meta), not self.samples)

    def play(self, agent: Any, opponent: str, games: int, seed: int) -> Any:
        return evaluate_on_vector(self.spec, agent, opponent, games, seed)

    def after_checkpoint(self) -> None:
        self.batch.reset()  # every game dealt anew from the saved generators

    # --- the loop ------------------------------------------------------------------------
    def learn(self) -> None:
        """Rollout after rollout to ``args.steps``: one ``progress.csv`` row per update."""
        args, model = self.args, self.model
        _warn_emulated_bfloat16(args)
        logs = self.out / "logs" / f"run_{self.start_step}"
        logs.mkdir(parents=True, exist_ok=True)
        self.batch.reset()
        with open(logs / "progress.csv", "a", newline="") as handle:
            writer = csv.DictWriter(handle, PROGRESS_COLUMNS)
            if handle.tell() == 0:
                writer.writeheader()
            while model.num_timesteps < args.steps:
                stats = model.learn_rollout()
                step = model.num_timesteps
                seconds = time.perf_counter() - self.started
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
                self.after_update(step)
                mean = f"{np.mean(returns):+.3f}" if returns else "n/a"
                self.progress(step, f", mean return {mean}   ")


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
    from .config import default_precision

    if args.precision == "bfloat16" and default_precision() != "bfloat16":
        print(
            "note: --precision bfloat16 on a CPU without AMX or AVX-512 BF16: torch emulates "
            "it, several times slower than float32 (--precision auto picks float32 here)",
            file=sys.stderr,
        )


__all__ = ["GEOMETRY", "LEAGUE_HISTORY", "PROGRESS_COLUMNS", "ppo_config", "train_vector"]
