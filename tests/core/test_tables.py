"""load_table: one loader for CSV, JSON and lists of dicts, with errors that name the cell."""

from __future__ import annotations

import csv
import json
import math
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cardarena.envs.core.errors import InvalidConfigError
from cardarena.envs.core.tables import Column, Table, load_table

CARD_COLUMNS = {
    "name": Column(str, unique=True),
    "colour": Column(str, choices=("hero", "villain")),
}
CHARACTER_COLUMNS = {
    "faction": Column(str, choices=("maximal", "predacon")),
    "name": Column(str, unique=True),
    "beast_red": Column(int, low=0, high=12),
}

DECK_CSV = """\
# Invented numbers, not the real cards.
name,colour,strength,intelligence

Hulk, hero ,-40.5,1e3
# a comment between rows
  # an indented comment
Loki,villain,12,-3
"""
DECK_ROWS = [
    {"name": "Hulk", "colour": "hero", "strength": -40.5, "intelligence": 1000.0},
    {"name": "Loki", "colour": "villain", "strength": 12.0, "intelligence": -3.0},
]


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def load_deck(source, **kwargs) -> Table:
    return load_table(source, CARD_COLUMNS, extra=Column(float), what="deck", **kwargs)


def load_characters(source, **kwargs) -> Table:
    return load_table(source, CHARACTER_COLUMNS, what="characters", **kwargs)


# --- reading -----------------------------------------------------------------------------------


def test_csv_skips_comments_and_blank_lines_and_strips_cells(tmp_path):
    table = load_deck(write(tmp_path, "marvel.csv", DECK_CSV))
    assert table.columns == ("name", "colour", "strength", "intelligence")
    assert table.rows == tuple(DECK_ROWS)
    assert table.column("strength") == (-40.5, 12.0)
    assert table.source == f"deck file {tmp_path / 'marvel.csv'}"


def test_csv_json_and_dicts_give_equal_tables(tmp_path):
    from_csv = load_deck(write(tmp_path, "deck.csv", DECK_CSV))
    from_json = load_deck(write(tmp_path, "deck.json", json.dumps(DECK_ROWS)))
    from_dicts = load_deck(DECK_ROWS)
    from_tuple = load_deck(tuple(DECK_ROWS))
    assert from_csv == from_json == from_dicts == from_tuple
    assert from_dicts.source == "deck rows"


def test_path_may_be_a_string_and_suffix_is_case_insensitive(tmp_path):
    path = write(tmp_path, "DECK.CSV", DECK_CSV)
    assert load_deck(str(path)).rows == tuple(DECK_ROWS)


def test_values_are_plain_python_types(tmp_path):
    rows = [{"faction": "maximal", "name": "Optimus", "beast_red": np.int64(7)}]
    table = load_characters(rows)
    assert type(table.rows[0]["beast_red"]) is int
    deck = load_deck([{"name": "A", "colour": "hero", "s": np.float32(1.5), "t": 2}])
    assert [type(v) for v in deck.rows[0].values()] == [str, str, float, float]


def test_utf8_bom_and_quoted_commas(tmp_path):
    path = tmp_path / "deck.csv"
    path.write_text('name,colour,s\n"Doom, Victor",villain,1\n', encoding="utf-8-sig")
    assert load_deck(path).column("name") == ("Doom, Victor",)


def test_extra_columns_keep_file_order_after_required_ones():
    table = load_deck([{"z": 1, "colour": "hero", "a": 2, "name": "X"}])
    assert table.columns == ("name", "colour", "z", "a")
    assert list(table.rows[0]) == ["name", "colour", "z", "a"]


def test_int_column_accepts_signed_integer_literals(tmp_path):
    columns = {"n": Column(int)}
    path = write(tmp_path, "n.csv", "n\n12\n-3\n+4\n")
    assert load_table(path, columns).column("n") == (12, -3, 4)


def test_min_rows_zero_allows_an_empty_table(tmp_path):
    table = load_deck(write(tmp_path, "d.csv", "name,colour\n"), min_rows=0)
    assert table.rows == () and table.columns == ("name", "colour")


def test_column_lookup_of_unknown_name_lists_columns():
    with pytest.raises(InvalidConfigError, match=r"deck rows has no column 'speed'.*'colour'"):
        load_deck(DECK_ROWS).column("speed")


