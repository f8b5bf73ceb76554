"""Match records: what play_match records, JSON-lines round trips, and clear errors."""

from __future__ import annotations

import importlib.metadata
import json

import numpy as np
import pytest

from cardarena.agents import AGENT_SPECS, BaseAgent, EnvSpec, RandomAgent, register_agent
from cardarena.envs import ENVS, make
from cardarena.envs.core import IllegalActionError, InvalidConfigError
from cardarena.evaluation.records import (
    MatchRecord,
    agent_seed,
    play_match,
    rank_returns,
    read_records,
    write_records,
)
from cardarena.training.jsonl import TornLineWarning


class Recorder(BaseAgent):
    """Random play that remembers every instance and what it was told at game start."""

    spec = "recorder"
    made: list[Recorder] = []

    def __init__(self, seed=None):
        super().__init__(seed)
        self.built_with = seed
        self.moves = 0
        Recorder.made.append(self)

    def act(self, observation):
        self.moves += 1
        legal = np.flatnonzero(observation["action_mask"])
        return int(legal[self.rng.integers(legal.size)])


class Cheater(BaseAgent):
    """Plays its first illegal action (a legal one if every action is legal)."""

    spec = "cheater"

    def act(self, observation):
        illegal = np.flatnonzero(observation["action_mask"] == 0)
        return int(illegal[0]) if illegal.size else 0


class Plain:
    """An act-only agent without spec, seed or start_game."""

    def act(self, observation):
        return int(np.flatnonzero(observation["action_mask"])[0])


@pytest.fixture
def recorder_spec():
    Recorder.made.clear()
    register_agent("recorder", Recorder, "test: random play that remembers its instances")
    yield "recorder"
    AGENT_SPECS.pop("recorder", None)


def seats(env: str, **config) -> list[str]:
    return list(make(env, **config).possible_agents)


@pytest.mark.parametrize("env", sorted(ENVS))
def test_record_describes_the_game(env):
    lineup = dict.fromkeys(seats(env), "random")
    record = play_match(env, lineup, seed=11)
    assert record.env == env
    assert record.version == importlib.metadata.version("cardarena")
    assert record.config == {} and record.seed == 11 and record.lineup == lineup
    assert record.outcome == "terminated" and record.offender is None
    assert record.steps == len(record.actions) > 0
    assert all(type(action) is int for action in record.actions)
    assert sorted(record.returns) == sorted(lineup) and max(record.returns.values()) == 1.0
    assert record.ranks == rank_returns(record.returns)
    # The same game again, and the env's own end-of-game info agrees.
    assert play_match(env, lineup, seed=11) == record
    game = make(env)
    game.reset(seed=11)
    for action in record.actions:
        game.step(action)
    info = game.infos[game.agent_selection]
    assert info["steps"] == record.steps
    assert {seat: float(game._cumulative_rewards[seat]) for seat in lineup} == record.returns


@pytest.mark.parametrize("env", sorted(ENVS))
def test_json_round_trip(env, tmp_path):
    records = [play_match(env, dict.fromkeys(seats(env), "random"), seed=s) for s in range(3)]
    for record in records:
        line = record.to_json()
        assert "\n" not in line and json.loads(line)["format"] == 1
        assert MatchRecord.from_json(line) == record
    path = tmp_path / "sub" / "games.jsonl"
    write_records(path, records[:2])
    write_records(path, records[2:])  # appends
    assert read_records(path) == records
    assert len(path.read_text().splitlines()) == 3


def test_config_and_more_seats_are_recorded():
    config = {"num_players": 3, "max_power": 6}
    lineup = {"player_0": "random", "player_1": RandomAgent(5), "player_2": Plain()}
    record = play_match("promise_war_v0", lineup, seed=2, config={**config, "render_mode": "ansi"})
    assert record.config == config  # render_mode does not change the game: not recorded
    assert record.lineup == {"player_0": "random", "player_1": "random", "player_2": "Plain"}
    assert MatchRecord.from_json(record.to_json()) == record
    assert sorted(record.ranks.values())[0] == 1


def test_truncated_game_ranks_everyone_first():
    lineup = dict.fromkeys(seats("promise_war_v0"), "random")
    record = play_match("promise_war_v0", lineup, seed=1, config={"max_tricks": 2})
    assert record.outcome == "truncated"
    assert record.returns == dict.fromkeys(lineup, 0.0)
    assert record.ranks == dict.fromkeys(lineup, 1)


