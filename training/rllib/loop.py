"""The RLlib training loop: train masked PPO until a step budget, checkpoint each iteration
(``resume`` continues), grow a league of frozen snapshots (the same ``LeaguePool`` as the SB3
path), then export every policy and evaluate it against random with the cardarena tooling.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import ray
from ray.rllib.algorithms.algorithm import Algorithm

from cardarena.agents import Agent, EnvSpec, NumpyPolicy, NumpyPolicyAgent
from cardarena.envs.core import InvalidConfigError
from cardarena.evaluation.evaluate import available_baselines
from cardarena.evaluation.stats import wilson_interval

from ..jsonl import append_jsonl
from ..league import LeaguePool
from ..run import evaluation_seed
from ..train_args import TrainArgs
from .config import SHARED, STEPS_BY_NODE, RLlibSettings, build_ppo_config, policy_ids
from .export import META_FILE, evaluate_export, export_rllib_policy, read_checkpoint_meta


def set_opponent_pool(
    algo: Algorithm,
    opponents: Sequence[Agent | str],
    share: float,
    weights: Sequence[float] | None = None,
) -> None:
    """Send a new opponent pool (and its draw weights) to every env runner."""

    def update(runner: Any) -> None:
        # The local runner has no env when remote runners sample.
        for sub_env in getattr(runner.env, "envs", None) or []:
            sub_env.unwrapped.set_opponents(opponents, share, weights)

    group = algo.env_runner_group
    if group is None:
        raise RuntimeError("the algorithm has no env runners (stopped?)")
    group.foreach_env_runner(update, local_env_runner=True)


def _init_ray(address: str | None, num_env_runners: int) -> bool:
    """Connect to ``address`` or start a small local Ray; True when this call started it."""
    if ray.is_initialized():
        return False
    if address:
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    else:
        ray.init(
            num_cpus=max(1, num_env_runners),
            include_dashboard=False,
            log_to_driver=False,
            configure_logging=False,
        )
    return True


def _recover_checkpoint(out: Path) -> None:
    """Put ``checkpoint.old`` back when a kill came between ``_save``'s two renames (the old
    checkpoint moved aside, the new one not yet in place)."""
    if not (out / "checkpoint").exists() and (out / "checkpoint.old").is_dir():
        (out / "checkpoint.old").rename(out / "checkpoint")


def _save(algo: Algorithm, out: Path, meta: Mapping[str, Any]) -> Path:
    """Checkpoint to ``out/checkpoint`` atomically: a killed save leaves the previous one."""
    final = out / "checkpoint"
    partial = out / "checkpoint.partial"
    shutil.rmtree(partial, ignore_errors=True)
    algo.save_to_path(partial.resolve())
    (partial / META_FILE).write_text(json.dumps(dict(meta), indent=1, sort_keys=True))
    old = out / "checkpoint.old"
    shutil.rmtree(old, ignore_errors=True)
    if final.exists():
        final.rename(old)
    partial.rename(final)
    shutil.rmtree(old, ignore_errors=True)
    return final


def env_steps(result: Mapping[str, Any]) -> int:
    """Env steps (decisions, all seats) sampled over the algorithm's lifetime."""
    value = result.get("num_env_steps_sampled_lifetime")
    if value is None:
        value = result.get("env_runners", {}).get("num_env_steps_sampled_lifetime", 0)
    return int(value)