# --- source errors -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["deck.txt", "deck"])
def test_unsupported_suffix(tmp_path, name):
    path = write(tmp_path, name, DECK_CSV)
    with pytest.raises(
        InvalidConfigError,
        match=rf"deck file .*{name}: unsupported file type.*"
        r"\.csv or \.json",
    ):
        load_deck(path)


def test_missing_file(tmp_path):
    with pytest.raises(InvalidConfigError, match=r"deck file .*nope\.csv'? cannot be read"):
        load_deck(tmp_path / "nope.csv")


def test_invalid_json(tmp_path):
    path = write(tmp_path, "d.json", "[{'name': 1}]")
    with pytest.raises(InvalidConfigError, match=r"d\.json is not valid JSON .*line 1"):
        load_deck(path)


def test_json_must_hold_a_list(tmp_path):
    path = write(tmp_path, "d.json", json.dumps({"rows": DECK_ROWS}))
    with pytest.raises(InvalidConfigError, match=r"d\.json holds a JSON dict; .*list of objects"):
        load_deck(path)


@pytest.mark.parametrize("source", [3, None, b"deck.csv", {"name": "x"}, np.array([1])])
def test_source_of_another_type(source):
    with pytest.raises(InvalidConfigError, match=r"deck must be a path to a \.csv or \.json"):
        load_deck(source)


def test_json_row_that_is_not_an_object(tmp_path):
    path = write(tmp_path, "d.json", json.dumps([DECK_ROWS[0], [1, 2]]))
    with pytest.raises(
        InvalidConfigError, match=r"d\.json, row 2: \[1, 2\] \(list\) is not an obj"
    ):
        load_deck(path)


def test_dict_row_that_is_not_a_dict():
    with pytest.raises(InvalidConfigError, match=r"deck rows, row 1: 'Hulk' \(str\) is not a dict"):
        load_deck(["Hulk"])


def test_csv_without_header(tmp_path):
    with pytest.raises(InvalidConfigError, match=r"d\.csv has no header row"):
        load_deck(write(tmp_path, "d.csv", "# only a comment\n\n"))


def test_malformed_csv_quote_names_line(tmp_path):
    path = write(tmp_path, "d.csv", 'name,colour\n"Hulk,hero\n')
    with pytest.raises(InvalidConfigError, match=r"d\.csv, line 2: malformed CSV"):
        load_deck(path)


# --- column errors -----------------------------------------------------------------------------


def test_missing_required_column_names_it_and_lists_found(tmp_path):
    path = write(tmp_path, "d.csv", "name,strength\nHulk,3\n")
    with pytest.raises(
        InvalidConfigError,
        match=r"d\.csv: missing column\(s\) 'colour'; columns found: 'name', "
        r"'strength'",
    ):
        load_deck(path)


def test_unknown_column_refused_without_extra(tmp_path):
    path = write(tmp_path, "c.csv", "faction,name,beast_red,beast_pink\nmaximal,A,1,2\n")
    with pytest.raises(
        InvalidConfigError,
        match=r"c\.csv: unknown column\(s\) 'beast_pink'; allowed: 'faction', 'name', 'beast_red'",
    ):
        load_characters(path)


def test_too_few_extra_columns():
    with pytest.raises(
        InvalidConfigError,
        match=r"deck rows has 0 column\(s\) besides 'name', "
        r"'colour' \(none\); at least 1 needed",
    ):
        load_deck([{"name": "A", "colour": "hero"}], min_extra=1)


def test_duplicate_and_empty_header_names(tmp_path):
    with pytest.raises(InvalidConfigError, match=r"column\(s\) 'name' appear more than once"):
        load_deck(write(tmp_path, "a.csv", "name,colour,name\nA,hero,B\n"))
    with pytest.raises(InvalidConfigError, match=r"empty column name in header 'name', ''"):
        load_deck(write(tmp_path, "b.csv", "name,,colour\nA,1,hero\n"))


def test_row_with_wrong_cell_count(tmp_path):
    path = write(tmp_path, "d.csv", "name,colour,s\n\nA,hero,1\nB,hero\n")
    with pytest.raises(
        InvalidConfigError, match=r"d\.csv, row 2 \(line 4\) has 2 cell\(s\), the header has 3"
    ):
        load_deck(path)


