"""Match records: one self-describing JSON line per game played by the tooling.

A ``MatchRecord`` names the env, the package version and config it ran with, the seed, the
lineup of agent specs by seat, every decision taken, and how the game ended (returns, ranks,
outcome, offender, steps). With the env's own determinism that is enough to replay the game
bit-exactly (``cardarena.evaluation.replay``) without any agent.

- ``actions`` lists every decision in order; dead steps are not decisions. When an agent made
  an illegal move (``outcome == "illegal_action"``), that move is the last action and the
  ``offender`` is named; ``steps == len(actions)`` always (decisions, like ``play_game``).
- ``ranks`` come from the returns alone (1 = best, ties share a rank, competition style
  "1, 1, 3"); a truncated game therefore ranks everyone first.
- ``config`` never holds ``render_mode`` (it does not change the game).

``play_match`` seeds the env with ``seed`` and builds each seat's agent from its spec string
with ``make_agent(spec, seed=agent_seed(seed, seat_index))``, so a game between agents that do
not learn across games is rebuilt exactly by calling ``play_match`` again with the record's
env, lineup, seed and config.

Record files are exchanged, so reading one has a bounded cost and never a traceback
(``InvalidConfigError`` naming file, line and field): the file is at most
``MAX_RECORDS_BYTES`` (512 MiB), checked before reading, and UTF-8; each line is parsed
within the limits of ``cardarena.envs.core.untrusted`` (32 levels of nesting, 40-digit
integers, finite numbers); a record has at most ``MAX_RECORD_ACTIONS`` actions (1,000,000),
``MAX_SEATS`` seats (8) and strings (env, version, agent specs, seats) of at most
``MAX_FIELD_CHARS`` characters (4,096). Files are written and read as crash-tolerant JSON
lines (``training.jsonl``): a torn last line is dropped with a warning, the next append
starts on a fresh line, and a bad line anywhere else is refused.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from cardarena.agents import Agent, EnvSpec, choose, make_agent, start_game
from cardarena.envs import make
from cardarena.envs.core import (
    ILLEGAL_ACTION,
    TERMINATED,
    TRUNCATED,
    InvalidConfigError,
    Outcome,
    check_seed,
    coerce_action,
)
from cardarena.envs.core.untrusted import MAX_JSONL_BYTES, parse_json, show
from cardarena.training.jsonl import append_lines, read_jsonl

#: The ``format`` every record line carries; bumped if the line layout ever changes.
RECORD_FORMAT = 1
#: The outcomes a record names (``Outcome.label``: records keep the words, infos the codes).
OUTCOMES = (TERMINATED.label, TRUNCATED.label, ILLEGAL_ACTION.label)

#: Limits of a record read from a file (module docstring).
MAX_RECORDS_BYTES = MAX_JSONL_BYTES
MAX_RECORD_ACTIONS = 1_000_000
MAX_SEATS = 8
MAX_FIELD_CHARS = 4096

# Domain tags keep seeds derived for different purposes apart.
_AGENT_SEED_TAG = 0x5EA7


@lru_cache(maxsize=1)
def package_version() -> str:
    """The installed ``cardarena`` version, ``"0+unknown"`` if it is not installed."""
    try:
        return importlib.metadata.version("cardarena")
    except importlib.metadata.PackageNotFoundError:
        return "0+unknown"


def derive_seed(*parts: int) -> int:
    """A deterministic 32-bit seed from non-negative integers (numpy ``SeedSequence``)."""
    state = np.random.SeedSequence([int(part) for part in parts]).generate_state(1, np.uint32)
    return int(state[0])


def agent_seed(game_seed: int, seat_index: int) -> int:
    """The seed ``play_match`` builds seat ``seat_index``'s agent with in game ``game_seed``."""
    return derive_seed(_AGENT_SEED_TAG, game_seed, seat_index)


def rank_returns(returns: Mapping[str, float]) -> dict[str, int]:
    """1 = best; ties share the better rank and skip the next ones ("1, 1, 3")."""
    return {
        agent: 1 + sum(other > value for other in returns.values())
        for agent, value in returns.items()
    }


