"""The documentation site's tests (``test_site.py``) open its pages in the system browser."""

from __future__ import annotations

import pytest
from browser_helpers import MARKER


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARKER)
