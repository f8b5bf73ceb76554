"""The conformance suite: every generic check, for every registered env and each of its
``example_configs``. A new game gets all of this from its one ``register_env`` line in
``cardarena/envs/__init__.py``; its own test files then hold only its rules. The test
session also registers a fifth game of its own (``tests/fifth_game``, see tests/conftest.py)
the same way, so this suite proves on every run that nothing here assumes one of the four.
"""

from __future__ import annotations

import copy
import logging
import pickle
import re
import warnings

import numpy as np
import pettingzoo
import pytest
from helpers import assert_mask_is_what_the_rules_accept, recorded_game, strict_api_test
from pettingzoo.test import render_test, seed_test

from cardarena.envs import ENVS, make, make_raw, pettingzoo_id
from cardarena.envs.core import (
    ILLEGAL_ACTION,
    TERMINATED,
    TRUNCATED,
    GameWrapper,
    IllegalActionError,
    InvalidConfigError,
    UnknownAgentError,
)

CASES = [
    pytest.param(name, config, id=f"{name}-{index}")
    for name, module in sorted(ENVS.items())
    for index, config in enumerate(module.raw_env.example_configs)
]
DEFAULTS = [pytest.param(name, id=name) for name in sorted(ENVS)]


def _random_action(observation, rng: np.random.Generator) -> int:
    return int(rng.choice(np.flatnonzero(observation["action_mask"])))


def _raw_states(name: str, config: dict, games: int, seed: int = 0):
    """Yield ``(raw_env, game_index)`` at every decision point of ``games`` random games."""
    raw = make_raw(name, **config)
    rng = np.random.default_rng(seed)
    for game in range(games):
        raw.reset(seed=seed + game)
        while not (raw.game_state.is_terminal() or raw.game_state.is_truncated()):
            yield raw, game
            raw.step(_random_action(raw.observe(raw.agent_selection), rng))


# --- PettingZoo's own checks, unmodified -----------------------------------------------------
@pytest.mark.parametrize(("name", "config"), CASES)
def test_pettingzoo_api_test(name, config):
    strict_api_test(make(name, **config), num_cycles=1000)


@pytest.mark.parametrize(("name", "config"), CASES)
def test_pettingzoo_seed_test(name, config):
    seed_test(lambda: make(name, **config), num_cycles=300)


@pytest.mark.parametrize(("name", "config"), CASES)
def test_pettingzoo_render_test(name, config, capsys):
    render_test(lambda render_mode=None: make(name, render_mode=render_mode, **config))
    assert capsys.readouterr().out.strip(), "render_mode='human' printed nothing"


@pytest.mark.parametrize(("name", "config"), CASES)
def test_render_names_every_seat_and_says_how_the_game_ended(name, config):
    env = make(name, render_mode="ansi", **config)
    rng = np.random.default_rng(2)
    endings = set()
    for seed in range(30):
        env.reset(seed=seed)
        assert all(agent in env.render() for agent in env.possible_agents)
        while env.agents and not (env.terminations[env.agent_selection]
                                  or env.truncations[env.agent_selection]):  # fmt: skip
            env.step(_random_action(env.observe(env.agent_selection), rng))
        text = env.render()
        ending = "truncated" if any(env.truncations.values()) else "game over"
        assert ending in text, text
        endings.add(ending)
    assert "game over" in endings


# --- spaces, masks and the rules --------------------------------------------------------------
@pytest.mark.parametrize(("name", "config"), CASES)
def test_every_observation_and_state_of_100_random_games_is_in_its_space(name, config):
    for raw, _ in _raw_states(name, config, games=100):
        for agent in raw.possible_agents:
            observation = raw.observe(agent)
            assert raw.observation_space(agent).contains(observation), (agent, observation)
            assert np.array_equal(observation["action_mask"], raw.action_mask(agent))
            if agent != raw.agent_selection:
                assert not observation["action_mask"].any()  # C-1
        state = raw.state()
        assert state.dtype == np.float32 and raw.state_space.contains(state)


