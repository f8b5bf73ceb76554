"""What one request, or forty, can cost the web table (docs/web_api.md, "What the server
promises"): a search opponent's decision ends within ``think_seconds``; the agents' turns run
in a pool of ``workers`` threads off the event loop, so unrelated requests are answered at
once however many searches are queued; and a game whose client has gone stops spending CPU."""

from __future__ import annotations

import json
import socket
import threading
import time

from web_helpers import LiveServer, ok

from cardarena.agents.ismcts import MAX_ITERATIONS
from cardarena.agents.table import Table
from cardarena.web.app import create_app
from cardarena.web.sessions import GameStore
from cardarena.web.work import DEFAULT_THINK_SECONDS, DEFAULT_WORKERS

#: The most expensive spec a request may name, at the largest Promise War table, the person
#: in the last chair: seven searches before the person's first move.
COSTLY = {
    "env": "promise_war_v0",
    "vs": f"ismcts:iterations={MAX_ITERATIONS}",
    "config": {"num_players": 8},
    "seat": 7,
}
GAMES = 40


def within(seconds: float, build):
    """``build()``'s result, failing (rather than hanging) if it takes over ``seconds``."""
    result: list = []
    worker = threading.Thread(target=lambda: result.append(build()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert result, f"still running after {seconds} s"
    return result[0]


def eight_seats(think_seconds: float, stop: threading.Event | None = None) -> Table:
    """The costly table: seven searches before the person's first move."""
    config = {"num_players": 8}
    return Table("promise_war_v0", COSTLY["vs"], "player_7", 1, config, think_seconds, stop)


def test_a_search_decision_ends_within_its_budget():
    table = within(7 * 0.1 + 2.0, lambda: eight_seats(0.1))  # without the budget: minutes
    assert table.to_act() and len(table.actions) == 7
    root = table.opponents["player_6"].root_visits
    assert 0 < sum(root.values()) < MAX_ITERATIONS  # it searched, and was cut short


class LeavesAtPoll(threading.Event):
    """A client's ``gone`` event that sets itself at its ``polls``-th check: the client leaves
    once the first search is under way (the table checks once before a decision, the search
    at each iteration), whatever the machine's speed, where a timer would race the set-up."""

    def __init__(self, polls: int) -> None:
        super().__init__()
        self.polls = polls

    def is_set(self) -> bool:
        self.polls -= 1
        if self.polls == 0:
            self.set()
        return super().is_set()


def test_a_stopped_table_leaves_the_agents_turns_for_later():
    stop = LeavesAtPoll(20)
    table = within(60.0, lambda: eight_seats(5.0, stop))  # stopped inside a 5-second search
    assert table.owes_moves() and table.actions == []  # the decision cut short is not played
    cut = table.opponents[table.env.agent_selection].root_visits
    assert 0 < sum(cut.values()) < 20  # it stopped at its next poll, not at its budget
    table.think_seconds = 0.05
    table.advance()
    assert table.to_act() and len(table.actions) == 7


def test_a_game_left_owing_moves_is_caught_up_by_the_next_request(client, store):
    stop = threading.Event()
    stop.set()  # the client was gone before the first search began
    table = Table("promise_war_v0", "random", "player_2", 4, {"num_players": 3}, stop=stop)
    assert table.owes_moves() and table.actions == []
    game_id = store.add(table)
    game = ok(client.get(f"/api/games/{game_id}"))
    assert game["to_act"] and game["turn"] == "player_2" and len(table.actions) == 2
    action = game["legal"][0]["action"]
    again = ok(client.post(f"/api/games/{game_id}/act", json={"action": action}))
    assert again["to_act"] or again["over"]


def _open_request(port: int, body: dict) -> socket.socket:
    """A POST sent whole on a raw connection whose answer is never read (a browser tab)."""
    data = json.dumps(body).encode()
    sock = socket.create_connection(("127.0.0.1", port))
    sock.sendall(
        b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n" % len(data) + data
    )
    return sock


def test_forty_costly_games_leave_other_requests_fast_and_stop_when_abandoned():
    app = create_app("random", store=GameStore(max_games=100, idle_seconds=600))
    workers = app.state.workers
    assert workers.threads == DEFAULT_WORKERS and workers.think_seconds == DEFAULT_THINK_SECONDS
    server = LiveServer(app)
    busiest = 0
    try:
        import httpx

        with httpx.Client(base_url=server.url, timeout=10) as http:
            other = ok(http.post("/api/games", json={"env": "cardline_v0", "seed": 1}))
            sockets = [_open_request(server.port, COSTLY) for _ in range(GAMES)]
            deadline = time.monotonic() + 60
            # Every search is in, two running and the rest queued (a game is seven decisions
            # of a second each, so none ends meanwhile): the GETs below are timed under all 40.
            while workers.busy < DEFAULT_WORKERS or workers.busy + workers.waiting < GAMES:
                assert time.monotonic() < deadline, workers.state()
                time.sleep(0.05)
            slowest = 0.0
            for _ in range(10):
                for path in ("/api/envs", f"/api/games/{other['id']}"):
                    start = time.monotonic()
                    assert http.get(path).status_code == 200
                    slowest = max(slowest, time.monotonic() - start)
                busiest = max(busiest, workers.busy)
                time.sleep(0.1)
            assert slowest < 1.0, f"an unrelated GET took {slowest:.2f} s under {GAMES} searches"
            assert workers.waiting > 0  # the rest are queued, not running
            for sock in sockets:  # every tab closes
                sock.close()
            # A running search stops at its next poll, a queued one never starts; without the
            # stop each running game would go on for its seven decisions.
            deadline = time.monotonic() + 2.0
            while workers.busy or workers.waiting:
                assert time.monotonic() < deadline, workers.state()
                time.sleep(0.05)
            cpu = time.process_time()
            time.sleep(1.0)
            assert time.process_time() - cpu < 0.3  # nobody is thinking any more
    finally:
        server.stop()
    assert busiest <= DEFAULT_WORKERS
