"""One loader for the data files games ship and users replace (characters, decks).

Every game that reads a table (Beast Wars' characters, Cardline's deck) goes through
``load_table``, so a CSV file, a JSON file and a list of dicts holding the same data give the
same ``Table``, and every malformed input fails the same way: an ``InvalidConfigError`` naming
the file (or "rows"), the row (and CSV line), the column, the bad value and what was allowed.
A typo in a user's deck then points at the cell to fix instead of surfacing as a strange game.

CSV files: header row first; lines whose first non-blank character is ``#`` are comments
anywhere (shipped files use one to say their numbers are invented); blank lines are skipped;
cells are stripped. One record per line: quoted cells may hold commas but not line breaks.
JSON files hold a list of objects. Strings are stripped in every format, so the three agree.

Limits (a deck is something people exchange, so reading one has a bounded cost; each is
checked before anything past it is read or built, and named in the error):

- a file is at most ``MAX_TABLE_BYTES`` (4 MiB; the Marvel deck is 4 KB), checked before it
  is read, and must be UTF-8; a JSON file nests, and its integers have digits, within the
  limits of ``untrusted.parse_json``;
- at most ``max_rows`` rows; by default ``ROW_LIMITS[what]``: a Cardline ``"deck"`` 2,000
  rows (the Marvel deck has 110; at 8 players and hand size 16 a 2,000-card deck makes a
  Cardline env of about 12 MB, where a million cards took 9 GB), Beast Wars
  ``"characters"`` 100 rows (it plays 24 at most), any other table ``MAX_TABLE_ROWS``;
  the same limit holds for a list of dicts passed in code;
- at most ``MAX_TABLE_COLUMNS`` (64) columns, each cell and column name at most
  ``MAX_CELL_CHARS`` (256) characters (a CSV line at most the two multiplied, checked before
  the line is split).
"""

from __future__ import annotations

import csv
import math
import numbers
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeAlias

from .errors import InvalidConfigError
from .untrusted import parse_json, read_text, show

#: Largest table file read (bytes), checked before reading.
MAX_TABLE_BYTES = 4 * 1024 * 1024
#: Rows of a table whose ``what`` is not in ``ROW_LIMITS``.
MAX_TABLE_ROWS = 2_000
#: Default row limit per table name (``load_table(what=...)``), from what each game needs.
ROW_LIMITS = {"deck": 2_000, "characters": 100}
#: Most columns in a table (Cardline: name, colour and the characteristics).
MAX_TABLE_COLUMNS = 64
#: Longest cell, and longest column name, in characters.
MAX_CELL_CHARS = 256

TableSource: TypeAlias = "str | os.PathLike[str] | Sequence[Mapping[str, Any]]"

ACCEPTED_SOURCES = "a path to a .csv or .json file, or a list of dicts (one per row)"

_INT_LITERAL = re.compile(r"[+-]?[0-9]+")
# Decimal literals only: float() would also take "nan", "inf" and "1_000".
_FLOAT_LITERAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
_KIND_NAMES = {int: "an integer", float: "a number", str: "a string"}


@dataclass(frozen=True)
class Column:
    """What one column must hold; checked cell by cell so errors can name the cell.

    ``low``/``high`` bound numbers (inclusive), ``choices`` lists the allowed strings, and
    ``unique`` makes a repeated value an error (names are ids users refer to in options).
    """

    kind: type
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] | None = None
    unique: bool = False

    def __post_init__(self) -> None:
        # A wrong spec is a programming error in the calling game, not a bad data file.
        if self.kind not in _KIND_NAMES:
            raise TypeError(f"Column.kind must be int, float or str, got {self.kind!r}")
        if self.kind is str and (self.low is not None or self.high is not None):
            raise ValueError("Column bounds low/high apply to int and float columns only")
        if self.kind is not str and self.choices is not None:
            raise ValueError("Column.choices applies to str columns only")
        if self.low is not None and self.high is not None and self.low > self.high:
            raise ValueError(f"Column low {self.low} is above high {self.high}")

    def allowed(self) -> str:
        """Describe the allowed values, for error messages."""
        if self.choices is not None:
            return "one of " + ", ".join(map(repr, self.choices))
        text = _KIND_NAMES[self.kind]
        if self.low is not None and self.high is not None:
            return f"{text} in [{_number(self.low)}, {_number(self.high)}]"
        if self.low is not None:
            return f"{text} >= {_number(self.low)}"
        if self.high is not None:
            return f"{text} <= {_number(self.high)}"
        return text


