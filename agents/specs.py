"""Agents by name: ``make_agent("random")``, ``make_agent("noisy:sigma=0.3")`` ...

A spec string is ``name`` or ``name:key=value,key=value``; values are parsed as int, finite
float, bool or left as strings (an integer of over 40 digits, ``nan`` or ``inf`` is refused,
and so is a key given twice). Each agent checks its own options' types and ranges; a seed
is a non-negative integer (a numpy integer too), never a bool, a float or a string. Every
refusal is an ``InvalidConfigError``.
A path to a saved model (a ``.zip`` file or a checkpoint folder) is a spec too, once the
training layer registers a loader for it. Builders register themselves with
``register_agent``; an unknown spec raises ``InvalidConfigError`` listing the known ones.
"""

from __future__ import annotations

import contextlib
import copy
import inspect
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardarena.envs.core import InvalidConfigError, check_seed

from .base import Agent


@dataclass(frozen=True)
class AgentEntry:
    build: Callable[..., Agent]
    doc: str


AGENT_SPECS: dict[str, AgentEntry] = {}


def register_agent(name: str, build: Callable[..., Agent], doc: str) -> None:
    """Make ``name`` (with options) buildable by ``make_agent``."""
    AGENT_SPECS[name] = AgentEntry(build, doc)


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"noisy:sigma=0.3,seed=2"`` -> ``("noisy", {"sigma": 0.3, "seed": 2})``."""
    if not isinstance(spec, str) or not spec.strip():
        raise InvalidConfigError(f"an agent spec is a non-empty string, got {spec!r}")
    name, _, rest = spec.strip().partition(":")
    options: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, equals, value = item.partition("=")
        if not equals or not key:
            raise InvalidConfigError(
                f"agent spec {spec!r}: option {item!r} must look like key=value"
            )
        key = key.strip()
        if key in options:
            raise InvalidConfigError(f"agent spec {spec!r}: option {key!r} is given twice")
        options[key] = _value(value.strip(), spec, key)
    return name, options


#: An integer option has at most this many digits (``int()`` of thousands of digits is slow,
#: and no option needs more than a seed's 20).
MAX_OPTION_DIGITS = 40
_INTEGER = re.compile(r"[+-]?[0-9]+")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NON_FINITE = re.compile(r"[+-]?(?:nan|inf|infinity)", re.IGNORECASE)


def _value(text: str, spec: str = "", key: str = "") -> Any:
    """An option's value: bool, int, finite float or the text itself. Over-long integers and
    non-finite numbers (``nan``, ``inf``, ``1e999``) are refused: no agent takes them, and a
    NaN slips through every ``<`` check an agent makes."""
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    shown = repr(spec) if len(spec) <= 60 else repr(spec[:57] + "...")
    where = f"agent spec {shown}: option {key!r}" if spec else f"agent spec option {key!r}"
    if _INTEGER.fullmatch(text):
        digits = len(text.lstrip("+-"))
        if digits > MAX_OPTION_DIGITS:
            raise InvalidConfigError(
                f"{where} is an integer of {digits} digits; at most {MAX_OPTION_DIGITS} are "
                "accepted"
            )
        return int(text)
    if _NON_FINITE.fullmatch(text):
        raise InvalidConfigError(f"{where} must be a finite number, got {text!r}")
    if _NUMBER.fullmatch(text):
        value = float(text)
        if not math.isfinite(value):
            raise InvalidConfigError(
                f"{where} must be a finite number, got {text[:40]!r} (overflows to infinity)"
            )
        return value
    return text


def make_agent(spec: str, seed: int | None = None) -> Agent:
    """A new agent instance from ``spec`` (one per seat: never share instances), seeded by
    ``seed`` (None or a non-negative integer, else ``InvalidConfigError``)."""
    name, options = parse_spec(spec)
    seed = check_seed(seed)
    entry = AGENT_SPECS.get(name)
    if entry is None and name.endswith(".zip"):
        from .policy_agent import SavedModelAgent

        return SavedModelAgent(name, seed=seed, **options)
    if entry is None and (Path(name).is_dir() or _moved_aside(Path(name))):
        from .policy_agent import CheckpointAgent  # reading it recovers a checkpoint first

        return CheckpointAgent(name, seed=seed, **options)
    if entry is None:
        known = ", ".join(f"{key} ({value.doc})" for key, value in sorted(AGENT_SPECS.items()))
        raise InvalidConfigError(
            f"unknown agent spec {spec!r}; known: {known}, "
            "or a path to a saved model (.zip) or a checkpoint folder"
        )
    accepted = [p for p in inspect.signature(entry.build).parameters if p != "seed"]
    unknown = [key for key in options if key not in accepted]
    if unknown:
        raise InvalidConfigError(
            f"agent spec {spec!r}: unknown option{'s' if len(unknown) > 1 else ''} "
            f"{', '.join(map(repr, unknown))}; {name!r} takes "
            f"{', '.join(map(repr, accepted)) or 'no options'}"
        )
    agent = entry.build(seed=seed, **options)
    if hasattr(agent, "spec") and spec != name:
        with contextlib.suppress(AttributeError):
            agent.spec = spec
    return agent


def per_seat(player: Any, seats: list[str]) -> dict[str, Agent]:
    """One agent instance per seat from a spec string, a factory, or an instance (deep-copied
    per seat), so no two seats ever share an agent's memory."""
    if isinstance(player, str):
        return {seat: make_agent(player) for seat in seats}
    if isinstance(player, Agent):
        return {seat: copy.deepcopy(player) for seat in seats}
    if callable(player):
        return {seat: player() for seat in seats}
    raise TypeError(f"expected an agent, a spec string or a factory, got {player!r}")


def _moved_aside(path: Path) -> bool:
    """A checkpoint caught between the two renames of a save (moved aside, the new one not yet
    in place), which reading it puts back."""
    return not path.exists() and any(path.parent.glob(f".{path.name}.old-*"))


def _random(seed: int | None = None) -> Agent:
    from .random_agent import RandomAgent

    return RandomAgent(seed)


register_agent("random", _random, "uniformly random legal actions")
