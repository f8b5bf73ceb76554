"""Event lines never tell a player what they could not see at the table (issue 20).

The property, for every env and table size: take a random game to a random point, and a twin
of it in which everything seat ``s`` cannot see is redrawn (``resample_from_infostate``). Play
both on: ``s`` makes the same moves in both, the others make the same moves where those are
legal in the twin (else any legal one). As long as ``s``'s observation is the same in both
games, the event lines ``s`` reads must be the same too. A line that names an opponent's
face-down card, a draw, or a hidden hand breaks it at once, for every game and every kind of
event, including ones added later.

Also: logging is off unless asked for (training never pays for it), and with it on the game
itself is the same game, bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest

from cardarena.envs import make_raw

TABLES = [
    ("promise_war_v0", {}),
    ("promise_war_v0", {"num_players": 4}),
    ("ironman_war_v0", {}),
    ("ironman_war_v0", {"variant": "beginner"}),
    ("beast_wars_v0", {}),
    ("cardline_v0", {}),
    ("cardline_v0", {"num_players": 3}),
]
GAMES = 12
MAX_STEPS = 400


def _recording(name: str, config: dict) -> object:
    env = make_raw(name, **config)
    env.record_events()
    return env


def _random_action(env, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(env.legal_mask())))


def _lines(env, seat: int, start: int) -> list[str]:
    log = env.game_state.events or []
    return [env.describe_event(e, seat) for e in log[start:] if e.visible_to(seat)]


def _over(env) -> bool:
    state = env.game_state
    return state.is_terminal() or state.is_truncated()


@pytest.mark.parametrize(("name", "config"), TABLES, ids=lambda v: str(v))
def test_event_lines_depend_only_on_what_the_seat_saw(name, config):
    rng = np.random.default_rng(2026)
    compared = 0
    for game in range(GAMES):
        real = _recording(name, config)
        real.reset(seed=game)
        for _ in range(int(rng.integers(0, 60))):
            if _over(real):
                break
            real.step(_random_action(real, rng))
        if _over(real):
            continue
        seat = int(rng.integers(len(real.possible_agents)))
        agent = real.possible_agents[seat]
        twin = _recording(name, config)
        twin.set_state(real.game_state.resample_from_infostate(seat, rng))
        start = len(real.game_state.events or [])
        start_twin = len(twin.game_state.events or [])  # the twin kept only what seat saw
        assert _lines(twin, seat, 0) == _lines(real, seat, 0)  # the story so far
        for _ in range(MAX_STEPS):
            if _over(real) or _over(twin):
                break
            if real.agent_selection != twin.agent_selection:
                break  # who acts next is public: the observations already differ
            action = _random_action(real, rng)
            action_twin = _random_action(twin, rng) if not twin.legal_mask()[action] else action
            real.step(action)
            twin.step(action_twin)
            seen_real = real.observe(agent)["observation"]
            seen_twin = twin.observe(agent)["observation"]
            if not np.array_equal(seen_real, seen_twin):
                break  # a reveal: from here the games may differ in public
            assert _lines(twin, seat, start_twin) == _lines(real, seat, start), (name, game)
            compared += 1
    assert compared > 0, "no step was compared; the test proves nothing"


@pytest.mark.parametrize(("name", "config"), TABLES[:1] + TABLES[2:3] + TABLES[4:6])
def test_events_are_off_unless_asked_for_and_do_not_change_the_game(name, config):
    plain = make_raw(name, **config)
    plain.reset(seed=5)
    assert plain.game_state.events is None
    logged = _recording(name, config)
    logged.reset(seed=5)
    rng_plain, rng_logged = np.random.default_rng(1), np.random.default_rng(1)
    for _ in range(300):
        if _over(plain):
            break
        plain.step(_random_action(plain, rng_plain))
        logged.step(_random_action(logged, rng_logged))
        np.testing.assert_array_equal(plain.state(), logged.state())
    assert plain.game_state.events is None
    assert logged.game_state.events, "a game with logging on told nothing"
    clone = logged.game_state.clone()
    assert clone.events == logged.game_state.events and clone.events is not logged.game_state.events
