"""Shared test helpers (importable as `helpers`): PettingZoo checkers with warnings as failures,
and the lists of envs a test runs on, all derived from ``cardarena.envs.ENVS``."""

from __future__ import annotations

import random
import warnings
from collections.abc import Callable

import numpy as np
from pettingzoo.test import api_test

from cardarena.envs import ENVS
from cardarena.envs.core import IllegalActionError

# api_test warnings that are not defects here, each matched exactly: C-1 mandates dict
# observations (PettingZoo only exempts its own classic envs by name) and an all-zero mask for
# agents not to act; the rules (envs/rulebooks) name some seats (iron_man, maximal) without a
# number; api_test's own reset(options={"options": 1}) probe gets C-6's warning about the
# unknown key.
ACCEPTED_API_WARNINGS = (
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box",
    "Action mask numpy array is all zeros (no legal actions).",
    'We recommend agents to be named in the format <descriptor>_<number>, like "player_0"',
    "ignoring unknown reset option(s) 'options'; allowed: ",
)


def env_names(
    *, heuristic: bool = False, pretrained: bool = False, builtin: bool = False
) -> list[str]:
    """Registered env names, sorted: every env, or only those with a heuristic (agent
    ``heuristic``), a shipped trained policy (agent ``pretrained``), or that cardarena itself
    registers (``builtin``: all a subprocess such as the CLI or a notebook kernel sees; the
    test session's own game is not among them). Tests take their env lists from here or from
    ``ENVS``, so a new game, which needs no heuristic and no shipped policy, is tested at once."""
    from cardarena.agents.heuristics import has_heuristic
    from cardarena.agents.pretrained import has_pretrained

    return [
        name
        for name in sorted(ENVS)
        if (not heuristic or has_heuristic(name))
        and (not pretrained or has_pretrained(name))
        and (not builtin or ENVS[name].__name__.startswith("cardarena.envs."))
    ]


def strict_api_test(env, num_cycles: int = 1000) -> None:
    """PettingZoo's api_test, called exactly as a user would (no wrapper in between), with
    every warning that points at a real defect made a failure."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env, num_cycles=num_cycles)
    defects = [
        str(w.message)
        for w in caught
        if not str(w.message).startswith(ACCEPTED_API_WARNINGS)
        and not issubclass(w.category, DeprecationWarning)
    ]
    assert not defects, f"api_test warnings: {defects}"


def assert_mask_is_what_the_rules_accept(state) -> None:
    """Every action of the space: ``apply_action`` on a clone succeeds iff the mask allows it."""
    mask = state.legal_action_mask()
    for action in range(len(mask)):
        trial = state.clone()
        try:
            trial.apply_action(action)
            accepted = True
        except IllegalActionError:
            accepted = False
        assert accepted == bool(mask[action]), (action, mask)


def random_playout(
    env, rng: np.random.Generator, on_step: Callable[[str], None] | None = None
) -> dict[str, float]:
    """Play ``env`` (already reset) to the end with uniform legal actions; final rewards."""
    final: dict[str, float] = {}
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            final[agent] = reward
            env.step(None)
            continue
        legal = np.flatnonzero(observation["action_mask"])
        env.step(int(rng.choice(legal)))
        if on_step is not None:
            on_step(agent)
    return final


def recorded_game(env, seed: int, disturb_global_rngs: bool, action_seed: int = 99) -> list:
    """Everything every agent saw in one random game; optionally calls the global ``random``
    and ``np.random`` between steps, which must change nothing (the env has its own RNG)."""
    env.reset(seed=seed)
    rng = np.random.default_rng(action_seed)
    seen = []
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, info = env.last()
        seen.append(
            (agent, observation["observation"].tobytes(), observation["action_mask"].tobytes(),
             reward, terminated, truncated, repr(info))
        )  # fmt: skip
        if disturb_global_rngs:
            random.random()
            np.random.random()
        if terminated or truncated:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    return seen


class FileWatch:
    """Which audited file-system events (``open``, ``os.listdir``, ``os.scandir``) named
    ``path`` while the ``with`` block ran, in any thread (the web app answers from worker
    threads). Python's audit hooks cannot be removed: one hook serves every watch, inert
    outside them."""

    _active: list[FileWatch] = []
    _installed = False

    def __init__(self, path: object) -> None:
        self.path = str(path)
        self.events: list[str] = []

    @classmethod
    def _hook(cls, event: str, args: tuple) -> None:
        if event in ("open", "os.listdir", "os.scandir") and args:
            for watch in cls._active:
                if watch.path in str(args[0]):
                    watch.events.append(event)

    def __enter__(self) -> FileWatch:
        import sys

        if not FileWatch._installed:
            sys.addaudithook(FileWatch._hook)
            FileWatch._installed = True
        FileWatch._active.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        FileWatch._active.remove(self)


def random_policy(env_spec, meta=None, output_scale: float = 1.0):
    """A small random numpy network for ``env_spec`` (one tanh hidden layer of 8, seed 0),
    saved with ``policy.save(path)`` as an exported policy: for tests of the code that loads,
    plays or starts from one. ``meta`` joins ``{"env": name}``."""
    from cardarena.agents import NumpyPolicy
    from cardarena.envs.core import ObservationScaler

    raw = env_spec.make_raw()
    seat = raw.possible_agents[0]
    scaler = ObservationScaler(raw.observation_space(seat)["observation"])
    size, actions = scaler.offset.size, int(raw.action_space(seat).n)
    rng = np.random.default_rng(0)
    layers = [
        (rng.normal(0, 1, (8, size)).astype(np.float32), np.zeros(8, np.float32)),
        (rng.normal(0, output_scale, (actions, 8)).astype(np.float32),
         np.zeros(actions, np.float32)),
    ]  # fmt: skip
    info = {"env": env_spec.name, **(meta or {})}
    return NumpyPolicy(layers, "tanh", scaler.offset, scaler.scale, info)