def test_dict_row_missing_a_key_or_with_an_extra_one():
    rows = [{"name": "A", "colour": "hero", "s": 1}, {"name": "B", "colour": "hero"}]
    with pytest.raises(InvalidConfigError, match=r"deck rows, row 2: missing column\(s\) 's'"):
        load_deck(rows)
    rows[1] = {"name": "B", "colour": "hero", "s": 1, "t": 2}
    with pytest.raises(InvalidConfigError, match=r"row 2: column\(s\) 't' not in the first row"):
        load_deck(rows)


def test_dict_row_with_non_string_key():
    with pytest.raises(InvalidConfigError, match=r"row 1: column name 3 is not a string"):
        load_deck([{"name": "A", "colour": "hero", 3: 1.0}])


# --- cell errors -------------------------------------------------------------------------------


def test_non_number_names_file_row_line_column_and_value(tmp_path):
    lines = ["# invented", "name,colour,strength"] + [f"C{i},hero,{i}" for i in range(6)]
    path = write(tmp_path, "marvel.csv", "\n".join([*lines, "Thor,hero,heavy"]) + "\n")
    with pytest.raises(
        InvalidConfigError,
        match=r"^deck file .*marvel\.csv, row 7 \(line 9\), column 'strength': 'heavy' is not a "
        r"number; allowed: a number$",
    ):
        load_deck(path)


@pytest.mark.parametrize(
    ("cell", "reason"),
    [
        ("2.5", "is not an integer"),
        ("12.0", "is not an integer"),
        ("x", "is not an integer"),
        ("1_0", "is not an integer"),
        ("13", "is out of range"),
        ("-1", "is out of range"),
    ],
)
def test_int_column_refuses_csv_cells(tmp_path, cell, reason):
    path = write(tmp_path, "c.csv", f"faction,name,beast_red\nmaximal,A,1\nmaximal,B,{cell}\n")
    with pytest.raises(
        InvalidConfigError,
        match=rf"c\.csv, row 2 \(line 3\), column 'beast_red': '{cell}' {reason}; "
        r"allowed: an integer in \[0, 12\]",
    ):
        load_characters(path)


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (2.5, r"\(float\) is not an integer"),
        (2.0, r"\(float\) is not an integer"),
        ("3", "is a string, not an integer"),
        (True, r"\(bool\) is not an integer"),
        (np.bool_(True), r"\(bool_?\) is not an integer"),
        (None, "is empty"),
        (99, "out of range"),
    ],
)
def test_int_column_refuses_dict_values(value, reason):
    rows = [{"faction": "maximal", "name": "A", "beast_red": value}]
    with pytest.raises(
        InvalidConfigError, match=rf"characters rows, row 1, column 'beast_red': .* {reason}"
    ):
        load_characters(rows)


@pytest.mark.parametrize(
    ("cell", "reason"),
    [
        ("nan", "is not a finite number"),
        ("inf", "is not a finite number"),
        ("-Infinity", "is not a finite number"),
        ("1e999", "is not a finite number"),
        ("1_000", "is not a number"),
        ("0x10", "is not a number"),
        ("", "is empty"),
    ],
)
def test_float_column_refuses_csv_cells(tmp_path, cell, reason):
    path = write(tmp_path, "d.csv", f"name,colour,s\nA,hero,{cell}\n")
    with pytest.raises(
        InvalidConfigError, match=rf"row 1 \(line 2\), column 's': '{cell}' {reason}"
    ):
        load_deck(path)


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (math.nan, "is not a finite number"),
        (-math.inf, "is not a finite number"),
        (True, r"\(bool\) is not a number"),
        ("1.5", "is a string, not a number"),
        ([1], r"\(list\) is not a number"),
    ],
)
def test_float_column_refuses_dict_values(value, reason):
    with pytest.raises(InvalidConfigError, match=rf"deck rows, row 1, column 's': .* {reason}"):
        load_deck([{"name": "A", "colour": "hero", "s": value}])


def test_float_column_bounds():
    columns = {"p": Column(float, low=-1.5, high=2)}
    assert load_table([{"p": -1.5}, {"p": 2}], columns).column("p") == (-1.5, 2.0)
    with pytest.raises(
        InvalidConfigError,
        match=r"'p': 2.25 is out of range; allowed: a number "
        r"in \[-1.5, 2\]",
    ):
        load_table([{"p": 2.25}], columns)
    with pytest.raises(InvalidConfigError, match=r"allowed: an integer >= 0$"):
        load_table([{"n": -1}], {"n": Column(int, low=0)})


