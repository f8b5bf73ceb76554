"""``web/app.py``'s smaller promises, each on its own: the body limits the docs state, how an
unknown field, a seat out of range and an illegal action are named, which error becomes which
status, a game's title when its docs have none, and a rules text that cannot be read."""

from __future__ import annotations

import re
import types
from pathlib import Path

import numpy as np
import pytest
from web_helpers import ok, play_out, refused

from cardarena.envs.core import CardArenaError, IllegalActionError, InvalidConfigError
from cardarena.web import routes as web_routes
from cardarena.web.answers import _jsonable, _title
from cardarena.web.reading import (
    BODY_SECONDS,
    MAX_BODY_BYTES,
    MAX_REPLAY_BODY_BYTES,
    MAX_SPEC_CHARS,
)
from cardarena.web.replays import MAX_RECORD_BYTES

DOCS = (Path(__file__).resolve().parents[2] / "docs" / "web_api.md").read_text()


def test_the_body_limits_are_the_documented_ones():
    stated = re.search(
        r"limited in size \((\d+) KiB, 4 MiB for a record\) and in time \((\d+) s\)", DOCS
    )
    assert stated, "docs/web_api.md lost its body limits"
    assert (int(stated[1]) * 1024, float(stated[2])) == (MAX_BODY_BYTES, BODY_SECONDS)


def test_unknown_fields_are_named_one_or_several_at_most_five(client):
    one = refused(client.post("/api/games", json={"env": "promise_war_v0", "x": 1}), 400)
    assert one.startswith("unknown field 'x'; the fields are env, vs, seed, config, seat")
    two = refused(client.post("/api/games", json={"a": 1, "b": 2}), 400)
    assert two.startswith("unknown fields 'a', 'b'; ")
    many = refused(client.post("/api/games", json={k: 1 for k in "abcdefg"}), 400)
    assert many.startswith("unknown fields 'a', 'b', 'c', 'd', 'e'; ")


def test_a_seat_index_out_of_range_names_the_range(client):
    message = refused(client.post("/api/games", json={"env": "promise_war_v0", "seat": 2}), 400)
    assert message.endswith("seat 2 is not one of 0..1")
    assert ok(client.post("/api/games", json={"env": "promise_war_v0", "seat": 1}))["seat"]


def test_an_illegal_action_lists_the_first_twenty_legal_ones(client):
    ask = {"env": "cardline_v0", "seed": 1, "config": {"hand_size": 12}, "seat": 0}
    game = ok(client.post("/api/games", json=ask))  # 12 cards by 2 gaps: 24 placements
    legal = [entry["action"] for entry in game["legal"]]
    assert len(legal) > 20, "a position with over twenty legal actions is needed"
    illegal = next(a for a in range(10_000) if a not in legal)
    message = refused(client.post(f"/api/games/{game['id']}/act", json={"action": illegal}), 400)
    first = ", ".join(f"{e['action']} ({e['name']})" for e in game["legal"][:20])
    assert message.endswith(f"is not legal now; legal: {first}")


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (InvalidConfigError("bad"), 400),
        (IllegalActionError("no"), 400),
        (CardArenaError("broken"), 500),
    ],
)
def test_a_package_error_outside_a_route_check_has_its_status(client, monkeypatch, error, status):
    game = ok(client.post("/api/games", json={"env": "promise_war_v0", "seed": 1}))

    def failing(*args, **kwargs):
        raise error

    monkeypatch.setattr(web_routes, "game_response", failing)
    assert refused(client.get(f"/api/games/{game['id']}"), status) == str(error)


def test_a_game_without_a_title_line_is_named_by_its_module():
    assert _title(types.ModuleType("cardarena.envs.tic_tac_v0", "no title here")) == "tic_tac_v0"
    assert _title(types.ModuleType("pkg.mod", "intro\n# The Game\nmore")) == "The Game"
    assert _title(types.ModuleType("mygame", None)) == "mygame"  # a top-level module of one's own


@pytest.mark.parametrize("error", [OSError("disk"), CardArenaError("no file"), KeyError("gone")])
def test_rules_that_cannot_be_read_are_a_404(client, monkeypatch, error):
    import cardarena.envs.rules_docs as rules_docs

    def failing(*args, **kwargs):
        raise error

    monkeypatch.setattr(rules_docs, "rules_text", failing)
    refused(client.get("/api/rules/promise_war_v0"), 404, "no rules for promise_war_v0")