@dataclass(frozen=True)
class MatchRecord:
    """One game: what was played, by whom, with which seed, and how it ended."""

    env: str
    version: str
    config: dict[str, Any]
    seed: int
    lineup: dict[str, str]
    actions: list[int]
    returns: dict[str, float]
    ranks: dict[str, int]
    outcome: str
    offender: str | None
    steps: int

    def to_json(self) -> str:
        """The record as one JSON line (no newline)."""
        data = {"format": RECORD_FORMAT, **asdict(self)}
        try:
            data["digest"] = _digest(data)
            return json.dumps(data, separators=(",", ":"), allow_nan=False)
        except (TypeError, ValueError) as error:
            raise InvalidConfigError(
                f"match record of {self.env} cannot be written as JSON: {error} "
                "(the env config must hold only JSON values)"
            ) from None

    @classmethod
    def from_json(cls, text: str) -> MatchRecord:
        """Parse one line of ``to_json``; ``InvalidConfigError`` names the bad field."""
        return cls.from_dict(parse_json(text, "match record"))

    @classmethod
    def from_dict(cls, data: Any) -> MatchRecord:
        """Build and check a record from parsed JSON (see ``from_json``)."""
        if not isinstance(data, dict):
            raise InvalidConfigError(
                f"match record must be a JSON object, got {type(data).__name__}"
            )
        data = dict(data)
        _check_sizes(data)
        digest = data.pop("digest", None)
        if digest is not None and digest != _digest(data):
            raise InvalidConfigError(
                "match record was edited after it was written: its 'digest' does not match "
                "its contents (env, seed, lineup, actions, returns ...)"
            )
        form = data.pop("format", RECORD_FORMAT)
        if form != RECORD_FORMAT:
            raise InvalidConfigError(
                f"match record field 'format' is {show(form)}; this cardarena reads format "
                f"{RECORD_FORMAT}"
            )
        names = [name for name in cls.__dataclass_fields__]
        missing = [name for name in names if name not in data]
        if missing:
            raise InvalidConfigError(
                f"match record is missing field{'s' if len(missing) > 1 else ''} "
                f"{', '.join(map(repr, missing))}"
            )
        unknown = [key for key in data if key not in names]
        if unknown:
            raise InvalidConfigError(
                f"match record has unknown field{'s' if len(unknown) > 1 else ''} "
                f"{', '.join(map(show, unknown[:10]))}"
            )
        lineup = _str_map(data, "lineup", _is_str, "a string")
        record = cls(
            env=_field(data, "env", _is_str, "a string"),
            version=_field(data, "version", _is_str, "a string"),
            config=_field(
                data,
                "config",
                lambda v: isinstance(v, dict) and all(isinstance(k, str) for k in v),
                "an object",
            ),
            seed=_field(data, "seed", lambda v: _is_int(v) and v >= 0, "a non-negative integer"),
            lineup=lineup,
            actions=_field(
                data,
                "actions",
                lambda v: isinstance(v, list) and all(_is_int(a) and a >= 0 for a in v),
                "a list of non-negative integers",
            ),
            returns={
                key: float(value)
                for key, value in _str_map(data, "returns", _is_number, "a number").items()
            },
            ranks=_str_map(data, "ranks", lambda v: _is_int(v) and v >= 1, "a positive integer"),
            outcome=_field(data, "outcome", lambda v: v in OUTCOMES, f"one of {OUTCOMES}"),
            offender=_field(data, "offender", lambda v: v is None or _is_str(v), "null or a seat"),
            steps=_field(data, "steps", lambda v: _is_int(v) and v >= 0, "a non-negative integer"),
        )
        record.check()
        return record

    def check(self) -> None:
        """``InvalidConfigError`` naming the field if the fields contradict each other."""
        seats = list(self.lineup)
        if not seats:
            raise InvalidConfigError("match record field 'lineup' is empty")
        for name in ("returns", "ranks"):
            if sorted(getattr(self, name)) != sorted(seats):
                raise InvalidConfigError(
                    f"match record field {name!r} must name the lineup's seats "
                    f"{seats}, got {sorted(getattr(self, name))}"
                )
        if self.ranks != rank_returns(self.returns):
            raise InvalidConfigError(
                f"match record field 'ranks' {self.ranks} does not follow from the returns "
                f"{self.returns}"
            )
        if self.steps != len(self.actions):
            raise InvalidConfigError(
                f"match record field 'steps' is {self.steps} but there are "
                f"{len(self.actions)} actions"
            )
        if (self.outcome == ILLEGAL_ACTION.label) != (self.offender is not None):
            raise InvalidConfigError(
                "match record field 'offender' must name a seat exactly when the outcome is "
                f"{ILLEGAL_ACTION.label!r} (outcome {self.outcome!r}, offender {self.offender!r})"
            )
        if self.offender is not None and self.offender not in self.lineup:
            raise InvalidConfigError(
                f"match record field 'offender' {self.offender!r} is not a seat of {seats}"
            )
        if self.outcome == ILLEGAL_ACTION.label and not self.actions:
            raise InvalidConfigError(
                "match record field 'actions' is empty but the outcome is an illegal action"
            )


