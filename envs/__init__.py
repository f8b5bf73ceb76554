"""cardarena environments: PettingZoo AEC envs for four tabletop card games.

``ENVS`` maps each env name to its module; ``make(name, **config)`` builds the wrapped env.
Importing this package also registers every env in PettingZoo's own registry (PettingZoo
>= 1.27) as ``cardarena/<game>-v<N>``, so ``pettingzoo.make("aec", "cardarena/promise_war-v0")``
works.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from . import beast_wars_v0, cardline_v0, ironman_war_v0, promise_war_v0
from .core import CardArenaError, IllegalActionError, InvalidConfigError

ENVS: dict[str, ModuleType] = {
    "beast_wars_v0": beast_wars_v0,
    "cardline_v0": cardline_v0,
    "ironman_war_v0": ironman_war_v0,
    "promise_war_v0": promise_war_v0,
}


def make(name: str, **config: Any):
    """The wrapped AEC env ``name`` (a key of ``ENVS``) built with ``config``."""
    if name not in ENVS:
        raise InvalidConfigError(f"unknown env {name!r}; available: {', '.join(sorted(ENVS))}")
    return ENVS[name].env(**config)


def make_raw(name: str, **config: Any):
    """The unwrapped env ``name``: raises ``IllegalActionError`` instead of ending the game."""
    if name not in ENVS:
        raise InvalidConfigError(f"unknown env {name!r}; available: {', '.join(sorted(ENVS))}")
    return ENVS[name].raw_env(**config)


def pettingzoo_id(name: str) -> str:
    """PettingZoo registry id: ``promise_war_v0`` -> ``cardarena/promise_war-v0``."""
    game, _, version = name.rpartition("_v")
    return f"cardarena/{game}-v{version}"


def _register_with_pettingzoo() -> None:
    try:
        from pettingzoo import aec_registry, register
    except ImportError:  # PettingZoo < 1.27 has no registry; ENVS and make() still work
        return
    for name in ENVS:
        env_id = pettingzoo_id(name)
        if env_id not in aec_registry:
            register("aec", env_id, entry_point=f"cardarena.envs.{name}:env")


_register_with_pettingzoo()

__all__ = [
    "ENVS",
    "CardArenaError",
    "IllegalActionError",
    "InvalidConfigError",
    "beast_wars_v0",
    "cardline_v0",
    "ironman_war_v0",
    "make",
    "make_raw",
    "pettingzoo_id",
    "promise_war_v0",
]
