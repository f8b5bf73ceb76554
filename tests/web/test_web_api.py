"""The web table's JSON API (docs/web_api.md) through Starlette's TestClient: every endpoint,
every refusal as a 4xx JSON error naming the problem, idle expiry on a fake clock, and a store
that never holds more than ``max_games`` games."""

from __future__ import annotations

import json

import numpy as np
import pytest
from web_helpers import FOUR, ok, play_out, refused

from cardarena.agents.specs import AGENT_SPECS, register_agent
from cardarena.envs import ENVS
from cardarena.web import routes as web_routes
from cardarena.web.app import MAX_BODY_BYTES, create_app
from cardarena.web.sessions import GameStore, StoreFull


def new_game(client, **body):
    return ok(client.post("/api/games", json={"env": "promise_war_v0", **body}))


def test_envs_lists_every_game_with_what_the_page_needs(client):
    data = ok(client.get("/api/envs"))
    assert data["vs"] == "heuristic"
    assert {a["name"] for a in data["agents"]} >= {"heuristic", "random", "pretrained"}
    by_name = {info["name"]: info for info in data["envs"]}
    assert set(by_name) == set(ENVS)
    for name in FOUR:
        info = by_name[name]
        assert info["how_to_win"] == ENVS[name].raw_env.how_to_win
        assert info["example_configs"] and info["title"]
        assert info["seats"][str(info["default_players"])]
    assert by_name["cardline_v0"]["players_key"] == "num_players"
    assert by_name["cardline_v0"]["seats"]["3"] == ["player_0", "player_1", "player_2"]
    assert by_name["beast_wars_v0"]["players_key"] is None


@pytest.mark.parametrize("env", sorted(ENVS))
def test_a_whole_game_of_each_env(client, env):
    vs = "heuristic" if env in FOUR else "random"
    game = ok(client.post("/api/games", json={"env": env, "vs": vs, "seed": 5}))
    assert game["seed"] == 5 and game["env"] == env and game["vs"] == vs
    assert game["seat"] == game["seats"][0] and game["how_to_win"]
    assert game["svg"].startswith("<svg") and isinstance(game["view"], dict)
    assert {"action", "name"} <= set(game["legal"][0])

    def post(path, body):
        return ok(client.post(path, json=body))

    end = play_out(post, game, np.random.default_rng(0))
    assert end["outcome"]["result"] in ("won", "lost", "drew", "truncated")
    assert end["outcome"]["line"] and end["legal"] == [] and end["turn"] is None
    assert ok(client.get(f"/api/games/{game['id']}"))["outcome"] == end["outcome"]
    refused(client.post(f"/api/games/{game['id']}/act", json={"action": 0}), 409, "over")


def test_seed_and_seat_choose_the_deal_and_the_chair(client):
    fresh = new_game(client)
    assert isinstance(fresh["seed"], int) and fresh["seed"] >= 0
    one = new_game(client, seed=11, seat=1, config={"num_players": 3})
    two = new_game(client, seed=11, seat="player_1", config={"num_players": 3})
    assert one["seat"] == two["seat"] == "player_1" and one["seats"][1] == "player_1"
    assert one["view"] == two["view"] and one["legal"] == two["legal"]
    assert one["id"] != two["id"] and len(one["id"]) >= 20


def test_get_returns_the_state_and_new_events_once(client):
    game = new_game(client, seed=2)
    moved = ok(
        client.post(f"/api/games/{game['id']}/act", json={"action": game["legal"][0]["action"]})
    )
    assert (
        moved["new_events"] and moved["events"][-len(moved["new_events"]) :] == moved["new_events"]
    )
    again = ok(client.get(f"/api/games/{game['id']}"))
    assert again["new_events"] == [] and again["events"] == moved["events"]
    assert again["view"] == moved["view"] and again["legal"] == moved["legal"]


