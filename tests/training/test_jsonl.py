"""Crash-tolerant JSON lines: a torn last line is dropped with a warning and the next append
starts fresh; corruption anywhere else, and input past the limits, is refused cleanly."""

from __future__ import annotations

import json
import tempfile
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardarena.envs.core import InvalidConfigError
from cardarena.training.jsonl import (
    BadLineError,
    TornLineWarning,
    append_jsonl,
    append_lines,
    read_jsonl,
)

ROWS = [{"step": 1, "rate": 0.5}, {"step": 2, "name": "é ü"}, {"step": 3, "list": [1, [2]]}]


def lines(rows) -> bytes:
    return "".join(json.dumps(row) + "\n" for row in rows).encode()


def values(path) -> list:
    return [value for _, value in read_jsonl(path)]


def test_round_trip_and_line_numbers(tmp_path):
    path = tmp_path / "sub" / "log.jsonl"
    append_jsonl(path, ROWS[:2])
    append_jsonl(path, ROWS[2:])
    assert values(path) == ROWS
    path.write_bytes(b"\n" + lines(ROWS[:1]) + b"   \n" + lines(ROWS[1:2]))
    assert read_jsonl(path) == [(2, ROWS[0]), (4, ROWS[1])]


def test_a_torn_last_line_is_dropped_with_a_warning_naming_file_and_line(tmp_path):
    path = tmp_path / "games.jsonl"
    torn = lines(ROWS[:2]) + b'{"step": 3, "li'
    path.write_bytes(torn)
    with pytest.raises(json.JSONDecodeError):  # what a plain reader does: every line lost
        [json.loads(line) for line in path.read_text().splitlines()]
    with pytest.warns(TornLineWarning, match=r"games\.jsonl, line 3: dropped a torn last line"):
        assert values(path) == ROWS[:2]
    assert path.read_bytes() == torn  # reading never changes the file
    with pytest.warns(TornLineWarning, match=r"games\.jsonl, line 3: dropped a torn last line"):
        append_jsonl(path, [{"step": 4}])
    assert path.read_bytes() == lines([*ROWS[:2], {"step": 4}])  # the new line starts fresh
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert values(path) == [*ROWS[:2], {"step": 4}]


def test_a_line_torn_inside_a_multibyte_character_is_torn_too(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(lines(ROWS[:1]) + '{"name": "é'.encode()[:-1])
    with pytest.warns(TornLineWarning, match="line 2"):
        assert values(path) == ROWS[:1]


def test_a_complete_last_line_without_newline_is_kept_and_the_append_adds_one(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(lines(ROWS[:2]).rstrip(b"\n"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert values(path) == ROWS[:2]
        append_jsonl(path, ROWS[2:])
    assert values(path) == ROWS


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (b'{"step": 2, "li', r"line 2 is not valid JSON"),
        (b"\xff\xfe garbage", r"line 2 is not UTF-8 text \(byte 0: b'\\xff'\)"),
        (b'{"seed": ' + b"7" * 5000 + b"}", r"line 2: refused an integer of 5000 digits"),
        (b"[" * 100_000 + b"]" * 100_000, r"line 2: JSON nested too deeply"),
        (b'{"x": NaN}', r"line 2: refused NaN"),
        (b'{"x": 1e400}', r"line 2: refused the number 1e400 overflows"),
    ],
    ids=["torn", "not-utf8", "digits", "nesting", "nan", "overflow"],
)
def test_a_bad_line_before_the_last_is_corruption_and_refused(tmp_path, bad, message):
    path = tmp_path / "log.jsonl"
    path.write_bytes(lines(ROWS[:1]) + bad + b"\n" + lines(ROWS[1:]))
    with pytest.raises(BadLineError, match=message) as error:
        read_jsonl(path)
    assert error.value.line == 2 and isinstance(error.value, InvalidConfigError)
    path.write_bytes(lines(ROWS[:1]) + bad + b"\n")  # a bad last line that has its newline
    with pytest.raises(InvalidConfigError, match=message):
        read_jsonl(path)


@pytest.mark.parametrize(
    "bad",
    [b'{"seed": ' + b"7" * 5000 + b"}", b"[" * 100_000 + b"]" * 100_000],
    ids=["digits", "nesting"],
)
def test_a_complete_but_refused_last_line_is_not_mistaken_for_a_torn_one(tmp_path, bad):
    path = tmp_path / "log.jsonl"
    path.write_bytes(lines(ROWS[:1]) + bad)
    with pytest.raises(InvalidConfigError, match=r"line 2: (refused|JSON nested)"):
        read_jsonl(path)


def test_files_past_the_limit_or_unreadable_are_clean_errors(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(lines(ROWS))
    with pytest.raises(
        InvalidConfigError, match=r"eval log '.*log\.jsonl' is \d+ bytes; at most 10"
    ):
        read_jsonl(path, "eval log", max_bytes=10)
    with pytest.raises(InvalidConfigError, match=r"cannot be read: No such file"):
        read_jsonl(tmp_path / "missing.jsonl")
    with pytest.raises(InvalidConfigError, match=r"cannot be read: Is a directory"):
        read_jsonl(tmp_path)


def test_append_lines_writes_prepared_lines_and_refuses_line_breaks(tmp_path):
    path = tmp_path / "log.jsonl"
    append_lines(path, ['{"a":1}', '{"b":2}'])
    assert path.read_text() == '{"a":1}\n{"b":2}\n'
    with pytest.raises(ValueError, match="line break"):
        append_lines(path, ['{"a":\n1}'])
    assert path.read_text() == '{"a":1}\n{"b":2}\n'  # nothing written


def test_a_torn_line_longer_than_the_tail_window_is_still_found(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(lines(ROWS[:1]) + b'{"big": "' + b"x" * (1 << 21))
    with pytest.warns(TornLineWarning, match="line 2"):
        append_jsonl(path, ROWS[1:2])
    assert values(path) == ROWS[:2]


row_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**12), 10**12) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=6,
)
rows_strategy = st.lists(st.dictionaries(st.text(max_size=6), row_values, max_size=4), max_size=6)


@settings(max_examples=150, deadline=None)
@given(before=rows_strategy, after=rows_strategy, cut=st.floats(0, 1))
def test_append_cut_anywhere_append_reads_back_every_complete_row(before, after, cut):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "log.jsonl"
        append_jsonl(path, before)
        data = path.read_bytes()
        at = int(cut * len(data))
        path.write_bytes(data[:at])  # a crash (or a full disk) at any byte
        # Complete rows before the cut: those whose whole JSON text made it (newline or not).
        kept, offset = [], 0
        for row in before:
            end = offset + len(json.dumps(row).encode())
            if end <= at:
                kept.append(row)
            offset = end + 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", TornLineWarning)
            assert values(path) == kept
            append_jsonl(path, after)
            assert values(path) == kept + after
