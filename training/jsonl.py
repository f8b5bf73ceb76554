"""JSON-lines files that survive a crash: every log and record file the project writes.

A process killed mid-write (or a full disk) can leave the last line of a JSON-lines file cut
short. Such a *torn* final line, one without its newline that does not parse, is dropped
with a warning naming the file and the line, both when the file is read and before the next
append (which then starts on a fresh line), so one torn write never poisons the intact
lines before it. A bad line anywhere else is not a torn write but corruption, and is refused
(``InvalidConfigError`` naming file and line).

Lines are parsed within the limits of ``cardarena.envs.core.untrusted`` (size checked before
reading, nesting, digits, finite numbers).
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from cardarena.envs.core import InvalidConfigError
from cardarena.envs.core.untrusted import MAX_JSONL_BYTES, decode_utf8, parse_json


class TornLineWarning(UserWarning):
    """A JSON-lines file ended in a line cut short by a crash; the line was dropped."""


def _torn_tail(data: bytes) -> tuple[int, int] | None:
    """(offset, line number) of a torn final line in ``data``, or None when it has none."""
    if not data or data.endswith(b"\n"):
        return None
    start = data.rfind(b"\n") + 1
    try:
        json.loads(data[start:].decode("utf-8"))
    except ValueError:  # UnicodeDecodeError and JSONDecodeError alike: cut mid-write
        return start, data.count(b"\n") + 1
    return None  # complete JSON, only the newline is missing


def read_jsonl(
    path: str | os.PathLike[str], what: str = "JSON-lines file", max_bytes: int = MAX_JSONL_BYTES
) -> list[tuple[int, Any]]:
    """``(line number, value)`` for every non-blank line of ``path``."""
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError as error:
        raise InvalidConfigError(f"{what} {str(path)!r} cannot be read: {error.strerror}") from None
    if size > max_bytes:
        raise InvalidConfigError(
            f"{what} {str(path)!r} is {size:,} bytes; at most {max_bytes:,} are read"
        )
    with path.open("rb") as handle:
        data = handle.read(max_bytes + 1)
    torn = _torn_tail(data)
    if torn is not None:
        offset, number = torn
        warnings.warn(
            f"{path}, line {number}: dropped a torn last line ({len(data) - offset} bytes, "
            "a write cut short)",
            TornLineWarning,
            stacklevel=2,
        )
        data = data[:offset]
    rows = []
    for number, line in enumerate(data.split(b"\n"), start=1):
        if not line.strip():
            continue
        where = f"{path}, line {number}"
        rows.append((number, parse_json(decode_utf8(line, where), where)))
    return rows


def append_jsonl(path: str | os.PathLike[str], rows: Iterable[Mapping[str, Any]]) -> None:
    """Append ``rows`` as JSON lines, all in one write, flushed to disk; a torn last line left
    by an earlier crash is cut off first (with a warning), so the new lines start fresh."""
    path = Path(path)
    text = "".join(json.dumps(row, allow_nan=False) + "\n" for row in rows)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a+b") as handle:
        size = handle.seek(0, os.SEEK_END)
        if size:
            handle.seek(max(size - (1 << 20), 0))
            tail = handle.read()
            if b"\n" not in tail and len(tail) < size:  # a last line over 1 MiB
                handle.seek(0)
                tail = handle.read()
            if not tail.endswith(b"\n"):
                cut = tail.rfind(b"\n") + 1
                if _torn_tail(tail[cut:]) is not None:
                    warnings.warn(
                        f"{path}: dropped a torn last line ({len(tail) - cut} bytes, a write cut "
                        "short) before appending",
                        TornLineWarning,
                        stacklevel=2,
                    )
                    handle.truncate(size - (len(tail) - cut))
                else:
                    text = "\n" + text
        handle.seek(0, os.SEEK_END)
        handle.write(text.encode("utf-8"))
        handle.flush()
        os.fsync(handle.fileno())


__all__ = ["TornLineWarning", "append_jsonl", "read_jsonl"]