def test_rules_and_the_page(client):
    rules = ok(client.get("/api/rules/promise_war_v0"))
    assert rules["how_to_win"] == ENVS["promise_war_v0"].raw_env.how_to_win
    assert "PW-" in rules["markdown"] and rules["short"]
    refused(client.get("/api/rules/chess_v0"), 404, "unknown env", "promise_war_v0")
    page = client.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert "/static/app.js" in page.text and "http" not in page.text.replace("http-equiv", "")
    assert "default-src 'self'" in page.headers["content-security-policy"]
    script = client.get("/static/app.js")
    assert script.status_code == 200 and "fetch(" in script.text
    assert client.get("/api/envs").headers["cache-control"] == "no-store"


BAD_GAMES = [
    ({"env": "chess_v0"}, "unknown env"),
    ({"env": 3}, "field 'env'"),
    ({}, "field 'env'"),
    ({"env": "promise_war_v0", "colour": "red"}, "unknown field 'colour'"),
    ({"env": "promise_war_v0", "seed": -1}, "seed"),
    ({"env": "promise_war_v0", "seed": "7"}, "seed"),
    ({"env": "promise_war_v0", "seed": True}, "seed"),
    ({"env": "promise_war_v0", "seed": 1.5}, "seed"),
    ({"env": "promise_war_v0", "config": []}, "field 'config'"),
    ({"env": "promise_war_v0", "config": {"num_players": 99}}, "num_players"),
    ({"env": "promise_war_v0", "config": {"num_players": "x"}}, "num_players"),
    ({"env": "promise_war_v0", "config": {"colour": 1}}, "colour"),
    ({"env": "promise_war_v0", "config": {"render_mode": "human"}}, "render_mode"),
    ({"env": "promise_war_v0", "seat": "nobody"}, "seat"),
    ({"env": "promise_war_v0", "seat": 5}, "seat 5"),
    ({"env": "promise_war_v0", "seat": [0]}, "field 'seat'"),
    ({"env": "promise_war_v0", "vs": "grandmaster"}, "grandmaster"),
    ({"env": "promise_war_v0", "vs": ""}, "field 'vs'"),
    ({"env": "promise_war_v0", "vs": 7}, "field 'vs'"),
    ({"env": "promise_war_v0", "vs": "model.zip"}, "only for the server's own --vs"),
    ({"env": "promise_war_v0", "vs": "pretrained:path=/etc/passwd"}, "only for the server"),
    ({"env": "promise_war_v0", "vs": "noisy:sigma=nan"}, "finite"),
    ({"env": "promise_war_v0", "vs": "random:depth=3"}, "unknown option"),
    ({"env": "cardline_v0", "vs": "pretrained", "config": {"num_players": 6}}, "6 players"),
]


@pytest.mark.parametrize(("body", "words"), BAD_GAMES)
def test_bad_new_games_are_400s_naming_the_problem(client, body, words):
    refused(client.post("/api/games", json=body), 400, words)


def test_bad_bodies(client):
    refused(client.post("/api/games", content=b"{nope"), 400, "not valid JSON")
    refused(client.post("/api/games", content=b"[1, 2]"), 400, "JSON object")
    refused(client.post("/api/games", content=b"\xff\xfe{}"), 400, "UTF-8")
    deep = b"[" * 40 + b"]" * 40
    refused(client.post("/api/games", content=b'{"env": ' + deep + b"}"), 400, "nested")
    refused(client.post("/api/games", content=b'{"seed": 1' + b"0" * 60 + b"}"), 400, "digits")
    big = json.dumps({"env": "cardline_v0", "config": {"x": "a" * MAX_BODY_BYTES}})
    refused(client.post("/api/games", content=big), 413, "at most")

    def chunks():  # no Content-Length: the limit holds while reading
        for _ in range(80):
            yield b" " * 1024

    refused(client.post("/api/games", content=chunks()), 413, "over")


