"""A bounded load test: a real uvicorn server on 127.0.0.1 plays 50 games at once through the
JSON API (one client thread per game, every env), each to its end, without a single error."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import numpy as np
from web_helpers import FOUR, play_out

GAMES = 50
#: Wall-clock bound of the whole run (about 3 s on an idle 2-core machine).
BOUND_SECONDS = 90


def test_fifty_concurrent_games_play_to_the_end(live_server):
    def one(index: int) -> tuple[str, str]:
        env = FOUR[index % len(FOUR)]
        with httpx.Client(base_url=live_server.url, timeout=30) as http:

            def post(path, body):
                response = http.post(path, json=body)
                assert response.status_code == 200, (env, response.status_code, response.text)
                return response.json()

            game = post("/api/games", {"env": env, "seed": index})
            end = play_out(post, game, np.random.default_rng(index))
            assert http.get(f"/api/games/{game['id']}").json()["over"]
            return env, end["outcome"]["result"]

    start = time.monotonic()
    with ThreadPoolExecutor(max_workers=GAMES) as pool:
        results = list(pool.map(one, range(GAMES)))
    elapsed = time.monotonic() - start
    assert len(results) == GAMES and {env for env, _ in results} == set(FOUR)
    assert all(result in ("won", "lost", "drew", "truncated") for _, result in results)
    assert elapsed < BOUND_SECONDS, f"{GAMES} games took {elapsed:.1f} s"


def test_run_server_prints_its_address_and_serves(tmp_path):
    """``run_server`` (behind ``cardarena serve``) on a free port, in a process of its own."""
    code = (
        "from cardarena.web.server import run_server; "
        "run_server('127.0.0.1', 0, 'random', max_games=5, idle_seconds=60)"
    )
    process = subprocess.Popen(
        [sys.executable, "-u", "-c", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = process.stdout.readline() if process.stdout else ""
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert match, (line, process.stderr.read() if process.poll() is not None else "")
        url = match.group(0)
        deadline = time.monotonic() + 20
        while True:
            try:
                data = httpx.get(url + "api/envs", timeout=5).json()
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline and process.poll() is None
                time.sleep(0.05)
        assert data["vs"] == "random" and "random" in line
        game = httpx.post(url + "api/games", json={"env": "cardline_v0"}, timeout=5).json()
        assert game["vs"] == "random" and game["legal"]
    finally:
        process.terminate()
        process.wait(timeout=10)
