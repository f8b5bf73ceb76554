"""The browser of the tests (importable as ``browser_helpers``): Debian's ``chromium``, driven
headless by Playwright, which never downloads a browser of its own.

Used by the web table's tests (``tests/web/test_web_browser.py``) and the documentation site's
(``tests/docs/test_site.py``). Without ``/usr/bin/chromium`` (or ``CARDARENA_CHROMIUM``) or
without Playwright (the dev extra) they skip, unless ``CARDARENA_REQUIRE_BROWSER`` is set
(``.ci/run`` sets it), when they fail.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = Path(os.environ.get("CARDARENA_CHROMIUM", "/usr/bin/chromium"))
#: The ``browser`` marker, as each test folder's conftest registers it.
MARKER = (
    "browser: drives the system Chromium (/usr/bin/chromium) with Playwright; "
    "CARDARENA_REQUIRE_BROWSER=1 turns a missing browser into a failure"
)


def browser_or_skip() -> None:
    """Skip the test (fail it under ``CARDARENA_REQUIRE_BROWSER``) without a browser."""
    problem = None
    if not CHROMIUM.exists():
        problem = f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            problem = "playwright (the dev extra) is not installed"
    if problem and os.environ.get("CARDARENA_REQUIRE_BROWSER"):
        pytest.fail(f"CARDARENA_REQUIRE_BROWSER is set but {problem}")
    if problem:
        pytest.skip(problem)


@contextlib.contextmanager
def launched_browser() -> Iterator[object]:
    """The system Chromium, headless, closed on exit (skips the test when there is none)."""
    browser_or_skip()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(CHROMIUM),
            headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
        )
        try:
            yield launched
        finally:
            launched.close()
