"""The JSON API as an OpenAPI 3.1 schema: served at ``/api/openapi.json``, kept in
``docs/openapi.json`` (a test fails when the copy differs; ``python -m cardarena.web.openapi >
docs/openapi.json`` writes it), and fuzzed by Schemathesis in tests/web/test_web_fuzz.py.

Written out rather than derived from the routes so it says what the answers promise: every
field of a game, a replay page and an error, with no room for another (``additionalProperties:
false``), so a fuzzer checks each answer against it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from cardarena.envs import ENVS

from .replays import FIELDS as REPLAY_FIELDS
from .replays import MAX_FRAMES, MAX_RECORDS

_STRING = {"type": "string"}
_INT = {"type": "integer"}
_STRINGS = {"type": "array", "items": _STRING}


def _object(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    """A closed JSON object: ``required`` fields (all by default) and nothing else."""
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties) if required is None else required,
        "additionalProperties": False,
    }


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


_ERRORS = {
    "400": "a malformed request: bad JSON or a duplicate key, an unknown or mistyped field, a "
    "config or agent spec the server refuses, an illegal action, another host",
    "403": "a state-changing request from another origin",
    "404": "an unknown or expired game, an unknown env or page",
    "405": "a method the route does not take",
    "408": "a body that did not arrive in time",
    "409": "an action when it is not the person's turn, or the game is over",
    "413": "a body over the limit",
    "500": "an opponent agent failed (the game is closed), or a bug",
    "503": "every game in the store is in a request this moment",
}


def _errors(*codes: str) -> dict[str, Any]:
    return {code: _json(_ref("Error"), _ERRORS[code]) for code in codes}


def shipped_envs() -> list[str]:
    """The envs cardarena ships (not games a user registered): what docs/openapi.json lists."""
    return sorted(name for name, module in ENVS.items() if module.__name__.startswith("cardarena."))


def _schemas(env_names: list[str]) -> dict[str, Any]:
    legal = _object({"action": _INT, "name": _STRING})
    outcome = _object(
        {
            "result": {"enum": ["won", "lost", "drew", "truncated"]},
            "line": _STRING,
            "returns": {"type": "object", "additionalProperties": {"type": "number"}},
        }
    )
    game = _object(
        {
            "id": _STRING,
            "env": {"enum": env_names},
            "seed": {"type": "integer", "minimum": 0},
            "config": {"type": "object"},
            "vs": _STRING,
            "seat": _STRING,
            "seats": _STRINGS,
            "turn": {"type": ["string", "null"]},
            "to_act": {"type": "boolean"},
            "over": {"type": "boolean"},
            "legal": {"type": "array", "items": legal},
            "view": {"type": "object"},
            "svg": _STRING,
            "events": _STRINGS,
            "new_events": _STRINGS,
            "outcome": {"oneOf": [{"type": "null"}, outcome]},
            "how_to_win": _STRING,
        }
    )
    new_game = _object(
        {
            "env": {"enum": env_names, "description": "the env (GET /api/envs)"},
            "vs": {"type": "string", "description": "opponent agent spec (registered agents only)"},
            "seed": {"type": "integer", "minimum": 0, "description": "the deal"},
            "config": {"type": "object", "description": "the env's config"},
            "seat": {"type": ["string", "integer"], "description": "your seat, name or index"},
        },
        required=["env"],
    )
    env_info = _object(
        {
            "name": {"enum": env_names},
            "title": _STRING,
            "min_players": _INT,
            "max_players": _INT,
            "default_players": _INT,
            "players_key": {"type": ["string", "null"]},
            "seats": {"type": "object", "additionalProperties": _STRINGS},
            "config_keys": {"oneOf": [{"type": "null"}, _STRINGS]},
            "example_configs": {"type": "array", "items": {"type": "object"}},
            "how_to_win": _STRING,
        }
    )
    envs = _object(
        {
            "envs": {"type": "array", "items": env_info},
            "vs": _STRING,
            "agents": {"type": "array", "items": _object({"name": _STRING, "doc": _STRING})},
        }
    )
    rules = _object(
        {"env": {"enum": env_names}, "how_to_win": _STRING, "short": _STRING, "markdown": _STRING}
    )
    summary = _object(
        {
            "game": _INT,
            "env": _STRING,
            "seed": _INT,
            "lineup": {"type": "object", "additionalProperties": _STRING},
            "outcome": _STRING,
            "steps": _INT,
        }
    )
    frame = _object(
        {
            "step": _INT,
            "seat": {"type": ["string", "null"]},
            "action": {"type": ["integer", "null"]},
            "name": {"type": ["string", "null"]},
            "text": _STRING,
            "events": _STRINGS,
        }
    )
    replay = _object(
        {
            "games": {"type": "array", "items": summary, "maxItems": MAX_RECORDS},
            "game": _INT,
            "env": _STRING,
            "seed": _INT,
            "config": {"type": "object"},
            "lineup": {"type": "object", "additionalProperties": _STRING},
            "outcome": _STRING,
            "returns": {"type": "object", "additionalProperties": {"type": "number"}},
            "ranks": {"type": "object", "additionalProperties": _INT},
            "result": _STRING,
            "total_steps": _INT,
            "from": _INT,
            "next": {"type": ["integer", "null"]},
            "frames": {"type": "array", "items": frame, "maxItems": MAX_FRAMES},
        }
    )
    replay_ask = _object(
        {
            "record": {"type": "string", "description": "the record text (JSON lines)"},
            "game": {"type": "integer", "minimum": 0, "description": "which record of the text"},
            "any_version": {"type": "boolean"},
            "from": {"type": "integer", "minimum": 0, "description": "first frame (0: the deal)"},
            "count": {"type": "integer", "minimum": 1, "maximum": MAX_FRAMES},
        },
        required=["record"],
    )
    return {
        "Error": _object({"error": _STRING}),
        "Game": game,
        "NewGame": new_game,
        "Envs": envs,
        "Rules": rules,
        "Replay": replay,
        "ReplayAsk": replay_ask,
    }


def openapi_schema(env_names: Iterable[str] | None = None) -> dict[str, Any]:
    """The schema of the module docstring, for ``env_names`` (every registered env by
    default)."""
    game_id = {"name": "game_id", "in": "path", "required": True, "schema": _STRING}
    env = {"name": "env", "in": "path", "required": True, "schema": _STRING}
    query = [
        {"name": name, "in": "query", "required": False, "schema": _STRING}
        for name in REPLAY_FIELDS
        if name != "record"
    ]
    posted = ("400", "403", "408", "413")
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "cardarena web table",
            "version": "1",
            "description": "The JSON API of `cardarena serve` (docs/web_api.md). Every refusal "
            'is `{"error": "..."}` with a 4xx status; only the server\'s own host names '
            "and page may use it.",
        },
        "paths": {
            "/api/envs": {
                "get": {
                    "summary": "the games, their seats and configs, and the agents",
                    "responses": {"200": _json(_ref("Envs"), "the games"), **_errors("400")},
                }
            },
            "/api/games": {
                "post": {
                    "operationId": "newGame",
                    "summary": "deal a new game and play the opponents up to your turn",
                    "requestBody": {
                        "required": True,
                        "content": {"application/json": {"schema": _ref("NewGame")}},
                    },
                    "responses": {
                        "200": {
                            **_json(_ref("Game"), "the new game, from your seat"),
                            "links": {
                                "ShowGame": {
                                    "operationId": "showGame",
                                    "parameters": {"game_id": "$response.body#/id"},
                                },
                                "Act": {
                                    "operationId": "act",
                                    "parameters": {"game_id": "$response.body#/id"},
                                    "requestBody": {"action": "$response.body#/legal/0/action"},
                                },
                            },
                        },
                        **_errors(*posted, "500", "503"),
                    },
                }
            },
            "/api/games/{game_id}": {
                "get": {
                    "operationId": "showGame",
                    "summary": "the game again, from your seat",
                    "parameters": [game_id],
                    "responses": {
                        "200": _json(_ref("Game"), "the game"),
                        **_errors("400", "404", "500"),
                    },
                }
            },
            "/api/games/{game_id}/act": {
                "post": {
                    "operationId": "act",
                    "summary": "play one of your legal actions, then the opponents",
                    "parameters": [game_id],
                    "requestBody": {
                        "required": True,
                        "content": {
                            "application/json": {"schema": _object({"action": _INT})},
                        },
                    },
                    "responses": {
                        "200": {
                            **_json(_ref("Game"), "the game after your move and theirs"),
                            "links": {
                                "ActAgain": {
                                    "operationId": "act",
                                    "parameters": {"game_id": "$response.body#/id"},
                                    "requestBody": {"action": "$response.body#/legal/0/action"},
                                },
                            },
                        },
                        **_errors(*posted, "404", "409", "500", "503"),
                    },
                }
            },
            "/api/rules/{env}": {
                "get": {
                    "summary": "the rules as shipped",
                    "parameters": [env],
                    "responses": {
                        "200": _json(_ref("Rules"), "the rules"),
                        **_errors("400", "404"),
                    },
                }
            },
            "/api/replays": {
                "post": {
                    "summary": "one page of a recorded game, checked whole",
                    "parameters": query,
                    "requestBody": {
                        "required": True,
                        "content": {
                            "application/json": {"schema": _ref("ReplayAsk")},
                            "text/plain": {"schema": _STRING},
                        },
                    },
                    "responses": {
                        "200": _json(_ref("Replay"), "the summary and one page of frames"),
                        **_errors(*posted, "500", "503"),
                    },
                }
            },
            "/api/openapi.json": {
                "get": {
                    "summary": "this schema",
                    "responses": {
                        "200": _json({"type": "object"}, "the schema"),
                        **_errors("400"),
                    },
                }
            },
        },
        "components": {"schemas": _schemas(sorted(ENVS if env_names is None else env_names))},
    }


def openapi_text() -> str:
    """The schema as ``docs/openapi.json`` holds it: the shipped envs'."""
    return json.dumps(openapi_schema(shipped_envs()), indent=2) + "\n"


if __name__ == "__main__":
    print(openapi_text(), end="")
