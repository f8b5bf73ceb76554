"""What the web table's API sends: a game as its person's seat sees it (``game_response``)
and what the page needs to offer an env (``env_info``), never the rules state.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from cardarena.agents.table import Table
from cardarena.envs import ENVS, make_raw
from cardarena.envs.core.aec import config_keys


def game_response(
    game_id: str, table: Table, new_events: list[str], config: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Everything the page shows, all of it limited to the person's seat: the view, its
    picture, the event lines they saw, their legal actions, and the result once over
    (``config``: the config as the request gave it, the table's own by default)."""
    legal = table.legal_actions()
    view = table.view()
    over = table.is_over()
    outcome = table.outcome()
    return {
        "id": game_id,
        "env": table.env_name,
        "seed": table.seed,
        "config": table.config if config is None else dict(config),
        "vs": table.vs,
        "seat": table.human,
        "seats": table.seats,
        "turn": None if over else table.env.agent_selection,
        "to_act": table.to_act(),
        "over": over,
        "legal": [{"action": action, "name": name} for action, name in legal],
        "view": view,
        "svg": table.env.table_svg(view, legal),
        "events": table.history(),
        "new_events": new_events,
        "outcome": None
        if outcome is None
        else {"result": outcome.result, "line": outcome.line, "returns": outcome.returns},
        "how_to_win": type(table.env).how_to_win,
    }


def _title(module: Any) -> str:
    for line in (module.__doc__ or "").splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return str(module.__name__).rsplit(".", 1)[-1]


def _jsonable(value: Any) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        return False
    return True


@lru_cache(maxsize=64)
def env_info(name: str) -> dict[str, Any]:
    """What the page needs to offer ``name``: its title, table sizes and the seats of each,
    the config keys, the example configs and how to win."""
    module = ENVS[name]
    raw = module.raw_env
    keys = config_keys(raw.build_game)
    players_key = "num_players" if keys is not None and "num_players" in keys else None
    low, high = int(raw.metadata["min_players"]), int(raw.metadata["max_players"])
    default = make_raw(name)
    seats: dict[str, list[str]] = {}
    if players_key is None:
        seats[str(len(default.possible_agents))] = list(default.possible_agents)
    else:
        for count in range(low, high + 1):
            seats[str(count)] = list(make_raw(name, **{players_key: count}).possible_agents)
    return {
        "name": name,
        "title": _title(module),
        "min_players": low,
        "max_players": high,
        "default_players": len(default.possible_agents),
        "players_key": players_key,
        "seats": seats,
        "config_keys": list(keys) if keys is not None else None,
        "example_configs": [c for c in raw.example_configs if _jsonable(c)],
        "how_to_win": raw.how_to_win,
    }


__all__ = ["env_info", "game_response"]
