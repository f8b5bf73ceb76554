"""The main job: train a small MaskablePPO agent on promise_war_v0 against a random player,
then report its win rate against the random player beside a random-vs-random baseline.

    python -m cardarena.training.demo [--env promise_war_v0] [--timesteps 60000]
        [--eval-games 400] [--seed 0] [--save PATH | --no-save]

Needs the ``train`` extra. One explicit seeding block; every result is reproducible from
``--seed`` on the same machine and library versions.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cardarena.agents import MaskablePolicyAgent, RandomAgent
from cardarena.envs import make
from cardarena.envs.core import install_hint
from cardarena.evaluation.evaluate import evaluate

from .run import evaluation_seed
from .single_agent import SingleAgentEnv


@dataclass
class DemoArgs:
    env: str = "promise_war_v0"
    """Which registered env to train on."""
    num_players: int | None = None
    """Seats at the table for envs that take ``num_players`` (None: the env's default). The
    learner takes a random seat each game; random players take the rest."""
    timesteps: int = 60_000
    """Learner decisions to train for (about a minute on 2 CPU cores)."""
    eval_games: int = 400
    """Games against the random player for the final win rate (seats rotate)."""
    seed: int = 0
    """Seeds torch, the env, the opponents and the evaluation games."""
    save: Path | None = None
    """Where to save the model (None: do not save). The CLI default is
    ``runs/<env>_maskable_ppo.zip``; ``--no-save`` skips saving."""


def parse_args(argv: list[str] | None = None) -> DemoArgs:
    defaults = DemoArgs()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default=defaults.env)
    parser.add_argument("--num-players", type=int, default=defaults.num_players)
    parser.add_argument("--timesteps", type=int, default=defaults.timesteps)
    parser.add_argument("--eval-games", type=int, default=defaults.eval_games)
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--save", type=Path, help="default: runs/<env>_maskable_ppo.zip")
    parser.add_argument("--no-save", action="store_true", help="do not save the model")
    ns = parser.parse_args(argv)
    save = None if ns.no_save else (ns.save or Path("runs") / f"{ns.env}_maskable_ppo.zip")
    return DemoArgs(ns.env, ns.num_players, ns.timesteps, ns.eval_games, ns.seed, save)


def main(argv: list[str] | None = None) -> dict[str, float]:
    try:
        import torch
        from sb3_contrib import MaskablePPO
    except ImportError as missing:
        raise SystemExit(
            f"the demo needs the 'train' extra ({missing.name} is missing): "
            f"{install_hint('train')} (make demo does it)"
        ) from missing
    args = parse_args(argv)
    config = {} if args.num_players is None else {"num_players": args.num_players}

    # Seeding: torch for the network, the bridge's seed for env deals and opponents.
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)  # only SB3 internals read the global RNG; our envs never do
    torch.set_num_threads(1)
    train_env = SingleAgentEnv(args.env, opponent=RandomAgent(), env_config=config)
    train_env.reset(seed=args.seed)

    model = MaskablePPO(
        "MlpPolicy",
        train_env,
        n_steps=1024,
        batch_size=256,
        n_epochs=5,
        learning_rate=3e-4,
        gamma=0.99,
        ent_coef=0.01,
        policy_kwargs={"net_arch": [128, 128]},
        seed=args.seed,
        device="cpu",
        verbose=0,
    )
    started = time.perf_counter()
    model.learn(total_timesteps=args.timesteps)
    train_seconds = time.perf_counter() - started
    if args.save is not None:
        args.save.parent.mkdir(parents=True, exist_ok=True)
        model.save(args.save)

    def env_fn():
        return make(args.env, **config)

    probe = env_fn()
    trained = MaskablePolicyAgent(model, train_env.scaler)
    eval_seed = evaluation_seed(args.seed, 0)  # games never seen in training
    result = evaluate(env_fn, trained, RandomAgent(args.seed + 1), args.eval_games, eval_seed)
    baseline = evaluate(
        env_fn, RandomAgent(args.seed + 2), RandomAgent(args.seed + 3), args.eval_games, eval_seed
    )
    print(
        f"{args.env}, {len(probe.possible_agents)} players: trained MaskablePPO for "
        f"{args.timesteps} steps in {train_seconds:.0f} s"
    )
    print(f"  trained agent vs random: {result.summary()}")
    print(f"  random vs random:        {baseline.summary()}")
    if args.save is not None:
        print(f"  model saved to {args.save}")
    return {"win_rate": result.win_rate, "baseline_win_rate": baseline.win_rate}


if __name__ == "__main__":
    main()