def test_each_seat_gets_its_own_seeded_instance_told_its_seat(recorder_spec):
    env = "promise_war_v0"
    config = {"num_players": 3}
    names = seats(env, **config)
    play_match(env, dict.fromkeys(names, recorder_spec), seed=9, config=config)
    assert len(Recorder.made) == 3 and len({id(agent) for agent in Recorder.made}) == 3
    for index, (agent, seat) in enumerate(zip(Recorder.made, names, strict=True)):
        assert agent.seat == seat
        assert agent.env_spec == EnvSpec(env, config)
        assert agent.built_with == agent_seed(9, index)
        assert agent.moves > 0


def test_agent_objects_are_used_as_given():
    first, second = RandomAgent(1), RandomAgent(1)
    record = play_match("cardline_v0", {"player_0": first, "player_1": second}, seed=4)
    assert first.seat == "player_0" and second.seat == "player_1"
    assert record.lineup == {"player_0": "random", "player_1": "random"}
    # Fresh agents seeded as play_match seeds the ones it builds give the same game.
    same = play_match(
        "cardline_v0",
        {"player_0": RandomAgent(agent_seed(4, 0)), "player_1": RandomAgent(agent_seed(4, 1))},
        seed=4,
    )
    assert same == play_match("cardline_v0", dict.fromkeys(record.lineup, "random"), seed=4)


def test_illegal_move_is_recorded_with_its_offender():
    lineup = {"iron_man": "random", "war_machine": Cheater(0)}
    record = play_match("ironman_war_v0", lineup, seed=3)
    assert record.outcome == "illegal_action" and record.offender == "war_machine"
    assert record.returns == {"iron_man": 0.0, "war_machine": -1.0}
    assert record.ranks == {"iron_man": 1, "war_machine": 2}
    assert record.lineup["war_machine"] == "cheater"
    assert MatchRecord.from_json(record.to_json()) == record


def test_bad_lineups_and_actions_raise():
    with pytest.raises(InvalidConfigError, match="seats"):
        play_match("promise_war_v0", {"player_0": "random"}, seed=0)
    with pytest.raises(InvalidConfigError, match="unknown agent spec"):
        play_match("promise_war_v0", {"player_0": "random", "player_1": "nobody"}, seed=0)
    with pytest.raises(InvalidConfigError, match="unknown env"):
        play_match("chess_v0", {}, seed=0)
    with pytest.raises(InvalidConfigError, match="seed"):
        play_match("promise_war_v0", {"player_0": "random", "player_1": "random"}, seed=-1)

    class Floaty:
        def act(self, observation):
            return 0.5

    with pytest.raises(IllegalActionError, match="integer"):
        play_match("promise_war_v0", {"player_0": Floaty(), "player_1": "random"}, seed=0)


@pytest.fixture(scope="module")
def good_line() -> str:
    lineup = dict.fromkeys(seats("cardline_v0"), "random")
    return play_match("cardline_v0", lineup, seed=0).to_json()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.pop("seed"), "missing field 'seed'"),
        (lambda d: d.update(seed="7"), "field 'seed' must be a non-negative integer"),
        (lambda d: d.update(actions=[1, -2]), "field 'actions'"),
        (lambda d: d.update(actions=[1, True]), "field 'actions'"),
        (lambda d: d.update(outcome="won"), "field 'outcome'"),
        (lambda d: d.update(lineup=["random"]), "field 'lineup'"),
        (lambda d: d.update(returns={"player_0": "1"}), "field 'returns'"),
        (lambda d: d.update(ranks={"player_0": 1}), "field 'ranks' must name"),
        (lambda d: d.update(extra=1), "unknown field 'extra'"),
        (lambda d: d.update(format=2), "field 'format'"),
        (lambda d: d.update(steps=d["steps"] + 1), "field 'steps'"),
        (lambda d: d.update(offender="player_0"), "field 'offender'"),
        (lambda d: d["ranks"].update(player_0=5), "field 'ranks'"),
    ],
)
def test_malformed_records_name_the_field(good_line, change, message):
    data = json.loads(good_line)
    data.pop("digest")  # a record without its digest still has every field checked
    change(data)
    with pytest.raises(InvalidConfigError, match=message):
        MatchRecord.from_json(json.dumps(data))
    signed = json.loads(good_line)
    change(signed)  # with its digest, any edit at all is refused first
    with pytest.raises(InvalidConfigError, match="was edited after it was written"):
        MatchRecord.from_json(json.dumps(signed))


def test_an_edit_that_still_replays_legally_is_refused_by_the_digest(good_line):
    data = json.loads(good_line)
    assert MatchRecord.from_json(good_line).to_json() == good_line  # stable round trip
    data["actions"] = list(data["actions"])
    data["seed"] = data["seed"] + 1
    with pytest.raises(InvalidConfigError, match="was edited after it was written"):
        MatchRecord.from_json(json.dumps(data))