@dataclass(frozen=True)
class Table:
    """A validated table: typed rows of plain Python values, columns in a fixed order.

    ``columns`` lists the required columns in the order the game asked for them, then any
    extra columns in file order. ``source`` describes where the rows came from (as used in
    error messages); it does not take part in equality, so the same data read from CSV, JSON
    or a list of dicts gives equal tables.
    """

    columns: tuple[str, ...]
    rows: tuple[dict[str, Any], ...]
    source: str = field(default="rows", compare=False)

    def column(self, name: str) -> tuple[Any, ...]:
        """All values of column ``name`` in row order (games index cards and characters by row)."""
        if name not in self.columns:
            raise InvalidConfigError(
                f"{self.source} has no column {name!r}; columns: "
                + ", ".join(map(repr, self.columns))
            )
        return tuple(row[name] for row in self.rows)


def load_table(
    source: TableSource,
    columns: Mapping[str, Column],
    *,
    extra: Column | None = None,
    what: str = "table",
    min_rows: int = 1,
    min_extra: int = 0,
    max_rows: int | None = None,
) -> Table:
    """Read and validate ``source`` completely before a game uses any of it.

    ``columns`` are the required columns, in order. Any other column is refused unless
    ``extra`` is given; then each is checked against ``extra`` and at least ``min_extra`` of
    them must be present (Cardline's characteristics). ``what`` names the table in messages
    ("deck", "characters"). More than ``max_rows`` rows (default: ``ROW_LIMITS`` for
    ``what``, else ``MAX_TABLE_ROWS``) are refused before any row is checked. Raises
    ``InvalidConfigError`` on any problem.
    """
    if max_rows is None:
        max_rows = ROW_LIMITS.get(what, MAX_TABLE_ROWS)
    where, raw_rows, header = _read(source, what, max_rows)
    if len(raw_rows) < min_rows:
        raise InvalidConfigError(f"{where} has {len(raw_rows)} row(s); at least {min_rows} needed")
    required = tuple(columns)
    if header is None:
        header = tuple(raw_rows[0][1]) if raw_rows else required
    _check_header(header, required, extra, where)
    extras = tuple(name for name in header if name not in columns)
    if len(extras) < min_extra:
        raise InvalidConfigError(
            f"{where} has {len(extras)} column(s) besides {', '.join(map(repr, required))}"
            f" ({', '.join(map(repr, extras)) or 'none'}); at least {min_extra} needed"
        )
    specs = dict(columns)
    if extra is not None:
        specs.update(dict.fromkeys(extras, extra))
    first_seen: dict[str, dict[Any, str]] = {name: {} for name in header if specs[name].unique}
    rows = []
    for index, (line, raw) in enumerate(raw_rows, start=1):
        place = f"row {index}" + (f" (line {line})" if line is not None else "")
        if set(raw) != set(header):
            _refuse_keys(raw, header, f"{where}, {place}")
        row: dict[str, Any] = {}
        for name in required + extras:
            column = specs[name]
            try:
                value = _convert(raw[name], column, from_text=line is not None)
            except _BadValue as bad:
                raise InvalidConfigError(
                    f"{where}, {place}, column {show(name)}: {show(raw[name])} {bad}; "
                    f"allowed: {column.allowed()}"
                ) from None
            if column.unique:
                earlier = first_seen[name].setdefault(value, place)
                if earlier != place:
                    raise InvalidConfigError(
                        f"{where}, {place}, column {show(name)}: {show(value)} repeats {earlier}; "
                        f"values in column {name!r} must be unique"
                    )
            row[name] = value
        rows.append(row)
    return Table(columns=required + extras, rows=tuple(rows), source=where)


