"""Helpers of the web table's tests: the four games, a random game played through the API,
and a real uvicorn server on 127.0.0.1 in a thread."""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np

#: The four games the web table draws (the test game high_card_v0 uses the defaults).
FOUR = ("beast_wars_v0", "cardline_v0", "ironman_war_v0", "promise_war_v0")


def ok(response: Any) -> Any:
    """The JSON of a 200 answer."""
    assert response.status_code == 200, response.text
    return response.json()


def refused(response: Any, status: int, *words: str) -> str:
    """The message of a JSON error answer of ``status`` that holds every one of ``words``."""
    assert response.status_code == status, (response.status_code, response.text)
    assert response.headers["content-type"].startswith("application/json")
    message = response.json()["error"]
    assert "Traceback" not in message
    for word in words:
        assert word in message, (word, message)
    return message


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

        from cardarena.web.server import bind, uvicorn_config

        sock = bind("127.0.0.1", 0)
        self.port = sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn_config(app))  # as cardarena serve runs it
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

    def __enter__(self) -> LiveServer:
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()


class ServeProcess:
    """``cardarena serve`` for real, in a process of its own on a free port: what a person
    runs, with its printed lines and its log (stderr, read as it comes by a thread: a test
    can wait for a line, ``wait_for_log``) kept for the test to read."""

    def __init__(self, *args: str, timeout: float = 30) -> None:
        import re
        import subprocess
        import sys

        import httpx

        command = [sys.executable, "-u", "-m", "cardarena.cli", "serve", "--port", "0"]
        self.process = subprocess.Popen(
            [*command, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        self.pid = self.process.pid
        self._log: list[str] = []
        self._reader = threading.Thread(target=self._read_log, daemon=True)
        self._reader.start()
        self.lines: list[str] = []
        deadline = time.monotonic() + timeout
        match = None
        while match is None:
            line = self.process.stdout.readline() if self.process.stdout else ""
            if not line:
                raise RuntimeError(f"serve stopped: {self.stop()}")
            self.lines.append(line.rstrip("\n"))
            match = re.search(r"http://(\S+?):(\d+)/", line)
        self.port = int(match.group(2))
        self.url = f"http://127.0.0.1:{self.port}"  # what a person on this machine opens
        while True:  # the address is printed just before uvicorn starts answering
            try:
                httpx.get(self.url + "/api/envs", timeout=5)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise RuntimeError(f"serve does not answer: {self.stop()}") from None
                time.sleep(0.05)

    def _read_log(self) -> None:
        if self.process.stderr is not None:
            for line in self.process.stderr:
                self._log.append(line)

    def wait_for_log(self, text: str, count: int, timeout: float = 90.0) -> None:
        """Until the log holds ``count`` lines with ``text`` in them: the server has handled
        what they report, however loaded the machine (no sleep that hopes it has). The test
        fails, showing the log, at once if the server stops or logs a traceback first, or
        after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while sum(text in line for line in list(self._log)) < count:
            failed = any("Traceback" in line for line in list(self._log))
            if failed or time.monotonic() > deadline or self.process.poll() is not None:
                raise AssertionError(f"never {count} lines with {text!r}:\n{self.stop()}")
            time.sleep(0.05)

    def stop(self) -> str:
        """Stop the server (as Ctrl-C would) and return what it wrote on stderr."""
        import signal
        import subprocess

        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._reader.join(timeout=15)  # the pipe ends with the process
        return "".join(self._log)