def test_nan_in_json_file_is_refused(tmp_path):
    path = write(tmp_path, "d.json", '[{"name": "A", "colour": "hero", "s": NaN}]')
    with pytest.raises(InvalidConfigError, match=r"d\.json: refused NaN \(only finite numbers"):
        load_deck(path)


def test_string_not_in_choices(tmp_path):
    path = write(tmp_path, "c.csv", "faction,name,beast_red\nautobot,A,1\n")
    with pytest.raises(
        InvalidConfigError,
        match=r"row 1 \(line 2\), column 'faction': 'autobot' is not a valid choice; "
        r"allowed: one of 'maximal', 'predacon'",
    ):
        load_characters(path)


def test_str_column_refuses_non_strings_and_blank_cells():
    with pytest.raises(InvalidConfigError, match=r"column 'name': 7 \(int\) is not a string"):
        load_deck([{"name": 7, "colour": "hero"}])
    with pytest.raises(InvalidConfigError, match=r"column 'name': '  ' is empty"):
        load_deck([{"name": "  ", "colour": "hero"}])


def test_empty_csv_cell(tmp_path):
    path = write(tmp_path, "d.csv", "name,colour\nA,\n")
    with pytest.raises(InvalidConfigError, match=r"row 1 \(line 2\), column 'colour': '' is empty"):
        load_deck(path)


def test_unique_violation_names_both_rows(tmp_path):
    path = write(tmp_path, "d.csv", "name,colour\nHulk,hero\n# c\nLoki,villain\n Hulk ,villain\n")
    with pytest.raises(
        InvalidConfigError,
        match=r"d\.csv, row 3 \(line 5\), column 'name': 'Hulk' repeats row 1 \(line 2\)",
    ):
        load_deck(path)
    with pytest.raises(
        InvalidConfigError,
        match=r"deck rows, row 2, column 'name': 'A' repeats "
        r"row 1; values in column 'name' must be unique",
    ):
        load_deck([{"name": "A", "colour": "hero"}, {"name": "A", "colour": "hero"}])


def test_non_unique_columns_may_repeat():
    table = load_deck([{"name": "A", "colour": "hero"}, {"name": "B", "colour": "hero"}])
    assert table.column("colour") == ("hero", "hero")


@pytest.mark.parametrize("count", [0, 2])
def test_fewer_than_min_rows(tmp_path, count):
    rows = "".join(f"C{i},hero\n" for i in range(count))
    path = write(tmp_path, "d.csv", "name,colour\n" + rows)
    with pytest.raises(
        InvalidConfigError, match=rf"d\.csv has {count} row\(s\); at least 3 needed"
    ):
        load_deck(path, min_rows=3)


def test_column_spec_must_be_sensible():
    with pytest.raises(TypeError):
        Column(bool)
    with pytest.raises(ValueError, match="choices"):
        Column(int, choices=("a",))
    with pytest.raises(ValueError, match="low"):
        Column(int, low=3, high=1)


# --- round trip property -----------------------------------------------------------------------

NAMES = st.text(alphabet=st.sampled_from("abcXYZ019 ,'\"#-éü"), min_size=1, max_size=12).filter(
    lambda s: s == s.strip() and not s.startswith("#")
)


@st.composite
def tables(draw):
    extras = draw(st.lists(st.sampled_from(["speed", "iq", "z"]), unique=True, max_size=3))
    names = draw(st.lists(NAMES, min_size=1, max_size=8, unique=True))
    rows = []
    for name in names:
        row = {"name": name, "count": draw(st.integers(-(10**12), 10**12))}
        for column in extras:
            row[column] = draw(st.floats(allow_nan=False, allow_infinity=False))
        rows.append(row)
    return extras, rows


@settings(max_examples=100, deadline=None)
@given(tables())
def test_csv_and_json_round_trip_exactly(table):
    extras, rows = table
    columns = {"name": Column(str, unique=True), "count": Column(int)}
    with tempfile.TemporaryDirectory() as folder:
        csv_path, json_path = Path(folder, "t.csv"), Path(folder, "t.json")
        with csv_path.open("w", newline="", encoding="utf-8") as handle:
            handle.write("# invented numbers\n")
            writer = csv.writer(handle)
            writer.writerow(["name", "count", *extras])
            writer.writerows(
                [[repr(v) if isinstance(v, float) else v for v in r.values()] for r in rows]
            )
        json_path.write_text(json.dumps(rows), encoding="utf-8")
        loaded = [
            load_table(source, columns, extra=Column(float))
            for source in (csv_path, json_path, rows)
        ]
    for result in loaded:
        assert result.columns == ("name", "count", *extras)
        assert result.rows == tuple(rows)
        for got, want in zip(result.rows, rows, strict=True):
            assert [type(v) for v in got.values()] == [type(v) for v in want.values()]