def _is_str(value: Any) -> bool:
    return isinstance(value, str)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(float(value))
    )


def _check_sizes(data: dict[str, Any]) -> None:
    """Refuse a record too large to check cheaply, before any field is checked (ranks are
    compared seat by seat, actions one by one)."""
    actions = data.get("actions")
    if isinstance(actions, list) and len(actions) > MAX_RECORD_ACTIONS:
        raise InvalidConfigError(
            f"match record field 'actions' holds {len(actions):,} actions; at most "
            f"{MAX_RECORD_ACTIONS:,} are read"
        )
    for name in ("lineup", "returns", "ranks"):
        seats = data.get(name)
        if isinstance(seats, dict) and len(seats) > MAX_SEATS:
            raise InvalidConfigError(
                f"match record field {name!r} names {len(seats):,} seats; games have at most "
                f"{MAX_SEATS}"
            )
    for name in ("env", "version", "offender"):
        _check_length(data.get(name), f"match record field {name!r}")
    for name in ("lineup", "returns", "ranks"):
        seats = data.get(name)
        if isinstance(seats, dict):
            for key, value in seats.items():
                _check_length(key, f"match record field {name!r}: seat")
                _check_length(value, f"match record field {name!r}: value of {show(key)}")


def _check_length(value: Any, where: str) -> None:
    if isinstance(value, str) and len(value) > MAX_FIELD_CHARS:
        raise InvalidConfigError(
            f"{where} is {len(value):,} characters long; at most {MAX_FIELD_CHARS:,}"
        )


def _field(data: dict[str, Any], name: str, ok: Any, what: str) -> Any:
    value = data[name]
    if not ok(value):
        raise InvalidConfigError(f"match record field {name!r} must be {what}, got {show(value)}")
    return value


def _str_map(data: dict[str, Any], name: str, ok: Any, what: str) -> dict[str, Any]:
    value = data[name]
    if not isinstance(value, dict):
        raise InvalidConfigError(
            f"match record field {name!r} must be an object (seat -> value), got {show(value)}"
        )
    for key, item in value.items():
        if not ok(item):
            raise InvalidConfigError(
                f"match record field {name!r}: value of {show(key)} must be {what}, "
                f"got {show(item)}"
            )
    return dict(value)


def agent_spec(agent: Any) -> str:
    """The spec string recorded for an agent object: its ``spec``, else its type name."""
    spec = getattr(agent, "spec", None)
    return spec if isinstance(spec, str) and spec else type(agent).__name__


def _game_config(config: Mapping[str, Any] | None) -> dict[str, Any]:
    if config is None:
        return {}
    if not isinstance(config, Mapping):
        raise InvalidConfigError(f"config must be a mapping, got {type(config).__name__}")
    return {key: value for key, value in config.items() if key != "render_mode"}


def play_match(
    env: str,
    lineup: Mapping[str, Agent | str],
    seed: int,
    config: Mapping[str, Any] | None = None,
) -> MatchRecord:
    """Play one game of ``env`` (the wrapped env of ``cardarena.envs.make``) and record it.

    ``lineup`` maps every seat to an agent spec string (a new instance is built per seat with
    ``make_agent(spec, seed=agent_seed(seed, seat_index))``) or to an agent object, used as
    given (its spec is its ``spec`` attribute or its type name). Every agent is told its seat
    and the ``EnvSpec`` before the game. An illegal action ends the game as ``env()`` does
    (-1 to the offender) and is recorded as the last action.
    """
    game_config = _game_config(config)
    game = make(env, **game_config)
    try:
        return _play(game, env, game_config, lineup, {}, seed)
    finally:
        game.close()


