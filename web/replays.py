"""The replay viewer's answers (``POST /api/replays``): one page of a recorded game at a time.

A record (``cardarena play --record``, ``cardarena eval --out``'s ``games.jsonl``) comes from
a browser, so reading it has a bounded cost: the text is refused over ``MAX_RECORD_BYTES``
before it is parsed, and every line goes through ``MatchRecord.from_json`` (the limits of
``cardarena.envs.core.untrusted``; at most ``MAX_RECORDS`` lines). Of the records only the one
asked for is kept; the others leave a summary line each.

The game is checked whole on every request, as ``cardarena replay`` checks it (the digest, the
version unless ``any_version``, every action against the rules, the outcome and returns), by
``cardarena.evaluation.replay.replay_page``; but only the frames of the page asked for
(``start``, ``count`` up to ``MAX_FRAMES``) are rendered, named and described, so the answer
and the memory held are one page, whatever the length of the game. A game of 358,450 actions
was a 396 MB answer when every step was sent; a page of it is about 220 KB. The page keeps
the record text and sends it again for the next page: the server holds nothing between
requests.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from cardarena.envs import ENVS, make_raw
from cardarena.envs.core import InvalidConfigError
from cardarena.envs.core.events import Event, describe_generic
from cardarena.envs.core.untrusted import decode_utf8, show
from cardarena.evaluation.records import MAX_RECORD_ACTIONS, MatchRecord
from cardarena.evaluation.replay import ReplayFrame, replay_page

from .configs import ServedTable, resolve_config

#: Largest record text a browser may send (one ``play --record`` game is a few KiB).
MAX_RECORD_BYTES = 4 * 1024 * 1024
#: Most records one uploaded file may hold (each is listed for the viewer to pick).
MAX_RECORDS = 1000
#: Frames in a page unless the request says ``count`` (about 1 KB of text each).
DEFAULT_FRAMES = 200
#: Most frames one page may hold.
MAX_FRAMES = 500
#: A page ends early once its table texts reach this many characters (it always holds one
#: frame): a config with a long table text (a Cardline deck of thousands of cards) still gets
#: a bounded answer.
MAX_PAGE_CHARS = 500_000
#: The fields a replay request may hold (the JSON body's, or the query's with a raw body).
FIELDS = ("record", "game", "any_version", "from", "count")

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@dataclass(frozen=True)
class ReplayAsk:
    """What a replay request asks for besides the record: which game of the text, from which
    frame (0 is the deal, ``k`` the table after move ``k``), how many frames, and whether a
    record of another cardarena version is accepted."""

    game: int = 0
    start: int = 0
    count: int = DEFAULT_FRAMES
    any_version: bool = False


def replay_ask(options: Mapping[str, Any]) -> ReplayAsk:
    """The request's options (a JSON body, or the query string's text values) checked;
    ``InvalidConfigError`` naming the field when one is not what it must be."""

    def number(name: str, default: int, low: int, high: int) -> int:
        value = options.get(name, default)
        if isinstance(value, str) and value.isdigit() and len(value) < 10:
            value = int(value)
        if not (isinstance(value, int) and not isinstance(value, bool) and low <= value <= high):
            raise InvalidConfigError(
                f"field {name!r} must be an integer in {low:,}..{high:,}, got {show(value)}"
            )
        return value

    flag = options.get("any_version", False)
    flags = {True: True, False: False, "1": True, "true": True, "0": False, "false": False}
    if not isinstance(flag, (bool, str)) or flag not in flags:
        raise InvalidConfigError(f"field 'any_version' must be true or false, got {show(flag)}")
    return ReplayAsk(
        game=number("game", 0, 0, MAX_RECORDS - 1),
        start=number("from", 0, 0, MAX_RECORD_ACTIONS),
        count=number("count", DEFAULT_FRAMES, 1, MAX_FRAMES),
        any_version=flags[flag],
    )


def pick_record(
    data: bytes, game: int, max_bytes: int = MAX_RECORD_BYTES
) -> tuple[list[dict[str, Any]], MatchRecord]:
    """A summary of every record in ``data`` (a JSON-lines file's bytes) and record ``game``
    itself. Every line is checked (``InvalidConfigError`` naming the line); only the chosen
    record is kept, so the memory held is one record's, not the file's. Refused before parsing
    when ``data`` is over ``max_bytes``."""
    if len(data) > max_bytes:
        raise InvalidConfigError(
            f"the record is {len(data):,} bytes; at most {max_bytes:,} are read"
        )
    text = decode_utf8(data, "the record")
    summaries: list[dict[str, Any]] = []
    chosen: MatchRecord | None = None
    number, at = 0, 0
    while at < len(text):  # line by line without a copy of the whole text
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        line, at = text[at:end], end + 1
        number += 1
        if not line.strip():
            continue
        if len(summaries) >= MAX_RECORDS:
            raise InvalidConfigError(f"the file holds over {MAX_RECORDS} records; send fewer")
        try:
            record = MatchRecord.from_json(line)
        except InvalidConfigError as error:
            raise InvalidConfigError(f"line {number}: {error}") from None
        summaries.append(
            {
                "game": len(summaries),
                "env": record.env,
                "seed": record.seed,
                "lineup": record.lineup,
                "outcome": record.outcome,
                "steps": record.steps,
            }
        )
        if len(summaries) - 1 == game:
            chosen = record
    if not summaries:
        raise InvalidConfigError(
            "no match record in the text (a record is one JSON line written by "
            "`cardarena play --record FILE` or `cardarena eval --out DIR` (games.jsonl))"
        )
    if chosen is None:
        raise InvalidConfigError(
            f"field 'game' is {game} but the text holds {len(summaries)} "
            f"game{'s' if len(summaries) > 1 else ''} (0..{len(summaries) - 1})"
        )
    return summaries, chosen


def replay_answer(
    data: bytes, ask: ReplayAsk, served: Mapping[str, ServedTable] | None = None
) -> dict[str, Any]:
    """The answer to a replay request: every game of the text in summary, then game
    ``ask.game`` checked whole and its frames ``ask.start`` .. (one page). ``CardArenaError``
    (``InvalidConfigError``, ``ReplayError``) for a bad record or a ``from`` past the end.

    A record's config may not make the server read a file: a deck or characters key must hold
    the rows, or the name of a table in ``served`` (``cardarena serve --deck``), as a new
    game's config (``configs.resolve_config``); the answer shows the config as recorded."""
    summaries, record = pick_record(data, ask.game)
    if ask.start > record.steps:
        raise InvalidConfigError(
            f"field 'from' is {ask.start:,} but game {ask.game} has {record.steps:,} moves "
            f"(frames 0..{record.steps:,})"
        )
    played = record
    if record.env in ENVS:  # an unknown env fails in replay_page, saying so
        config = resolve_config(record.env, record.config, served or {}, "the record's config")
        played = replace(record, config=config)
    page = replay_page(
        played, ask.start, ask.count, check_version=not ask.any_version, max_chars=MAX_PAGE_CHARS
    )
    env = make_raw(played.env, **played.config)  # names the events (replay_page built one)
    following = page.start + len(page.frames)
    return {
        "games": summaries,
        "game": ask.game,
        "env": record.env,
        "seed": record.seed,
        "config": record.config,
        "lineup": record.lineup,
        "outcome": record.outcome,
        "returns": record.returns,
        "ranks": record.ranks,
        "result": _result_line(record),
        "total_steps": page.total_steps,
        "from": page.start,
        "next": following if following <= page.total_steps else None,
        "frames": [_frame_json(frame, env) for frame in page.frames],
    }


def plain(text: object) -> str:
    """A render without terminal colour codes."""
    return _ANSI.sub("", str(text))


def _frame_json(frame: ReplayFrame, env: Any) -> dict[str, Any]:
    if frame.illegal:
        events = [f"{frame.agent} tried an illegal action ({frame.description}); the game ends"]
    else:
        events = [_describe(env, event) for event in frame.events]
    return {
        "step": frame.step,
        "seat": frame.agent,
        "action": frame.action,
        "name": frame.description,
        "text": plain(frame.text),
        "events": events,
    }


def _describe(env: Any, event: Event) -> str:
    """An event line for a replay: nobody is "you" (viewer -1), private events included."""
    try:
        return str(env.describe_event(event, -1))
    except Exception:  # a game's describe may assume a real viewer; the generic line will do
        return describe_generic(event, tuple(env.possible_agents), -1)


def _result_line(record: MatchRecord) -> str:
    if record.outcome == "truncated":
        return "the game reached its turn cap with no winner"
    if record.outcome == "illegal_action":
        return f"{record.offender} made an illegal move and lost"
    best = [seat for seat, rank in record.ranks.items() if rank == 1]
    if len(best) == len(record.ranks):
        return "a draw"
    return f"{' and '.join(best)} won"


__all__ = [
    "DEFAULT_FRAMES",
    "FIELDS",
    "MAX_FRAMES",
    "MAX_PAGE_CHARS",
    "MAX_RECORDS",
    "MAX_RECORD_BYTES",
    "ReplayAsk",
    "pick_record",
    "plain",
    "replay_answer",
    "replay_ask",
]
