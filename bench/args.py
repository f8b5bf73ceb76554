"""The ``cardarena bench`` flags (``BenchArgs``, from which ``training.schema`` generates them)
and their checks, shared by every bench in this package: the engines' table, ``--vector`` and
``--learn`` all take the same flags, and each checks them with ``check_args``.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field

from cardarena.envs import ENVS
from cardarena.envs.core import InvalidConfigError
from cardarena.training.schema import Number, add_dataclass_arguments, meta

#: What ``--seconds`` and ``--rounds`` allow (checked for the flags and for ``run(args)``).
SECONDS = Number(float, 0.0, 3600.0, low_open=True)
ROUNDS = Number(int, 1, 1000)
NUM_ENVS = Number(int, 1, 65536)
#: The training backends ``--learn`` measures (``--backends``), in the table's order.
LEARN_BACKENDS = ("sb3", "vector")


@dataclass
class BenchArgs:
    """decisions per second beside PettingZoo's envs

    Random-play throughput of every cardarena env beside PettingZoo's own classic envs, or
    with --learn the training steps per second of both PPO backends in cardarena train's
    default geometry."""

    seconds: float = field(default=2.0, metadata=meta(rule=SECONDS, metavar="S"))
    """Per env per round."""
    rounds: int = field(default=5, metadata=meta(rule=ROUNDS, metavar="R"))
    """Interleaved rounds."""
    env: list[str] = field(
        default_factory=lambda: sorted(ENVS), metadata=meta(nargs="*", metavar="ENV")
    )
    """Our envs to measure."""
    learn: bool = False
    """Training steps/s in cardarena train's default geometry, --backend sb3 (MaskablePPO)
    beside --backend vector, same network and epochs (needs the train extra)."""
    backends: list[str] = field(
        default_factory=lambda: list(LEARN_BACKENDS),
        metadata=meta(nargs="+", choices=LEARN_BACKENDS),
    )
    """The training backends --learn measures (default both, in one run)."""
    vector: bool = False
    """The vector engines (make_vec) beside OpenSpiel's leduc_poker and each env()."""
    num_envs: list[int] = field(
        default_factory=lambda: [64, 256, 1024, 4096],
        metadata=meta(nargs="+", rule=NUM_ENVS, metavar="N"),
    )
    """Batch sizes for --vector."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``cardarena bench`` flags (also ``bench/throughput.py``'s), from ``BenchArgs``."""
    add_dataclass_arguments(parser, BenchArgs, {"env": f"(default all: {', '.join(sorted(ENVS))})"})


def check_args(args: argparse.Namespace) -> None:
    """``InvalidConfigError`` naming the flag, the value and what is allowed: the same checks
    as the flags' own, for a ``Namespace`` built in Python."""
    for flag, rule in (("--seconds", SECONDS), ("--rounds", ROUNDS)):
        problem = rule.problem(getattr(args, flag[2:]))
        if problem:
            raise InvalidConfigError(f"{flag} {problem}")
    sizes = getattr(args, "num_envs", [64])
    if not isinstance(sizes, (list, tuple)) or not sizes:
        raise InvalidConfigError(f"--num-envs must be a list of batch sizes, got {sizes!r}")
    for size in sizes:
        problem = NUM_ENVS.problem(size)
        if problem:
            raise InvalidConfigError(f"--num-envs {problem}")
    check_backends(args)
    names = getattr(args, "env", None)
    if not isinstance(names, (list, tuple)):
        raise InvalidConfigError(f"--env must be a list of env names, got {names!r}")
    unknown = [name for name in names if name not in ENVS]
    if unknown:
        raise InvalidConfigError(
            f"--env: unknown env{'s' if len(unknown) > 1 else ''} "
            f"{', '.join(map(repr, unknown))}; available: {', '.join(sorted(ENVS))}"
        )


def check_backends(args: argparse.Namespace) -> None:
    """``--backends``: a non-empty list of ``LEARN_BACKENDS``, only meaningful with ``--learn``
    (a repeated name counts once: ``learning.learn_backends``)."""
    backends = getattr(args, "backends", list(LEARN_BACKENDS))
    allowed = ", ".join(LEARN_BACKENDS)
    if not isinstance(backends, (list, tuple)) or not backends:
        raise InvalidConfigError(
            f"--backends must be a non-empty list of training backends ({allowed}), "
            f"got {backends!r}"
        )
    unknown = [name for name in backends if name not in LEARN_BACKENDS]
    if unknown:
        raise InvalidConfigError(
            f"--backends: unknown backend{'s' if len(unknown) > 1 else ''} "
            f"{', '.join(map(repr, unknown))}; --learn measures {allowed}"
        )
    if not getattr(args, "learn", False) and sorted(set(backends)) != sorted(LEARN_BACKENDS):
        raise InvalidConfigError(
            f"--backends {' '.join(backends)} chooses what --learn measures: add --learn, "
            "or leave --backends out"
        )


__all__ = [
    "LEARN_BACKENDS",
    "NUM_ENVS",
    "ROUNDS",
    "SECONDS",
    "BenchArgs",
    "add_arguments",
    "check_args",
    "check_backends",
]