def _play(
    game: Any,
    env: str,
    config: dict[str, Any],
    lineup: Mapping[str, Agent | str],
    specs: Mapping[str, str],
    seed: int,
) -> MatchRecord:
    """One game on the wrapped env ``game``; ``specs`` overrides the recorded spec per seat."""
    checked = check_seed(seed)
    if checked is None:
        raise InvalidConfigError("a match needs a seed (a non-negative integer), got None")
    seed = checked
    seats = list(game.possible_agents)
    if not isinstance(lineup, Mapping) or sorted(lineup) != sorted(seats):
        got = sorted(lineup) if isinstance(lineup, Mapping) else lineup
        raise InvalidConfigError(
            f"the lineup of {env} must name exactly the seats {seats}; got {got}"
        )
    env_spec = EnvSpec(env, dict(config))
    agents: dict[str, Agent] = {}
    recorded: dict[str, str] = {}
    for index, seat in enumerate(seats):
        player = lineup[seat]
        if isinstance(player, str):
            agents[seat] = make_agent(player, seed=agent_seed(seed, index))
            recorded[seat] = player
        else:
            agents[seat] = player
            recorded[seat] = agent_spec(player)
        recorded[seat] = specs.get(seat, recorded[seat])
        start_game(agents[seat], seat, env_spec)
    if hasattr(game, "warn_on_illegal"):
        game.warn_on_illegal = False  # the record names the offender
    game.reset(seed=seed)
    num_actions = game.unwrapped.num_actions
    actions: list[int] = []
    returns: dict[str, float] = {}
    final_info: dict[str, Any] = {}
    for seat in game.agent_iter():
        observation, reward, terminated, truncated, info = game.last()
        if terminated or truncated:
            returns[seat] = float(reward)
            final_info = info
            game.step(None)
            continue
        # A malformed action (not an integer in range) raises IllegalActionError here; a
        # well-formed illegal one ends the game with the offender named.
        chosen = choose(agents[seat], observation, game, seat)  # search agents: a resample
        action = coerce_action(chosen, num_actions, seat)
        game.step(action)
        actions.append(action)
    outcome = Outcome(final_info.get("outcome", TERMINATED)).label
    offender = final_info.get("offender", -1)  # a seat index, -1 for nobody
    returns = {seat: returns[seat] for seat in seats}
    return MatchRecord(
        env=env,
        version=package_version(),
        config=dict(config),
        seed=seed,
        lineup={seat: recorded[seat] for seat in seats},
        actions=actions,
        returns=returns,
        ranks=rank_returns(returns),
        outcome=outcome,
        offender=seats[offender] if offender >= 0 else None,
        steps=len(actions),
    )


def write_records(path: str | os.PathLike[str], records: Iterable[MatchRecord]) -> None:
    """Append ``records`` to ``path`` as JSON lines (the file and its folder are created), in
    one write; a torn last line left by a crash is cut first (``training.jsonl``)."""
    append_lines(path, [record.to_json() for record in records])  # all-or-nothing


def read_records(path: str | os.PathLike[str]) -> list[MatchRecord]:
    """Every record in the JSON-lines file ``path`` (blank lines skipped, a torn last line
    dropped with a ``TornLineWarning``).

    A bad line raises ``InvalidConfigError`` naming the file, the line number and the field;
    so does a file over the limits (module docstring).
    """
    records = []
    for number, data in read_jsonl(path, "match record file", MAX_RECORDS_BYTES):
        try:
            records.append(MatchRecord.from_dict(data))
        except InvalidConfigError as error:
            raise InvalidConfigError(f"{path}, line {number}: {error}") from None
    return records


__all__ = [
    "OUTCOMES",
    "RECORD_FORMAT",
    "MatchRecord",
    "agent_seed",
    "agent_spec",
    "derive_seed",
    "package_version",
    "play_match",
    "rank_returns",
    "read_records",
    "write_records",
]


def _digest(data: dict[str, Any]) -> str:
    """SHA-256 of a record's fields (``format`` included, ``digest`` not): written with every
    record, checked on reading, so an edited action list that still replays legally to the
    same returns is refused too. (An integrity check against accidents, not a signature.)"""
    body = json.dumps(
        {k: v for k, v in data.items() if k != "digest"}, sort_keys=True, separators=(",", ":")
    )
    return hashlib.sha256(body.encode()).hexdigest()
