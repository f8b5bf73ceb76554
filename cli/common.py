"""What several subcommands share: reading ``--config`` pairs and env names, checking a number
again for a ``Namespace`` built in Python, and showing text from the command line or a file
with its control characters escaped (``untrusted.printable``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from cardarena.envs import ENVS
from cardarena.envs.core import InvalidConfigError
from cardarena.envs.core.untrusted import parse_json, printable
from cardarena.training.schema import Number


def parse_config(pairs: Sequence[str] | None) -> dict[str, Any]:
    """``["num_players=3", "variant=beginner", "decks=[1,2,3]"]`` -> a config dict: each
    value is read as JSON when it is JSON (within ``untrusted.parse_json``'s limits on digits,
    nesting and non-finite numbers), else kept as a string."""
    config: dict[str, Any] = {}
    for pair in pairs or []:
        key, equals, value = pair.partition("=")
        if not equals or not key:
            raise InvalidConfigError(f"--config takes KEY=VALUE pairs, got {shown(pair)}")
        if key == "render_mode":
            raise InvalidConfigError("--config cannot set render_mode (the command chooses it)")
        if _is_json(value):
            config[key] = parse_json(value, f"--config {printable(key, 40)}")
        else:
            config[key] = value
    return config


def _is_json(text: str) -> bool:
    """Whether ``text`` is JSON syntax, without converting a number (4,300 digits) or
    recursing far (a nesting too deep counts as JSON, so ``parse_json`` names the limit)."""
    try:
        json.loads(text, parse_int=len, parse_float=len, parse_constant=len)
    except RecursionError:
        return True
    except ValueError:
        return False
    return True


def shown(text: object, limit: int = 60) -> str:
    """``repr`` of a value from the command line or a file, escaped and cut short."""
    return printable(repr(text), limit)


def block(text: object) -> str:
    """A multi-line table or render from a file's data, each line escaped."""
    return "\n".join(printable(line, 10_000) for line in str(text).split("\n"))


def env_name(name: str) -> str:
    """``name`` if it is a registered env, else ``InvalidConfigError`` listing them."""
    if name not in ENVS:
        raise InvalidConfigError(f"unknown env {name!r}; available: {', '.join(sorted(ENVS))}")
    return name


def check_number(flag: str, rule: Number, value: Any) -> None:
    """The flag's own check again, for a ``Namespace`` built in Python."""
    problem = rule.problem(value)
    if problem:
        raise InvalidConfigError(f"{flag} {problem}")
