"""Every info key keeps one type and shape through a run, for every env and example config.

Replay buffers that stack infos step by step (Tianshou's ``Batch``) crash when a key appears
only at the end or changes type (``winners`` once went from ``[]`` on a draw to ``[agent]`` on
a win). Random games, a game ended by an illegal action, and a raw env are all checked.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

from cardarena.envs import ENVS, make, make_raw
from cardarena.envs.core import ILLEGAL_ACTION, INFO_KEYS, NO_OFFENDER, Outcome

CASES = [
    pytest.param(name, config, id=f"{name}-{index}")
    for name, module in sorted(ENVS.items())
    for index, config in enumerate(module.raw_env.example_configs)
]
KEYS = set(INFO_KEYS)


def signature(value: Any) -> tuple:
    """What a buffer sees of ``value``: its type, and dtype and shape for arrays (nested for
    dicts, keys in order)."""
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.str, value.shape)
    if isinstance(value, dict):
        return ("dict", tuple((key, signature(item)) for key, item in value.items()))
    return (type(value).__name__,)


class Recorder:
    """Every info signature seen, per key, over every agent at every step of a run."""

    def __init__(self) -> None:
        self.keys: set[tuple[str, ...]] = set()
        self.types: dict[str, set[tuple]] = {}

    def see(self, infos: dict[str, dict[str, Any]]) -> None:
        for info in infos.values():
            self.keys.add(tuple(info))
            for key, value in info.items():
                # What a tensorising client (TorchRL's torch.as_tensor) accepts: a number or
                # a numeric array; never a string, a dict or an object array.
                numeric = isinstance(value, int | float | np.integer | np.floating) or (
                    isinstance(value, np.ndarray) and value.dtype.kind in "biuf"
                )
                assert numeric, f"info[{key!r}] = {value!r} is not a number or numeric array"
                self.types.setdefault(key, set()).add(signature(value))

    def check(self) -> None:
        assert len(self.keys) == 1, f"info keys changed during the run: {self.keys}"
        assert set(next(iter(self.keys))) == KEYS
        changed = {key: seen for key, seen in self.types.items() if len(seen) > 1}
        assert not changed, f"info keys changed type or shape: {changed}"


def play(env, recorder: Recorder, rng: np.random.Generator, illegal_at: int | None = None) -> set:
    """Play one game with random legal actions (one illegal one at decision ``illegal_at``),
    recording the infos after ``reset`` and after every step; returns the outcomes seen."""
    recorder.see(env.infos)
    decisions, outcomes = 0, set()
    for agent in env.agent_iter():
        observation, _, terminated, truncated, info = env.last()
        recorder.see({agent: info})
        if terminated or truncated:
            outcomes.add(info["outcome"])
            env.step(None)
        else:
            mask = observation["action_mask"]
            choices = np.flatnonzero(mask if decisions != illegal_at else mask == 0)
            if choices.size == 0:  # every action is legal here: stay legal
                choices = np.flatnonzero(mask)
            env.step(int(rng.choice(choices)))
            decisions += 1
        recorder.see(env.infos)
    return outcomes


@pytest.mark.parametrize(("name", "config"), CASES)
def test_every_info_key_keeps_one_type_and_shape_through_a_run(name, config):
    env, recorder, rng = make(name, **config), Recorder(), np.random.default_rng(0)
    env.warn_on_illegal = False
    outcomes = set()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo's "Illegal move made" on the last game
        for seed in range(8):
            env.reset(seed=seed)
            outcomes |= play(env, recorder, rng, illegal_at=1 if seed == 7 else None)
    raw = make_raw(name, **config)
    raw.reset(seed=0)
    play(raw, recorder, rng)
    recorder.check()
    assert ILLEGAL_ACTION in outcomes and len(outcomes) >= 2


@pytest.mark.parametrize(("name", "config"), CASES)
def test_infos_say_nothing_until_the_end_then_winners_match_the_rewards(name, config):
    env, rng = make(name, **config), np.random.default_rng(1)
    seats = len(env.possible_agents)
    for seed in range(3):
        env.reset(seed=seed)
        final: dict[str, tuple[float, dict]] = {}
        for agent in env.agent_iter():
            observation, reward, terminated, truncated, info = env.last()
            if terminated or truncated:
                final[agent] = (reward, info)
                env.step(None)
                continue
            assert info["outcome"] == Outcome.ONGOING and info["steps"] == 0
            assert info["offender"] == NO_OFFENDER and info["scores"].shape == (seats,)
            assert info["winners"].shape == (seats,) and not info["winners"].any()
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        expected = [int(final[a][0] > 0) for a in env.possible_agents]
        for _, info in final.values():
            assert info["winners"].tolist() == expected and info["outcome"]
            assert info["offender"] == NO_OFFENDER and info["illegal_action"] == -1
