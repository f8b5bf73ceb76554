"""``web/replays.py``'s request checks and record reading on their own: the documented limits,
numbers from a query string, a record file's lines wherever its newlines are, and the size
bound at its edge."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from cardarena.envs.core import InvalidConfigError
from cardarena.envs.core.events import Event
from cardarena.evaluation.records import TERMINATED, play_match, rank_returns
from cardarena.web.replays import (
    DEFAULT_FRAMES,
    MAX_FRAMES,
    MAX_PAGE_CHARS,
    MAX_RECORD_BYTES,
    MAX_RECORDS,
    ReplayAsk,
    _describe,
    _result_line,
    pick_record,
    replay_answer,
    replay_ask,
)

DOCS = (Path(__file__).resolve().parents[2] / "docs" / "web_api.md").read_text()


def test_the_limits_are_the_documented_ones():
    count = re.search(r"\| `count` \| frames in the page, 1 to (\d+) \(default (\d+)\) \|", DOCS)
    assert count and (int(count[1]), int(count[2])) == (MAX_FRAMES, DEFAULT_FRAMES)
    record = re.search(r"a record at most (\d+) MiB and ([\d,]+) records", DOCS)
    assert record, "docs/web_api.md lost the record limits"
    assert int(record[1]) * 1024 * 1024 == MAX_RECORD_BYTES
    assert int(record[2].replace(",", "")) == MAX_RECORDS
    assert ReplayAsk() == ReplayAsk(game=0, start=0, count=DEFAULT_FRAMES, any_version=False)
    assert replay_ask({}) == ReplayAsk()


def test_query_digits_up_to_nine_are_numbers_and_longer_ones_are_not():
    assert replay_ask({"from": "999999", "count": "7", "game": "3"}) == ReplayAsk(3, 999999, 7)
    with pytest.raises(InvalidConfigError, match=r"'from' must be .* got 100000000$"):
        replay_ask({"from": "100000000"})  # nine digits: read as a number, then out of range
    with pytest.raises(InvalidConfigError, match=r"'from' must be .* got '1000000000'$"):
        replay_ask({"from": "1000000000"})  # ten: never converted (a huge text stays text)


@pytest.fixture(scope="module")
def record_line() -> bytes:
    seats = ("player_0", "player_1")
    return play_match("promise_war_v0", dict.fromkeys(seats, "random"), 3).to_json().encode()


def test_a_record_file_is_read_line_by_line_wherever_its_newlines_are(record_line):
    for data in (record_line, b"\n" + record_line, record_line + b"\n\n", b"\n\n" + record_line):
        summaries, record = pick_record(data, 0)
        assert len(summaries) == 1 and record.seed == 3
    for data in (record_line + b"\n" + record_line, b"\n" + record_line + b"\n" + record_line):
        summaries, record = pick_record(data, 1)
        assert [s["game"] for s in summaries] == [0, 1]


def test_a_record_is_refused_for_its_size_only_past_the_limit():
    with pytest.raises(InvalidConfigError, match="no match record in the text"):
        pick_record(b"\n" * MAX_RECORD_BYTES, 0)  # at the limit: read (and empty)
    with pytest.raises(InvalidConfigError, match=f"at most {MAX_RECORD_BYTES:,} are read"):
        pick_record(b"\n" * (MAX_RECORD_BYTES + 1), 0)


def test_a_game_past_the_files_end_is_named_with_the_range_held(record_line):
    with pytest.raises(InvalidConfigError, match=r"is 1 but the text holds 1 game \(0\.\.0\)$"):
        pick_record(record_line, 1)
    with pytest.raises(InvalidConfigError, match=r"is 5 but the text holds 2 games \(0\.\.1\)$"):
        pick_record(record_line + b"\n" + record_line, 5)


def test_a_bad_line_is_named_by_its_number_blank_lines_counted(record_line):
    for data, number in ((b"{nope", 1), (record_line + b"\n\n{nope", 3), (b"\n{nope", 2)):
        with pytest.raises(InvalidConfigError, match=rf"^line {number}: "):
            pick_record(data, 0)


def test_pages_link_to_the_next_until_the_last_frame(record_line):
    steps = pick_record(record_line, 0)[1].steps
    page = replay_answer(record_line, ReplayAsk(count=steps))  # frames 0..steps-1
    assert (len(page["frames"]), page["next"]) == (steps, steps)
    last = replay_answer(record_line, ReplayAsk(start=steps, count=1))  # frame `steps`
    assert (len(last["frames"]), last["next"]) == (1, None)


def test_an_event_a_game_cannot_describe_names_no_seat_you():
    class Undescribed:
        possible_agents = ("player_0", "player_1")

        def describe_event(self, event, viewer):
            raise KeyError("no such kind")

    for seat in (0, 1):
        line = _describe(Undescribed(), Event("trick_won", {"winner": seat}))
        assert line == f"trick won: winner=player_{seat}"


def test_a_page_stops_at_the_documented_characters_and_games_at_the_records_held():
    stated = re.search(r"a page's table texts stop once\s+they pass ([\d,]+) characters", DOCS)
    assert stated and int(stated[1].replace(",", "")) == MAX_PAGE_CHARS
    assert replay_ask({"game": MAX_RECORDS - 1}).game == MAX_RECORDS - 1
    last = f"{MAX_RECORDS - 1:,}"
    with pytest.raises(InvalidConfigError, match=rf"'game' must be an integer in 0\.\.{last},"):
        replay_ask({"game": MAX_RECORDS})


def test_a_file_holds_at_most_the_documented_records(record_line):
    """1,000 records (under half a KB each: well inside the size bound) are read, the last
    one too; one more is refused by the count, naming it."""
    held = (record_line + b"\n") * MAX_RECORDS
    assert len(held) < MAX_RECORD_BYTES
    summaries, _ = pick_record(held, MAX_RECORDS - 1)
    assert len(summaries) == MAX_RECORDS and summaries[-1]["game"] == MAX_RECORDS - 1
    with pytest.raises(InvalidConfigError, match=f"holds over {MAX_RECORDS} records; send fewer"):
        pick_record(held + record_line, 0)


@pytest.mark.parametrize(
    ("returns", "line"),
    [
        ({"player_0": 1.0, "player_1": -1.0}, "player_0 won"),
        ({"player_0": -1.0, "player_1": 1.0}, "player_1 won"),
        ({"player_0": 0.0, "player_1": 0.0}, "a draw"),
    ],
)
def test_the_result_line_names_the_winners_or_a_draw(record_line, returns, line):
    record = pick_record(record_line, 0)[1]
    finished = replace(
        record, outcome=TERMINATED.label, returns=returns, ranks=rank_returns(returns)
    )
    assert _result_line(finished) == line


def test_a_replay_ask_cannot_change_once_checked():
    from dataclasses import FrozenInstanceError

    ask = replay_ask({"game": "2"})
    with pytest.raises(FrozenInstanceError):
        ask.game = 3  # type: ignore[misc]


def test_a_record_naming_a_served_deck_replays_with_its_rows(tmp_path):
    from cardarena.web.configs import read_served_tables

    years = [1950, 1903, 1999, 1921, 1987, 1914, 1969, 1945, 1932, 1976, 1908, 1961]
    path = tmp_path / "years.csv"
    rows = [f"Event {i},red,{year}" for i, year in enumerate(years)]
    path.write_text("name,colour,year\n" + "\n".join(rows) + "\n", encoding="utf-8")
    served = read_served_tables([f"years={path}"])
    seats = ("player_0", "player_1")
    config = {"deck": served["years"].rows}
    played = play_match("cardline_v0", dict.fromkeys(seats, "random"), 4, config)
    line = replace(played, config={"deck": "years"}).to_json().encode()  # as served games are
    page = replay_answer(line, ReplayAsk(count=3), served)
    assert page["config"] == {"deck": "years"} and len(page["frames"]) == 3
    with pytest.raises(InvalidConfigError, match="years"):
        replay_answer(line, ReplayAsk(count=3))  # not served here: refused, no file read


@pytest.mark.parametrize(
    ("given", "taken"),
    [(True, True), ("1", True), ("true", True), (False, False), ("0", False), ("false", False)],
)
def test_any_version_takes_a_json_bool_or_its_query_spellings(given, taken):
    assert replay_ask({"any_version": given}).any_version is taken


@pytest.mark.parametrize("given", ["yes", "True", 1, 0, None, [True]])
def test_any_version_refuses_anything_else(given):
    with pytest.raises(InvalidConfigError, match="field 'any_version' must be true or false"):
        replay_ask({"any_version": given})