def _read(
    source: Any, what: str, max_rows: int
) -> tuple[str, list[tuple[int | None, Mapping[Any, Any]]], tuple[str, ...] | None]:
    """Return (description, [(CSV line or None, raw row)], CSV header or None)."""
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        where = f"{what} file {os.fspath(source)}"
        suffix = path.suffix.lower()
        if suffix not in (".csv", ".json"):
            raise InvalidConfigError(
                f"{where}: unsupported file type {path.suffix or '(no suffix)'!r}; "
                f"{what} must be {ACCEPTED_SOURCES}"
            )
        try:
            path.stat()
        except OSError as error:
            raise InvalidConfigError(
                f"{where} cannot be read ({error.strerror}); {what} must be {ACCEPTED_SOURCES}"
            ) from None
        text = read_text(path, f"{what} file", MAX_TABLE_BYTES)
        if suffix == ".csv":
            return (where, *_parse_csv(text, where, max_rows))
        data = parse_json(text, where)
        if not isinstance(data, list):
            raise InvalidConfigError(
                f"{where} holds a JSON {type(data).__name__}; it must hold a list of objects"
            )
        return where, _check_dict_rows(data, where, "an object", max_rows), None
    if isinstance(source, Sequence) and not isinstance(source, (str, bytes, bytearray)):
        where = f"{what} rows"
        return where, _check_dict_rows(source, where, "a dict", max_rows), None
    raise InvalidConfigError(
        f"{what} must be {ACCEPTED_SOURCES}, got {show(source)} ({type(source).__name__})"
    )


def _too_many_rows(where: str, max_rows: int) -> InvalidConfigError:
    return InvalidConfigError(f"{where} has more than {max_rows:,} rows; at most {max_rows:,}")


def _check_dict_rows(
    data: Sequence[Any], where: str, noun: str, max_rows: int
) -> list[tuple[int | None, Mapping[Any, Any]]]:
    if len(data) > max_rows:
        raise _too_many_rows(where, max_rows)
    for index, raw in enumerate(data, start=1):
        if not isinstance(raw, Mapping):
            raise InvalidConfigError(
                f"{where}, row {index}: {show(raw)} ({type(raw).__name__}) is not {noun}; "
                f"each row must be {noun} column -> value"
            )
        if len(raw) > MAX_TABLE_COLUMNS:
            raise InvalidConfigError(
                f"{where}, row {index} has {len(raw):,} columns; at most {MAX_TABLE_COLUMNS}"
            )
        for key in raw:
            if not isinstance(key, str):
                raise InvalidConfigError(
                    f"{where}, row {index}: column name {show(key)} is not a string"
                )
            if len(key) > MAX_CELL_CHARS:
                raise InvalidConfigError(
                    f"{where}, row {index}: column name {show(key)} is {len(key):,} "
                    f"characters long; at most {MAX_CELL_CHARS}"
                )
    return [(None, raw) for raw in data]


_MAX_LINE_CHARS = MAX_TABLE_COLUMNS * (MAX_CELL_CHARS + 3)  # quotes and a comma per cell


def _parse_csv(
    text: str, where: str, max_rows: int
) -> tuple[list[tuple[int | None, Mapping[Any, Any]]], tuple[str, ...]]:
    header: tuple[str, ...] | None = None
    rows: list[tuple[int | None, Mapping[Any, Any]]] = []
    for line_number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if len(line) > _MAX_LINE_CHARS:
            raise InvalidConfigError(
                f"{where}, line {line_number} is {len(line):,} characters long; at most "
                f"{_MAX_LINE_CHARS:,} ({MAX_TABLE_COLUMNS} cells of {MAX_CELL_CHARS})"
            )
        if header is not None and len(rows) >= max_rows:
            raise _too_many_rows(where, max_rows)
        try:
            cells = [cell.strip() for cell in next(csv.reader([line], strict=True))]
        except csv.Error as error:
            raise InvalidConfigError(
                f"{where}, line {line_number}: malformed CSV ({error}); "
                "quoted cells may hold commas but not line breaks"
            ) from None
        if header is None:
            if len(cells) > MAX_TABLE_COLUMNS:
                raise InvalidConfigError(
                    f"{where}, line {line_number}: the header has {len(cells):,} columns; "
                    f"at most {MAX_TABLE_COLUMNS}"
                )
            for name in cells:
                if len(name) > MAX_CELL_CHARS:
                    raise InvalidConfigError(
                        f"{where}, line {line_number}: column name {show(name)} is "
                        f"{len(name):,} characters long; at most {MAX_CELL_CHARS}"
                    )
            header = tuple(cells)
            continue
        if len(cells) != len(header):
            raise InvalidConfigError(
                f"{where}, row {len(rows) + 1} (line {line_number}) has {len(cells)} cell(s), "
                f"the header has {len(header)}: {', '.join(map(repr, header))}"
            )
        rows.append((line_number, dict(zip(header, cells, strict=True))))
    if header is None:
        raise InvalidConfigError(f"{where} has no header row (only blank or comment lines)")
    return rows, header


