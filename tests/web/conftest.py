"""Fixtures of the web table's tests: a TestClient app whose store runs on a fake clock, and
a real uvicorn server on 127.0.0.1 (``web_helpers.LiveServer``)."""

from __future__ import annotations

import warnings
from collections.abc import Iterator

import pytest
from web_helpers import LiveServer

from cardarena.web.app import create_app
from cardarena.web.sessions import GameStore

with warnings.catch_warnings():  # Starlette prefers another HTTP client now; httpx still works
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient


#: The address the TestClient's requests name in their Host header.
LOCAL = "http://127.0.0.1"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "browser: drives the system Chromium (/usr/bin/chromium) with Playwright; "
        "CARDARENA_REQUIRE_BROWSER=1 turns a missing browser into a failure",
    )


class FakeClock:
    """A clock the test moves by hand (the store's idle expiry)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def store(clock: FakeClock) -> GameStore:
    return GameStore(max_games=20, idle_seconds=60, clock=clock)


@pytest.fixture
def client(store: GameStore) -> Iterator[TestClient]:
    app = create_app(store=store)
    # The server answers its own host names only (TestClient's default is "testserver").
    with TestClient(app, raise_server_exceptions=False, base_url=LOCAL) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def live_server() -> Iterator[LiveServer]:
    server = LiveServer(create_app(max_games=200))
    try:
        yield server
    finally:
        server.stop()
