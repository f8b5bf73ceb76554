"""The replay viewer's API (``POST /api/replays``, docs/web_api.md): one page of frames per
request, the record checked whole each time, every refusal a 400 naming the field, and a game
of 358,000 actions answered within the documented bounds of memory and answer size."""

from __future__ import annotations

import json
import re
import tracemalloc
from dataclasses import replace

import numpy as np
import pytest
from web_helpers import ok, refused

from cardarena.envs import ENVS, make_raw
from cardarena.envs.core.events import describe_generic
from cardarena.evaluation.records import MatchRecord, package_version, play_match, rank_returns
from cardarena.evaluation.replay import ReplayError, replay_page
from cardarena.web.replays import DEFAULT_FRAMES, MAX_FRAMES, MAX_RECORD_BYTES

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def record_of(env: str = "ironman_war_v0", seed: int = 3, config: dict | None = None):
    seats = make_raw(env, **(config or {})).possible_agents
    return play_match(
        env, dict.fromkeys(seats, "heuristic" if env != "high_card_v0" else "random"), seed, config
    )


def reference_frames(record: MatchRecord) -> list[dict]:
    """Every frame of ``record``'s game the plain way, independent of the paging: one env
    logging every event from the deal on, rendered after every action (what the viewer sent
    whole before it paged)."""
    env = make_raw(record.env, **record.config, render_mode="ansi")
    env.record_events()
    env.reset(seed=record.seed)
    told = 0

    def lines() -> list[str]:
        nonlocal told
        log = env.game_state.events or []
        new = []
        for event in log[told:]:
            try:
                new.append(env.describe_event(event, -1))
            except Exception:
                new.append(describe_generic(event, tuple(env.possible_agents), -1))
        told = len(log)
        return new

    frame = {"step": 0, "seat": None, "action": None, "name": None}
    frames = [{**frame, "text": ANSI.sub("", env.render()), "events": lines()}]
    for step, action in enumerate(record.actions, start=1):
        seat, state = env.agent_selection, env.game_state
        name = state.action_to_string(action)
        if not env.legal_mask()[action]:  # the illegal move that ended the game
            events = [f"{seat} tried an illegal action (illegal: {name}); the game ends"]
            name = f"illegal: {name}"
        else:
            env.step(action)
            events = lines()
        frame = {"step": step, "seat": seat, "action": action, "name": name}
        frames.append({**frame, "text": ANSI.sub("", env.render()), "events": events})
    return frames


def post(client, record: MatchRecord | str, **options):
    text = record if isinstance(record, str) else record.to_json()
    return client.post("/api/replays", json={"record": text, **options})


def test_a_page_of_a_record(client):
    record = record_of()
    data = ok(post(client, record))
    assert data["env"] == "ironman_war_v0" and data["seed"] == 3 and data["game"] == 0
    assert data["total_steps"] == record.steps < DEFAULT_FRAMES and data["from"] == 0
    assert data["next"] is None and len(data["games"]) == 1 and data["result"]
    frames = data["frames"]
    assert [frame["step"] for frame in frames] == list(range(record.steps + 1))
    assert frames[0]["seat"] is None and frames[0]["name"] is None and frames[0]["text"]
    assert [frame["action"] for frame in frames[1:]] == record.actions
    assert frames[1]["seat"] == "iron_man" and frames[1]["name"]
    assert not any("\x1b" in frame["text"] for frame in frames)
    assert any(frame["events"] for frame in frames)
    assert frames == reference_frames(record)


