"""``evaluate_on_vector``: one agent alone against a field on the vector engine, counted as
``evaluate`` counts, and ``cardarena eval --field`` on top of it."""

from __future__ import annotations

import io
import json
import re

import numpy as np
import pytest

from cardarena import cli
from cardarena.agents import EnvSpec, RandomAgent, make_agent
from cardarena.agents.vector import VectorRandom
from cardarena.envs import make
from cardarena.envs.core import InvalidConfigError
from cardarena.evaluation.evaluate import evaluate
from cardarena.evaluation.evaluate_vector import evaluate_on_vector, win_share
from cardarena.evaluation.stats import wilson_interval


def _overlap(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


@pytest.mark.parametrize("players", [2, 3])
def test_random_alone_against_random_wins_one_game_in_n(players):
    # Cardline has no draws, so equals share the wins exactly 1/N each; within the 99.9%
    # interval (z = 3.29) of 2000 games, some 3.5 points either side.
    result = evaluate_on_vector(
        EnvSpec("cardline_v0", {"num_players": players}), "random", "random", 2000, seed=3
    )
    low, high = wilson_interval(result.wins, result.games, z=3.29)
    assert low <= 1 / players <= high, result.summary()
    assert result.draws == result.truncated == 0


@pytest.mark.parametrize(("env", "players"), [("cardline_v0", 2), ("promise_war_v0", 3)])
def test_the_heuristic_wins_clearly_more_than_its_share(env, players):
    result = evaluate_on_vector(EnvSpec(env, {"num_players": players}), "heuristic", "random", 1000)
    assert win_share(result)[1] > 1 / players + 0.15, result.summary()


class Spy:
    """A random ``VectorAgent`` that records the games it is told of and the seats it acts
    in, per slot."""

    def __init__(self) -> None:
        self.inner = VectorRandom()
        self.games: dict[int, int] = {}  # slot -> games started
        self.seats: list[tuple[int, int, int]] = []  # (slot, game number in slot, seat)

    def act(self, observations, masks, seats, slots, rng):
        for slot, seat in zip(slots.tolist(), seats.tolist(), strict=True):
            self.seats.append((slot, self.games[slot], seat))
        return self.inner.act(observations, masks, seats, slots, rng)

    def new_games(self, slots):
        for slot in np.asarray(slots).tolist():
            self.games[slot] = self.games.get(slot, 0) + 1


def test_seats_rotate_game_by_game_and_every_game_is_announced():
    games, batch, players = 30, 7, 3
    me, field = Spy(), Spy()
    result = evaluate_on_vector(
        EnvSpec("promise_war_v0", {"num_players": players}), me, field, games, max_batch=batch
    )
    assert dict(result.seat_games) == {"player_0": 10, "player_1": 10, "player_2": 10}
    # Slot s plays games s, s + 7, ...: new_games before each (none after its last) ...
    expected = {slot: len(range(slot, games, batch)) for slot in range(batch)}
    assert me.games == expected and field.games == expected

    # ... and in its k-th game (game g = s + 7(k - 1)) the agent holds seat g % 3, alone.
    def seat_of(slot: int, k: int) -> int:
        return (slot + batch * (k - 1)) % players

    assert me.seats and all(seat == seat_of(slot, k) for slot, k, seat in me.seats)
    assert all(seat != seat_of(slot, k) for slot, k, seat in field.seats)
    assert {seat for _, _, seat in me.seats} == {0, 1, 2}
    assert {seat for _, _, seat in field.seats} == {0, 1, 2}


@pytest.mark.parametrize(("games", "batch"), [(37, 8), (5, 4096), (64, 64)])
def test_exactly_the_games_asked_for_are_counted(games, batch):
    result = evaluate_on_vector(EnvSpec("ironman_war_v0"), "heuristic", RandomAgent(), games,
                              max_batch=batch)  # fmt: skip
    assert result.games == games
    assert result.wins + result.draws + result.losses + result.truncated == games
    assert sum(count for _, count in result.seat_games) == games


def test_a_seed_replays_exactly():
    spec = EnvSpec("promise_war_v0", {"num_players": 3})

    def run(seed: int):
        return evaluate_on_vector(spec, "heuristic", "random", 300, seed=seed, max_batch=64)

    assert run(5) == run(5)
    assert run(5) != run(6)


def test_truncated_games_are_counted_as_truncated():
    # One trick at most: every game is cut before anyone has won.
    result = evaluate_on_vector(
        EnvSpec("promise_war_v0", {"max_tricks": 1}), "random", "random", 50
    )
    assert result.truncated == 50 and result.wins == result.draws == result.losses == 0


def test_agrees_with_the_scalar_evaluate_within_intervals():
    """Different deals (the engine's own generators), same figures within 99% intervals."""
    for players, scalar_games in ((2, 160), (3, 90)):
        spec = EnvSpec("cardline_v0", {"num_players": players})
        vector = evaluate_on_vector(spec, "heuristic", "random", 3000, seed=1)
        scalar = evaluate(lambda p=players: make("cardline_v0", num_players=p),
                          make_agent("heuristic"), "random", scalar_games, seed=1)  # fmt: skip
        assert _overlap(
            wilson_interval(vector.wins, vector.games, z=2.576),
            wilson_interval(scalar.wins, scalar.games, z=2.576),
        ), (vector.summary(), scalar.summary())
        assert dict(scalar.seat_games) == {
            seat: count * scalar_games // 3000 for seat, count in vector.seat_games
        }


def test_an_agent_without_a_vector_form_plays_row_by_row():
    class FirstLegal:
        def act(self, observation):
            return int(np.flatnonzero(observation["action_mask"])[0])

    result = evaluate_on_vector(EnvSpec("ironman_war_v0"), FirstLegal(), "random", 12)
    assert result.games == 12


def test_win_share_is_wins_over_games_with_the_wilson_interval():
    result = evaluate_on_vector(EnvSpec("promise_war_v0"), "random", "random", 400)
    assert result.draws > 0  # draws are not wins
    share, low, high = win_share(result)
    assert share == result.wins / 400
    assert (low, high) == wilson_interval(result.wins, 400)


@pytest.mark.parametrize(("games", "batch"), [(0, 10), (10, 0), (True, 10), (1.5, 10)])
def test_bad_counts_are_refused(games, batch):
    with pytest.raises(InvalidConfigError, match="must be"):
        evaluate_on_vector(EnvSpec("promise_war_v0"), "random", "random", games, max_batch=batch)


# --- cardarena eval --field ------------------------------------------------------------------
def run(argv: list[str]) -> tuple[int, str]:
    out = io.StringIO()
    return cli.main(argv, out=out), out.getvalue()


def test_eval_field_prints_a_line_per_agent_and_writes_field_json(tmp_path):
    code, text = run(["eval", "promise_war_v0", "heuristic", "random", "--field", "random",
                      "--games", "300", "--seed", "4", "--config", "num_players=3",
                      "--out", str(tmp_path)])  # fmt: skip
    assert code == 0, text
    lines = text.splitlines()
    line = r" vs random x2 \(3 players\): 300 games, win share (\d+\.\d)% \((\d+\.\d)-(\d+\.\d)%\)"
    assert re.match("heuristic" + line + ", draws", lines[0]), text
    assert re.match("random" + line + ", draws", lines[1]), text
    entries = json.loads((tmp_path / "field.json").read_text())
    assert [(e["agent"], e["field"], e["games"]) for e in entries] == [
        ("heuristic", "random", 300),
        ("random", "random", 300),
    ]
    expected = evaluate_on_vector(
        EnvSpec("promise_war_v0", {"num_players": 3}), "heuristic", "random", 300, seed=4
    )
    first = entries[0]
    assert (first["wins"], first["draws"], first["losses"], first["truncated"]) == (
        expected.wins, expected.draws, expected.losses, expected.truncated
    )  # fmt: skip
    assert (first["share"], first["low"], first["high"]) == win_share(expected)
    assert first["seed"] == 4 and first["config"] == {"num_players": 3}
    shown = re.match("heuristic" + line, lines[0])
    assert shown is not None and shown.group(1) == f"{100 * first['share']:.1f}"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["eval", "cardline_v0", "oracle", "--field", "random"], "'oracle' has none"),
        (["eval", "cardline_v0", "random", "--field", "memory"], "'memory' has none"),
        (["eval", "cardline_v0", "random", "--field", "nobody"], "nobody"),
        (["eval", "cardline_v0", "random", "random", "--field", "random"], "repeated"),
        (["eval", "cardline_v0", "random", "--field", "random", "--jobs", "2"], "--jobs"),
    ],
)
def test_eval_field_refuses_what_it_cannot_play(argv, message, capsys):
    code, _ = run(argv)
    assert code == 2
    assert message in capsys.readouterr().err
