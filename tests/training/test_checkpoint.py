"""Checkpoints: a folder of plain data (network and optimiser arrays, settings as JSON, env
spec, scaler, step, RNG state and opponent pool), written atomically, refused with a clear
error when corrupt or foreign, usable as an agent spec."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cardarena.agents import make_agent
from cardarena.agents.base import EnvSpec
from cardarena.agents.numpy_policy import NumpyPolicy
from cardarena.envs import make, make_raw
from cardarena.envs.core import InvalidConfigError, ObservationScaler
from cardarena.evaluation import evaluate
from cardarena.training import SingleAgentEnv
from cardarena.training import checkpoint as ckpt
from cardarena.training.checkpoint import (
    capture_rng_state,
    load_checkpoint,
    restore_rng_state,
    save_checkpoint,
)

sb3_contrib = pytest.importorskip("sb3_contrib")


@pytest.fixture(scope="module")
def trained():
    bridge = SingleAgentEnv("promise_war_v0")
    bridge.reset(seed=0)
    model = sb3_contrib.MaskablePPO("MlpPolicy", bridge, n_steps=64, batch_size=32, n_epochs=1,
                                    seed=0, device="cpu")  # fmt: skip
    model.learn(total_timesteps=64)
    return bridge, model


@pytest.fixture
def saved(tmp_path, trained):
    bridge, model = trained
    path = save_checkpoint(tmp_path / "ckpt", model, EnvSpec("promise_war_v0"), bridge.scaler,
                           step=64, opponents=["random"])  # fmt: skip
    return path


def _observations(bridge, count=40):
    rng = np.random.default_rng(3)
    observations, masks = [], []
    observation, _ = bridge.reset(seed=11)
    while len(observations) < count:
        observations.append(observation)
        masks.append(bridge.action_masks().astype(bool))
        action = int(rng.choice(np.flatnonzero(bridge.action_masks())))
        observation, _, terminated, truncated, _ = bridge.step(action)
        if terminated or truncated:
            observation, _ = bridge.reset(seed=len(observations))
    return np.stack(observations), np.stack(masks)


def test_round_trip_keeps_predictions_spec_scaler_step_rng_and_pool(tmp_path, trained):
    bridge, model = trained
    bridge.reset(seed=5)
    rng_state = capture_rng_state(bridge.np_random)
    expected = bridge.np_random.integers(1 << 30, size=5)
    torch = pytest.importorskip("torch")
    expected_t = torch.rand(3)
    opponents = ["random", str(tmp_path / "older")]
    path = save_checkpoint(tmp_path / "ckpt", model, EnvSpec("promise_war_v0"), bridge.scaler,
                           step=1234, rng_state=rng_state, opponents=opponents)  # fmt: skip
    assert path == tmp_path / "ckpt" and path.is_dir()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ckpt"]  # no temporary leftovers
    meta = json.loads((path / "meta.json").read_text())
    assert meta["format"] == ckpt.FORMAT and meta["env"]["name"] == "promise_war_v0"
    assert meta["package_version"]

    loaded = load_checkpoint(path, expect_env=EnvSpec("promise_war_v0"))
    assert loaded.env_spec == EnvSpec("promise_war_v0", {})
    assert loaded.step == 1234 and loaded.opponents == opponents
    assert loaded.scaler == bridge.scaler
    observations, masks = _observations(bridge)
    before, _ = model.predict(observations, action_masks=masks, deterministic=True)
    after, _ = loaded.model.predict(observations, action_masks=masks, deterministic=True)
    assert np.array_equal(before, after)
    policy = loaded.numpy_policy()  # the numpy-only path the agent spec plays
    unscaled = NumpyPolicy(policy.layers, "tanh", np.zeros(observations.shape[1]),
                           np.ones(observations.shape[1]), {})  # fmt: skip
    mine = [unscaled.act(o, m) for o, m in zip(observations, masks, strict=True)]
    assert np.array_equal(before, mine)
    assert loaded.n_updates == model._n_updates and loaded.settings["n_steps"] == 64
    optimizer = loaded.model.policy.optimizer.state_dict()["state"]
    for index, moments in model.policy.optimizer.state_dict()["state"].items():
        assert torch.equal(optimizer[index]["exp_avg"], moments["exp_avg"])

    assert loaded.rng_state["numpy"] == rng_state["numpy"]
    restore_rng_state(loaded.rng_state, bridge.np_random)
    assert np.array_equal(bridge.np_random.integers(1 << 30, size=5), expected)
    assert torch.equal(loaded.rng_state["torch"], rng_state["torch"])
    assert torch.equal(torch.rand(3), expected_t)


def test_saving_again_replaces_the_checkpoint(saved, trained):
    bridge, model = trained
    save_checkpoint(saved, model, "promise_war_v0", bridge.scaler, step=128)
    assert load_checkpoint(saved).step == 128
    assert sorted(p.name for p in saved.parent.iterdir()) == ["ckpt"]


def test_a_crash_while_writing_leaves_the_previous_checkpoint(saved, trained, monkeypatch):
    bridge, model = trained

    def crash(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(ckpt.np, "savez", crash)
    with pytest.raises(OSError, match="disk full"):
        save_checkpoint(saved, model, "promise_war_v0", bridge.scaler, step=999)
    monkeypatch.undo()
    assert load_checkpoint(saved).step == 64
    assert sorted(p.name for p in saved.parent.iterdir()) == ["ckpt"]


def test_a_crash_on_the_first_save_leaves_nothing_at_path(tmp_path, trained, monkeypatch):
    bridge, model = trained
    monkeypatch.setattr(ckpt, "_sha256", lambda path: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        save_checkpoint(tmp_path / "new", model, "promise_war_v0", bridge.scaler, step=1)
    assert list(tmp_path.iterdir()) == []


def test_a_crash_between_the_renames_restores_the_previous_checkpoint(saved, trained, monkeypatch):
    _moved_aside(saved, trained, monkeypatch)  # the state a real crash at that instant leaves
    assert load_checkpoint(saved).step == 64  # the previous checkpoint is put back
    assert sorted(p.name for p in saved.parent.iterdir()) == ["ckpt"]


def test_missing_path_and_corrupt_files_are_clear_errors(tmp_path, saved):
    with pytest.raises(InvalidConfigError, match="no checkpoint at"):
        load_checkpoint(tmp_path / "missing")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InvalidConfigError, match=r"not a checkpoint: no meta\.json"):
        load_checkpoint(empty)

    meta_text = (saved / "meta.json").read_text()
    (saved / "meta.json").write_text(meta_text[: len(meta_text) // 2])
    with pytest.raises(InvalidConfigError, match=r"meta\.json. is not valid JSON"):
        load_checkpoint(saved)
    meta = json.loads(meta_text)
    (saved / "meta.json").write_text(json.dumps({**meta, "format": 99}))
    with pytest.raises(InvalidConfigError, match=r"has format 99; .* reads format 2"):
        load_checkpoint(saved)
    (saved / "meta.json").write_text(json.dumps({**meta, "format": 1}))
    with pytest.raises(InvalidConfigError, match=r"format 1 \(an SB3 model.zip, which can only"):
        load_checkpoint(saved)
    (saved / "meta.json").write_text(json.dumps({**meta, "step": 1e300}))
    with pytest.raises(InvalidConfigError, match=r"step is 1e\+300, not a whole number"):
        load_checkpoint(saved)
    (saved / "meta.json").write_text(meta_text.replace('"step": 64', '"step": 1e400'))
    with pytest.raises(InvalidConfigError, match=r"1e400 overflows"):
        load_checkpoint(saved)
    (saved / "meta.json").write_text(meta_text)

    network = saved / "policy.npz"
    data = network.read_bytes()
    network.write_bytes(data[: len(data) // 2])  # truncated
    with pytest.raises(InvalidConfigError, match=r"policy.npz is corrupt \(checksum"):
        load_checkpoint(saved)
    meta["files"]["policy.npz"] = ckpt._sha256(network)  # a consistent but truncated file
    (saved / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(InvalidConfigError, match=r"policy\.npz"):
        load_checkpoint(saved)


def test_another_env_version_or_space_is_refused(saved):
    with pytest.raises(InvalidConfigError, match="trained for promise_war_v0, not ironman_war_v0"
                       r" \(another env"):  # fmt: skip
        load_checkpoint(saved, expect_env="ironman_war_v0")
    with pytest.raises(InvalidConfigError, match=r"not promise_war_v1 \(another version"):
        load_checkpoint(saved, expect_env="promise_war_v1")
    with pytest.raises(InvalidConfigError, match=r"trained for observations .* but promise_war_v0"):
        load_checkpoint(saved, expect_env=EnvSpec("promise_war_v0", {"num_players": 3}))
    meta = json.loads((saved / "meta.json").read_text())
    (saved / "meta.json").write_text(json.dumps({**meta, "actions": meta["actions"] + 1}))
    with pytest.raises(InvalidConfigError, match=r"Discrete\(\d+\) actions"):
        load_checkpoint(saved)


def test_a_scaler_that_does_not_match_the_box_is_refused(saved, trained):
    bridge, model = trained
    np.savez(saved / "scaler.npz", offset=bridge.scaler.offset + 1, scale=bridge.scaler.scale)
    meta = json.loads((saved / "meta.json").read_text())
    meta["files"]["scaler.npz"] = ckpt._sha256(saved / "scaler.npz")  # consistent, but other
    (saved / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(InvalidConfigError, match="scaler does not match the observation Box"):
        load_checkpoint(saved)
    other = ObservationScaler(make("promise_war_v0", num_players=3).observation_space(
        "player_0")["observation"])  # fmt: skip
    with pytest.raises(InvalidConfigError, match="scaler does not match"):
        save_checkpoint(saved.parent / "bad", model, "promise_war_v0", other, step=1)
    assert not (saved.parent / "bad").exists()


def test_a_checkpoint_is_an_agent_spec_that_plays_legal_games(saved):
    from cardarena.agents.policy_agent import CheckpointAgent

    agent = make_agent(str(saved))
    assert isinstance(agent, CheckpointAgent) and agent.spec == str(saved)
    # Through the raw env an illegal move would raise instead of quietly losing.
    result = evaluate(lambda: make_raw("promise_war_v0"), agent, "random", games=6)
    assert result.wins + result.draws + result.losses == 6
    with pytest.raises(InvalidConfigError, match="trained for promise_war_v0, not ironman"):
        evaluate(lambda: make("ironman_war_v0"), make_agent(str(saved)), "random", games=1)
    with pytest.raises(InvalidConfigError, match="trained for observations"):
        evaluate(lambda: make("promise_war_v0", num_players=3), make_agent(str(saved)),
                 "random", games=1)  # fmt: skip
    with pytest.raises(InvalidConfigError, match="not a checkpoint"):
        make_agent(str(saved.parent))


def _moved_aside(saved, trained, monkeypatch):
    """The state a kill between the two renames of a save leaves: the old copy aside, nothing
    at the path."""
    bridge, model = trained
    real_replace = ckpt.os.replace
    calls = []

    def replace(src, dst):
        calls.append(dst)
        if len(calls) == 2:
            raise OSError("killed")
        real_replace(src, dst)

    monkeypatch.setattr(ckpt.os, "replace", replace)
    with pytest.raises(OSError, match="killed"):
        save_checkpoint(saved, model, "promise_war_v0", bridge.scaler, step=999)
    monkeypatch.undo()
    assert not saved.exists()


def test_an_agent_spec_naming_a_checkpoint_between_renames_recovers_it(saved, trained,
                                                                        monkeypatch):  # fmt: skip
    _moved_aside(saved, trained, monkeypatch)
    agent = make_agent(str(saved))
    result = evaluate(lambda: make_raw("promise_war_v0"), agent, "random", games=2)
    assert result.games == 2 and load_checkpoint(saved).step == 64


def test_recovery_never_restores_a_partial_copy_and_cleans_stale_ones(saved, trained,
                                                                       monkeypatch):  # fmt: skip
    import os
    import shutil

    _moved_aside(saved, trained, monkeypatch)
    (complete,) = saved.parent.glob(".ckpt.old-*")
    partial = saved.parent / ".ckpt.old-partial"
    shutil.copytree(complete, partial)
    (partial / "policy.npz").unlink()  # a clean-up killed halfway through its rmtree
    meta = json.loads((partial / "meta.json").read_text())
    (partial / "meta.json").write_text(json.dumps({**meta, "step": 10_000}))  # looks newer
    os.utime(partial, (1e10, 1e10))
    assert not ckpt.is_complete(partial) and ckpt.is_complete(complete)
    assert load_checkpoint(saved).step == 64  # the complete copy came back
    assert sorted(p.name for p in saved.parent.iterdir()) == ["ckpt"]  # stale copies gone


def test_an_sb3_model_is_saved_through_the_learner_interface(trained):
    """The checkpoint code reads an SB3 model only through ``SB3Learner``: the settings, the
    arrays and the update counter it reports are the model's own."""
    from cardarena.training.learner import Learner
    from cardarena.training.sb3.model import SB3Learner, as_learner, model_settings

    _, model = trained
    learner = as_learner(model)
    assert isinstance(learner, SB3Learner) and isinstance(learner, Learner)
    state = learner.learner_state()
    assert state.settings == model_settings(model) and state.magnet is None
    assert state.n_updates == model._n_updates and learner.num_timesteps == model.num_timesteps
    for name, tensor in model.policy.state_dict().items():
        np.testing.assert_array_equal(state.network[name], tensor.numpy())
    assert state.groups[0]["lr"] == model.policy.optimizer.param_groups[0]["lr"]


def test_saving_something_that_is_not_a_learner_names_it(tmp_path, trained):
    bridge, _ = trained
    with pytest.raises(InvalidConfigError, match="not dict"):
        save_checkpoint(tmp_path / "ckpt", {}, EnvSpec("promise_war_v0"), bridge.scaler, step=1)
    assert not (tmp_path / "ckpt").exists()
