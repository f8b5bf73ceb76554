"""The store of live web games (``web/sessions.py``) on a clock the test moves: the documented
defaults, a game's life to the second, and what an unknown id's refusal quotes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cardarena.cli.args import ServeArgs
from cardarena.envs.core import InvalidConfigError
from cardarena.web.sessions import GameStore, UnknownGame

DOCS = Path(__file__).resolve().parents[2] / "docs" / "web_api.md"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_defaults_are_the_documented_ones():
    row = re.search(r"`--max-games N`, `--idle-minutes M` \| `(\d+)`, `(\d+)`", DOCS.read_text())
    assert row, "docs/web_api.md lost its --max-games row"
    games, minutes = int(row[1]), int(row[2])
    store = GameStore()
    assert (store.max_games, store.idle_seconds) == (games, minutes * 60)
    assert (ServeArgs.max_games, ServeArgs.idle_minutes) == (games, minutes)


def test_a_game_lives_its_idle_seconds_and_not_a_moment_more():
    clock = Clock()
    store = GameStore(max_games=3, idle_seconds=60, clock=clock)
    game = store.add(object())  # the store holds any table
    clock.now += 60
    with store.use(game):  # exactly 60 s untouched: alive, and touched again
        pass
    clock.now += 60.001
    with pytest.raises(UnknownGame, match="expire after 60 s without a request"), store.use(game):
        pass
    assert store.expired == 1


def test_an_unknown_id_is_quoted_cut_at_40_characters():
    store = GameStore(clock=Clock())
    game_id = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ"
    for refusal in (lambda: store.peek(game_id), lambda: store.use(game_id).__enter__()):
        with pytest.raises(UnknownGame) as caught:
            refusal()
        assert str(caught.value).startswith(f"unknown or expired game {game_id[:40]!r}")


@pytest.mark.parametrize(
    ("arguments", "match"),
    [
        ({"max_games": True}, "max_games must be a positive integer, got True"),
        ({"max_games": 2.0}, "max_games must be a positive integer, got 2.0"),
        ({"max_games": "2"}, "max_games must be a positive integer, got '2'"),
        ({"max_games": 0}, "max_games must be a positive integer, got 0"),
        ({"idle_seconds": 0}, "idle_seconds must be a positive number, got 0"),
        ({"idle_seconds": float("nan")}, "idle_seconds must be a positive number, got nan"),
        ({"idle_seconds": "60"}, "idle_seconds must be a positive number, got '60'"),
    ],
)
def test_a_store_refuses_a_bound_that_is_not_one(arguments, match):
    with pytest.raises(InvalidConfigError, match=match):
        GameStore(**arguments)
    assert GameStore(max_games=1, idle_seconds=0.5).max_games == 1


def test_a_game_id_carries_128_random_bits():
    store = GameStore(clock=Clock())
    ids = {store.add(object()) for _ in range(50)}
    assert len(ids) == 50  # 16 random bytes, URL-safe base64 without padding: 22 characters
    assert {len(game_id) for game_id in ids} == {22}
