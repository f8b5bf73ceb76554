"""Test-session settings: hypothesis runs derandomized under CI so a red build reproduces, and
the fifth test game is registered for the session.

``fifth_game.high_card_v0`` (no heuristic, no shipped agent) goes through
``cardarena.envs.register_env`` like the four real games before collection, so every
parametrization derived from ``ENVS`` (the conformance suite first) includes it, and it is
unregistered when the session ends. ``--test-game`` chooses where it plays:

- ``default``: every test module except those in ``FOUR_GAMES_ONLY``, which still assume
  something only the four real games have; they see the four games only, at collection and
  while they run. Each entry says what the module needs; an empty dict is the goal.
- ``everywhere``: every module, ``FOUR_GAMES_ONLY`` included (shows what still breaks).
- ``off``: the four real games only.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from fifth_game import NAME as TEST_GAME
from fifth_game import high_card_v0
from hypothesis import settings

from cardarena.envs import ENVS, register_env, unregister_env

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

TESTS = Path(__file__).resolve().parent

#: Test modules (paths relative to tests/) that do not run the test game yet, and why.
FOUR_GAMES_ONLY: dict[str, str] = {}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--test-game",
        choices=("default", "everywhere", "off"),
        default="default",
        help=f"where the fifth test game {TEST_GAME} is registered (see tests/conftest.py)",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--test-game") != "off":
        register_env(TEST_GAME, high_card_v0)


def pytest_unconfigure(config: pytest.Config) -> None:
    if ENVS.get(TEST_GAME) is high_card_v0:
        unregister_env(TEST_GAME)


def _four_games_only(config: pytest.Config, path: Path) -> bool:
    if config.getoption("--test-game") != "default":
        return False
    try:
        relative = path.resolve().relative_to(TESTS).as_posix()
    except ValueError:
        return False
    return relative in FOUR_GAMES_ONLY


@contextlib.contextmanager
def _without_test_game() -> Iterator[None]:
    """Take the test game out of ``ENVS`` (and PettingZoo's registry) for a while."""
    if ENVS.get(TEST_GAME) is not high_card_v0:
        yield
        return
    unregister_env(TEST_GAME)
    try:
        yield
    finally:
        register_env(TEST_GAME, high_card_v0)


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector):
    """A ``FOUR_GAMES_ONLY`` module is imported (and parametrized) without the test game."""
    if isinstance(collector, pytest.Module) and _four_games_only(collector.config, collector.path):
        with _without_test_game():
            return (yield)
    return (yield)


@pytest.fixture(autouse=True, scope="module")
def _test_game_scope(request: pytest.FixtureRequest) -> Iterator[None]:
    """... and runs without it."""
    if _four_games_only(request.config, request.path):
        with _without_test_game():
            yield
    else:
        yield
