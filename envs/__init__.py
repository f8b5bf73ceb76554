"""cardarena environments: PettingZoo AEC envs for four tabletop card games.

``ENVS`` maps each env name to its module; ``make(name, **config)`` builds the wrapped env.
Every game gets in through ``register_env(name, module)``, which checks the module and also
registers it in PettingZoo's own registry (PettingZoo >= 1.27) as ``cardarena/<game>-v<N>``,
so ``pettingzoo.make("aec", "cardarena/promise_war-v0")`` works. A new game is one
``register_env`` line below (docs/adding_a_game.md says what its module must hold). A module
may also name its vector engine, ``VECTOR = "package.module:Class"`` (``cardarena.envs.vector``);
its old name ``BATCHED`` still works, with a ``DeprecationWarning`` at ``register_env``.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any

from . import beast_wars_v0, cardline_v0, ironman_war_v0, promise_war_v0
from .core import CardArenaError, GameAECEnv, IllegalActionError, InvalidConfigError
from .core.moved import deprecate
from .core.parallel import parallel_env_factory

#: Env name -> its versioned module (``<game>_v<N>``). Filled only by ``register_env``.
ENVS: dict[str, ModuleType] = {}

#: Called as ``listener(name, module)`` for every registered env (see ``on_register``).
_LISTENERS: list[Callable[[str, ModuleType], None]] = []

#: ``<game>_v<N>``: lower-case words joined by ``_``, then the version (PettingZoo's style).
ENV_NAME = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*_v[0-9]+")
#: ``VECTOR = "package.module:Class"``: where an env's vector engine is (optional).
VECTOR_TARGET = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*")
#: Keys every env's class-level ``metadata`` holds (``env_metadata`` writes them all).
METADATA_KEYS = (
    "name",
    "render_modes",
    "is_parallelizable",
    "render_fps",
    "min_players",
    "max_players",
)


def register_env(name: str, module: ModuleType) -> ModuleType:
    """Add the game ``module`` as ``name`` to ``ENVS`` and PettingZoo's registry.

    The module is checked first, so a half-written game fails here with what is missing
    rather than deep inside a test or a tournament. Registering the same module again
    changes nothing; another module under a taken name raises ``InvalidConfigError``.
    Returns ``module``.
    """
    check_env_module(name, module)
    if getattr(module, "VECTOR", None) is None and getattr(module, "BATCHED", None) is not None:
        warnings.warn(
            f"{module.__name__}.BATCHED is the old name of VECTOR (its vector engine): name it "
            "VECTOR (BATCHED will be removed)",
            DeprecationWarning,
            stacklevel=2,
        )
    registered = ENVS.get(name)
    if registered is not None and registered is not module:
        raise InvalidConfigError(
            f"env {name!r} is already registered to {registered.__name__}; "
            f"unregister_env({name!r}) first, or register {module.__name__} under its own name"
        )
    new = registered is None
    ENVS[name] = module
    _register_with_pettingzoo(name, module)
    if new:
        for listener in list(_LISTENERS):
            listener(name, module)
    return module


def on_register(listener: Callable[[str, ModuleType], None]) -> Callable[[], None]:
    """Call ``listener(name, module)`` now for every registered env and later for each new
    one, so a second registry (Gymnasium ids, a CLI table) never misses a game registered
    after it was imported. Returns a function that stops the calls."""
    _LISTENERS.append(listener)
    for name, module in list(ENVS.items()):
        listener(name, module)
    return lambda: _LISTENERS.remove(listener)


def unregister_env(name: str) -> ModuleType:
    """Remove ``name`` from ``ENVS`` and PettingZoo's registry (tests register throwaway
    games); returns its module."""
    if name not in ENVS:
        raise InvalidConfigError(f"unknown env {name!r}; available: {', '.join(sorted(ENVS))}")
    module = ENVS.pop(name)
    try:
        from pettingzoo import aec_registry, parallel_registry
    except ImportError:
        return module
    env_id = pettingzoo_id(name)
    spec = aec_registry.get(env_id)
    if spec is not None and spec.entry_point == _entry_point(module):
        del aec_registry[env_id]
    spec = parallel_registry.get(env_id)
    if spec is not None and spec.entry_point == f"{module.__name__}:parallel_env":
        del parallel_registry[env_id]
    return module


def check_env_module(name: str, module: ModuleType) -> None:
    """Refuse a module that the generic code could not drive: it needs ``env`` and ``raw_env``
    (a ``GameAECEnv``), ``raw_env.example_configs`` (at least one dict), full metadata naming
    ``name``, and a docstring with a ``# Title`` line (``cardarena list`` shows it)."""
    where = getattr(module, "__name__", repr(module))
    problems = []
    if not isinstance(name, str) or not ENV_NAME.fullmatch(name):
        problems.append(f"the name {name!r} is not of the form <game>_v<N> (e.g. high_card_v0)")
    if not callable(getattr(module, "env", None)):
        problems.append("it has no env() (raw_env wrapped by cardarena.envs.core.wrap)")
    raw = getattr(module, "raw_env", None)
    if not (isinstance(raw, type) and issubclass(raw, GameAECEnv)):
        problems.append("its raw_env is not a subclass of cardarena.envs.core.GameAECEnv")
    else:
        configs = _declared(raw, "example_configs")
        if not (
            isinstance(configs, tuple) and configs and all(isinstance(c, dict) for c in configs)
        ):
            problems.append("raw_env.example_configs is not a non-empty tuple of config dicts")
        metadata = _declared(raw, "metadata")
        if not isinstance(metadata, dict):
            problems.append("raw_env.metadata is not set (use core.env_metadata(name, ...))")
        else:
            missing = [key for key in METADATA_KEYS if key not in metadata]
            if missing:
                problems.append(f"raw_env.metadata lacks {', '.join(map(repr, missing))}")
            elif metadata["name"] != name:
                problems.append(f"raw_env.metadata['name'] is {metadata['name']!r}, not {name!r}")
    vector = vector_target(module)
    if vector is not None and not (isinstance(vector, str) and VECTOR_TARGET.fullmatch(vector)):
        problems.append(
            f"its VECTOR is {vector!r}, not 'package.module:Class' (a VectorRules subclass,"
            " imported when make_vec first needs it)"
        )
    doc = getattr(module, "__doc__", None) or ""
    if not any(line.startswith("#") for line in doc.splitlines()):
        problems.append("its docstring has no '# Title' line (set __doc__ from the env module)")
    if problems:
        raise InvalidConfigError(f"cannot register {where} as an env: " + "; ".join(problems))