@pytest.mark.parametrize(("name", "config"), CASES)
def test_mask_is_exactly_what_the_rules_accept(name, config):
    checked = 0
    for raw, _ in _raw_states(name, config, games=15):
        if checked > 200 * raw.num_actions:
            break
        state = raw.game_state
        mask = raw.action_mask(raw.agent_selection)
        assert mask.dtype == np.int8 and mask.any(), "C-2: a player is asked only with a choice"
        assert np.array_equal(mask, state.legal_action_mask())
        assert_mask_is_what_the_rules_accept(state)
        checked += raw.num_actions
        for malformed in (1.0, True, np.bool_(False), "0", None, -1, raw.num_actions):
            with pytest.raises(IllegalActionError):
                state.clone().apply_action(malformed)
    assert checked > 0


# --- determinism, copies ---------------------------------------------------------------------
@pytest.mark.parametrize(("name", "config"), CASES)
def test_same_seed_same_game_whatever_the_global_rngs_do(name, config):
    for seed in (0, 1):
        quiet = recorded_game(make(name, **config), seed, disturb_global_rngs=False)
        noisy = recorded_game(make(name, **config), seed, disturb_global_rngs=True)
        assert quiet == noisy
    assert recorded_game(make(name, **config), 0, False) != recorded_game(
        make(name, **config), 1, False
    )


@pytest.mark.parametrize(("name", "config"), CASES)
@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_a_copied_env_continues_identically(name, config, how):
    env = make(name, **config)
    env.reset(seed=7)
    rng = np.random.default_rng(3)
    for _ in range(5):
        observation, *_ = env.last()
        env.step(_random_action(observation, rng))
        if not env.agents or env.terminations[env.agent_selection]:
            pytest.skip("game too short to copy mid-game")
    twin = copy.deepcopy(env) if how == "deepcopy" else pickle.loads(pickle.dumps(env))

    def rest(e):
        actions = np.random.default_rng(11)
        seen = []
        for agent in e.agent_iter():
            observation, reward, terminated, truncated, info = e.last()
            seen.append((agent, observation["observation"].tobytes(), reward, terminated,
                         truncated, repr(info), e.state().tobytes()))  # fmt: skip
            e.step(None if terminated or truncated else _random_action(observation, actions))
        return seen

    assert rest(twin) == rest(env)


# --- hidden information ----------------------------------------------------------------------
@pytest.mark.parametrize(("name", "config"), CASES)
def test_what_a_seat_cannot_see_does_not_change_its_observation(name, config):
    """``resample_from_infostate(seat)`` redraws everything ``seat`` cannot see; ``seat``'s
    observation must not change, and the full state must change often (else the check is
    empty)."""
    rng = np.random.default_rng(5)
    checked = changed = 0
    for raw, _ in _raw_states(name, config, games=25):
        if checked >= 1500:
            break
        state = raw.game_state
        full = raw.state()
        for seat, agent in enumerate(raw.possible_agents):
            seen = raw.observe(agent)
            twin = state.resample_from_infostate(seat, rng)
            raw._state = twin
            try:
                seen_in_twin = raw.observe(agent)
                twin_full = raw.state()
            finally:
                raw._state = state
            assert np.array_equal(seen["observation"], seen_in_twin["observation"]), agent
            assert np.array_equal(seen["action_mask"], seen_in_twin["action_mask"]), agent
            assert np.array_equal(raw.state(), full), "resampling changed the original"
            checked += 1
            changed += not np.array_equal(full, twin_full)
    assert changed >= 0.2 * checked, f"only {changed} of {checked} resamples changed anything"


@pytest.mark.parametrize(("name", "config"), CASES)
def test_a_resampled_state_plays_on_to_the_end(name, config):
    rng = np.random.default_rng(9)
    for raw, game in _raw_states(name, config, games=20):
        if game % 4 or rng.random() > 0.1:
            continue
        twin = raw.game_state.resample_from_infostate(int(rng.integers(len(raw.agents))), rng)
        for _ in range(10_000):
            if twin.is_terminal() or twin.is_truncated():
                break
            twin.apply_action(int(rng.choice(np.flatnonzero(twin.legal_action_mask()))))
        assert twin.is_terminal() or twin.is_truncated()


@pytest.mark.parametrize(("name", "config"), CASES)
def test_a_resample_does_not_know_the_future_shuffles(name, config):
    """A copy that kept the true state's generator would know the order of every later
    reshuffle (a determinization that peeks at the future): each generator a resample holds
    must be in another state than the true one's."""
    rng = np.random.default_rng(3)
    checked = 0
    for raw, game in _raw_states(name, config, games=4):
        state = raw.game_state
        generators = {k: v for k, v in vars(state).items() if isinstance(v, np.random.Generator)}
        checked += len(generators)
        twin = state.resample_from_infostate(game % len(raw.agents), rng)
        for key, true in generators.items():
            assert vars(twin)[key].bit_generator.state != true.bit_generator.state, key
    assert checked, "no generator in any state: a vacuous test"


