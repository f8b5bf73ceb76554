"""The vector front on every vector engine: the batch's shapes and meaning, seeding,
next-step autoreset, action and config errors, set_state, scaling, and the JIT's equivalence
with plain Python. Each check runs on every env that declares ``VECTOR`` (the test game too).
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers import random_playout
from vector_checks import random_legal_actions, vector_cases, vector_env_names

from cardarena.envs import ENVS, IllegalActionError, InvalidConfigError, make_raw
from cardarena.envs.vector import make_vec, vector_rules_class

NAMES = vector_env_names()
TESTS = Path(__file__).resolve().parents[1]


def per_game_actions(batch, generators):
    """One uniform legal action per game, each from that game's own generator, so game k
    gets the same actions whatever else runs beside it."""
    actions = np.zeros(len(generators), np.int64)
    for k, rng in enumerate(generators):
        legal = np.flatnonzero(batch.action_mask[k])
        actions[k] = legal[rng.integers(legal.size)] if legal.size else 0
    return actions


def play(venv, steps, seed=0):
    generators = [np.random.default_rng([seed, k]) for k in range(venv.num_envs)]
    batch = venv.reset()
    rows = []
    for _ in range(steps):
        rows.append([np.array(a, copy=True) for a in (
            batch.observation, batch.action_mask, batch.current_player, batch.rewards,
            batch.terminated, batch.truncated)])  # fmt: skip
        batch = venv.step(per_game_actions(batch, generators))
    return rows


def test_every_builtin_game_has_a_vector_engine():
    builtin = [name for name in ENVS if ENVS[name].__name__.startswith("cardarena.envs.")]
    assert set(builtin) <= set(NAMES)


@pytest.mark.parametrize("env_name", NAMES)
def test_each_engine_keeps_its_bridge_beside_it_and_never_imports_it(env_name):
    """The conversions to and from a rules state live in ``bridge.py`` beside the engine (the
    tests' door to the engine), and the engine's module holds only the loops."""
    engine = vector_rules_class(env_name)
    bridge = engine.bridge()
    package = engine.__module__.rpartition(".")[0]
    assert bridge.__name__ == f"{package}.bridge"
    for name in ("state_of", "set_state", "state_difference"):
        assert callable(getattr(bridge, name)), name
        assert name not in vars(engine), f"{engine.__name__}.{name} belongs in its bridge"
    source = Path(sys.modules[engine.__module__].__file__).read_text()
    imported = [
        node.module
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ImportFrom) and node.module
    ]
    assert not [m for m in imported if m.rpartition(".")[2] == "bridge"], imported


def test_an_engine_without_a_bridge_says_where_it_belongs(monkeypatch):
    engine = vector_rules_class(NAMES[0])
    orphan = type("Orphan", (engine,), {"__module__": "cardarena.envs.nowhere.vector"})
    with pytest.raises(NotImplementedError, match=r"cardarena\.envs\.nowhere\.bridge"):
        orphan.state_difference(None, None, None)


@pytest.mark.parametrize(("env_name", "index", "config"), vector_cases(), ids=str)
def test_batch_shapes_types_and_meaning(env_name, index, config):
    venv = make_vec(env_name, 16, seed=3, **config)
    raw = make_raw(env_name, **config)
    batch = venv.reset()
    rng = np.random.default_rng(0)
    for _ in range(60):
        n, d, a, p = 16, venv.observation_size, venv.num_actions, venv.num_players
        assert batch.observation.shape == (n, d) and batch.observation.dtype == np.float32
        assert batch.action_mask.shape == (n, a) and batch.action_mask.dtype == np.bool_
        assert batch.current_player.shape == (n,) and batch.current_player.dtype == np.int64
        assert batch.rewards.shape == (n, p) and batch.rewards.dtype == np.float32
        assert batch.terminated.dtype == np.bool_ and batch.truncated.dtype == np.bool_
        space = raw.observation_space(raw.possible_agents[0])["observation"]
        assert all(space.contains(row) for row in batch.observation)
        playing = ~batch.done
        assert (batch.action_mask[playing].any(axis=1)).all()
        assert not batch.action_mask[~playing].any()
        assert ((batch.current_player >= 0) == playing).all()
        assert not batch.rewards[playing].any()
        batch = venv.step(random_legal_actions(batch.action_mask, rng))


@pytest.mark.parametrize("env_name", NAMES)
def test_same_seed_same_batches_and_game_k_independent_of_the_split(env_name):
    small = play(make_vec(env_name, 3, seed=11), 80)
    again = play(make_vec(env_name, 3, seed=11), 80)
    large = play(make_vec(env_name, 7, seed=11), 80)
    other = play(make_vec(env_name, 3, seed=12), 80)
    for step, (a, b, c) in enumerate(zip(small, again, large, strict=True)):
        for x, y, z in zip(a, b, c, strict=True):
            np.testing.assert_array_equal(x, y, err_msg=f"step {step}")
            np.testing.assert_array_equal(x, z[:3], err_msg=f"step {step}")
    assert any(not np.array_equal(a[0], b[0]) for a, b in zip(small, other, strict=True))
    assert len({row.tobytes() for row in large[0][0]}) > 1  # each slot deals its own game


@pytest.mark.parametrize("env_name", NAMES)
def test_reset_replays_and_reset_seed_reseeds(env_name):
    venv = make_vec(env_name, 8, seed=5)
    first = venv.reset().observation.copy()
    venv.step(random_legal_actions(venv.reset().action_mask, np.random.default_rng(0)))
    np.testing.assert_array_equal(venv.reset().observation, first)
    assert venv.seed == 5
    reseeded = venv.reset(seed=6).observation.copy()
    assert venv.seed == 6
    np.testing.assert_array_equal(reseeded, make_vec(env_name, 8, seed=6).reset().observation)
    np.testing.assert_array_equal(make_vec(env_name, 8, seed=5).reset().observation, first)


@pytest.mark.parametrize("env_name", NAMES)
def test_next_step_autoreset(env_name):
    venv = make_vec(env_name, 8, seed=1)
    batch = venv.reset()
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(3000):
        done = batch.done.copy()
        actions = random_legal_actions(batch.action_mask, rng)
        actions[done] = -99  # ignored: those games are dealt anew
        batch = venv.step(actions)
        if done.any():
            ended += int(done.sum())
            assert not batch.done[done].any()
            assert not batch.rewards[done].any()
            assert (batch.current_player[done] >= 0).all()
            for i in np.flatnonzero(done):
                state = venv.state_of(int(i))
                assert not (state.is_terminal() or state.is_truncated())
        if ended >= 10:
            break
    assert ended >= 10


@pytest.mark.parametrize("env_name", NAMES)
def test_bad_actions_name_the_game_the_action_and_the_legal_ones(env_name):
    venv = make_vec(env_name, 4, seed=0)
    batch = venv.reset()
    before = [venv.state_of(i) for i in range(4)]
    with pytest.raises(IllegalActionError, match=r"shape \(4,\)"):
        venv.step(np.zeros(3, np.int64))
    with pytest.raises(IllegalActionError, match="integers"):
        venv.step(np.zeros(4, np.float32))
    actions = random_legal_actions(batch.action_mask, np.random.default_rng(0))
    illegal = np.flatnonzero(~batch.action_mask[2])
    if illegal.size:
        actions[2] = illegal[0]
        with pytest.raises(IllegalActionError, match=rf"game 2: illegal action {illegal[0]} "):
            venv.step(actions)
    actions[2] = venv.num_actions + 5
    with pytest.raises(IllegalActionError, match=r"game 2: .*out of range.*legal actions: \d"):
        venv.step(actions)
    differ = venv.rules.state_difference
    assert all(differ(b, b, venv.state_of(i)) is None for i, b in enumerate(before))
    actions[2] = np.flatnonzero(batch.action_mask[2])[0]
    venv.step(actions)


def test_bad_config_raises_the_envs_error():
    name = NAMES[0]
    with pytest.raises(InvalidConfigError, match="unknown config key 'colour_blind'"):
        make_vec(name, 4, colour_blind=True)
    for bad in (0, -1, True, 2.5, "8"):
        with pytest.raises(InvalidConfigError, match="num_envs"):
            make_vec(name, bad)
    with pytest.raises(InvalidConfigError, match="seed"):
        make_vec(name, 4, seed=-3)
    with pytest.raises(InvalidConfigError, match="unknown env 'chess_v0'"):
        make_vec("chess_v0", 4)


@pytest.mark.parametrize(("env_name", "index", "config"), vector_cases(), ids=str)
def test_set_state_round_trip(env_name, index, config):
    raw = make_raw(env_name, **config)
    venv = make_vec(env_name, 3, seed=0, **config)
    rng = np.random.default_rng(index)
    raw.reset(seed=index)
    for _ in range(int(rng.integers(0, 12))):
        if raw.terminations[raw.agent_selection] or raw.truncations[raw.agent_selection]:
            break
        raw.step(int(rng.choice(np.flatnonzero(raw.legal_mask()))))
    batch = venv.set_state(1, raw.game_state)
    agent = raw.agent_selection
    seat = raw.agent_name_mapping[agent]
    if batch.current_player[1] >= 0:
        assert batch.current_player[1] == seat
        np.testing.assert_array_equal(batch.observation[1], raw.observe(agent)["observation"])
    for s, name in enumerate(raw.possible_agents):
        seats = np.zeros(3, np.int64)
        seats[1] = s
        np.testing.assert_array_equal(venv.observe(seats)[1], raw.observe(name)["observation"])
    assert venv.rules.state_difference(raw.game_state, raw.game_state, venv.state_of(1)) is None
    with pytest.raises(InvalidConfigError, match="game index"):
        venv.state_of(3)


@pytest.mark.parametrize("env_name", NAMES)
def test_normalize_observation_scales_rows_like_the_env(env_name):
    plain = make_vec(env_name, 6, seed=2)
    scaled = make_vec(env_name, 6, seed=2, normalize_observation=True)
    raw = make_raw(env_name, normalize_observation=True)
    rng = np.random.default_rng(0)
    a, b = plain.reset(), scaled.reset()
    for _ in range(20):
        np.testing.assert_array_equal(b.observation, raw.observation_scaler(a.observation))
        assert ((b.observation >= 0) & (b.observation <= 1)).all()
        actions = random_legal_actions(a.action_mask, rng)
        a, b = plain.step(actions), scaled.step(actions)


def random_games(venv, games, rng):
    """Seat win counts and game lengths of ``games`` finished random games in ``venv``."""
    wins = np.zeros(venv.num_players)
    lengths = []
    steps = np.zeros(venv.num_envs, np.int64)
    batch = venv.reset()
    while len(lengths) < games:
        playing = ~batch.done
        steps[playing] += 1
        batch = venv.step(random_legal_actions(batch.action_mask, rng))
        for i in np.flatnonzero(batch.done):
            wins += batch.rewards[i] > 0
            lengths.append(steps[i])
            steps[i] = 0
    return wins, np.array(lengths[:games], np.float64)


def env_random_games(env_name, games, rng):
    from cardarena.envs import make

    env = make(env_name)
    wins = np.zeros(len(env.possible_agents))
    lengths = []
    for game in range(games):
        env.reset(seed=game)
        steps = []
        final = random_playout(env, rng, on_step=steps.append)
        wins += np.array([final[a] > 0 for a in env.possible_agents])
        lengths.append(len(steps))
    return wins, np.array(lengths, np.float64)


@pytest.mark.parametrize("env_name", NAMES)
def test_random_play_statistics_match_the_env(env_name):
    """Seat win rates and mean game length of random play, on the vector engine (20,000 games)
    and through ``env()`` (400 games), agree within their 99% intervals."""
    vector_games, env_games = 20_000, 400
    wins_b, lengths_b = random_games(make_vec(env_name, 1024, seed=9), vector_games,
                                     np.random.default_rng(9))  # fmt: skip
    wins_e, lengths_e = env_random_games(env_name, env_games, np.random.default_rng(9))
    z = 2.576
    for seat, (w_b, w_e) in enumerate(zip(wins_b, wins_e, strict=True)):
        p_b, p_e = w_b / vector_games, w_e / env_games
        spread = z * np.sqrt(p_b * (1 - p_b) / vector_games + p_e * (1 - p_e) / env_games)
        assert abs(p_b - p_e) <= spread + 1e-9, (seat, p_b, p_e, spread)
    spread = z * np.sqrt(lengths_b.var() / vector_games + lengths_e.var() / env_games)
    assert abs(lengths_b.mean() - lengths_e.mean()) <= spread + 1e-9, (
        lengths_b.mean(), lengths_e.mean(), spread)  # fmt: skip


_JIT_PROGRAM = """
import hashlib, json, sys
import numpy as np
sys.path[:0] = [{tests!r}, {tests!r} + "/vector"]
import conftest_game
from cardarena.envs.core.kernels import JIT_ENABLED
from cardarena.envs.vector import make_vec
from vector_checks import random_legal_actions
digests = {{}}
for name, config in json.loads(sys.argv[1]):
    venv = make_vec(name, 16, seed=4, **config)
    batch, rng, h = venv.reset(), np.random.default_rng(4), hashlib.sha256()
    for _ in range(150):
        for a in (batch.observation, batch.action_mask, batch.current_player, batch.rewards,
                  batch.terminated, batch.truncated):
            h.update(a.tobytes())
        batch = venv.step(random_legal_actions(batch.action_mask, rng))
    digests[name + json.dumps(config)] = h.hexdigest()
print(json.dumps([JIT_ENABLED, digests]))
"""


def test_plain_python_gives_the_jits_batches_bit_for_bit():
    pytest.importorskip("numba")
    cases = json.dumps([[name, config] for name, _, config in vector_cases()])
    program = _JIT_PROGRAM.format(tests=str(TESTS))
    results = {}
    for jit in ("1", "0"):
        env = {**os.environ, "CARDARENA_JIT": jit}
        out = subprocess.run([sys.executable, "-c", program, cases], env=env, check=True,
                             capture_output=True, text=True, timeout=900)  # fmt: skip
        results[jit] = json.loads(out.stdout.strip().splitlines()[-1])
    assert results["1"][0] is True and results["0"][0] is False
    assert results["1"][1] == results["0"][1]


@pytest.mark.parametrize("env_name", NAMES)
def test_observations_skip_a_slot_without_a_seat_and_write_every_slot_after_it(env_name):
    """``VectorRules.observations``: a slot whose seat is negative (a finished game's) is left
    as it is, and each slot after it still gets its seat's view, as the raw env gives it."""
    venv = make_vec(env_name, 4, seed=3)
    batch = venv.reset()
    rules = venv.rules
    seats = batch.current_player.copy()
    seats[[0, 2]] = -1
    out = np.full((4, rules.observation_size), 7.0, np.float32)
    rules.observations(seats, out)
    assert (out[[0, 2]] == 7.0).all()
    for slot in (1, 3):
        raw = make_raw(env_name)
        raw.reset(seed=0)
        raw.set_state(venv.state_of(slot))
        agent = raw.possible_agents[seats[slot]]
        np.testing.assert_array_equal(out[slot], raw.observe(agent)["observation"])


def test_the_action_checks_options_are_keywords_only():
    """``flatten``, ``seats`` and ``who`` change what is accepted and how a refusal reads; a
    positional ``True`` must not be taken for one of them."""
    venv = make_vec("promise_war_v0", 2, seed=0)
    batch = venv.reset()
    actions = random_legal_actions(batch.action_mask, np.random.default_rng(0))
    skip = np.zeros(2, np.bool_)
    out = np.zeros(2, np.int64)
    with pytest.raises(TypeError):
        venv.check_actions(actions, batch.action_mask, skip, out, True)  # type: ignore[misc]
    checked = venv.check_actions(actions, batch.action_mask, skip, out, flatten=True)
    assert checked is out and out.tolist() == list(actions)
