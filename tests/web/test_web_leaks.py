"""A game response holds only what its seat may see: at every decision point of random games
of the four envs, the rules state behind a web game is swapped for a twin resampled from the
person's information (``resample_from_infostate``, the event log kept as that seat saw it),
and the API's answer (view, picture, event lines, legal actions, everything) must not change.
"""

from __future__ import annotations

import numpy as np
import pytest
from web_helpers import FOUR

from cardarena.envs.core.events import visible_events

#: (env, config, seat index): two-player tables from both chairs, and a bigger table.
TABLES = [(env, config, seat) for env in FOUR for config, seat in (({}, 0), ({}, 1))] + [
    ("cardline_v0", {"num_players": 3}, 2),
    ("promise_war_v0", {"num_players": 4}, 1),
]


def twin_of(state, seat: int, rng: np.random.Generator):
    twin = state.resample_from_infostate(seat, rng)
    if twin.events is None:  # the event log as that seat saw it
        twin.events = visible_events(state.events or [], seat)
    return twin


@pytest.mark.parametrize(("env", "config", "seat"), TABLES)
def test_responses_do_not_change_under_resampling(client, store, env, config, seat):
    rng = np.random.default_rng(seat + 7)
    body = {"env": env, "seed": 21 + seat, "config": config, "seat": seat, "vs": "heuristic"}
    game = client.post("/api/games", json=body).json()
    url = f"/api/games/{game['id']}"
    checked = 0
    while not game["over"]:
        before = client.get(url).json()  # new_events already read: [] in both answers
        table = store.peek(game["id"])
        real = table.env.game_state
        steps = table.env.num_steps
        table.env.set_state(twin_of(real, table.human_index, rng), steps)
        assert client.get(url).json() == before, f"{env} step {checked}"
        table.env.set_state(real, steps)
        checked += 1
        action = game["legal"][int(rng.integers(len(game["legal"])))]["action"]
        game = client.post(f"{url}/act", json={"action": action}).json()
        assert "error" not in game, game
    assert checked >= 3
