"""The Gymnasium bridge where vector envs meet it: ``make_vec``'s autoreset, an SB3
``SubprocVecEnv`` worker asked for masks before ``reset()``, and one info key set."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest

from cardarena.envs import ENVS
from cardarena.training import SingleAgentEnv
from cardarena.training.gym_registration import gym_id, register_gym_envs

register_gym_envs()


@pytest.mark.parametrize("name", sorted(n for n in ENVS if n != "high_card_v0"))
def test_make_vec_masks_allow_a_move_after_a_sub_env_ends_and_are_legal_otherwise(name):
    """Next-step autoreset: the step after a sub-env's game ended resets it and ignores the
    action, so that sub-env's mask allows every action then (never all False); every other
    mask is exactly the learner's legal actions."""
    envs = gymnasium.make_vec(gym_id(name), num_envs=3, vectorization_mode="sync")
    rng = np.random.default_rng(0)
    envs.reset(seed=0)
    ended, keys = 0, set()
    for _ in range(2000):
        masks = np.stack(envs.call("action_masks"))
        assert masks.any(axis=1).all(), "a sub-env offers no action"
        for sub, mask in zip(envs.envs, masks, strict=True):
            if sub.unwrapped._last["action_mask"].any():
                np.testing.assert_array_equal(mask, sub.unwrapped._last["action_mask"] != 0)
            else:
                assert mask.all()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        _, _, terminated, truncated, info = envs.step(actions)
        keys.add(tuple(sorted(k for k in info if not k.startswith("_"))))
        ended += int((terminated | truncated).sum())
        if ended >= 4:
            break
    assert ended >= 4
    assert len(keys) == 1 and {"learner", "resampled", "outcome"} <= set(next(iter(keys)))
    envs.close()


def test_reset_and_step_infos_have_the_same_keys():
    bridge = SingleAgentEnv("promise_war_v0")
    _, info = bridge.reset(seed=0)
    mask = bridge.action_masks()
    _, _, _, _, after = bridge.step(int(np.flatnonzero(mask)[0]))
    assert set(info) == set(after) and info["learner"] == after["learner"] == bridge.learner
    assert info["resampled"] is False and after["resampled"] is False


def test_action_masks_before_reset_warn_and_allow_everything():
    bridge = SingleAgentEnv("cardline_v0")
    with pytest.warns(UserWarning, match=r"action_masks\(\) called before reset\(\)"):
        mask = bridge.action_masks()
    assert mask.dtype == bool and mask.shape == (bridge.action_space.n,) and mask.all()


def test_a_subproc_worker_asked_for_masks_before_reset_survives():
    """It used to raise inside the worker, which killed every worker: the parent saw only
    EOFError. Now the worker warns (on its stderr) and the vec env goes on."""
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.vec_env import SubprocVecEnv

    def build():
        return SingleAgentEnv("promise_war_v0", env_config={"max_power": 4})

    vec = SubprocVecEnv([build, build], start_method="fork")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            masks = vec.env_method("action_masks")
        assert all(m.all() for m in masks)
        vec.seed(0)
        vec.reset()
        masks = vec.env_method("action_masks")
        assert all(m.any() and not m.all() for m in masks)
    finally:
        vec.close()
