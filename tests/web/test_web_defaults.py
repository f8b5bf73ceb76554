"""The web table's Python entry points default to what `cardarena serve` documents (its flags'
defaults, docs/web_api.md): someone embedding ``create_app`` gets the same bounded cost."""

from __future__ import annotations

import dataclasses

from cardarena.cli.args import ServeArgs
from cardarena.web.app import create_app


def test_create_app_defaults_to_the_serve_flags_workers_and_think_seconds():
    """Kills web/work.py's ``DEFAULT_WORKERS`` and ``DEFAULT_THINK_SECONDS`` off by one."""
    flags = {field.name: field.default for field in dataclasses.fields(ServeArgs)}
    pool = create_app().state.workers
    assert pool.threads == flags["workers"] == 2
    assert pool.think_seconds == flags["think_seconds"] == 1.0