def _comparable(state) -> dict:
    """A rules state's fields as plain values (its generator and log aside: the generator is
    checked above, the log by tests/play)."""
    return {
        name: value.tolist() if isinstance(value, np.ndarray) else value
        for name, value in vars(state).items()
        if not isinstance(value, np.random.Generator) and name not in ("events", "game")
    }


@pytest.mark.parametrize(("name", "config"), CASES)
def test_a_resample_depends_on_the_information_set_alone(name, config):
    """Two true states of one information set (the state and a resample of it) resample,
    with the same generator, to the very same copy: the hidden cards cannot steer the redraw
    (a shuffle that starts from the true order would let them)."""
    rng = np.random.default_rng(8)
    differed = 0
    for raw, _ in _raw_states(name, config, games=3):
        state = raw.game_state
        seat = int(rng.integers(len(raw.possible_agents)))
        twin = state.resample_from_infostate(seat, rng)
        differed += _comparable(twin) != _comparable(state)
        same = [s.resample_from_infostate(seat, np.random.default_rng(1)) for s in (state, twin)]
        assert _comparable(same[0]) == _comparable(same[1])
    if name != "cardline_v0":  # two-seat Cardline hides only orders a sort undoes
        assert differed, "no resample changed anything: a vacuous test"


# --- game ends: rewards, infos, metadata ----------------------------------------------------
@pytest.mark.parametrize(("name", "config"), CASES)
def test_end_of_game_infos_rewards_and_metadata(name, config):
    env = make(name, **config)
    metadata = env.unwrapped.metadata
    assert metadata["min_players"] <= len(env.possible_agents) <= metadata["max_players"]
    assert metadata["num_players"] == len(env.possible_agents)
    assert isinstance(metadata["zero_sum"], bool)
    assert metadata["name"] == name
    rng = np.random.default_rng(0)
    for seed in range(40):
        env.reset(seed=seed)
        decisions = 0
        final = {}
        for agent in env.agent_iter():
            observation, reward, terminated, truncated, info = env.last()
            if terminated or truncated:
                final[agent] = (reward, terminated, truncated, info)
                env.step(None)
                continue
            assert reward == 0 and info["outcome"] == 0 and not info["winners"].any()  # C-4
            env.step(_random_action(observation, rng))
            decisions += 1
        assert set(final) == set(env.possible_agents)
        rewards = {agent: r for agent, (r, *_) in final.items()}
        for reward, terminated, truncated, info in final.values():
            assert terminated != truncated  # C-5: never both
            assert info["outcome"] == (TERMINATED if terminated else TRUNCATED)
            assert info["steps"] == decisions
            assert info["scores"].shape == (len(env.possible_agents),)
            assert info["winners"].tolist() == [int(rewards[a] > 0) for a in env.possible_agents]
            if truncated:
                assert reward == 0
        if metadata["zero_sum"] and next(iter(final.values()))[1]:
            assert sum(rewards.values()) == 0


@pytest.mark.parametrize(("name", "config"), CASES)
def test_an_illegal_action_through_env_terminates_and_names_the_offender(name, config, caplog):
    """C-7: env() ends the game on an illegal action, -1 to the offender (a termination)."""
    env = make(name, **config)
    assert isinstance(env, GameWrapper)
    env.reset(seed=0)
    offender = env.agent_selection
    illegal = np.flatnonzero(env.observe(offender)["action_mask"] == 0)
    if illegal.size == 0:
        pytest.skip("every action is legal at the start")
    env.warn_on_illegal = False
    with caplog.at_level(logging.WARNING):
        env.step(int(illegal[0]))
    assert "Illegal move" not in caplog.text
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.rewards == {a: (-1.0 if a == offender else 0.0) for a in env.possible_agents}
    for agent in env.possible_agents:
        info = env.infos[agent]
        assert info["outcome"] == ILLEGAL_ACTION
        assert info["offender"] == env.possible_agents.index(offender)
        assert info["illegal_action"] == int(illegal[0]) and not info["winners"].any()
        assert not env.observe(agent)["action_mask"].any()
    with pytest.raises(IllegalActionError, match="the only valid action is None"):
        env.step(0)
    seen = {}
    for agent in env.agent_iter():
        _, reward, terminated, truncated, _ = env.last()
        seen[agent] = (reward, terminated, truncated)
        env.step(None)
    assert seen == {a: (-1.0 if a == offender else 0.0, True, False) for a in env.possible_agents}


