"""Tournaments: seats rotate, seeds are fixed, processes do not change results, outputs."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from cardarena.agents import AGENT_SPECS, BaseAgent, register_agent
from cardarena.envs.core import InvalidConfigError
from cardarena.evaluation.records import MatchRecord, play_match, rank_returns, read_records
from cardarena.evaluation.tournament import (
    CHUNK_GAMES,
    PairStats,
    TournamentResult,
    game_seed,
    pairwise_counts,
    run_tournament,
    summarize,
)


class FirstLegal(BaseAgent):
    spec = "first"

    def act(self, observation):
        return int(np.flatnonzero(observation["action_mask"])[0])


class LastLegal(BaseAgent):
    spec = "last"

    def act(self, observation):
        return int(np.flatnonzero(observation["action_mask"])[-1])


@pytest.fixture(scope="module", autouse=True)
def test_specs():
    # Registered before the worker processes fork, so they know these specs too.
    register_agent("first", FirstLegal, "test: the lowest legal action")
    register_agent("last", LastLegal, "test: the highest legal action")
    yield
    AGENT_SPECS.pop("first", None)
    AGENT_SPECS.pop("last", None)


SPECS = ["random", "first", "last"]


@pytest.fixture(scope="module")
def small() -> TournamentResult:
    return run_tournament("promise_war_v0", SPECS, games=CHUNK_GAMES + 5, seed=1)


def test_jobs_do_not_change_results(small, tmp_path):
    path = tmp_path / "games.jsonl"
    parallel = run_tournament(
        "promise_war_v0", SPECS, games=CHUNK_GAMES + 5, seed=1, jobs=2, records_path=path
    )
    assert parallel.games == small.games
    assert parallel.pairs == small.pairs
    assert parallel.ratings == small.ratings
    assert parallel.to_json() == small.to_json()
    assert read_records(path) == small.games  # written in order, every game


def test_round_robin_with_rotated_seats_and_fixed_seeds(small):
    games = CHUNK_GAMES + 5
    assert len(small.games) == 3 * games
    meetings = Counter(tuple(sorted(record.lineup.values())) for record in small.games)
    assert meetings == {
        pair: games for pair in [("first", "random"), ("last", "random"), ("first", "last")]
    }
    for spec in SPECS:
        seats = Counter(seat for r in small.games for seat, s in r.lineup.items() if s == spec)
        assert seats == {"player_0": games, "player_1": games}  # half of 2 * games each
    # Consecutive games of a pairing swap the seats; every game has its own derived seed.
    first, second = small.games[0], small.games[1]
    assert list(first.lineup.values()) == list(reversed(second.lineup.values()))
    assert first.seed == game_seed(1, ("random", "first"), 0)
    assert len({record.seed for record in small.games}) == len(small.games)
    # The same tournament again is the same; another seed gives other games.
    again = run_tournament("promise_war_v0", SPECS[:2], games=4, seed=1)
    assert (
        again.games == [r for r in small.games if set(r.lineup.values()) == {"random", "first"}][:4]
    )
    assert run_tournament("promise_war_v0", SPECS[:2], games=4, seed=2).games != again.games


def test_tournament_games_are_play_match_games(small):
    for record in small.games[::7]:
        assert play_match(record.env, record.lineup, record.seed, record.config) == record


def test_pair_stats_and_ratings_follow_the_records(small):
    counts = pairwise_counts(small.games)
    for (a, b), (wins, draws, losses) in counts.items():
        stats = small.pairs[(a, b)]
        assert (stats.wins, stats.draws, stats.losses) == (wins, draws, losses)
        assert stats.games == wins + draws + losses == CHUNK_GAMES + 5
        assert stats.win_rate == pytest.approx((wins + draws / 2) / stats.games)
        assert stats.low <= stats.win_rate <= stats.high
        assert small.pairs[(b, a)] == stats.flipped()
        assert small.pairs[(b, a)].win_rate == pytest.approx(1 - stats.win_rate)
    assert set(small.ratings) == set(SPECS)
    assert sum(rating for rating, _ in small.ratings.values()) == pytest.approx(0, abs=1e-6)
    best = small.ranking()[0]
    assert all(small.pairs[(best, other)].win_rate > 0.5 for other in SPECS if other != best)


def test_multiplayer_splits_games_into_pairs_by_rank():
    def record(ranks: dict[str, int], lineup: dict[str, str]) -> MatchRecord:
        returns = {seat: float(-rank) for seat, rank in ranks.items()}
        assert rank_returns(returns) == ranks
        return MatchRecord("x", "0", {}, 0, lineup, [], returns, ranks, "terminated", None, 0)

    lineup = {"p0": "a", "p1": "b", "p2": "c"}
    records = [
        record({"p0": 1, "p1": 2, "p2": 3}, lineup),  # a > b > c
        record({"p0": 3, "p1": 1, "p2": 1}, lineup),  # b = c > a
        record({"p0": 1, "p1": 1, "p2": 3}, {"p0": "a", "p1": "a", "p2": "c"}),  # a, a > c
    ]
    assert pairwise_counts(records) == {
        ("a", "b"): (1, 0, 1),
        ("a", "c"): (3, 0, 1),
        ("b", "c"): (1, 1, 0),
    }
    result = summarize("x", ["a", "b", "c"], records)
    assert result.pairs[("c", "a")] == PairStats.from_counts(1, 0, 3)
    assert result.ratings["a"][0] > result.ratings["c"][0]


def test_multiplayer_tables_rotate_every_spec_through_every_seat():
    config = {"num_players": 3, "max_power": 5}
    few = run_tournament("promise_war_v0", ["random", "first"], games=4, config=config)
    assert [list(r.lineup.values()) for r in few.games] == [
        ["random", "first", "random"],
        ["first", "random", "first"],
    ] * 2
    assert few.pairs[("random", "first")].games == 4 * 2  # two seats per game hold a pair
    many = run_tournament(
        "promise_war_v0", ["random", "first", "last", "random:"], games=3, config=config
    )
    tables = Counter(frozenset(r.lineup.values()) for r in many.games)
    assert len(tables) == 4 and set(tables.values()) == {3}  # every 3 of 4 specs, 3 games each
    for table in tables:
        games = [r for r in many.games if frozenset(r.lineup.values()) == table]
        for seat in ("player_0", "player_1", "player_2"):
            assert {r.lineup[seat] for r in games} == table  # each spec in each seat once
    assert all(stats.games == 2 * 3 for stats in many.pairs.values())  # met at 2 tables


def test_outputs_markdown_json_and_heatmap(small, tmp_path):
    markdown = small.to_markdown()
    assert "| rank | agent | rating (Elo) |" in markdown
    for spec in SPECS:
        assert f"`{spec}`" in markdown
    data = json.loads(small.to_json())
    assert data["env"] == "promise_war_v0" and data["games"] == len(small.games)
    assert set(data["ratings"]) == set(SPECS) and len(data["pairs"]) == 3
    assert {"wins", "draws", "losses", "games", "win_rate", "low", "high"} <= set(data["pairs"][0])
    matrix = small.win_rate_matrix()
    assert np.isnan(matrix[0][0]) and matrix[0][1] == small.pairs[(SPECS[0], SPECS[1])].win_rate

    pytest.importorskip("matplotlib")  # the plot extra; `make test` installs it
    path = tmp_path / "heat.png"
    small.save_heatmap(path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 2000


def test_progress_goes_to_stderr(capsys):
    run_tournament("cardline_v0", ["random", "first"], games=3, progress=True)
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "3/3" in captured.err


@pytest.mark.parametrize(
    ("specs", "games", "message"),
    [
        (["random"], 2, "at least two"),
        (["random", "random"], 2, "distinct"),
        (["random", "nobody"], 2, "unknown agent spec"),
        (["random", "first"], 0, "positive integer"),
    ],
)
def test_bad_tournaments_fail_early(specs, games, message):
    with pytest.raises(InvalidConfigError, match=message):
        run_tournament("cardline_v0", specs, games=games)
