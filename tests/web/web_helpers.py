"""Helpers of the web table's tests: the four games, a random game played through the API,
and a real uvicorn server on 127.0.0.1 in a thread."""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

import numpy as np

#: The four games the web table draws (the test game high_card_v0 uses the defaults).
FOUR = ("beast_wars_v0", "cardline_v0", "ironman_war_v0", "promise_war_v0")


def play_out(post: Any, game: dict[str, Any], rng: np.random.Generator, limit: int = 2000) -> dict:
    """Play random legal actions through the API until the game is over."""
    for _ in range(limit):
        if game["over"]:
            return game
        assert game["to_act"] and game["legal"], game
        action = game["legal"][int(rng.integers(len(game["legal"])))]["action"]
        game = post(f"/api/games/{game['id']}/act", {"action": action})
    raise AssertionError(f"{game['env']} did not end in {limit} moves")


class LiveServer:
    """The app served by uvicorn on 127.0.0.1 at a free port, in a daemon thread."""

    def __init__(self, app: Any) -> None:
        import uvicorn

        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(
            uvicorn.Config(app, log_level="warning", access_log=False, limit_concurrency=500)
        )
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [sock]}, daemon=True
        )
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.02)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