def vector_target(module: ModuleType) -> Any:
    """What the env ``module`` declares as its vector engine (``"package.module:Class"``), or
    None: its ``VECTOR``, else ``BATCHED``, the old name (``register_env`` warns about it)."""
    declared = getattr(module, "VECTOR", None)
    return getattr(module, "BATCHED", None) if declared is None else declared


def _declared(raw: type, attribute: str) -> Any:
    """``raw``'s own ``attribute`` (or a game base class's), never ``GameAECEnv``'s default:
    a game must choose its example configs and metadata."""
    for cls in raw.__mro__:
        if cls is GameAECEnv:
            return None
        if attribute in cls.__dict__:
            return cls.__dict__[attribute]
    return None


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


def make_parallel(name: str, **config: Any):
    """``name`` through PettingZoo's Parallel API, one move a step (``core.parallel``): the
    module's ``parallel_env`` if it has one, else the view of its ``env()``."""
    if name not in ENVS:
        raise InvalidConfigError(f"unknown env {name!r}; available: {', '.join(sorted(ENVS))}")
    module = ENVS[name]
    factory = getattr(module, "parallel_env", None) or parallel_env_factory(module.env)
    return factory(**config)


def pettingzoo_id(name: str) -> str:
    """PettingZoo registry id: ``promise_war_v0`` -> ``cardarena/promise_war-v0``."""
    game, _, version = name.rpartition("_v")
    return f"cardarena/{game}-v{version}"


def _entry_point(module: ModuleType) -> str:
    return f"{module.__name__}:env"


def _register_with_pettingzoo(name: str, module: ModuleType) -> None:
    try:
        from pettingzoo import aec_registry, parallel_registry, register
    except ImportError:  # PettingZoo < 1.27 has no registry; ENVS and make() still work
        return
    env_id = pettingzoo_id(name)
    if env_id not in aec_registry:
        register("aec", env_id, entry_point=_entry_point(module))
    if callable(getattr(module, "parallel_env", None)) and env_id not in parallel_registry:
        register("parallel", env_id, entry_point=f"{module.__name__}:parallel_env")


register_env("beast_wars_v0", beast_wars_v0)
register_env("cardline_v0", cardline_v0)
register_env("ironman_war_v0", ironman_war_v0)
register_env("promise_war_v0", promise_war_v0)

if not TYPE_CHECKING:
    # The vector engines' old word, "batched" (cardarena.envs.core.moved).
    __getattr__ = deprecate(
        __name__,
        modules={
            f"{__name__}.{game}.batched": f"{__name__}.{game}.vector"
            for game in ("beast_wars", "cardline", "ironman_war", "promise_war")
        },
        names={"BATCHED_TARGET": "VECTOR_TARGET"},
    )

__all__ = [
    "ENVS",
    "CardArenaError",
    "IllegalActionError",
    "InvalidConfigError",
    "beast_wars_v0",
    "cardline_v0",
    "check_env_module",
    "ironman_war_v0",
    "make",
    "make_parallel",
    "make_raw",
    "on_register",
    "pettingzoo_id",
    "promise_war_v0",
    "register_env",
    "unregister_env",
]
