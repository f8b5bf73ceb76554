"""The web API against the rule of tests/core/test_input_edges.py, in JSON's terms: ``seat``
of ``POST /api/games`` is a seat name or an index ``0..n-1`` (an integer, not ``1.0`` nor
``true``), ``action`` of ``POST /api/games/{id}/act`` an integer among the legal ones. What
fits is played exactly as its plain form (the index as the seat's name, the action as the
int); anything else is the JSON 400 naming the field (an integer of over 40 digits and
``NaN`` are refused as bad JSON, also 400), and nothing changes: no game is created, the
game's answer is the same before and after. Numpy values do not exist on this front."""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from edge_values import bound_integers
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from web_helpers import refused

from cardarena.envs import ENVS, make_raw
from cardarena.web.app import create_app
from cardarena.web.sessions import GameStore

with warnings.catch_warnings():  # as tests/web/conftest.py: httpx still works
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

NAMES = sorted(ENVS)
SEATS = {name: list(make_raw(name).possible_agents) for name in NAMES}


@pytest.fixture(scope="module")
def api() -> Iterator[Any]:
    """One app for the module (Hypothesis calls the test many times), opponents random."""
    store = GameStore(max_games=100_000, idle_seconds=3600)
    app = create_app(vs="random", store=store)
    with TestClient(app, raise_server_exceptions=False, base_url="http://127.0.0.1") as client:
        client.store = store  # type: ignore[attr-defined]
        yield client


def post(api: Any, path: str, body: dict[str, Any]) -> Any:
    """POST ``body`` as JSON text written here, so ``1.0``, ``true`` and 41-digit integers
    reach the server as typed."""
    text = json.dumps(body, allow_nan=True)
    return api.post(path, content=text, headers={"content-type": "application/json"})


def without_id(game: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in game.items() if key != "id"}


def json_values(size: int, names: list[str]) -> st.SearchStrategy[Any]:
    """What a JSON body may hold where an index or a name of ``0..size-1`` is wanted."""
    integers = st.one_of(
        st.sampled_from(bound_integers(size, range(size))), st.integers(-(2**70), 2**70)
    )
    floats = st.one_of(
        st.sampled_from([1.0, 0.0, 0.5, -1.0, float(size), math.nan, math.inf]),
        st.floats(allow_nan=True),
    )
    texts = st.one_of(
        st.sampled_from(names),
        st.sampled_from([str(i) for i in range(-1, size + 1)] + ["", " ", names[0].upper()]),
        st.sampled_from([name + " " for name in names]),
        st.text(max_size=8),
    )
    others = st.sampled_from([True, False, None, [], [0], {}, {"seat": 0}])
    return st.one_of(integers, floats, texts, others)


def is_index(value: Any, size: int) -> bool:
    return type(value) is int and 0 <= value < size


def check_seat(api: Any, name: str, seat: Any) -> str:
    """``seat`` chooses the chair it names (None: the first), or is a 400 creating nothing."""
    seats = SEATS[name]
    games = len(api.store)
    answer = post(api, "/api/games", {"env": name, "seed": 3, "seat": seat})
    if seat is None or is_index(seat, len(seats)) or (isinstance(seat, str) and seat in seats):
        chosen = seats[0] if seat is None else seats[seat] if type(seat) is int else seat
        game = answer.json()
        assert answer.status_code == 200 and game["seat"] == chosen, answer.text
        named = post(api, "/api/games", {"env": name, "seed": 3, "seat": chosen}).json()
        assert without_id(game) == without_id(named)
        return "seated"
    refused(answer, 400)
    assert len(api.store) == games, "a refused request created a game"
    return "refused"


def check_action(api: Any, name: str, seed: int, action: Any) -> str:
    """``action`` plays as the same int would, or is a 400 that changes nothing."""
    game = post(api, "/api/games", {"env": name, "seed": seed}).json()
    if game["over"]:
        return "over before the first decision"
    legal = [move["action"] for move in game["legal"]]
    url = f"/api/games/{game['id']}"
    answer = post(api, f"{url}/act", {"action": action})
    if type(action) is int and action in legal:
        twin = post(api, "/api/games", {"env": name, "seed": seed}).json()
        expected = post(api, f"/api/games/{twin['id']}/act", {"action": action}).json()
        assert answer.status_code == 200 and without_id(answer.json()) == without_id(expected)
        return "played"
    refused(answer, 400)
    assert api.get(url).json() == {**game, "new_events": []}
    return "refused"


def test_every_seat_bound_of_every_env(api):
    for name in NAMES:
        size = len(SEATS[name])
        values = [-1, 0, size - 1, size, 2**63, 10**40, -(2**63), *SEATS[name], None]
        values += [1.0, 0.0, 0.5, math.nan, True, False, "0", "-1", "", [0], {}]
        for seat in values:
            check_seat(api, name, seat)


def test_every_action_bound_of_every_env(api):
    for name in NAMES:
        game = post(api, "/api/games", {"env": name, "seed": 1}).json()
        legal = [move["action"] for move in game["legal"]]
        n = make_raw(name).num_actions
        illegal = [a for a in range(n) if a not in legal][:1]
        values = [-1, 0, n - 1, n, 2**63, 10**40, *legal[:2], *illegal, float(legal[0])]
        values += [1.0, 0.5, math.nan, True, False, str(legal[0]), None, [legal[0]]]
        for action in values:
            check_action(api, name, 1, action)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(name=st.sampled_from(NAMES), data=st.data())
def test_any_seat_is_a_chair_or_a_400(api, name, data):
    seats = SEATS[name]
    event(check_seat(api, name, data.draw(json_values(len(seats), seats), label="seat")))


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(name=st.sampled_from(NAMES), seed=st.integers(0, 50), data=st.data())
def test_any_action_is_played_or_a_400(api, name, seed, data):
    legal = [
        m["action"] for m in post(api, "/api/games", {"env": name, "seed": seed}).json()["legal"]
    ]
    n = make_raw(name).num_actions
    value = data.draw(
        st.one_of(st.sampled_from(legal), json_values(n, [str(a) for a in legal])), label="action"
    )
    event(check_action(api, name, seed, value))