def test_only_a_body_cut_off_unread_closes_the_connection(client):
    big = client.post("/api/games", content=b"{" + b" " * MAX_BODY_BYTES + b"}")
    refused(big, 413)
    assert big.headers.get("connection") == "close"
    game = ok(client.post("/api/games", json={"env": "cardline_v0", "seed": 1}))
    game = play_out(
        lambda path, body: ok(client.post(path, json=body)), game, np.random.default_rng(0)
    )
    over = client.post(f"/api/games/{game['id']}/act", json={"action": 0})
    refused(over, 409, "the game is over")
    assert over.headers.get("connection") != "close"


def test_every_table_size_between_the_bounds_lists_its_seats(client):
    for info in ok(client.get("/api/envs"))["envs"]:
        sizes = [int(size) for size in info["seats"]]
        if info["players_key"] is None:
            assert sizes == [info["default_players"]]
        else:
            assert sizes == list(range(info["min_players"], info["max_players"] + 1))
        for size, seats in info["seats"].items():
            assert len(seats) == int(size)
        assert isinstance(info["config_keys"], list) and info["config_keys"]
        assert info["players_key"] is None or info["players_key"] in info["config_keys"]


def test_a_json_replay_body_may_be_twice_a_record(client):
    shell = len(b'{"record": ""}')
    at_limit = b'{"record": "' + b"x" * (MAX_REPLAY_BODY_BYTES - shell) + b'"}'
    assert len(at_limit) == MAX_REPLAY_BODY_BYTES == 2 * MAX_RECORD_BYTES
    headers = {"content-type": "application/json"}
    refused(client.post("/api/replays", content=at_limit, headers=headers), 400, "at most")
    over = at_limit[:-2] + b'x"}'
    refused(client.post("/api/replays", content=over, headers=headers), 413)


def start(client, **ask):
    """``POST /api/games`` for a Promise War game with the fields ``ask``."""
    return client.post("/api/games", json={"env": "promise_war_v0", **ask})


def test_a_seed_is_any_non_negative_int64(client):
    for seed in (0, 127, 2**63 - 1):
        assert ok(start(client, seed=seed))["seed"] == seed
    for seed in (-1, 2**63):
        refused(start(client, seed=seed), 400, "field 'seed' must be a non-negative integer")


def test_a_body_of_exactly_the_limit_is_read_whether_its_length_is_given_or_not(client):
    body = b'{"env": "promise_war_v0"' + b" " * (MAX_BODY_BYTES - 25) + b"}"
    assert len(body) == MAX_BODY_BYTES
    ok(client.post("/api/games", content=body))  # Content-Length given
    ok(client.post("/api/games", content=iter([body[:1000], body[1000:]])))  # chunked
    refused(client.post("/api/games", content=iter([body, b" "])), 413)
    bad_length = {"content-length": "2x"}
    refused(client.post("/api/games", content=b"{}", headers=bad_length), 400, "Content-Length")


def test_an_opponent_spec_is_refused_past_its_longest(client):
    too_long = "random:" + "x" * (MAX_SPEC_CHARS - 6)
    words = f"is {MAX_SPEC_CHARS + 1} characters long; at most {MAX_SPEC_CHARS}"
    refused(start(client, vs=too_long), 400, words)
    at_limit = "random:" + "x" * (MAX_SPEC_CHARS - 7)
    message = refused(start(client, vs=at_limit), 400)
    assert "characters long" not in message  # refused for what it says, not for its length
    stated = re.search(r"with its options, at most (\d+) characters", DOCS)
    assert stated and int(stated[1]) == MAX_SPEC_CHARS


def test_example_configs_keep_only_what_json_can_carry():
    assert _jsonable({"deck": [1, 2], "name": "x"})
    assert not _jsonable({"bad": float("nan")}) and not _jsonable({"obj": object()})


def test_the_rules_answer_carries_the_common_rules_after_the_games(client):
    markdown = ok(client.get("/api/rules/promise_war_v0"))["markdown"]
    game, _, common = markdown.partition("\n---\n")
    assert "PW-1" in game and "# Rules common to all four games" in common
