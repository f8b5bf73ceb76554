"""``cardarena train ENV`` (``--backend sb3``, the default): SB3's MaskablePPO on the
single-agent bridge (``training.SingleAgentEnv``), on the shared run loop (``training.run``:
the folder, the league, the schedule, checkpoints and evaluations).

SB3 drives its own rollouts (``model.learn``); the model's ``train()`` calls the run's
``after_update`` right after every PPO update (``build_model(after_update=...)``), the one
moment at which the step counter and the network agree, so a checkpoint at step N holds
exactly the updates of the rollouts up to N. Logs: SB3's logger (``progress.csv`` and, when
tensorboard is installed, its events) in ``logs/run_<start>``. Needs the ``train`` extra.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from cardarena.agents import EnvSpec, MaskablePolicyAgent
from cardarena.agents.numpy_policy import NumpyPolicyAgent, from_sb3_policy
from cardarena.envs import make
from cardarena.envs.core import InvalidConfigError, has_module
from cardarena.evaluation.evaluate import evaluate

from ..checkpoint import capture_rng_state, rebuild_model, restore_rng_state
from ..run import Run, missing_train_extra
from ..run_lock import RunLock
from ..single_agent import SingleAgentEnv
from ..train_args import TrainArgs
from .model import SB3Learner, build_model


def train_sb3(args: TrainArgs) -> Path:
    """Train as resolved ``args`` say with SB3; the final checkpoint's path."""
    try:
        import torch
        from stable_baselines3.common.logger import configure
        from stable_baselines3.common.vec_env import DummyVecEnv
    except ImportError as missing:
        raise missing_train_extra(missing) from missing
    out: Path = args.out  # type: ignore[assignment]
    out.mkdir(parents=True, exist_ok=True)
    with RunLock(out):
        run = SB3Run(args, out, torch, DummyVecEnv)
        formats = ["csv"] + (["tensorboard"] if has_module("tensorboard") else [])
        run.model.set_logger(configure(str(out / "logs" / f"run_{run.start_step}"), formats))
        return run.train()


def env_config(args: TrainArgs) -> dict[str, Any]:
    """The env config ``args`` name (``--num-players``)."""
    return {} if args.num_players is None else {"num_players": args.num_players}


class SB3Run(Run):
    """One SB3 run: a ``DummyVecEnv`` of single-agent bridges around a MaskablePPO model."""

    backend = "sb3"

    def __init__(self, args: TrainArgs, out: Path, torch: Any, vec_env_type: Any) -> None:
        super().__init__(args, out, EnvSpec(args.env, env_config(args)))
        # Seeding: torch for the network, numpy for SB3 internals, the vec env's seeds for
        # deals, seats and opponents (the bridge's own generators). A resume restores all.
        torch.manual_seed(args.seed)
        np.random.seed(args.seed)
        torch.set_num_threads(args.torch_threads)
        opponent: Any = self.pool if self.pool is not None else list(self.opponents)
        config = dict(self.spec.config)
        self.vec_env = vec_env_type(
            [lambda: SingleAgentEnv(args.env, opponent=opponent, env_config=config)] * args.n_envs
        )
        self.scaler = self.vec_env.envs[0].scaler
        args.opponent = list(self.opponents)
        if self.checkpoint is None:
            self.model = build_model(
                self.vec_env,
                args.hyper,
                seed=args.seed,
                after_update=self._after_sb3_update,
                device=args.device,
                **args.ppo_settings(),
            )
            (out / "args.json").write_text(json.dumps(asdict(args), default=str, indent=2))
        else:
            self.model = rebuild_model(
                self.checkpoint,
                self.vec_env,
                self._after_sb3_update,
                seed=args.seed,
                device=args.device,
            )
            self._restore_rng(self.checkpoint.rng_state)
        self.learner = SB3Learner(self.model)

    # --- the backend's part of the loop ---------------------------------------------------
    def learn(self) -> None:
        remaining = max(self.args.steps - self.start_step, 0)
        if remaining:
            self.model.learn(
                total_timesteps=remaining,
                reset_num_timesteps=self.checkpoint is None,
                progress_bar=self.args.progress and has_module("tqdm") and has_module("rich"),
            )

    def _after_sb3_update(self) -> None:
        step = int(self.model.num_timesteps)
        self.after_update(step)
        self.progress(step)

    def evaluated_row(self, row: dict[str, Any]) -> None:
        for name in self.baselines:
            self.model.logger.record(f"eval/win_rate_{name}", row[f"win_rate_{name}"])

    def close(self) -> None:
        self.vec_env.close()

    # --- generators and evaluation ---------------------------------------------------------
    def rng_state(self) -> dict[str, Any]:
        state = capture_rng_state(None)
        state["envs"] = [env.np_random.bit_generator.state for env in self.vec_env.envs]
        return state

    def _restore_rng(self, state: dict[str, Any] | None) -> None:
        if not state:
            return
        restore_rng_state(state)
        for env, env_state in zip(self.vec_env.envs, state.get("envs") or [], strict=False):
            generator = np.random.default_rng()
            generator.bit_generator.state = env_state
            env.np_random = generator

    def evaluation_agent(self) -> Any:
        """The model's current greedy policy: copied into numpy (same actions, a fraction of
        ``model.predict``'s cost per decision) when it is a plain MlpPolicy."""
        try:
            return NumpyPolicyAgent(from_sb3_policy(self.model.policy, self.scaler, {}))
        except InvalidConfigError:
            return MaskablePolicyAgent(self.model, self.scaler)

    def play(self, agent: Any, opponent: str, games: int, seed: int) -> Any:
        args = self.args

        def env_fn() -> Any:
            return make(args.env, **env_config(args))

        return evaluate(env_fn, agent, opponent, games, seed)


__all__ = ["SB3Run", "env_config", "train_sb3"]