def test_bad_moves(client):
    game = new_game(client, seed=4)
    url = f"/api/games/{game['id']}/act"
    legal = {move["action"] for move in game["legal"]}
    illegal = next(a for a in range(100) if a not in legal)
    message = refused(client.post(url, json={"action": illegal}), 400, "not legal", "legal:")
    assert game["legal"][0]["name"] in message
    refused(client.post(url, json={"action": "1"}), 400, "integer")
    refused(client.post(url, json={"action": True}), 400, "integer")
    refused(client.post(url, json={}), 400, "integer")
    refused(client.post(url, json={"action": 1, "x": 2}), 400, "unknown field")
    refused(client.post("/api/games/nope/act", json={"action": 1}), 404, "unknown or expired")
    refused(client.get("/api/games/nope"), 404, "unknown or expired")
    assert ok(client.get(f"/api/games/{game['id']}"))["legal"] == game["legal"]  # unchanged


def test_unknown_routes_and_methods_are_json(client):
    refused(client.get("/api/nothing"), 404, "no such page")
    refused(client.delete("/api/games"), 405, "method not allowed")
    refused(client.get("/api/games"), 405, "method not allowed")


def test_idle_games_expire(client, clock):
    game = new_game(client)
    kept = new_game(client)
    clock.now += 50
    ok(client.get(f"/api/games/{kept['id']}"))  # a request keeps a game alive
    clock.now += 20  # 70 s since the first game was touched, 20 s for the second
    refused(client.get(f"/api/games/{game['id']}"), 404, "expired", "60 s")
    ok(client.get(f"/api/games/{kept['id']}"))
    clock.now += 61
    refused(client.get(f"/api/games/{kept['id']}"), 404, "expired")


def test_the_store_holds_at_most_max_games(client, store):
    ids = [new_game(client)["id"] for _ in range(store.max_games + 7)]
    assert len(store) == store.max_games and store.evicted == 7
    for evicted in ids[:7]:  # the least recently used went first
        refused(client.get(f"/api/games/{evicted}"), 404, "expired")
    for kept in ids[7:]:
        ok(client.get(f"/api/games/{kept}"))


def test_a_full_store_of_games_in_play_says_503(client, store):
    ids = [new_game(client)["id"] for _ in range(store.max_games)]
    holds = [store.use(game_id) for game_id in ids]
    for hold in holds:
        hold.__enter__()
    try:
        refused(client.post("/api/games", json={"env": "promise_war_v0"}), 503, "busy")
    finally:
        for hold in holds:
            hold.__exit__(None, None, None)
    ok(client.post("/api/games", json={"env": "promise_war_v0"}))


def test_store_arguments_and_busy_refusal(clock):
    with pytest.raises(ValueError, match="max_games"):
        GameStore(max_games=0)
    with pytest.raises(ValueError, match="idle_seconds"):
        GameStore(idle_seconds=0)
    with pytest.raises(ValueError, match="unknown agent spec"):
        create_app(vs="grandmaster")
    small = GameStore(max_games=1, clock=clock)
    game_id = small.add(object())  # type: ignore[arg-type]
    with small.use(game_id), pytest.raises(StoreFull):
        small.add(object())  # type: ignore[arg-type]


def test_a_bug_is_a_500_json_without_traceback(client, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("secret detail")

    monkeypatch.setattr(web_routes, "game_response", broken)
    response = client.post("/api/games", json={"env": "promise_war_v0"})
    assert response.status_code == 500 and response.json() == {"error": "internal error"}


def test_a_failing_agent_closes_its_game(client):
    class Broken:
        def act(self, observation):
            return 10_000

    register_agent("broken", lambda seed=None: Broken(), "always illegal (test)")
    try:
        game = new_game(client, vs="broken", seed=1)  # player_0 moves first
        url = f"/api/games/{game['id']}/act"
        refused(client.post(url, json={"action": game["legal"][0]["action"]}), 500, "broken")
        refused(client.get(f"/api/games/{game['id']}"), 404, "unknown")
    finally:
        del AGENT_SPECS["broken"]