# --- limits: decks and character files come from other people -----------------------------------
def test_a_million_row_deck_is_refused_at_once(tmp_path):
    class Watched(list):
        """Counts the rows the loader looks at."""

        touched = 0

        def __iter__(self):
            for row in super().__iter__():
                Watched.touched += 1
                yield row

        def __getitem__(self, index):
            Watched.touched += 1
            return super().__getitem__(index)

    rows = Watched({"name": f"c{i}", "colour": "hero", "s": i} for i in range(10**6))
    with pytest.raises(
        InvalidConfigError, match=r"deck rows has more than 2,000 rows; at most 2,000"
    ):
        load_deck(rows)
    assert Watched.touched <= 2_001  # refused before the rows past the limit are read
    path = write(
        tmp_path, "d.csv", "name,colour,s\n" + "".join(f"c{i},hero,{i}\n" for i in range(10**6))
    )
    with pytest.raises(InvalidConfigError, match=r"d\.csv' is [\d,]+ bytes; at most 4,194,304"):
        load_deck(path)  # the size, from the file system, before a byte is read


@pytest.mark.parametrize("suffix", [".csv", ".json"])
def test_row_limits_hold_for_files_under_the_size_limit(tmp_path, suffix):
    rows = [{"name": f"c{i}", "colour": "hero", "s": i} for i in range(2001)]
    if suffix == ".csv":
        text = "name,colour,s\n" + "".join(f"{r['name']},hero,{r['s']}\n" for r in rows)
    else:
        text = json.dumps(rows)
    path = write(tmp_path, "d" + suffix, text)
    with pytest.raises(InvalidConfigError, match=r"has more than 2,000 rows"):
        load_deck(path)
    assert len(load_deck(rows[:2000]).rows) == 2000
    with pytest.raises(InvalidConfigError, match=r"characters rows has more than 100 rows"):
        load_table([{"faction": "maximal"}] * 101, CHARACTER_COLUMNS, what="characters")
    with pytest.raises(InvalidConfigError, match=r"more than 5 rows"):
        load_deck(rows[:6], max_rows=5)


def test_columns_and_cells_are_bounded(tmp_path):
    wide = {"name": "A", "colour": "hero", **{f"c{i}": 1 for i in range(63)}}
    with pytest.raises(InvalidConfigError, match=r"row 1 has 65 columns; at most 64"):
        load_deck([wide])
    header = ",".join(["name", "colour", *(f"c{i}" for i in range(63))])
    with pytest.raises(InvalidConfigError, match=r"line 1: the header has 65 columns; at most 64"):
        load_deck(write(tmp_path, "w.csv", header + "\n"))
    with pytest.raises(InvalidConfigError, match=r"column 'name': 'xxx.*' is 300 characters long"):
        load_deck([{"name": "x" * 300, "colour": "hero", "s": 1}])
    with pytest.raises(InvalidConfigError, match=r"column name 'yyy.*' is 300 characters long"):
        load_deck([{"name": "A", "colour": "hero", "y" * 300: 1}])
    with pytest.raises(InvalidConfigError, match=r"line 2 is 20,000 characters long; at most"):
        load_deck(write(tmp_path, "l.csv", "name,colour,s\n" + "x" * 20_000 + "\n"))


def test_huge_integers_are_refused_cleanly(tmp_path):
    digits = "7" * 5000
    path = write(tmp_path, "d.json", f'[{{"name": "A", "colour": "hero", "s": {digits}}}]')
    with pytest.raises(InvalidConfigError, match=r"d\.json: refused an integer of 5000 digits"):
        load_deck(path)
    path = write(tmp_path, "d.csv", f"name,colour,s\nA,hero,{digits}\n")
    with pytest.raises(
        InvalidConfigError,
        match=r"row 1 \(line 2\), column 's': '777.*' is 5,000 characters long \(at most 256\)",
    ):
        load_deck(path)
    with pytest.raises(
        InvalidConfigError, match=r"'s': <an integer of 5001 digits> is not a finite"
    ):
        load_deck([{"name": "A", "colour": "hero", "s": 10**5000}])
    with pytest.raises(
        InvalidConfigError, match=r"'beast_red': <an integer of 5001 digits> is out"
    ):
        load_table([{"faction": "maximal", "name": "A", "beast_red": 10**5000}],
                   CHARACTER_COLUMNS)  # fmt: skip


