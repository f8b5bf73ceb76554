"""``VectorRules.bridge``: an engine finds its bridge (``bridge.py`` beside it) by its own
package. A game that has none is told what to write (``NotImplementedError`` naming the
module), whether its package exists or not; a bridge that exists but fails on an import of
its own raises that error unchanged, so the missing name is the one reported."""

from __future__ import annotations

import sys

import pytest

from cardarena.envs.vector import VectorRules


def _engine_in(module: str) -> type[VectorRules]:
    class Engine(VectorRules):
        pass

    Engine.__module__ = module
    return Engine


@pytest.mark.parametrize(
    "module",
    [
        "cardarena.envs.vector.engine",  # the package exists, its bridge.py does not
        "cardarena_no_such_game.engine",  # not even the package
    ],
)
def test_an_engine_without_a_bridge_is_told_what_to_write(module: str) -> None:
    package = module.rpartition(".")[0]
    with pytest.raises(NotImplementedError, match=rf"^Engine has no bridge: {package}\.bridge "):
        _engine_in(module).bridge()


def test_a_bridge_that_fails_on_its_own_import_raises_that_error(tmp_path, monkeypatch) -> None:
    game = tmp_path / "cardarena_broken_game"
    game.mkdir()
    (game / "__init__.py").write_text("")
    (game / "bridge.py").write_text("import cardarena_missing_dependency\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        with pytest.raises(ModuleNotFoundError) as raised:
            _engine_in("cardarena_broken_game.engine").bridge()
        assert raised.value.name == "cardarena_missing_dependency"
    finally:
        for name in ("cardarena_broken_game", "cardarena_broken_game.bridge"):
            sys.modules.pop(name, None)