@pytest.mark.parametrize(("name", "config"), CASES)
def test_raw_env_raises_on_bad_actions_and_changes_nothing(name, config):
    """C-7: raw_env raises IllegalActionError naming the action; nothing changes."""
    raw = make_raw(name, **config)
    raw.reset(seed=0)
    agent = raw.agent_selection
    before = (raw.state().tobytes(), raw.observe(agent)["observation"].tobytes())
    illegal = np.flatnonzero(raw.action_mask(agent) == 0)
    bad = [1.5, True, None, "1", -1, raw.num_actions, *illegal[:1].tolist()]
    for action in bad:
        with pytest.raises(IllegalActionError, match=re.escape(str(agent))):
            raw.step(action)
    assert (raw.state().tobytes(), raw.observe(agent)["observation"].tobytes()) == before


# --- configuration, seeds, options, agents ---------------------------------------------------
@pytest.mark.parametrize("name", DEFAULTS)
def test_unknown_config_keys_are_refused_everywhere_with_the_allowed_keys(name):
    module = ENVS[name]
    builders = {
        "env": module.env,
        "raw_env": module.raw_env,
        "make": lambda **kw: make(name, **kw),
        "pettingzoo.make": lambda **kw: pettingzoo.make("aec", pettingzoo_id(name), **kw),
    }
    for builder in builders.values():
        with pytest.raises(InvalidConfigError, match=r"unknown config key 'bogus_key'.*allowed:"):
            builder(bogus_key=1)
    with pytest.raises(InvalidConfigError, match="render_mode"):
        make(name, render_mode="rgb_array")


@pytest.mark.parametrize("name", DEFAULTS)
def test_seeds_numpy_integers_work_and_bools_are_refused(name):
    plain, numpy_seed = make_raw(name), make_raw(name)
    plain.reset(seed=3)
    numpy_seed.reset(seed=np.int64(3))
    assert np.array_equal(plain.state(), numpy_seed.state())
    for bad in (True, -1, 2.5, "3"):
        with pytest.raises(InvalidConfigError, match="seed"):
            plain.reset(seed=bad)


@pytest.mark.parametrize("name", DEFAULTS)
def test_unknown_reset_option_keys_warn_name_the_key_and_are_ignored(name):
    plain, probed = make_raw(name), make_raw(name)
    plain.reset(seed=4)
    with pytest.warns(UserWarning, match=r"'no_such_option'.*allowed: "):
        probed.reset(seed=4, options={"no_such_option": 1})
    assert np.array_equal(plain.state(), probed.state())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        probed.reset(seed=4, options={})  # no warning without unknown keys
    with pytest.raises(InvalidConfigError, match="options must be a dict"):
        probed.reset(seed=4, options=[1])


@pytest.mark.parametrize("name", DEFAULTS)
def test_unknown_agents_are_named(name):
    env = make(name)
    env.reset(seed=0)
    agents = ", ".join(env.possible_agents)
    for call in (env.observe, env.unwrapped.action_mask, env.observation_space, env.action_space):
        with pytest.raises(UnknownAgentError, match=re.escape(agents)):
            call("nobody")
        with pytest.raises(KeyError):
            call("nobody")


# --- documentation matches the code ----------------------------------------------------------
@pytest.mark.parametrize("name", DEFAULTS)
def test_docstring_tables_equal_the_real_spaces(name):
    module = ENVS[name]
    raw = module.raw_env()
    doc = module.__doc__
    for row in raw.layout.table_rows():
        assert row in doc, f"observation table lacks or contradicts: {row}"
    for row in raw.state_layout.table_rows():
        assert row in doc, f"state table lacks or contradicts: {row}"
    box = raw.observation_space(raw.possible_agents[0])["observation"]
    assert f"| Observation Shape  | {box.shape}" in doc
    assert f"| State Shape        | {raw.state_space.shape}" in doc
    assert f"| Action Shape       | Discrete({raw.num_actions})" in doc
    assert f"`agents= {raw.possible_agents}`" in doc
    assert "## Version History" in doc and "## Decided rules" in doc