def test_read_records_names_the_bad_line(tmp_path, good_line):
    path = tmp_path / "games.jsonl"
    path.write_text(f"{good_line}\n\n{good_line}\n{{not json\n")
    with pytest.raises(InvalidConfigError, match=r"games\.jsonl, line 4 is not valid JSON"):
        read_records(path)
    path.write_text(f"{good_line}\n[1, 2]\n")
    with pytest.raises(InvalidConfigError, match=r"line 2: .*JSON object"):
        read_records(path)
    path.write_text(f"\n{good_line}\n\n")
    assert len(read_records(path)) == 1


def test_rank_returns_shares_ties():
    assert rank_returns({"a": 1.0, "b": -1.0, "c": 1.0, "d": 0.0}) == {
        "a": 1,
        "b": 4,
        "c": 1,
        "d": 3,
    }


# --- files from others: torn writes, limits, hostile content ---------------------------------
def test_a_torn_last_record_is_dropped_and_the_next_write_starts_fresh(tmp_path, good_line):
    path = tmp_path / "games.jsonl"
    path.write_text(f"{good_line}\n{good_line}\n{good_line[: len(good_line) // 2]}")
    with pytest.warns(TornLineWarning, match=r"games\.jsonl, line 3: dropped a torn last line"):
        assert len(read_records(path)) == 2
    record = MatchRecord.from_json(good_line)
    with pytest.warns(TornLineWarning, match=r"games\.jsonl, line 3"):
        write_records(path, [record])
    assert path.read_text() == f"{good_line}\n" * 3
    assert read_records(path) == [record] * 3


def test_a_torn_record_in_the_middle_is_refused(tmp_path, good_line):
    path = tmp_path / "games.jsonl"
    path.write_text(f"{good_line}\n{good_line[:50]}\n{good_line}\n")
    with pytest.raises(InvalidConfigError, match=r"games\.jsonl, line 2 is not valid JSON"):
        read_records(path)


def _unsigned(good_line: str, **changes) -> str:
    data = json.loads(good_line)
    data.pop("digest")
    data.update(changes)
    return json.dumps(data)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"seed": ' + "9" * 5000 + "}", r"line 2: refused an integer of 5000 digits \(at most 40"),
        ('{"config": ' + "[" * 100_000 + "]" * 100_000 + "}", r"line 2: JSON nested too deeply"),
        ('{"returns": {"player_0": NaN}}', r"line 2: refused NaN"),
    ],
    ids=["digits", "nesting", "nan"],
)
def test_hostile_numbers_and_nesting_are_refused_naming_the_line(
    tmp_path, good_line, line, message
):
    path = tmp_path / "games.jsonl"
    path.write_text(f"{good_line}\n{line}\n")
    with pytest.raises(InvalidConfigError, match=message):
        read_records(path)
    with pytest.raises(InvalidConfigError, match=message.replace("line 2: ", "")):
        MatchRecord.from_json(line)


def test_a_record_file_that_is_not_utf8_is_refused(tmp_path, good_line):
    path = tmp_path / "games.jsonl"
    path.write_bytes(good_line.encode() + b"\n" + "é".encode("latin-1") + b"\n")
    with pytest.raises(InvalidConfigError, match=r"line 2 is not UTF-8 text \(byte 0: b'\\xe9'\)"):
        read_records(path)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"actions": [0] * 1_000_001}, r"'actions' holds 1,000,001 actions; at most 1,000,000"),
        ({"lineup": {f"s{i}": "random" for i in range(9)}}, r"'lineup' names 9 seats; .* most 8"),
        ({"ranks": {f"s{i}": 1 for i in range(100)}}, r"'ranks' names 100 seats"),
        ({"env": "x" * 5000}, r"'env' is 5,000 characters long; at most 4,096"),
        ({"lineup": {"player_0": "r" * 5000, "player_1": "random"}}, r"value of 'player_0' is 5"),
        ({"seed": [[[[[[1]]]]]]}, r"'seed' must be a non-negative integer, got \[\[\[\[\.\.\.\]"),
    ],
)
def test_records_past_the_limits_are_refused_before_checking(good_line, changes, message):
    with pytest.raises(InvalidConfigError, match=message):
        MatchRecord.from_json(_unsigned(good_line, **changes))


def test_a_record_file_past_the_size_limit_is_refused_before_reading(tmp_path, monkeypatch):
    import cardarena.evaluation.records as records

    path = tmp_path / "games.jsonl"
    path.write_text("x" * 2000)
    monkeypatch.setattr(records, "MAX_RECORDS_BYTES", 1000)
    with pytest.raises(InvalidConfigError, match=r"is 2,000 bytes; at most 1,000 are read"):
        read_records(path)
