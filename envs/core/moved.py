"""Old import names that keep working, each with a ``DeprecationWarning`` naming the new one.

A module whose modules or public names moved or were renamed declares them once, where the
old names lived::

    if not TYPE_CHECKING:
        __getattr__ = deprecate(__name__, modules={old: new}, names={old: new})

``modules`` maps full module names, old -> new: importing an old name gives the new module
itself (the same object, not a copy, so a patch or an ``isinstance`` check through either name
sees the other), and ``python -m`` an old name runs the new module's ``main()``. ``names`` maps
an attribute of this module that is gone to where it is now: ``"new_name"`` (renamed in this
module) or ``"package.module:name"`` (elsewhere). The returned ``__getattr__`` answers for those
names, and a package answers for its old submodules (``package.old``), warning every time.
``__getattr__`` is kept out of the type checker's sight (``TYPE_CHECKING``), so that a
misspelled import from the module stays an error there. The repo itself uses only the new
names (tests/packaging/test_moved_modules.py).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

#: Every old module name -> its new name, from all the modules that declared some.
MOVED_MODULES: dict[str, str] = {}
#: Every old attribute name -> its new one, both as ``module.name``.
MOVED_NAMES: dict[str, str] = {}


def warn_moved(old: str, new: str, stacklevel: int = 2) -> None:
    """Warn that ``old`` (a dotted module or attribute name) is now ``new``; ``stacklevel``
    counts from the caller of this function, as for ``warnings.warn``."""
    if old.rpartition(".")[2] == new.rpartition(".")[2]:
        text = f"{old} moved to {new}; import it from there"
    else:
        text = f"{old} is now {new}; use the new name"
    # The import system's own frames are skipped by ``warnings``.
    warnings.warn(f"{text} ({old} will be removed)", DeprecationWarning, stacklevel=stacklevel + 1)


class _MovedModuleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports an old module name (a key of ``MOVED_MODULES``) as its new module."""

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

    def get_code(self, fullname: str) -> types.CodeType:
        """What ``python -m <old name>`` runs: ``run_moved``."""
        source = (
            f"import sys\nfrom {__name__} import run_moved\nsys.exit(run_moved({fullname!r}))\n"
        )
        return compile(source, f"<{fullname}, moved to {MOVED_MODULES[fullname]}>", "exec")

    def exec_module(self, module: types.ModuleType) -> None:
        new = MOVED_MODULES[module.__name__]
        warn_moved(module.__name__, new)  # past exec_module, to the importing code
        _guard(module.__name__.rpartition(".")[0])  # the parent package, imported first
        # The import system returns what sys.modules holds once this returns: the new module.
        sys.modules[module.__name__] = importlib.import_module(new)


def run_moved(old: str) -> Any:
    """``python -m <old name>``: the warning, then the new module's ``main()`` (what the old
    module ran as a script), if it has one."""
    new = MOVED_MODULES[old]
    warn_moved(old, new)
    run = getattr(importlib.import_module(new), "main", None)
    return run() if callable(run) else None


class _Package(types.ModuleType):
    """The class of a package with old submodule names: ``package.old`` warns and is the new
    module, and the package refuses the import system's binding of ``old`` as an attribute
    (after ``import package.old``), which would hide a name of its own (a function called like
    the old module) and skip the warning of every later ``package.old``."""

    def __setattr__(self, name: str, value: Any) -> None:
        moved = f"{self.__name__}.{name}" in MOVED_MODULES
        if not (moved and isinstance(value, types.ModuleType)):
            super().__setattr__(name, value)

    def __getattr__(self, name: str) -> Any:
        """Called when the module has no ``name`` (not even through its own ``__getattr__``)."""
        old = f"{self.__name__}.{name}"
        if old not in MOVED_MODULES:
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        warn_moved(old, MOVED_MODULES[old])
        return importlib.import_module(MOVED_MODULES[old])


def _guard(package: str) -> None:
    """Make ``package`` a ``_Package``, if it is imported (and a plain module)."""
    module = sys.modules.get(package)
    if module is not None and type(module) is types.ModuleType:
        module.__class__ = _Package


def deprecate(
    module_name: str,
    modules: Mapping[str, str] | None = None,
    names: Mapping[str, str] | None = None,
) -> Callable[[str], Any]:
    """Make the old ``modules`` import as the new ones and return module ``module_name``'s
    ``__getattr__`` for its old ``names`` (module docstring)."""
    MOVED_MODULES.update(modules or {})
    for old in modules or {}:
        _guard(old.rpartition(".")[0])
    renamed = {}
    for old, target in (names or {}).items():
        where, _, new_name = target.rpartition(":")
        renamed[old] = (where or module_name, new_name)
        MOVED_NAMES[f"{module_name}.{old}"] = f"{where or module_name}.{new_name}"

    def __getattr__(name: str) -> Any:
        if name in renamed:
            where, new_name = renamed[name]
            warn_moved(f"{module_name}.{name}", f"{where}.{new_name}")
            return getattr(importlib.import_module(where), new_name)
        raise AttributeError(f"module {module_name!r} has no attribute {name!r}")

    return __getattr__


sys.meta_path[:] = [finder for finder in sys.meta_path if type(finder).__module__ != __name__]
sys.meta_path.insert(0, _MovedModuleFinder())

__all__ = ["MOVED_MODULES", "MOVED_NAMES", "deprecate", "run_moved", "warn_moved"]
