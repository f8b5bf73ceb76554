"""Reading what somebody else wrote, at a bounded cost and with a clear error.

Decks, character files, match records, configs and checkpoint metadata come from other people.
Every such text goes through here, so one set of limits holds everywhere (docs/site/security.md
lists them):

- a file's size is checked (``os.stat``) before a byte is read, and it must be UTF-8;
- JSON nests at most ``MAX_JSON_DEPTH`` levels, an integer has at most ``MAX_INT_DIGITS``
  digits, and ``NaN``, ``Infinity`` and floats that overflow to infinity (``1e400``) are
  refused, since no file this project reads needs them;
- names read from a file are shown with control characters escaped (``printable``), so a
  crafted name cannot rewrite the terminal; a value quoted in an error message goes through
  ``show``, which cuts it short and never fails (a 5,000-digit integer or a list nested
  100,000 deep has no ``repr`` Python will print).

Everything raises ``InvalidConfigError`` naming the file (``what``) and the limit.
"""

from __future__ import annotations

import json
import math
import os
import reprlib
from pathlib import Path
from typing import Any

from .errors import InvalidConfigError

#: Largest text file read (decks, character files, configs, checkpoint metadata).
MAX_TEXT_BYTES = 16 * 1024 * 1024
#: Largest JSON-lines file read whole (match records, evaluation logs).
MAX_JSONL_BYTES = 512 * 1024 * 1024
#: Deepest JSON nesting accepted (records and decks need 4).
MAX_JSON_DEPTH = 32
#: Longest integer literal accepted in JSON (a seed is at most 20 digits).
MAX_INT_DIGITS = 40


def read_bytes(path: str | os.PathLike[str], what: str, max_bytes: int) -> bytes:
    """The bytes of ``path``, refused before reading when the file is larger than
    ``max_bytes`` (or cannot be read: a folder, no permission, gone)."""
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError as error:
        raise InvalidConfigError(f"{what} {str(path)!r} cannot be read: {error.strerror}") from None
    if size > max_bytes:
        raise InvalidConfigError(
            f"{what} {str(path)!r} is {size:,} bytes; at most {max_bytes:,} are read"
        )
    try:
        with path.open("rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError as error:
        raise InvalidConfigError(f"{what} {str(path)!r} cannot be read: {error.strerror}") from None
    if len(data) > max_bytes:  # grew since the stat
        raise InvalidConfigError(f"{what} {str(path)!r} is over {max_bytes:,} bytes")
    return data


def read_text(path: str | os.PathLike[str], what: str, max_bytes: int = MAX_TEXT_BYTES) -> str:
    """The UTF-8 text of ``path`` (a leading byte-order mark dropped), refused before reading
    when the file is larger than ``max_bytes``."""
    return decode_utf8(read_bytes(path, what, max_bytes), f"{what} {str(Path(path))!r}")


def decode_utf8(data: bytes, where: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        bad = data[error.start : error.start + 1]
        raise InvalidConfigError(
            f"{where} is not UTF-8 text (byte {error.start}: {bad!r})"
        ) from None


def _parse_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INT_DIGITS:
        raise _Refused(f"an integer of {digits} digits (at most {MAX_INT_DIGITS})")
    return int(text)


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Refused(f"the number {text[:40]} overflows to infinity")
    return value


def _parse_constant(text: str) -> float:
    raise _Refused(f"{text} (only finite numbers are accepted)")


class _Refused(ValueError):
    pass


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refused when a key repeats (``json`` would keep the last silently, so
    two readers of one file could disagree on what it says)."""
    value: dict[str, Any] = {}
    for key, item in pairs:
        if key in value:
            raise _Refused(f"the key {show(key, 60)} twice in one object")
        value[key] = item
    return value


def parse_json(text: str, what: str, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``json.loads`` within this module's limits; ``what`` names the source in errors."""
    try:
        value = json.loads(
            text,
            parse_int=_parse_int,
            parse_float=_parse_float,
            parse_constant=_parse_constant,
            object_pairs_hook=_object,
        )
    except _Refused as refused:
        raise InvalidConfigError(f"{what}: refused {refused}") from None
    except RecursionError:
        raise InvalidConfigError(
            f"{what}: JSON nested too deeply (at most {max_depth} levels)"
        ) from None
    except ValueError as error:  # json.JSONDecodeError is one
        raise InvalidConfigError(f"{what} is not valid JSON ({error})") from None
    depth = json_depth(value)
    if depth > max_depth:
        raise InvalidConfigError(
            f"{what}: JSON nested {depth} levels deep; at most {max_depth} are accepted"
        )
    return value


def json_depth(value: Any) -> int:
    """Nesting depth of a parsed JSON value (a scalar is 0, ``[1]`` is 1), without recursion."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            deepest = max(deepest, depth)
            continue
        deepest = max(deepest, depth + 1)
        # Scalars add no depth: only containers are stacked (a record's million actions
        # would otherwise be a million tuples at once).
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return deepest


def read_json(path: str | os.PathLike[str], what: str, max_bytes: int = MAX_TEXT_BYTES) -> Any:
    """A JSON file read and parsed within the limits."""
    return parse_json(read_text(path, what, max_bytes), f"{what} {str(Path(path))!r}")


class _ShortRepr(reprlib.Repr):
    """``reprlib`` cuts containers by length and depth; ints too long for ``repr`` (over
    4,300 digits) become their size instead of raising."""

    def __init__(self) -> None:
        super().__init__()
        self.maxlevel, self.maxstring, self.maxother, self.maxlong = 3, 60, 60, 40

    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() > 4000:  # about 1,200 digits: far over maxlong, cut without str()
            return f"<an integer of {int(x.bit_length() * 0.30103) + 1} digits>"
        return super().repr_int(x, level)


_SHORT_REPR = _ShortRepr()


def show(value: object, limit: int = 80) -> str:
    """A short, terminal-safe ``repr`` of ``value`` for error messages; never raises."""
    try:
        text = _SHORT_REPR.repr(value)
    except Exception:  # a hostile __repr__; the type still says what was given
        text = f"<{type(value).__name__}>"
    return printable(text, limit)


_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def printable(text: object, limit: int = 200) -> str:
    """``text`` safe to print on a terminal: control characters (ANSI escapes, carriage
    returns, bidi overrides) shown as escapes, and cut at ``limit`` characters."""
    shown = str(text)
    cut = len(shown) > limit
    shown = shown[:limit]
    out = []
    for char in shown:
        code = ord(char)
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif (
            code < 32
            or code == 127
            or 0x80 <= code < 0xA0
            or 0x202A <= code <= 0x202E
            or (0x2066 <= code <= 0x2069)
        ):
            out.append(f"\\x{code:02x}" if code < 256 else f"\\u{code:04x}")
        else:
            out.append(char)
    return "".join(out) + ("..." if cut else "")


__all__ = [
    "MAX_INT_DIGITS",
    "MAX_JSONL_BYTES",
    "MAX_JSON_DEPTH",
    "MAX_TEXT_BYTES",
    "decode_utf8",
    "json_depth",
    "parse_json",
    "printable",
    "read_bytes",
    "read_json",
    "read_text",
    "show",
]
