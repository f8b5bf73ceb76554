"""What a config from a request may hold: never a file name.

An env's ``file_config_keys`` (Cardline's ``deck``, Beast Wars' ``characters``) take a path to
a CSV or JSON file, which the env would read. A value from a request (a new game's config, a
record sent to the replay viewer) for such a key must be the table inline, as a list of rows,
or the name of a table the operator served at start-up (``cardarena serve --deck NAME=PATH``,
read once through the env's own loader); any other value is refused with the same answer
whether or not a file of that name exists, before anything is looked up.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from cardarena.envs import ENVS, make_raw
from cardarena.envs.core import CardArenaError, InvalidConfigError
from cardarena.envs.core.untrusted import show


@dataclass(frozen=True)
class ServedTable:
    """A table file the operator serves by name: its rows, and the (env, key) it fits."""

    name: str
    path: str
    rows: list[dict[str, Any]]
    fits: tuple[tuple[str, str], ...]

    def describe(self) -> str:
        uses = ", ".join(f"{env} {key}" for env, key in self.fits)
        return f"{self.name!r} ({self.path}, {len(self.rows)} rows): {uses}"


def read_served_tables(specs: Iterable[str]) -> dict[str, ServedTable]:
    """``NAME=PATH`` items (``--deck``), each read now with every env's loader for each of
    its file keys; ``InvalidConfigError`` if one is malformed or fits no env, saying why."""
    served: dict[str, ServedTable] = {}
    for spec in specs:
        name, equals, path = spec.partition("=")
        name = name.strip()
        if not equals or not name or not path:
            raise InvalidConfigError(f"--deck takes NAME=PATH, got {show(spec)}")
        if name in served:
            raise InvalidConfigError(f"--deck {name!r} is given twice")
        fits: list[tuple[str, str]] = []
        rows: list[dict[str, Any]] = []
        reasons: list[str] = []
        for env, module in sorted(ENVS.items()):
            for key, loader in module.raw_env.file_config_keys.items():
                try:
                    table_rows = [dict(row) for row in loader(path).rows]
                    make_raw(env, **{key: table_rows})
                except CardArenaError as error:
                    reasons.append(f"{env} {key}: {error}")
                    continue
                fits.append((env, key))
                rows = rows or table_rows
        if not fits:
            raise InvalidConfigError(
                f"--deck {name}={path} fits no game: "
                + "; ".join(reasons or ["no game reads files"])
            )
        served[name] = ServedTable(name, path, rows, tuple(fits))
    return served


def _how_to_send(key: str, served: Mapping[str, ServedTable], env: str) -> str:
    names = [n for n, table in sorted(served.items()) if (env, key) in table.fits]
    return (
        f"send the {key} inline as a list of rows (JSON objects with the file's columns, one per "
        f"row), or have the operator serve the file (cardarena serve --deck NAME=PATH) and send "
        f'"{key}": "NAME" (served here: {", ".join(names) or "none"})'
    )


def resolve_config(
    env: str, config: Mapping[str, Any], served: Mapping[str, ServedTable], where: str = "config"
) -> dict[str, Any]:
    """``config`` with every served table name replaced by its rows; ``InvalidConfigError``
    (naming the key and how to send a table) for a file key whose value is anything but a
    list of rows, None or a served name. Nothing is read or looked up on disk."""
    resolved = dict(config)
    for key in ENVS[env].raw_env.file_config_keys:
        value = config.get(key)
        if value is None or isinstance(value, list):
            continue
        table = served.get(value) if isinstance(value, str) else None
        if table is not None and (env, key) in table.fits:
            resolved[key] = table.rows
            continue
        raise InvalidConfigError(
            f"{where} key {key!r} is {show(value, 60)}, which is not a table this server "
            "serves; a request cannot make the server read a file: "
            + _how_to_send(key, served, env)
        )
    return resolved


def shown_config(config: Mapping[str, Any], served: Mapping[str, ServedTable]) -> dict[str, Any]:
    """``config`` as the request gave it: a served table's rows shown by its name again."""
    by_rows = {id(table.rows): name for name, table in served.items()}
    return {key: by_rows.get(id(value), value) for key, value in config.items()}


__all__ = ["ServedTable", "read_served_tables", "resolve_config", "shown_config"]
