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
from cardarena.envs.core.untrusted import MAX_JSONL_BYTES, decode_utf8, parse_json, read_bytes


class TornLineWarning(UserWarning):
    """A JSON-lines file ended in a line cut short by a crash; the line was dropped."""


class BadLineError(InvalidConfigError):
    """A line of a JSON-lines file that is not valid JSON within the limits; ``line`` is its
    1-based number, so a reader can word the error its own way."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


def _is_cut_short(line: bytes) -> bool:
    """Whether ``line`` is not even well-formed JSON text (a write cut mid-line). Numbers are
    not converted, so a 5,000-digit integer counts as complete (and is refused later by
    ``parse_json`` with its own message); so does a line nested too deeply to scan."""
    try:
        json.loads(line.decode("utf-8"), parse_int=len, parse_float=len, parse_constant=len)
    except RecursionError:
        return False
    except ValueError:  # UnicodeDecodeError and JSONDecodeError alike: cut mid-write
        return True
    return False


def _torn_tail(data: bytes) -> tuple[int, int] | None:
    """(offset, line number) of a torn final line in ``data``, or None when it has none."""
    if not data or data.endswith(b"\n"):
        return None
    start = data.rfind(b"\n") + 1
    if _is_cut_short(data[start:]):
        return start, data.count(b"\n") + 1
    return None  # complete JSON, only the newline is missing


def read_jsonl(
    path: str | os.PathLike[str], what: str = "JSON-lines file", max_bytes: int = MAX_JSONL_BYTES
) -> list[tuple[int, Any]]:
    """``(line number, value)`` for every non-blank line of ``path``."""
    path = Path(path)
    data = read_bytes(path, what, max_bytes)
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
        try:
            rows.append((number, parse_json(decode_utf8(line, where), where)))
        except InvalidConfigError as error:
            raise BadLineError(str(error), number) from None
    return rows


def _line_number(handle: Any, offset: int) -> int:
    """The 1-based number of the line starting at byte ``offset`` (read in 1 MiB chunks)."""
    handle.seek(0)
    newlines, left = 0, offset
    while left > 0:
        chunk = handle.read(min(left, 1 << 20))
        if not chunk:
            break
        newlines += chunk.count(b"\n")
        left -= len(chunk)
    return newlines + 1


def append_jsonl(path: str | os.PathLike[str], rows: Iterable[Mapping[str, Any]]) -> None:
    """Append ``rows`` as JSON lines, all in one write, flushed to disk; a torn last line left
    by an earlier crash is cut off first (with a warning), so the new lines start fresh."""
    append_lines(path, [json.dumps(row, allow_nan=False) for row in rows])


def append_lines(path: str | os.PathLike[str], lines: Iterable[str]) -> None:
    """``append_jsonl`` for rows already serialised, one JSON text per item (no newline in
    it), for writers that fix their own layout (match records are compact and digested)."""
    path = Path(path)
    lines = list(lines)
    for line in lines:
        if "\n" in line or "\r" in line:
            raise ValueError("append_lines: a JSON line must not hold a line break")
    text = "".join(line + "\n" for line in lines)
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
                    offset = size - (len(tail) - cut)
                    warnings.warn(
                        f"{path}, line {_line_number(handle, offset)}: dropped a torn last line "
                        f"({len(tail) - cut} bytes, a write cut short) before appending",
                        TornLineWarning,
                        stacklevel=2,
                    )
                    handle.truncate(offset)
                else:
                    text = "\n" + text
        handle.seek(0, os.SEEK_END)
        handle.write(text.encode("utf-8"))
        handle.flush()
        os.fsync(handle.fileno())


__all__ = ["BadLineError", "TornLineWarning", "append_jsonl", "append_lines", "read_jsonl"]
