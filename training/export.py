"""``cardarena export CHECKPOINT OUT.npz``: a checkpoint's policy as a small numpy-only file.

The exported file (format in ``cardarena.agents.numpy_policy``) keeps the acting network and
the observation scaler (with ``--value`` the value network too), nothing else, so it plays
without torch (agent spec ``pretrained:path=OUT.npz``) and weighs a fraction of the
checkpoint (no optimiser state). The shipped ``pretrained`` agents are files written by this
command.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from cardarena.agents.numpy_policy import NumpyPolicy
from cardarena.envs.core import InvalidConfigError
from cardarena.envs.core.untrusted import read_json
from cardarena.evaluation.records import package_version

from .checkpoint import load_checkpoint


def export_checkpoint(
    checkpoint: str | Path,
    out: str | Path,
    provenance: Mapping[str, Any] | None = None,
    value: bool = False,
) -> NumpyPolicy:
    """Export ``checkpoint``'s policy (with ``value`` its value network too) to ``out``;
    returns the exported policy.

    The meta records the env, the training step, the package version and, when the
    checkpoint sits in a ``cardarena train`` output folder, that run's arguments (how to
    reproduce it); ``provenance`` adds or overrides entries.
    """
    checkpoint = Path(checkpoint)
    loaded = load_checkpoint(checkpoint)
    meta: dict[str, Any] = {
        "exported_by": package_version(),
        "source": checkpoint.name,
    }
    run_args = _run_args(checkpoint)
    if run_args is not None:
        meta["train_args"] = run_args
    meta.update(provenance or {})
    policy = loaded.numpy_policy(meta, value=value)
    policy.save(out)
    return policy


def best_checkpoint(run: str | Path, opponent: str = "heuristic", min_step: int = 0) -> Path:
    """The checkpoint of a ``cardarena train`` run whose periodic evaluation scored the best
    win rate against ``opponent`` (the later one on a tie), like SB3's ``EvalCallback`` keeping
    its best model; only checkpoints at ``min_step`` or later (e.g. to require some self-play
    after the league's first snapshot). The choice is made on the training-time evaluation
    games, so measure the chosen agent again on fresh games (``cardarena eval``) before
    quoting its strength."""
    from .curves import read_curve

    run = Path(run)
    candidates = [
        (row[f"win_rate_{opponent}"], row["step"])
        for row in read_curve(run)
        if not row.get("final")
        and row["step"] >= min_step
        and f"win_rate_{opponent}" in row
        and (run / "checkpoints" / f"step_{row['step']}" / "meta.json").is_file()
    ]
    if not candidates:
        raise InvalidConfigError(
            f"{str(run)!r}: no periodic evaluation against {opponent!r} from step {min_step} on "
            "with a checkpoint at the same step (train with --eval-every equal to "
            "--checkpoint-every)"
        )
    _, step = max(candidates)
    return run / "checkpoints" / f"step_{step}"


def _run_args(checkpoint: Path) -> dict[str, Any] | None:
    """``args.json`` of the ``cardarena train`` run the checkpoint belongs to, if any."""
    for folder in (checkpoint.parent, checkpoint.parent.parent):
        path = folder / "args.json"
        if path.is_file():
            try:
                args = read_json(path, "run arguments")
            except InvalidConfigError:
                return None
            if not isinstance(args, dict):
                return None
            return {k: v for k, v in args.items() if k not in ("resume", "progress")}
    return None


def random_decisions(
    env: str, games: int = 20, config: Mapping[str, Any] | None = None, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """(observations, action masks) of every decision in ``games`` random games of ``env``:
    the inputs on which an export is compared with the network it came from."""
    from cardarena.envs import make

    aec = make(env, **dict(config or {}))
    rng = np.random.default_rng(seed)
    observations: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    for game in range(games):
        aec.reset(seed=seed + game)
        for _seat in aec.agent_iter():
            observation, _, terminated, truncated, _ = aec.last()
            if terminated or truncated:
                aec.step(None)
                continue
            observations.append(observation["observation"])
            masks.append(observation["action_mask"])
            aec.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    return np.array(observations), np.array(masks)


def check_export(
    policy: NumpyPolicy, model: Any, observations: np.ndarray, masks: np.ndarray
) -> int:
    """How many of the given observations get a different greedy action from ``policy`` than
    from the SB3 ``model`` (0 for a faithful export)."""
    actions, _ = model.predict(
        np.stack([(o - policy.offset) * policy.factor for o in observations]).astype(np.float32),
        action_masks=masks.astype(bool),
        deterministic=True,
    )
    mine = [policy.act(o, m) for o, m in zip(observations, masks, strict=True)]
    return int(np.sum(np.asarray(actions).reshape(-1) != np.asarray(mine)))


__all__ = ["best_checkpoint", "check_export", "export_checkpoint", "random_decisions"]