def test_pages_join_up_to_the_whole_game(client):
    record = record_of("promise_war_v0", 2, {"num_players": 8})
    assert record.steps > DEFAULT_FRAMES  # the default page is not the whole game
    first = ok(post(client, record))
    assert len(first["frames"]) == DEFAULT_FRAMES and first["next"] == DEFAULT_FRAMES
    joined, start = [], 0
    for _ in range(record.steps // 37 + 1):
        page = ok(post(client, record, **{"from": start, "count": 37}))
        assert page["from"] == start and page["total_steps"] == record.steps
        assert page["frames"], page  # a page always moves on
        joined += page["frames"]
        start = page["next"]
        if start is None:
            break
    else:
        raise AssertionError(f"the pages did not reach the end, {start} next")
    assert joined == reference_frames(record)
    last = ok(post(client, record, **{"from": record.steps}))
    assert [frame["step"] for frame in last["frames"]] == [record.steps] and last["next"] is None


def example_records() -> list[tuple[str, dict]]:
    cases = []
    for env in sorted(ENVS):
        for config in ENVS[env].raw_env.example_configs:
            try:
                json.dumps(config)
            except TypeError:  # a config naming a Python object cannot be a record
                continue
            cases.append((env, config))
    return cases


@pytest.mark.parametrize(("env", "config"), example_records())
def test_every_window_matches_the_plain_replay(client, env, config):
    """The event log is on only inside the page: a page starting anywhere holds the same
    lines (and texts) as a replay that logged everything from the deal."""
    seats = make_raw(env, **config).possible_agents
    record = play_match(env, dict.fromkeys(seats, "random"), 7, config)
    whole = reference_frames(record)
    rng = np.random.default_rng(len(whole))
    starts = {0, 1, len(whole) - 1, *rng.integers(0, len(whole), 4).tolist()}
    for start in sorted(starts):
        count = int(rng.integers(1, 12))
        page = ok(post(client, record, **{"from": start, "count": count}))
        assert page["frames"] == whole[start : start + count], (env, start, count)


def test_a_file_of_many_records_as_plain_text(client):
    lines = "\n".join(record_of("promise_war_v0", seed).to_json() for seed in (1, 2, 3)) + "\n"
    data = ok(client.post("/api/replays?game=2&from=5&count=3", content=lines.encode()))
    assert data["game"] == 2 and data["seed"] == 3 and len(data["games"]) == 3
    assert [frame["step"] for frame in data["frames"]] == [5, 6, 7]
    assert [game["seed"] for game in data["games"]] == [1, 2, 3]
    refused(client.post("/api/replays?game=3", content=lines.encode()), 400, "'game'", "holds 3")


def test_bad_records_are_400s(client):
    record = json.loads(record_of().to_json())
    refused(post(client, "hello"), 400, "line 1")
    refused(post(client, ""), 400, "no match record")
    refused(client.post("/api/replays", json={"record": 5}), 400, "field 'record'")
    edited = dict(record, actions=record["actions"][:-1])
    refused(post(client, json.dumps(edited)), 400, "edited")
    record.pop("digest")
    old = dict(record, version="0.0.1")
    refused(post(client, json.dumps(old)), 400, "0.0.1")
    ok(post(client, json.dumps(old), any_version=True))
    ok(client.post("/api/replays?any_version=true", content=json.dumps(old).encode()))
    tampered = dict(record, actions=[*record["actions"][:-1], 999])
    refused(post(client, json.dumps(tampered)), 400, "legal")
    # A tampered action far past the page is still found: the whole record is checked.
    refused(post(client, json.dumps(tampered), count=1), 400, "legal")
    huge = b"x" * (MAX_RECORD_BYTES + 1)
    refused(client.post("/api/replays", content=huge), 413, "at most")


BAD_OPTIONS = [
    ({"from": -1}, "field 'from'"),
    ({"from": 1.5}, "field 'from'"),
    ({"from": True}, "field 'from'"),
    ({"from": "x"}, "field 'from'"),
    ({"from": 10**30}, "field 'from'"),
    ({"count": 0}, "field 'count'"),
    ({"count": MAX_FRAMES + 1}, "field 'count'"),
    ({"count": None}, "field 'count'"),
    ({"game": -1}, "field 'game'"),
    ({"any_version": "yes"}, "field 'any_version'"),
    ({"frm": 3}, "unknown field 'frm'"),
]


@pytest.mark.parametrize(("options", "words"), BAD_OPTIONS)
def test_bad_options_are_400s_naming_the_field(client, options, words):
    refused(post(client, record_of(), **options), 400, words)


def test_bad_query_options_and_a_start_past_the_end(client):
    record = record_of()
    body = record.to_json().encode()
    for query, words in [
        ("from=-3", "field 'from'"),
        ("from=abc", "field 'from'"),
        ("count=0", "field 'count'"),
        (f"count={MAX_FRAMES + 1}", "field 'count'"),
        ("frm=3", "unknown field 'frm'"),
    ]:
        refused(client.post(f"/api/replays?{query}", content=body), 400, words)
    past = record.steps + 1
    message = refused(post(client, record, **{"from": past}), 400, "field 'from'")
    assert f"0..{record.steps}" in message
    assert ok(post(client, record, count=MAX_FRAMES))["next"] is None


def test_a_game_ended_by_an_illegal_move(client):
    class Cheat:
        def act(self, observation):
            legal = np.flatnonzero(observation["action_mask"])
            return int(next(a for a in range(len(observation["action_mask"])) if a not in legal))

    record = play_match("promise_war_v0", {"player_0": "heuristic", "player_1": Cheat()}, 2)
    assert record.outcome == "illegal_action"
    data = ok(post(client, record, **{"from": record.steps}))
    assert data["result"] == "player_1 made an illegal move and lost"
    (last,) = data["frames"]
    assert last["step"] == record.steps and last["name"].startswith("illegal: ")
    assert "illegal" in last["events"][0]
    assert ok(post(client, record, count=MAX_FRAMES))["frames"] == reference_frames(record)


def test_a_page_stops_at_its_character_budget():
    record = record_of()
    whole = replay_page(record, 0, MAX_FRAMES)
    texts = [len(frame.text) for frame in whole.frames]
    assert len(whole.frames) == record.steps + 1
    assert len(replay_page(record, 0, 50, max_chars=1).frames) == 1  # always one frame
    budget = sum(texts[10:13]) - 1  # passed within the third frame of a page from 10
    page = replay_page(record, 10, 50, max_chars=budget)
    assert [frame.step for frame in page.frames] == [10, 11, 12]
    assert page.frames == whole.frames[10:13]
    with pytest.raises(ReplayError, match="tampered"):  # the rest is still checked
        replay_page(replace(record, actions=record.actions[:-1], steps=record.steps - 1), 0, 1)


# --- a long game ----------------------------------------------------------------------------

#: Iron Man with victory cards nobody can run out of: only the round cap ends the game.
LONG_CONFIG = {"victory_cards": 1_000_000, "max_rounds": 20_000}
#: The frames of the long game whose table text is kept while it is played.
LATE = range(300_000, 300_000 + DEFAULT_FRAMES)
#: docs/web_api.md: a request holds at most about 40 times the record plus 8 MB.
MEMORY_PER_RECORD_BYTE, MEMORY_FIXED = 40, 8_000_000


def long_game() -> tuple[MatchRecord, dict[int, str]]:
    """An Iron Man game of ~360,000 random legal actions (as ``play_match`` records one,
    without the agents' cost: the rules state stepped with a seeded generator), and its
    table text at the frames ``LATE``."""
    env = make_raw("ironman_war_v0", **LONG_CONFIG, render_mode="ansi")
    env.reset(seed=11)
    state, rng = env.game_state, np.random.default_rng(11)
    actions: list[int] = []
    texts: dict[int, str] = {}
    while not (state.is_terminal() or state.is_truncated()):
        legal = np.flatnonzero(state.legal_action_mask())
        action = int(legal[rng.integers(len(legal))])
        state.apply_legal_action(action)
        actions.append(action)
        if len(actions) in LATE:
            texts[len(actions)] = ANSI.sub("", env.render())
    seats = env.possible_agents
    returns = {seat: float(value) for seat, value in zip(seats, state.returns(), strict=True)}
    record = MatchRecord(
        env="ironman_war_v0",
        version=package_version(),
        config=dict(LONG_CONFIG),
        seed=11,
        lineup=dict.fromkeys(seats, "random"),
        actions=actions,
        returns=returns,
        ranks=rank_returns(returns),
        outcome="truncated" if state.is_truncated() else "terminated",
        offender=None,
        steps=len(actions),
    )
    return record, texts


def test_a_long_game_is_one_page_in_bounded_memory(client):
    """The game of the issue (Iron Man, victory_cards=1000000 max_rounds=20000, ~747 KB):
    one request for a late page, checked whole, in bounded memory and answer size."""
    record, texts = long_game()
    assert record.steps > LATE.stop and record.outcome == "truncated"
    body = record.to_json().encode()
    assert 600_000 < len(body) < MAX_RECORD_BYTES
    tracemalloc.start()
    try:
        response = client.post(f"/api/replays?from={LATE.start}", content=body)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    data = ok(response)
    assert data["total_steps"] == record.steps and data["next"] == LATE.stop
    assert len(response.content) < 400_000, len(response.content)  # was 396 MB, every step
    assert peak < MEMORY_PER_RECORD_BYTE * len(body) + MEMORY_FIXED, (peak, len(body))
    frames = data["frames"]
    assert [frame["step"] for frame in frames] == list(LATE)
    assert [frame["action"] for frame in frames] == record.actions[LATE.start - 1 : LATE.stop - 1]
    assert [frame["text"] for frame in frames] == [texts[step] for step in LATE]
    assert all(frame["events"] for frame in frames)  # every Iron Man move logs a line
