"""Schemathesis fuzzes every operation of the published schema against the app in-process
(valid and invalid bodies, paths, queries): no answer is a 5xx, and every answer's status,
content type and body are the ones the schema documents for that operation.

The app answers Schemathesis' own host name besides loopback (its in-process client sends
``Host: testserver``); the host check itself is tested in test_web_security.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from cardarena.agents import table as table_module
from cardarena.web.app import create_app
from cardarena.web.guard import LOOPBACK_HOSTS
from cardarena.web.openapi import openapi_schema, openapi_text, shipped_envs
from cardarena.web.replays import FIELDS as REPLAY_FIELDS

DOCS_COPY = Path(__file__).resolve().parents[2] / "docs" / "openapi.json"

app = create_app("random", hosts=[*LOOPBACK_HOSTS, "testserver"], think_seconds=0.05)
schema = schemathesis.openapi.from_asgi("/api/openapi.json", app)

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


@schema.parametrize()
@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    database=None,
)
def test_every_answer_is_documented_and_none_is_a_server_error(case):
    case.call_and_validate(checks=CHECKS)


def test_the_docs_keep_the_schema_the_app_serves():
    assert DOCS_COPY.read_text(encoding="utf-8") == openapi_text(), (
        "docs/openapi.json is out of date: python -m cardarena.web.openapi > docs/openapi.json"
    )
    assert json.loads(openapi_text()) == openapi_schema(shipped_envs())


def test_the_replay_request_schema_lists_exactly_the_fields_the_route_takes():
    properties = openapi_schema()["components"]["schemas"]["ReplayAsk"]["properties"]
    assert set(properties) == set(REPLAY_FIELDS)


class GamesPlayedThroughTheLinks(schema.as_state_machine()):  # type: ignore[misc]
    """Stateful: new games, then their ids through the schema's links into ``act`` and
    ``GET``, with fuzzed actions: every answer documented, none a server error."""

    def setup(self) -> None:
        # Every game of a scenario is dealt from seed 0 (not a fresh seed from the operating
        # system): the answers the links carry forward (the legal actions, the end of a game)
        # then depend only on the scenario, as Hypothesis needs to replay and shrink it.
        self._fresh_seed = table_module.fresh_seed
        table_module.fresh_seed = lambda: 0

    def teardown(self) -> None:
        table_module.fresh_seed = self._fresh_seed

    def validate_response(self, response, case, additional_checks=None, **kwargs):
        case.validate_response(response, checks=CHECKS)


TestGamesPlayedThroughTheLinks = GamesPlayedThroughTheLinks.TestCase
TestGamesPlayedThroughTheLinks.settings = settings(
    max_examples=25,
    stateful_step_count=8,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    database=None,
)
