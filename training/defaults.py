"""The defaults of ``cardarena train``: the per-game hyper-parameter tables (the one place to
tune them), the backends, and how far apart checkpoints are when ``--checkpoint-every`` is
not given. ``training.train_args`` reads them into ``TrainArgs``.
"""

from __future__ import annotations

from typing import Any

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
#: Per-game settings of ``--backend vector`` where they differ from ``DEFAULTS`` (the same
#: networks). Its rollouts are 32x larger than the SB3 geometry's, so a larger step size;
#: the wide-input games (Beast Wars, Cardline), whose decisions cost the most, take smaller
#: minibatches: more gradient steps per decision for little loss of speed.
VECTOR_DEFAULTS: dict[str, dict[str, Any]] = {
    name: {
        "learning_rate": 1e-3,
        "ent_coef": values["ent_coef"],
        "minibatch_size": 2048 if name in ("beast_wars_v0", "cardline_v0") else 8192,
    }
    for name, values in DEFAULTS.items()
}
#: The ``--backend`` choices.
BACKENDS = ("sb3", "rllib", "vector")
#: The ``--magnet`` choices: the reference policy of vector PPO's KL term.
MAGNETS = ("uniform", "copy", "average")
#: For an env without its own entry in ``DEFAULTS``.
FALLBACK = DEFAULTS["promise_war_v0"]
#: The ``TrainArgs`` fields a game's ``DEFAULTS`` entry fills when they are None.
PER_GAME = ("n_steps", "batch_size", "net_arch", "learning_rate", "ent_coef")


#: Steps between checkpoints when ``--checkpoint-every`` is not given (``sb3``).
CHECKPOINT_EVERY = 20_000
#: ``--backend vector``'s checkpoints are at least this many rollouts apart by default: each
#: deals every game anew, so closer ones cut long games short (a smaller value set by hand is
#: pointed out).
MIN_CHECKPOINT_ROLLOUTS = 10


def default_checkpoint_every(backend: str, rollout: int) -> int:
    """``--checkpoint-every``'s default for ``backend`` (``rollout``: the vector trainer's
    ``num_envs * rollout_steps``)."""
    if backend == "vector":
        return max(CHECKPOINT_EVERY, MIN_CHECKPOINT_ROLLOUTS * rollout)
    return CHECKPOINT_EVERY


__all__ = [
    "BACKENDS",
    "CHECKPOINT_EVERY",
    "DEFAULTS",
    "FALLBACK",
    "MAGNETS",
    "MIN_CHECKPOINT_ROLLOUTS",
    "PER_GAME",
    "VECTOR_DEFAULTS",
    "default_checkpoint_every",
]
