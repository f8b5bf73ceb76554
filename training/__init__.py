"""How agents get better: the SB3 bridge, checkpoints, PPO on the batched engine, exploiters,
the ``cardarena`` command and the demo training job.

Everything here needs only the core dependencies except training itself (the ``train`` extra:
stable-baselines3, sb3-contrib, torch) and heat maps (the ``plot`` extra). Importing this
package registers every env's single-agent bridge with Gymnasium as
``cardarena/<game>-single-v<N>``.

Evaluation (games between agents, match records, replays, tournaments, statistics) moved to
``cardarena.evaluation``. Its old names here (``cardarena.training.records``,
``from cardarena.training import play_match`` ...) still work: each gives the new module or
object itself, with a ``DeprecationWarning`` naming where it lives now.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
import warnings
from collections.abc import Sequence
from typing import Any

from .checkpoint import Checkpoint, load_checkpoint, save_checkpoint
from .gym_registration import GYM_IDS, gym_id
from .single_agent import SingleAgentEnv

#: Modules that moved out of this package: old name -> new name.
MOVED_MODULES = {
    f"{__name__}.{name}": f"cardarena.evaluation.{name}"
    for name in (
        "evaluate",
        "evaluate_vector",
        "records",
        "replay",
        "stats",
        "tournament",
        "tournament_vector",
    )
}
#: Names this package re-exported from the moved modules: name -> the module holding it now.
#: ``evaluate`` and ``replay`` name both a function and a module; as before, the function.
MOVED_NAMES = dict.fromkeys(
    (
        "GameRecord",
        "MatchRecord",
        "MatchResult",
        "PairStats",
        "ReplayError",
        "ReplayStep",
        "TournamentResult",
        "bradley_terry",
        "evaluate",
        "play_game",
        "play_match",
        "read_records",
        "replay",
        "run_tournament",
        "wilson_interval",
        "write_records",
    ),
    "cardarena.evaluation",
)


def _moved(old: str, new: str) -> None:
    # stacklevel 3: past this function and its caller to the importing code (the import
    # system's own frames are skipped by ``warnings``).
    warnings.warn(
        f"{old} moved to {new}; import it from there ({old} will be removed)",
        DeprecationWarning,
        stacklevel=3,
    )


class _MovedModuleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports an old module name as its new module: the same object, not a copy, so a
    patch or an ``isinstance`` check through either name sees the other."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: types.ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MOVED_MODULES:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        new = MOVED_MODULES[module.__name__]
        _moved(module.__name__, new)
        # The import system returns what sys.modules holds once this returns: the new module.
        sys.modules[module.__name__] = importlib.import_module(new)


class _Package(types.ModuleType):
    """This package, refusing the import system's binding of a moved module as an attribute
    (after ``import cardarena.training.evaluate``), which would hide the function
    ``evaluate``; ``__getattr__`` answers for the moved names, warning every time."""

    def __setattr__(self, name: str, value: Any) -> None:
        if not (isinstance(value, types.ModuleType) and f"{__name__}.{name}" in MOVED_MODULES):
            super().__setattr__(name, value)


def __getattr__(name: str) -> Any:
    if name in MOVED_NAMES:
        _moved(f"{__name__}.{name}", MOVED_NAMES[name])
        return getattr(importlib.import_module(MOVED_NAMES[name]), name)
    old = f"{__name__}.{name}"
    if old in MOVED_MODULES:
        _moved(old, MOVED_MODULES[old])
        return importlib.import_module(MOVED_MODULES[old])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


sys.modules[__name__].__class__ = _Package
sys.meta_path[:] = [finder for finder in sys.meta_path if type(finder).__module__ != __name__]
sys.meta_path.insert(0, _MovedModuleFinder())

__all__ = [
    "GYM_IDS",
    "Checkpoint",
    "SingleAgentEnv",
    "gym_id",
    "load_checkpoint",
    "save_checkpoint",
]
