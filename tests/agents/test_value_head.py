"""An exported value network (``cardarena export --value``) and the search that reads it
(``ismcts:leaf=value``): the numpy copy computes what the SB3 model computes, the file round
trips and refuses a broken value half, and a value leaf scores each seat by its own view."""

from __future__ import annotations

import io

import numpy as np
import pytest
from test_ismcts import _position

from cardarena.agents import EnvSpec, NumpyPolicy, make_agent, start_game
from cardarena.agents.ismcts import canonical_infostate
from cardarena.envs import make
from cardarena.envs.core import InvalidConfigError, ObservationScaler
from cardarena.training.export import random_decisions


def _with_value(env_name: str = "promise_war_v0", seed: int = 1) -> NumpyPolicy:
    raw = make(env_name).unwrapped
    seat = raw.possible_agents[0]
    scaler = ObservationScaler(raw.observation_space(seat)["observation"])
    inputs, actions = scaler.offset.size, int(raw.action_space(seat).n)
    rng = np.random.default_rng(seed)

    def layer(outputs: int, into: int) -> tuple[np.ndarray, np.ndarray]:
        return (
            rng.normal(size=(outputs, into)).astype(np.float32),
            rng.normal(size=outputs).astype(np.float32),
        )

    policy_layers = [layer(8, inputs), layer(actions, 8)]
    value_layers = [layer(6, inputs), layer(1, 6)]
    return NumpyPolicy(
        policy_layers, "tanh", scaler.offset, scaler.scale, {"env": env_name}, value_layers
    )


def test_the_value_is_the_value_mlp_on_the_scaled_observation():
    policy = _with_value()
    observations, _ = random_decisions("promise_war_v0", games=2)
    (w0, b0), (w1, b1) = policy.value_layers
    for observation in observations[:20]:
        x = (observation.astype(np.float32) - policy.offset) * policy.factor
        want = float((w1 @ np.tanh(w0 @ x + b0) + b1)[0])
        assert policy.value(observation) == pytest.approx(want, rel=1e-6)
    without = NumpyPolicy(policy.layers, "tanh", policy.offset, policy.factor, {})
    assert not without.has_value
    with pytest.raises(ValueError, match="export it with cardarena export --value"):
        without.value(observations[0])


def test_a_value_network_round_trips_and_a_broken_one_is_refused(tmp_path):
    policy = _with_value()
    policy.save(tmp_path / "p.npz")
    loaded = NumpyPolicy.load(tmp_path / "p.npz")
    observations, _ = random_decisions("promise_war_v0", games=1)
    assert loaded.has_value
    assert [loaded.value(o) for o in observations] == [policy.value(o) for o in observations]
    with np.load(tmp_path / "p.npz") as data:
        arrays = {key: data[key] for key in data.files}
    np.savez(tmp_path / "cut.npz", **{k: v for k, v in arrays.items() if k != "value_bias_1"})
    with pytest.raises(InvalidConfigError, match="missing value_bias_1"):
        NumpyPolicy.load(tmp_path / "cut.npz")
    two = {**arrays, "value_weight_1": np.zeros((2, 6), np.float32),
           "value_bias_1": np.zeros(2, np.float32)}  # fmt: skip
    np.savez(tmp_path / "two.npz", **two)
    with pytest.raises(InvalidConfigError, match="last layer has 2 outputs; it must have 1"):
        NumpyPolicy.load(tmp_path / "two.npz")
    bad = {**arrays, "value_weight_0": arrays["value_weight_0"][:, :5]}
    np.savez(tmp_path / "chain.npz", **bad)
    with pytest.raises(InvalidConfigError, match="value_layer 0: weight"):
        NumpyPolicy.load(tmp_path / "chain.npz")


def test_export_with_value_computes_what_the_sb3_model_computes(tmp_path):
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO

    from cardarena.cli import main
    from cardarena.training.checkpoint import save_checkpoint
    from cardarena.training.single_agent import SingleAgentEnv

    bridge = SingleAgentEnv("ironman_war_v0")
    model = MaskablePPO("MlpPolicy", bridge, n_steps=32, batch_size=32, seed=3, device="cpu")
    model.learn(64)  # a value head that is not its initial one
    save_checkpoint(tmp_path / "ckpt", model, "ironman_war_v0", bridge.scaler, step=64)
    out = io.StringIO()
    args = ["export", str(tmp_path / "ckpt"), str(tmp_path / "v.npz"), "--value"]
    assert main(args, out=out) == 0
    assert "policy and value networks from step 64" in out.getvalue()
    policy = NumpyPolicy.load(tmp_path / "v.npz")
    observations, _ = random_decisions("ironman_war_v0", games=4)
    scaled = np.stack([(o - policy.offset) * policy.factor for o in observations])
    with torch.no_grad():
        want = model.policy.predict_values(torch.as_tensor(scaled, dtype=torch.float32))
    mine = np.array([policy.value(o) for o in observations])
    np.testing.assert_allclose(mine, want.numpy().reshape(-1), rtol=1e-4, atol=1e-5)
    assert main(["export", str(tmp_path / "ckpt"), str(tmp_path / "p.npz")], out=out) == 0
    assert not NumpyPolicy.load(tmp_path / "p.npz").has_value  # only when asked


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_value_leaf_scores_each_seat_by_the_value_of_its_own_view(tmp_path, seed, monkeypatch):
    """One iteration: the leaf after the prior's action is scored, with no rollout, by each
    seat's value of its own observation, clipped to [-1, 1] (random weights give values past
    it for some seeds)."""
    import cardarena.agents.ismcts as ismcts

    drawn: list = []
    real = ismcts.sample_infostate

    def sample_infostate(base, at, rng):
        state = real(base, at, rng)
        drawn.append(state.clone())  # the determinization, before the search moves it on
        return state

    monkeypatch.setattr(ismcts, "sample_infostate", sample_infostate)
    path = _with_value("cardline_v0", seed).save(tmp_path / "v.npz")
    env = _position("cardline_v0", 2, seed=4)  # two players, default deal: nothing hidden
    seat = env.possible_agents.index(env.agent_selection)
    agent = make_agent(f"ismcts:iterations=1,policy={path},leaf=value", seed=0)
    start_game(agent, env.agent_selection, EnvSpec("cardline_v0"))
    base = canonical_infostate(env.game_state, seat)
    root = agent._search(base, seat)
    (action,) = root.children
    (leaf,) = drawn
    leaf.apply_legal_action(action)
    raw = EnvSpec("cardline_v0").make_raw()
    buffer = raw.layout.buffer()
    want = []
    for index in range(2):
        buffer.clear()
        raw.encode(leaf, index, buffer.views)
        want.append(min(1.0, max(-1.0, agent.network.value(buffer.array))))
    assert want[0] != want[1], "the two seats' views must differ for this test to see it"
    assert root.children[action].totals == want and root.visits == 1


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ("ismcts:leaf=value", "leaf=value needs a network with a value head"),
        ("ismcts:policy=pretrained,leaf=guess", "leaf must be one of 'rollout', 'value'"),
    ],
)
def test_value_leaf_options_are_refused_with_the_fix(spec, match):
    with pytest.raises(InvalidConfigError, match=match):
        make_agent(spec)


def test_a_network_without_a_value_head_is_refused_at_the_start():
    agent = make_agent("ismcts:policy=pretrained,leaf=value")
    with pytest.raises(InvalidConfigError, match="policy=pretrained has none for promise_war_v0"):
        start_game(agent, "player_0", EnvSpec("promise_war_v0"))