def test_deep_nesting_is_refused_cleanly(tmp_path):
    deep = "[" * 100_000 + "]" * 100_000
    path = write(tmp_path, "d.json", f'[{{"name": "A", "colour": "hero", "s": {deep}}}]')
    with pytest.raises(InvalidConfigError, match=r"d\.json: JSON nested too deeply"):
        load_deck(path)
    nested: list = []
    for _ in range(100_000):
        nested = [nested]
    with pytest.raises(
        InvalidConfigError, match=r"'s': \[\[\[\[\.\.\.\]\]\]\] \(list\) is not a n"
    ):
        load_deck([{"name": "A", "colour": "hero", "s": nested}])


def test_a_deck_that_is_not_utf8_is_refused(tmp_path):
    path = tmp_path / "d.csv"
    path.write_bytes("name,colour,s\nCafé,hero,1\n".encode("latin-1"))
    with pytest.raises(
        InvalidConfigError, match=r"d\.csv' is not UTF-8 text \(byte 17: b'\\xe9'\)"
    ):
        load_deck(path)


def test_control_characters_in_cells_are_escaped_in_messages():
    with pytest.raises(InvalidConfigError) as error:
        load_characters([{"faction": "\x1b[2Jautobot", "name": "A", "beast_red": 1}])
    assert "\x1b" not in str(error.value) and "\\x1b[2J" in str(error.value)


# --- config limits in the envs --------------------------------------------------------------
@pytest.mark.parametrize(
    ("env", "config", "message"),
    [
        ("cardline_v0", {"hand_size": 17}, r"hand_size is 17; at most 16"),
        ("cardline_v0", {"max_turns": 10**7}, r"max_turns is 10000000; at most 1,000,000"),
        ("cardline_v0", {"num_players": 10**5000}, r"num_players must be in 2\.\.8, got <an int"),
        ("promise_war_v0", {"max_power": 10**9}, r"max_power is 1000000000; at most 100 "),
        ("promise_war_v0", {"decks": [1] * 10_001}, r"decks holds 10,001 entries; at most 10,000"),
        ("promise_war_v0", {"decks": [[1], [1] * 10_001]}, r"decks\['player_1'\] holds 10,001"),
        ("promise_war_v0", {"max_tricks": 10**40}, r"max_tricks is .*; at most 1,000,000"),
        ("ironman_war_v0", {"deck": {"attack_1": 10**9}}, r"deck\['attack_1'\] is 1000000000"),
        ("ironman_war_v0", {"victory_cards": 10**7}, r"victory_cards is 10000000"),
        ("beast_wars_v0", {"max_turns": 10**7}, r"max_turns is 10000000; at most 1,000,000"),
    ],
)
def test_config_values_that_size_allocations_are_bounded(env, config, message):
    from cardarena.envs import make

    with pytest.raises(InvalidConfigError, match=message):
        make(env, **config)  # refused by the limit (the message says so), before any allocation


def test_reset_option_lists_are_bounded():
    from cardarena.envs import make

    env = make("promise_war_v0")
    with pytest.raises(InvalidConfigError, match=r"options\['decks'\]\['player_0'\] holds 20,000"):
        env.reset(seed=0, options={"decks": [[1] * 20_000, [1]]})
    env = make("cardline_v0")
    with pytest.raises(InvalidConfigError, match=r"options\['draw_pile'\] holds 100,000 entries"):
        env.reset(seed=0, options={"draw_pile": ["Hulk"] * 100_000})


def test_the_largest_cardline_env_stays_small():
    import tracemalloc

    from cardarena.envs import make

    rng = np.random.default_rng(0)
    deck = [
        {"name": f"c{i}", "colour": "x", "v": float(v)} for i, v in enumerate(rng.permutation(2000))
    ]
    tracemalloc.start()
    try:
        env = make("cardline_v0", num_players=8, hand_size=16, deck=deck)
        env.reset(seed=0)
        env.last()
        env.unwrapped.state()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 50 * 1024 * 1024
