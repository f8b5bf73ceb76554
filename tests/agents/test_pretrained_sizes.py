"""``pretrained`` picks the shipped file by table size: ``<env>.npz`` for the default table,
``<env>_<N>p.npz`` for ``num_players=N``; the scalar agent and its vector form play the same
file, and a size none ships for is refused naming the sizes that do.

No sized file ships yet, so the size tests point the module's folder (``HERE``) at a temporary
one holding a copy of the real default file and tiny random policies of the right shapes.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest

import cardarena.agents.pretrained as pretrained
from cardarena.agents import EnvSpec, NumpyPolicy, PretrainedAgent, make_agent
from cardarena.agents.pretrained import (
    has_pretrained,
    shipped_policies,
    shipped_policy_path,
    shipped_sizes,
)
from cardarena.agents.vector import VectorPolicy, vector_agent
from cardarena.envs import make, make_raw
from cardarena.envs.core import InvalidConfigError, ObservationScaler
from cardarena.evaluation.evaluate import evaluate

ENV = "promise_war_v0"


def _tiny_policy(env_name: str, num_players: int, seed: int) -> NumpyPolicy:
    """A random two-layer policy shaped for ``env_name`` with ``num_players``."""
    raw = make_raw(env_name, num_players=num_players)
    seat = raw.possible_agents[0]
    scaler = ObservationScaler(raw.observation_space(seat)["observation"])
    inputs, actions = scaler.offset.size, int(raw.action_space(seat).n)
    rng = np.random.default_rng(seed)
    layers = [
        (rng.normal(size=(8, inputs)).astype(np.float32), np.zeros(8, np.float32)),
        (rng.normal(size=(actions, 8)).astype(np.float32), np.zeros(actions, np.float32)),
    ]
    meta = {"env": env_name, "config": {"num_players": num_players}}
    return NumpyPolicy(layers, "tanh", scaler.offset, scaler.scale, meta)


@pytest.fixture
def sized(tmp_path, monkeypatch):
    """A folder with ``promise_war_v0`` for 2 (the real file), 3 and 4 players, and a 3-player
    ``cardline_v0`` without a default file; the module reads it instead of its own."""
    shutil.copy(shipped_policies()[ENV], tmp_path / f"{ENV}.npz")
    for players in (3, 4):
        _tiny_policy(ENV, players, seed=players).save(tmp_path / f"{ENV}_{players}p.npz")
    _tiny_policy("cardline_v0", 3, seed=9).save(tmp_path / "cardline_v0_3p.npz")
    monkeypatch.setattr(pretrained, "HERE", tmp_path)
    return tmp_path


def _same(a: NumpyPolicy, b: NumpyPolicy) -> bool:
    return len(a.layers) == len(b.layers) and all(
        np.array_equal(wa, wb) and np.array_equal(ba, bb)
        for (wa, ba), (wb, bb) in zip(a.layers, b.layers, strict=True)
    )


def test_the_file_is_picked_by_table_size(sized):
    assert shipped_sizes(ENV) == {
        2: sized / f"{ENV}.npz",
        3: sized / f"{ENV}_3p.npz",
        4: sized / f"{ENV}_4p.npz",
    }
    assert shipped_policies() == {ENV: sized / f"{ENV}.npz"}  # default tables only
    assert has_pretrained(ENV) and has_pretrained(ENV, 3) and not has_pretrained(ENV, 5)
    assert shipped_sizes("cardline_v0") == {3: sized / "cardline_v0_3p.npz"}
    assert has_pretrained("cardline_v0", 3) and not has_pretrained("cardline_v0")
    for players in (2, 3, 4):
        spec = EnvSpec(ENV, {"num_players": players})
        expected = NumpyPolicy.load(shipped_sizes(ENV)[players])
        agent = make_agent("pretrained")
        agent.start_game("player_0", spec)
        assert _same(agent.policy, expected)
        # The vector form (eval --vector, training opponents) plays the very same file,
        # built from the agent or from the spec.
        for form in (PretrainedAgent(), "pretrained"):
            vector = vector_agent(form, spec)
            assert isinstance(vector, VectorPolicy) and _same(vector.policy, expected)
    assert shipped_policy_path(EnvSpec(ENV)) == sized / f"{ENV}.npz"  # no num_players: 2


def test_a_sized_agent_plays_legal_games_at_its_table(sized):
    result = evaluate(lambda: make(ENV, num_players=3), make_agent("pretrained"), "random", 3)
    assert result.games == 3 and dict(result.seat_games) == dict.fromkeys(
        ["player_0", "player_1", "player_2"], 1
    )


def test_a_size_none_ships_for_is_refused_naming_the_sizes(sized):
    message = (
        f"no pretrained agent ships for '{ENV}' with 5 players; shipped sizes: 2, 3, 4 "
        r"\(or pass pretrained:path=FILE.npz\)"
    )
    five = EnvSpec(ENV, {"num_players": 5})
    with pytest.raises(InvalidConfigError, match=message):
        make_agent("pretrained").start_game("player_0", five)
    with pytest.raises(InvalidConfigError, match=message):
        vector_agent("pretrained", five)
    with pytest.raises(InvalidConfigError, match="with 2 players; shipped sizes: 3 "):
        make_agent("pretrained").start_game("player_0", EnvSpec("cardline_v0"))
    # path= still plays any file the env fits, whatever ships.
    agent = make_agent(f"pretrained:path={sized / f'{ENV}_4p.npz'}")
    agent.start_game("player_0", EnvSpec(ENV, {"num_players": 4}))
    with pytest.raises(InvalidConfigError, match="observations"):
        agent.start_game("player_0", five)


def test_the_default_table_plays_the_real_shipped_files():
    for env_name, path in shipped_policies().items():
        raw = make_raw(env_name)
        players = len(raw.possible_agents)
        assert shipped_sizes(env_name)[players] == path
        shipped = NumpyPolicy.load(path)
        specs = [EnvSpec(env_name)]
        if raw.metadata["min_players"] < raw.metadata["max_players"]:
            specs.append(EnvSpec(env_name, {"num_players": players}))  # said explicitly
        for spec in specs:
            agent = make_agent("pretrained")
            agent.start_game("player_0", spec)
            assert _same(agent.policy, shipped)
            assert _same(vector_agent(agent, spec).policy, shipped)


def test_another_config_key_is_refused_naming_the_key():
    spec = EnvSpec("ironman_war_v0", {"variant": "beginner"})
    with pytest.raises(InvalidConfigError) as refused:
        make_agent("pretrained").start_game("player_0", spec)
    message = str(refused.value)
    assert "ironman_war_v0.npz" in message and "keys that differ: variant" in message
    assert "trained with config {} (the default)" in message
    assert "'variant': 'beginner'" in message and "env changed since" not in message
    with pytest.raises(InvalidConfigError, match="keys that differ: variant"):
        vector_agent("pretrained", spec)


def test_deterministic_is_a_bool_option():
    with pytest.raises(InvalidConfigError, match="deterministic must be True or False"):
        make_agent("pretrained:deterministic=yes")
    assert make_agent("pretrained:deterministic=false").deterministic is False


# --- the shipped sized agents ------------------------------------------------------------------
SHIPPED_TABLES = [
    ("promise_war_v0", 3),
    ("promise_war_v0", 4),
    ("cardline_v0", 3),
    ("cardline_v0", 4),
]


def test_promise_war_and_cardline_ship_agents_for_three_and_four_players():
    for env_name in ("promise_war_v0", "cardline_v0"):
        assert sorted(shipped_sizes(env_name)) == [2, 3, 4]
    assert not has_pretrained("promise_war_v0", 5)
    with pytest.raises(InvalidConfigError, match="with 5 players; shipped sizes: 2, 3, 4"):
        make_agent("pretrained").start_game("player_0", EnvSpec(ENV, {"num_players": 5}))


@pytest.mark.parametrize(("env_name", "players"), SHIPPED_TABLES)
def test_a_shipped_sized_agent_beats_a_field_of_random_players(env_name, players):
    """A broken sized export plays like random: about ``1 / players`` of the wins. The README
    measures far more; 200 games against random in every other seat ask for twice that."""
    from cardarena.evaluation.evaluate_vector import evaluate_on_vector

    spec = EnvSpec(env_name, {"num_players": players})
    result = evaluate_on_vector(spec, "pretrained", "random", 200, seed=5)
    assert result.win_rate > 2 / players, result.summary()
    policy = NumpyPolicy.load(shipped_sizes(env_name)[players])
    assert policy.meta["train_args"]["num_players"] == players


def _script_rows() -> dict[str, dict]:
    """The rows of ``scripts/train_pretrained.sh``: agent -> what its run was asked."""
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "scripts" / "train_pretrained.sh"
    text = script.read_text()
    table = text[text.index("<<'EOF'\n") + 8 : text.index("\nEOF\n")]
    rows = {}
    for line in table.splitlines():
        agent, env, players, steps, every, league, *extra = line.split()
        flags: dict[str, str] = {}
        for word in extra:  # --flag value, or a switch alone (--sample): "True"
            if word.startswith("--"):
                flags[word] = "True"
            else:
                flags[next(reversed(flags))] = word
        rows[agent] = dict(env=env, players=int(players), steps=int(steps), every=int(every),
                           league=league, flags=flags)  # fmt: skip
    return rows


def test_every_shipped_agent_comes_from_its_row_of_train_pretrained_sh():
    """The script regenerates what ships: each file's recorded training arguments are its
    row's (backend, table, budget, cadence, league, extra flags, seed 0)."""
    rows = _script_rows()
    shipped = {path.stem: path for path in pretrained.HERE.glob("*.npz")}
    assert sorted(shipped) == sorted(rows)
    for agent, row in rows.items():
        policy = NumpyPolicy.load(shipped[agent])
        args = policy.meta["train_args"]
        assert policy.samples == ("--sample" in row["flags"]), agent  # as it plays by default
        assert args["backend"] == "vector" and args["seed"] == 0 and args["selfplay"], agent
        assert args["env"] == row["env"] and args["steps"] == row["steps"], agent
        assert args["num_players"] == (None if row["players"] == 2 else row["players"]), agent
        assert args["eval_every"] == args["checkpoint_every"] == row["every"], agent
        assert args["league_mode"] == row["league"] and args["precision"] == "bfloat16", agent
        for flag, value in row["flags"].items():
            assert str(args[flag.removeprefix("--").replace("-", "_")]) == value, (agent, flag)
