"""Agents by name: ``make_agent("random")``, ``make_agent("noisy:sigma=0.3")`` ...

A spec string is ``name`` or ``name:key=value,key=value``; values are parsed as int, finite
float, bool or left as strings (an integer of over 40 digits, ``nan`` or ``inf`` is refused,
and so is a key given twice). Each agent checks its own options' types and ranges; a seed
is a non-negative integer (a numpy integer too), never a bool, a float or a string. Every
refusal is an ``InvalidConfigError``.
A path is a spec too: an exported policy (``.npz``), a checkpoint folder, a saved SB3 model
(``.zip``, refused unless ``trust_pickle=true``); these kinds live in ``PATH_KINDS``, apart
from the named ones, so a door that must not read files (the web table) can offer the named
ones alone. An unknown spec raises ``InvalidConfigError`` listing the known ones.

One registry for every door. A kind registers its scalar builder here (``register_agent``,
with the classes it builds) and, in ``cardarena.agents.vector``, its vector form
(``register_vector_form``: a builder, or why it plays row by row), so a spec means the same
agent in a game at the table, in a tournament and on the vector engine; a kind that declares
neither plays row by row there with a warning saying so, never silently slower.
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
from .random_agent import RandomAgent

#: A kind's vector form for an env: ``(its scalar agent, EnvSpec) -> VectorAgent``, or None
#: when that instance has none (a saved model only torch can run).
VectorBuilder = Callable[[Agent, Any], Any]


@dataclass
class AgentEntry:
    """One kind of agent in every door."""

    build: Callable[..., Agent]
    doc: str
    #: The exact classes ``build`` makes: an instance of one is this kind (``entry_of``).
    kinds: tuple[type, ...] = ()
    #: Its vector form (``register_vector_form``); None with ``rows`` set: it has none.
    vector: VectorBuilder | None = None
    #: Why it plays row by row on the vector engine (None: undeclared, or it has a form).
    rows: str | None = None
    #: For a kind named by a path: whether a spec's name is one of its files.
    matches: Callable[[str], bool] | None = None


#: The named kinds: ``make_agent("heuristic")``; what every door offers.
AGENT_SPECS: dict[str, AgentEntry] = {}
#: The kinds named by a path (a file of the user's): ``.npz``, checkpoint folders, ``.zip``.
PATH_KINDS: dict[str, AgentEntry] = {}


def register_agent(
    name: str, build: Callable[..., Agent], doc: str, *, kinds: tuple[type, ...] = ()
) -> None:
    """Make ``name`` (with options) buildable by ``make_agent``; ``kinds``: the exact classes
    ``build`` returns, so an instance is known as this kind in every door."""
    AGENT_SPECS[name] = AgentEntry(build, doc, tuple(kinds))


def register_path_kind(
    name: str,
    matches: Callable[[str], bool],
    build: Callable[..., Agent],
    doc: str,
    *,
    kinds: tuple[type, ...] = (),
) -> None:
    """A kind of spec that is a path: ``matches(spec name)`` says a name is one,
    ``build(path, seed=..., **options)`` loads it."""
    PATH_KINDS[name] = AgentEntry(build, doc, tuple(kinds), matches=matches)


def register_vector_form(
    name: str, build: VectorBuilder | None = None, *, rows: str | None = None
) -> None:
    """Kind ``name``'s vector form: ``build(agent, env_spec)``, or ``rows``, why it has none
    (it then plays row by row, one scalar call per game, without a warning)."""
    if (build is None) == (rows is None):
        raise ValueError("register_vector_form takes a builder or a reason (rows=), not both")
    entry = AGENT_SPECS.get(name) or PATH_KINDS.get(name)
    if entry is None:
        raise InvalidConfigError(f"no agent kind {name!r} is registered")
    entry.vector, entry.rows = build, rows


def entry_of(agent: Any) -> AgentEntry | None:
    """The kind ``agent`` is an instance of (its exact class), or None."""
    for entry in (*AGENT_SPECS.values(), *PATH_KINDS.values()):
        if type(agent) in entry.kinds:
            return entry
    return None


def spec_entry(spec: str) -> AgentEntry | None:
    """The kind a spec string names (a named kind or a path kind), or None."""
    name = parse_spec(spec)[0]
    return AGENT_SPECS.get(name) or _path_kind(name)


def _path_kind(name: str) -> AgentEntry | None:
    return next((e for e in PATH_KINDS.values() if e.matches and e.matches(name)), None)


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
    path_kind = None if entry is not None else _path_kind(name)
    if entry is None and path_kind is None:
        known = ", ".join(f"{key} ({value.doc})" for key, value in sorted(AGENT_SPECS.items()))
        paths = ", ".join(value.doc for value in PATH_KINDS.values())
        raise InvalidConfigError(f"unknown agent spec {spec!r}; known: {known}, or {paths}")
    if path_kind is not None:
        _check_options(spec, name, path_kind.build, options, skip=1)
        return path_kind.build(name, seed=seed, **options)
    assert entry is not None
    _check_options(spec, name, entry.build, options)
    agent = entry.build(seed=seed, **options)
    if hasattr(agent, "spec") and spec != name:
        with contextlib.suppress(AttributeError):
            agent.spec = spec
    return agent


def _check_options(
    spec: str, name: str, build: Callable[..., Agent], options: dict[str, Any], skip: int = 0
) -> None:
    """Refuse the options ``build`` does not take (``skip``: leading positional ones, a
    path), naming the ones it does."""
    parameters = list(inspect.signature(build).parameters)[skip:]
    accepted = [p for p in parameters if p != "seed"]
    unknown = [key for key in options if key not in accepted]
    if unknown:
        raise InvalidConfigError(
            f"agent spec {spec!r}: unknown option{'s' if len(unknown) > 1 else ''} "
            f"{', '.join(map(repr, unknown))}; {name!r} takes "
            f"{', '.join(map(repr, accepted)) or 'no options'}"
        )


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
    return RandomAgent(seed)


register_agent("random", _random, "uniformly random legal actions", kinds=(RandomAgent,))


def _checkpoint(path: str, seed: int | None = None, deterministic: bool | None = None) -> Agent:
    from .policy_agent import CheckpointAgent  # reading it recovers a checkpoint first

    return CheckpointAgent(path, seed=seed, deterministic=deterministic)


def _saved_model(
    path: str,
    seed: int | None = None,
    deterministic: bool | None = None,
    trust_pickle: bool = False,
) -> Agent:
    from .policy_agent import SavedModelAgent

    return SavedModelAgent(path, seed=seed, deterministic=deterministic, trust_pickle=trust_pickle)


def _kinds() -> None:
    from .policy_agent import CheckpointAgent, SavedModelAgent

    # An exported policy (FILE.npz) is registered by cardarena.agents.pretrained, which reads
    # those files.
    register_path_kind(
        "checkpoint",
        lambda name: Path(name).is_dir() or _moved_aside(Path(name)),
        _checkpoint,
        "a checkpoint folder (option deterministic=true|false: greedy or sampled, by default "
        "as the run trained it)",
        kinds=(CheckpointAgent,),
    )
    register_path_kind(
        "sb3-zip",
        lambda name: name.endswith(".zip"),
        _saved_model,
        "a saved SB3 model (FILE.zip, refused unless trust_pickle=true)",
        kinds=(SavedModelAgent,),
    )


_kinds()
