"""The OpenSpiel tests need pyspiel (``pip install open_spiel``); without it they are not
collected."""

from __future__ import annotations

import importlib.util

if importlib.util.find_spec("pyspiel") is None:
    collect_ignore_glob = ["test_*.py"]
