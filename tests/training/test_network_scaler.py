"""The network scaler: inputs divided by at most ``NETWORK_MAX_SPAN`` per unit, so a battle
total of up to 660 still moves its input by 0.1 a point. New vector runs train with it; the
networks trained before it (``[0, 1]`` inputs: the shipped files, old checkpoints) still play,
resume with the scaler they have, and seed a new learner exactly (``rescaled_inputs``)."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from gymnasium import spaces

pytest.importorskip("torch")

from cardarena.agents import EnvSpec, make_agent
from cardarena.agents.numpy_policy import NumpyPolicy
from cardarena.envs import make_raw
from cardarena.envs.core import (
    NETWORK_MAX_SPAN,
    InvalidConfigError,
    ObservationScaler,
    bounds_digest,
    known_scalers,
    matching_scaler,
    network_scaler,
)
from cardarena.training.checkpoint import load_checkpoint
from cardarena.training.train import train
from cardarena.training.train_args import TrainArgs
from cardarena.training.vector import run as vector_run
from cardarena.training.vector.network import WarmStart, rescaled_inputs, warm_start_problem

ENV = "ironman_war_v0"
ROLLOUT = 8 * 8
SMALL = dict(
    backend="vector", num_envs=8, rollout_steps=8, minibatch_size=32, n_epochs=2,
    net_arch=[16, 16], checkpoint_every=2 * ROLLOUT, eval_every=0, final_eval_games=0,
    selfplay=False, seed=3, progress=False, torch_threads=1, precision="float32",
)  # fmt: skip


def _box() -> spaces.Box:
    raw = make_raw(ENV)
    return raw.observation_space(raw.possible_agents[0])["observation"]


def _train(out: Path, steps: int = 2 * ROLLOUT, **changes) -> Path:
    return train(TrainArgs(env=ENV, out=out, steps=steps, **{**SMALL, **changes}))


def test_a_wide_dimension_is_divided_by_the_cap_and_a_narrow_one_by_its_span():
    box = spaces.Box(np.array([0, 0, 5, 2], np.float32), np.array([660, 1, 15, 2], np.float32))
    capped, whole = network_scaler(box), ObservationScaler(box)
    assert NETWORK_MAX_SPAN == 10.0
    assert capped.scale.tolist() == pytest.approx([0.1, 1.0, 0.1, 0.0])
    assert whole.scale.tolist() == pytest.approx([1 / 660, 1.0, 0.1, 0.0])
    assert capped.space.high.tolist() == pytest.approx([66.0, 1.0, 1.0, 1.0])
    assert whole.space == spaces.Box(0.0, 1.0, (4,), np.float32)
    observation = np.array([331, 1, 10, 2], np.float32)
    assert capped(observation) in capped.space
    assert capped(observation).tolist() == pytest.approx([33.1, 1.0, 0.5, 0.0])
    for bad in (0.0, -1.0, float("inf"), float("nan")):
        with pytest.raises(ValueError, match="max_span must be a finite number above 0"):
            ObservationScaler(box, bad)


def test_a_saved_scaler_is_matched_to_the_kind_it_is_and_other_bounds_to_none():
    box = _box()
    capped, whole = known_scalers(box)
    digest = bounds_digest(box)
    assert capped == network_scaler(box) and whole == ObservationScaler(box)
    assert matching_scaler(box, capped.offset, capped.scale, digest) == capped
    assert matching_scaler(box, whole.offset, whole.scale, digest) == whole
    assert matching_scaler(box, whole.offset, whole.scale) == whole  # a file from before
    assert matching_scaler(box, capped.offset, capped.scale) is None  # no record: no cap
    other = whole.scale.copy()
    other[0] *= 2
    assert matching_scaler(box, whole.offset, other, digest) is None


def test_a_capped_network_is_refused_on_a_box_of_other_bounds_its_scaler_cannot_show():
    """Iron Man's beginner variant has other bounds than the default, which the capped
    scaler maps to the same arrays: the recorded ``bounds_digest`` tells them apart."""
    beginner = make_raw(ENV, variant="beginner")
    other = beginner.observation_space(beginner.possible_agents[0])["observation"]
    box = _box()
    assert other.shape == box.shape and bounds_digest(other) != bounds_digest(box)
    assert network_scaler(other) == network_scaler(box)
    capped = network_scaler(box)
    assert matching_scaler(other, capped.offset, capped.scale, bounds_digest(box)) is None
    with pytest.raises(InvalidConfigError, match="keys that differ: variant"):
        make_agent("pretrained").start_game("iron_man", EnvSpec(ENV, {"variant": "beginner"}))


def test_a_new_vector_run_trains_with_the_network_scaler(tmp_path):
    final = _train(tmp_path / "run")
    assert load_checkpoint(final).scaler == network_scaler(_box())


def test_a_run_begun_with_the_old_scaler_resumes_with_it(tmp_path, monkeypatch):
    out = tmp_path / "run"
    with monkeypatch.context() as patch:
        patch.setattr(vector_run, "network_scaler", ObservationScaler)
        _train(out)
    final = _train(out, steps=4 * ROLLOUT, resume=True)
    assert load_checkpoint(final).step == 4 * ROLLOUT
    assert load_checkpoint(final).scaler == ObservationScaler(_box())


def test_an_old_network_still_plays_and_one_of_other_bounds_is_refused(tmp_path, capsys):
    final = _train(tmp_path / "run")
    policy = load_checkpoint(final).numpy_policy()
    whole = ObservationScaler(_box())
    assert policy.meta["observation_bounds"] == bounds_digest(_box())
    old = NumpyPolicy(policy.layers, "tanh", whole.offset, whole.scale, policy.meta)
    old.save(tmp_path / "old.npz")
    agent = make_agent(f"pretrained:path={tmp_path / 'old.npz'}", seed=0)
    agent.start_game("iron_man", EnvSpec(ENV))
    bent = whole.scale.copy()
    bent[3] /= 2
    NumpyPolicy(policy.layers, "tanh", whole.offset, bent, policy.meta).save(tmp_path / "bent.npz")
    agent = make_agent(f"pretrained:path={tmp_path / 'bent.npz'}", seed=0)
    with pytest.raises(InvalidConfigError, match="observation bounds differ"):
        agent.start_game("iron_man", EnvSpec(ENV))
    box, actions = _box(), policy.actions
    arch = [16, 16]
    assert warm_start_problem(old, arch, box, actions) is None
    assert "scaler differs" in warm_start_problem(
        NumpyPolicy(policy.layers, "tanh", whole.offset, bent, policy.meta), arch, box, actions
    )


def test_an_old_network_seeds_a_new_learner_exactly(tmp_path):
    """A best response warm-started from a ``[0, 1]`` network: the first layer is rewritten
    for the network scaler, and the learner's logits are the old network's on every input."""
    import torch

    from cardarena.training.vector.batch import LearnerBatch
    from cardarena.training.vector.config import PPOConfig
    from cardarena.training.vector.ppo import VectorPPO

    box = _box()
    whole = ObservationScaler(box)
    rng = np.random.default_rng(0)
    size, actions = whole.offset.size, 17
    widths = [size, 16, 16, actions]
    layers = [
        (rng.normal(size=(out, into)).astype(np.float32), rng.normal(size=out).astype(np.float32))
        for into, out in itertools.pairwise(widths)
    ]
    old = NumpyPolicy(layers, "tanh", whole.offset, whole.scale, {"env": ENV})
    batch = LearnerBatch(ENV, 4, 0, "random", True, {})
    batch.scaler = network_scaler(box)  # as the vector trainer sets it
    config = PPOConfig(num_envs=4, rollout_steps=8, minibatch_size=8, net_arch=(16, 16),
                       precision="float32")  # fmt: skip
    learner = VectorPPO(batch, config, 0)
    learner.warm_start(WarmStart(old, source="old"))
    observations = rng.uniform(box.low, np.minimum(box.high, 12), size=(50, size)).astype(
        np.float32
    )
    with torch.no_grad():
        scaled = torch.from_numpy(batch.scaler(observations))
        mine = learner.network(scaled)[0].numpy()
    theirs = np.stack([old.logits(row) for row in observations])
    np.testing.assert_allclose(mine, theirs, rtol=1e-4, atol=1e-4)
    weight = np.ones((2, 3), np.float32)
    assert rescaled_inputs(
        weight, np.array([0.5, 0.1, 0.0]), np.array([1.0, 0.1, 0.0])
    ).tolist() == [
        [0.5, 1.0, 0.0],
        [0.5, 1.0, 0.0],
    ]


def test_the_docs_state_the_cap():
    text = Path(__file__).resolve().parents[2].joinpath("docs/site/training.md").read_text()
    assert f"`NETWORK_MAX_SPAN` ({NETWORK_MAX_SPAN:g})" in text
