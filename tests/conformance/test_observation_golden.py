"""Golden digests: every env plays the same seeded games and must see exactly what it saw when
``observation_golden.json`` was written, bit for bit.

This pins behaviour across refactors (issue 17, "Behaviour is unchanged"): for every env in
``ENVS``, each of its ``example_configs`` and a few seeds, a game is played with actions drawn
from a fixed numpy generator over the legal mask, and SHA-256 digests are taken of

- every observation (vector bytes + action-mask bytes) of every seat at every step,
- ``state()`` at every step,
- rewards, cumulative rewards, terminations and truncations of every seat at every step,
- the final info's ``outcome``, ``scores`` and ``steps`` (nothing else: its format may change).

``LEGAL_SEEDS`` play legal moves through ``env()`` (the wrapper); ``RAW_SEED``
plays through ``raw_env`` (the adapter's own step); ``ILLEGAL_SEED`` plays one illegal move
through ``env()`` after a few steps, so the wrapper's illegal-action ending is pinned too.

Regenerate only for an intended change of behaviour (which also means a version bump)::

    python tests/conformance/test_observation_golden.py --write
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cardarena.envs import ENVS, make, make_raw
from cardarena.envs.core import Outcome

GOLDEN = Path(__file__).with_name("observation_golden.json")
LEGAL_SEEDS = (0, 1, 2, 3, 4, 5, 6, 7)
RAW_SEED = 8
ILLEGAL_SEED = 9
SEEDS = (*LEGAL_SEEDS, RAW_SEED, ILLEGAL_SEED)
#: The ``ILLEGAL_SEED`` game plays an illegal action at the first step from this one (counted
#: from 0) at which some action is illegal.
ILLEGAL_FROM = 3
#: A safety cap on steps per game (no example game comes near it).
MAX_STEPS = 20_000


def _cases() -> list[tuple[str, int, dict[str, Any]]]:
    """Every shipped env (in ``cardarena.envs``; not the test-only games that conftest.py
    registers) with each of its example configs."""
    return [
        (name, index, config)
        for name, module in sorted(ENVS.items())
        if module.__name__.startswith("cardarena.envs.")
        for index, config in enumerate(module.raw_env.example_configs)
    ]


def _per_seat(value: Any, agents: list[str]) -> list[Any]:
    """A per-seat value (dict by agent, or a sequence in seat order) as a list in seat order."""
    if isinstance(value, dict):
        return [value[agent] for agent in agents]
    return list(np.asarray(value).tolist())


def _floats(values: list[Any]) -> bytes:
    return np.asarray(values, dtype=np.float64).tobytes()


def play(name: str, config: dict[str, Any], seed: int) -> dict[str, str]:
    """Play one seeded game of ``name``; the four digests of what every seat saw."""
    if seed == RAW_SEED:
        env = make_raw(name, **config)
    else:
        env = make(name, **config)
        env.warn_on_illegal = False
    agents = list(env.possible_agents)
    observations, states, rewards = hashlib.sha256(), hashlib.sha256(), hashlib.sha256()
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)

    def record() -> None:
        for agent in agents:
            observation = env.observe(agent)
            observations.update(np.ascontiguousarray(observation["observation"]).tobytes())
            observations.update(np.ascontiguousarray(observation["action_mask"]).tobytes())
        states.update(np.ascontiguousarray(env.state()).tobytes())
        nan = float("nan")
        rewards.update(_floats([env.rewards.get(a, nan) for a in agents]))
        rewards.update(_floats([env._cumulative_rewards.get(a, nan) for a in agents]))
        rewards.update(_floats([env.terminations.get(a, -1) for a in agents]))
        rewards.update(_floats([env.truncations.get(a, -1) for a in agents]))
        rewards.update(env.agent_selection.encode())

    record()
    final_info: dict[str, Any] = {}
    for step in range(MAX_STEPS):
        if not env.agents:
            break
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            final_info = final_info or dict(env.infos[agent])
            env.step(None)
        else:
            mask = env.observe(agent)["action_mask"]
            illegal = np.flatnonzero(mask == 0)
            if seed == ILLEGAL_SEED and step >= ILLEGAL_FROM and illegal.size:
                env.step(int(rng.choice(illegal)))
            else:
                env.step(int(rng.choice(np.flatnonzero(mask))))
        record()
    info = hashlib.sha256()
    if final_info:
        info.update(Outcome(final_info["outcome"]).label.encode())  # schema 1 hashed the word
        info.update(_floats(_per_seat(final_info["scores"], agents)))
        info.update(_floats([final_info["steps"]]))
    return {
        "observations": observations.hexdigest(),
        "state": states.hexdigest(),
        "rewards": rewards.hexdigest(),
        "info": info.hexdigest(),
    }


def compute() -> dict[str, Any]:
    """The digests of every (env, config, seed), keyed ``"<env>-<config index>"``."""
    return {
        f"{name}-{index}": {str(seed): play(name, config, seed) for seed in SEEDS}
        for name, index, config in _cases()
    }


@pytest.fixture(scope="module")
def golden() -> dict[str, Any]:
    return json.loads(GOLDEN.read_text())


@pytest.mark.parametrize(
    ("name", "index", "config"),
    [pytest.param(*case, id=f"{case[0]}-{case[1]}") for case in _cases()],
)
def test_games_are_bit_identical_to_the_golden_digests(name, index, config, golden):
    key = f"{name}-{index}"
    assert key in golden, f"no golden digests for {key}: regenerate with --write (see docstring)"
    got = {str(seed): play(name, config, seed) for seed in SEEDS}
    changed = [
        f"seed {seed}: {part}"
        for seed, digests in golden[key].items()
        for part, digest in digests.items()
        if got.get(seed, {}).get(part) != digest
    ]
    assert not changed, f"{key} behaves differently from the golden games: {changed}"


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit(f"usage: python {sys.argv[0]} --write")
    GOLDEN.write_text(json.dumps(compute(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN}")
