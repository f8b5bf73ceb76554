"""Speed, measured in one place: ``cardarena bench`` and the benchmark scripts.

``cardarena bench`` (``python bench/throughput.py`` is the same) checks its flags (``args``:
``BenchArgs`` and ``check_args``, which every bench here shares) and runs one of three:

- ``engines`` (the default): random-play decisions per second of every env beside
  PettingZoo's own classic envs, and of the rules state alone;
- ``vector`` (``--vector``): the vector engines beside OpenSpiel's leduc_poker and each
  game's ``env()``, at several batch sizes;
- ``learning`` (``--learn``): training steps per second of both PPO backends in ``cardarena
  train``'s default geometry, MaskablePPO ``learn()`` (``--backend sb3``, with tictactoe_v3 as
  a reference row) beside ``VectorPPO.learn_rollout()`` (``--backend vector``) with the same
  network and epochs, their ratio, the FLOPs per step and the vector backend's share of the
  machine's matrix-product peak; ``--backends`` runs one of them alone.

    cardarena bench [--seconds 2] [--rounds 5] [--env NAME ...]
    cardarena bench --learn [--backends sb3 vector] [--env NAME ...]
    cardarena bench --vector [--num-envs 64 256 1024 4096] [--env NAME ...]
    python bench/throughput.py ...   (the same)

Beside them, scripts run as files of the repository: ``ismcts_time.py`` (the time of one
``ismcts`` decision per budget), ``rllib_throughput.py`` (RLlib beside SB3, in
``.venv-rllib``) and ``prototypes/`` (Iron Man as array-at-a-time numpy, measured against the
compiled loops; a folder of scripts, not installed).
"""

from __future__ import annotations

import argparse

from cardarena.envs.core import CardArenaError, InvalidConfigError
from cardarena.training.schema import summary

from .args import BenchArgs, add_arguments, check_args, check_backends
from .engines import (
    REFERENCE,
    classic_factory,
    decisions_per_second,
    env_games,
    missing_module,
    pettingzoo_classic,
    rules_games,
)


def run(args: argparse.Namespace) -> None:
    """Measure and print the table parsed ``args`` ask for: the engines', ``--learn``'s or
    ``--vector``'s (every flag checked first, for a ``Namespace`` built in Python too)."""
    check_args(args)
    if getattr(args, "learn", False) and getattr(args, "vector", False):
        raise InvalidConfigError("--learn and --vector measure different things: choose one")
    if getattr(args, "learn", False):
        from .learning import run_learn

        run_learn(args)
    elif getattr(args, "vector", False):
        from .vector import run as run_vector

        run_vector(args)
    else:
        from .engines import run as run_engines

        run_engines(args)


def main(argv: list[str] | None = None) -> None:
    """``python bench/throughput.py``: the same flags and table as ``cardarena bench``."""
    parser = argparse.ArgumentParser(description=summary(BenchArgs)[1])
    add_arguments(parser)
    try:
        run(parser.parse_args(argv))
    except CardArenaError as error:
        parser.exit(2, f"{parser.prog}: {error}\n")
    except KeyboardInterrupt:
        parser.exit(130, f"\n{parser.prog}: stopped\n")


__all__ = [
    "REFERENCE",
    "BenchArgs",
    "add_arguments",
    "check_args",
    "check_backends",
    "classic_factory",
    "decisions_per_second",
    "env_games",
    "main",
    "missing_module",
    "pettingzoo_classic",
    "rules_games",
    "run",
]