def _check_header(
    header: tuple[str, ...], required: tuple[str, ...], extra: Column | None, where: str
) -> None:
    found = ", ".join(map(repr, header)) or "none"
    for name in header:
        if not name:
            raise InvalidConfigError(f"{where}: empty column name in header {found}")
    repeated = sorted({name for name in header if header.count(name) > 1})
    if repeated:
        raise InvalidConfigError(
            f"{where}: column(s) {', '.join(map(repr, repeated))} appear more than once"
        )
    missing = [name for name in required if name not in header]
    if missing:
        raise InvalidConfigError(
            f"{where}: missing column(s) {', '.join(map(repr, missing))}; columns found: {found}"
        )
    unknown = [name for name in header if name not in required]
    if unknown and extra is None:
        raise InvalidConfigError(
            f"{where}: unknown column(s) {', '.join(map(repr, unknown))}; "
            f"allowed: {', '.join(map(repr, required))}"
        )


def _refuse_keys(raw: Mapping[Any, Any], header: tuple[str, ...], at: str) -> None:
    """A dict row whose keys differ from the first row's (JSON and lists of dicts only)."""
    missing = [name for name in header if name not in raw]
    if missing:
        raise InvalidConfigError(
            f"{at}: missing column(s) {', '.join(map(repr, missing))}; "
            f"every row needs {', '.join(map(repr, header))}"
        )
    unknown = [name for name in raw if name not in header]
    raise InvalidConfigError(
        f"{at}: column(s) {', '.join(map(repr, unknown))} not in the first row's columns "
        f"{', '.join(map(repr, header))}"
    )


class _BadValue(Exception):
    """Why one cell was refused; ``load_table`` adds where it is and what is allowed."""


def _convert(value: Any, column: Column, *, from_text: bool) -> Any:
    """Return ``value`` typed and checked against ``column``, or raise ``_BadValue``."""
    if isinstance(value, str):
        value = value.strip()
    if value is None or value == "":
        raise _BadValue("is empty")
    if isinstance(value, str) and len(value) > MAX_CELL_CHARS:
        raise _BadValue(f"is {len(value):,} characters long (at most {MAX_CELL_CHARS})")
    if column.kind is str:
        if not isinstance(value, str):
            raise _BadValue(f"({type(value).__name__}) is not a string")
        if column.choices is not None and value not in column.choices:
            raise _BadValue("is not a valid choice")
        return value
    number = _to_number(value, column.kind, from_text)
    if (column.low is not None and number < column.low) or (
        column.high is not None and number > column.high
    ):
        raise _BadValue("is out of range")
    return number


def _to_number(value: Any, kind: type, from_text: bool) -> int | float:
    wanted = _KIND_NAMES[kind]
    # numpy.bool_ is not a numbers.Integral, but refuse it by name so the message is clear.
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        raise _BadValue(f"({type(value).__name__}) is not {wanted}")
    if isinstance(value, str):
        if not from_text:
            raise _BadValue(f"is a string, not {wanted}")
        if kind is int:
            if not _INT_LITERAL.fullmatch(value):
                raise _BadValue("is not an integer")
            return int(value)
        if not _FLOAT_LITERAL.fullmatch(value):
            try:
                finite = math.isfinite(float(value))
            except ValueError:
                finite = True
            raise _BadValue("is not a number" if finite else "is not a finite number")
        number = float(value)
    elif kind is int:
        if not isinstance(value, numbers.Integral):
            raise _BadValue(f"({type(value).__name__}) is not an integer")
        return int(value)
    elif isinstance(value, numbers.Real):
        try:
            number = float(value)
        except OverflowError:  # an int too large for a float (10**400)
            raise _BadValue("is not a finite number") from None
    else:
        raise _BadValue(f"({type(value).__name__}) is not a number")
    if not math.isfinite(number):
        raise _BadValue("is not a finite number")
    return number


def _number(bound: float) -> str:
    return str(int(bound)) if float(bound).is_integer() else str(bound)