def train_rllib(
    env: str,
    steps: int,
    out: str | Path,
    num_env_runners: int = 1,
    address: str | None = None,
    resume: bool = False,
    seed: int = 0,
    policies: str = "shared",
    env_config: Mapping[str, Any] | None = None,
    settings: RLlibSettings | None = None,
    opponents: Sequence[Agent | str] = (),
    opponent_share: float = 0.0,
    eval_games: int = 400,
    time_limit_s: float | None = None,
    snapshot_every: int = 0,
    baseline_share: float = 0.5,
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Train masked PPO on ``env`` until ``steps`` env steps (all seats) are sampled.

    Writes ``out/checkpoint`` (every iteration; ``resume`` continues from it with the same
    counters), ``out/progress.jsonl`` (one line per iteration), ``out/policy_<id>.npz`` (the
    export of each policy) and ``out/final_eval.jsonl`` (each export against random, seats
    rotating). Starts a local Ray unless ``address`` names a cluster or Ray is already up.
    ``time_limit_s`` stops after the first iteration past that wall time (still exporting and
    evaluating). ``snapshot_every`` > 0 (shared policy only) grows a league: every that many
    iterations the policy is frozen into ``out/snapshots/iter_<N>.npz`` and joins
    ``opponents`` in the pool that plays ``opponent_share`` of the games (0.5 if unset);
    ``opponents`` (the baselines) keep ``baseline_share`` of that pool's draws.
    Returns the final summary row.
    """
    out = Path(out)
    _recover_checkpoint(out)
    if not resume and (out / "checkpoint").exists():
        raise InvalidConfigError(f"{out} already holds a run; pass --resume or another --out")
    out.mkdir(parents=True, exist_ok=True)
    if snapshot_every > 0:
        if policies != "shared":
            raise InvalidConfigError("a snapshot league needs the shared self-play policy")
        opponent_share = opponent_share or 0.5
    config = build_ppo_config(
        env, env_config, num_env_runners, policies, seed, settings, opponents, opponent_share
    )
    started = _init_ray(address, num_env_runners)
    algo = config.build_algo()
    try:
        meta = {"env": env, "env_config": dict(env_config or {}), "policies": policies}
        done = _resume(algo, out / "checkpoint", meta, log) if resume else 0
        if snapshot_every > 0 and resume:
            set_opponent_pool(algo, *_league(out, opponents, baseline_share, opponent_share))
        start = time.perf_counter()
        while done < steps and (time_limit_s is None or time.perf_counter() - start < time_limit_s):
            begin = time.perf_counter()
            result = algo.train()
            done = env_steps(result)
            row = _progress_row(result, done, time.perf_counter() - begin)
            append_jsonl(out / "progress.jsonl", [row])
            if snapshot_every > 0 and algo.iteration % snapshot_every == 0:
                path = out / "snapshots" / f"iter_{algo.iteration}.npz"
                export_rllib_policy(algo, SHARED, path, provenance={"step": done})
                set_opponent_pool(algo, *_league(out, opponents, baseline_share, opponent_share))
            _save(algo, out, {**meta, "env_steps": done, "iteration": algo.iteration})
            log(f"iteration {row['iteration']}: {done} env steps, {row['steps_per_s']:.0f}/s")
        return _export_and_evaluate(algo, out, env, env_config, policies, done, eval_games, seed)
    finally:
        algo.stop()
        if started:
            ray.shutdown()


def _league(
    out: Path, baselines: Sequence[Agent | str], baseline_share: float, opponent_share: float
) -> tuple[list[Agent | str], float, list[float]]:
    pool, weights = league_pool(out, baselines, baseline_share)
    return pool, opponent_share, weights


#: League snapshots kept in the pool (the oldest leave first), as in the SB3 league.
MAX_SNAPSHOTS = TrainArgs().max_snapshots


def league_pool(
    out: Path, baselines: Sequence[Agent | str], baseline_share: float = 0.5
) -> tuple[list[Agent | str], list[float]]:
    """The baselines plus the newest ``MAX_SNAPSHOTS`` frozen snapshots in ``out/snapshots``
    (loaded into memory, so env runners on other nodes need no shared file system), and the
    draw weights of a ``uniform`` ``LeaguePool``: the baselines keep ``baseline_share`` of
    the draws however many snapshots there are (a league that lets them fade forgets them)."""
    paths = sorted(
        (out / "snapshots").glob("iter_*.npz"), key=lambda p: int(p.stem.removeprefix("iter_"))
    )
    if not baselines and not paths:
        return [], []
    pool = LeaguePool(
        [str(baseline) for baseline in baselines],  # entries are matched back by position
        paths,
        "uniform",
        max_snapshots=MAX_SNAPSHOTS,
        baseline_share=baseline_share if baselines else None,
    )
    snapshots = [NumpyPolicyAgent(NumpyPolicy.load(path)) for path in pool.snapshots]
    weights = pool.weights()
    if not snapshots or not baselines:  # plain equal draws: weight 1 each
        weights = weights * len(weights)
    return [*baselines, *snapshots], [float(w) for w in weights]


def _resume(
    algo: Algorithm, checkpoint: Path, meta: Mapping[str, Any], log: Callable[[str], None]
) -> int:
    """Restore ``algo`` from ``checkpoint`` (weights, optimiser, counters); the env steps
    done so far. No checkpoint yet: a fresh start. Another env or policy layout: refused."""
    if not checkpoint.is_dir():
        log(f"no checkpoint at {checkpoint}: starting a new run")
        return 0
    saved = read_checkpoint_meta(checkpoint)
    for key, value in meta.items():
        if saved.get(key) != value:
            raise InvalidConfigError(
                f"cannot resume {checkpoint}: it has {key}={saved.get(key)!r}, not {value!r}"
            )
    algo.restore_from_path(checkpoint.resolve())
    log(f"resumed from {checkpoint} at iteration {algo.iteration}")
    return int(saved.get("env_steps", 0))


def _progress_row(result: Mapping[str, Any], done: int, seconds: float) -> dict[str, Any]:
    runners = result.get("env_runners", {})
    sampled = runners.get("num_env_steps_sampled", 0)
    return {
        "iteration": int(result.get("training_iteration", 0)),
        "env_steps": done,
        "seconds": seconds,
        "steps_per_s": float(sampled) / seconds if seconds > 0 else 0.0,
        "episode_len_mean": runners.get("episode_len_mean"),
        "steps_by_node": dict(runners.get(STEPS_BY_NODE, {})),
        "time": time.time(),
    }


def _export_and_evaluate(
    algo: Algorithm,
    out: Path,
    env: str,
    env_config: Mapping[str, Any] | None,
    policies: str,
    done: int,
    eval_games: int,
    seed: int,
) -> dict[str, Any]:
    """Export every policy and evaluate it against random with ``cardarena`` tooling."""
    summary: dict[str, Any] = {"env": env, "env_steps": done, "policies": {}}
    for pid in policy_ids(env, env_config, policies):
        path = out / f"policy_{pid}.npz"
        export_rllib_policy(algo, pid, path, provenance={"step": done})
        row: dict[str, Any] = {"policy": pid, "path": str(path), "env_steps": done}
        if eval_games > 0:
            result = evaluate_export(path, env, env_config, eval_games, evaluation_seed(seed, 0))
            low, high = wilson_interval(result.wins, result.games)
            row.update(
                win_rate_random=result.win_rate, wilson_95=[low, high], summary=result.summary()
            )
        append_jsonl(out / "final_eval.jsonl", [row])
        summary["policies"][pid] = row
    return summary


def train_from_args(args: TrainArgs) -> dict[str, Any]:
    """``cardarena train ENV --backend rllib``: the ``cardarena train`` flags that apply
    (``resolved()`` ones, so every value is checked).

    ``--opponent`` specs play half the games (one learning seat against them, the rest is
    self-play); ``--selfplay`` adds a snapshot every ``--snapshot-every`` steps to that pool
    (baselines: random and the env's heuristic if it has one, unless ``--opponent`` names
    others). The ``--rllib-*`` flags set the PPO settings.
    """
    env_config = {} if args.num_players is None else {"num_players": args.num_players}
    opponents = list(args.opponent or [])
    if args.selfplay and not opponents:
        opponents = available_baselines(EnvSpec(args.env, env_config))
    settings = RLlibSettings.from_args(args)
    batch = settings.train_batch_size
    return train_rllib(
        env=args.env,
        steps=int(args.steps),
        out=args.out or Path("runs") / f"{args.env}_rllib",
        num_env_runners=int(args.num_env_runners),
        address=args.address,
        resume=bool(args.resume),
        seed=int(args.seed),
        policies=args.rllib_policies,
        env_config=env_config,
        settings=settings,
        opponents=opponents,
        opponent_share=0.5 if opponents else 0.0,
        baseline_share=float(args.baseline_share),
        eval_games=int(args.final_eval_games),
        snapshot_every=max(1, int(args.snapshot_every) // batch) if args.selfplay else 0,
    )


__all__ = [
    "MAX_SNAPSHOTS",
    "env_steps",
    "league_pool",
    "set_opponent_pool",
    "train_from_args",
    "train_rllib",
]
