"""The SB3 bridge gives the learner its own observation and its own reward, and MaskablePPO
trains and evaluates through it."""

from __future__ import annotations

import numpy as np
import pytest

from cardarena.agents import RandomAgent
from cardarena.envs import make, make_raw
from cardarena.envs.core import InvalidConfigError, unit_scale
from cardarena.training import SingleAgentEnv, evaluate


@pytest.mark.parametrize("num_players", [2, 4])
def test_learner_gets_its_own_observation_mask_and_final_reward(num_players):
    bridge = SingleAgentEnv("promise_war_v0", env_config={"num_players": num_players})
    scale = unit_scale(bridge.aec.observation_space("player_0")["observation"])
    rng = np.random.default_rng(0)
    seats_seen = set()
    for episode in range(30):
        observation, info = bridge.reset(seed=episode)
        learner = info["learner"]
        seats_seen.add(learner)
        seat = bridge.aec.unwrapped.agent_name_mapping[learner]
        total = 0.0
        while True:
            state = bridge.aec.unwrapped.game_state
            assert state.current_player() == seat  # it is really the learner's turn
            own = bridge.aec.unwrapped.encode(state, seat) * scale
            assert np.array_equal(observation, own)
            assert np.array_equal(bridge.action_masks(), state.legal_action_mask())
            action = int(rng.choice(np.flatnonzero(bridge.action_masks())))
            observation, reward, terminated, truncated, _ = bridge.step(action)
            total += reward
            if terminated or truncated:
                break
            assert reward == 0.0
        assert total == state.returns()[seat]
        assert bridge.observation_space.contains(observation)
    assert len(seats_seen) == num_players  # the learner plays every seat


def test_fixed_learner_seat_and_opponent_validation():
    bridge = SingleAgentEnv("promise_war_v0", learner="player_1")
    _, info = bridge.reset(seed=0)
    assert info["learner"] == "player_1"
    with pytest.raises(InvalidConfigError, match="learner must be one of"):
        SingleAgentEnv("promise_war_v0", learner="player_9")
    with pytest.raises(InvalidConfigError, match="missing \\['player_1'\\]"):
        SingleAgentEnv("promise_war_v0", opponent={"player_0": RandomAgent()})
    only_other_seat = {"player_0": RandomAgent()}
    fixed = SingleAgentEnv("promise_war_v0", learner="player_1", opponent=only_other_seat)
    assert fixed.reset(seed=0)[1]["learner"] == "player_1"
    with pytest.raises(InvalidConfigError, match="opponent must be an Agent"):
        SingleAgentEnv("promise_war_v0", opponent=42)  # type: ignore[arg-type]


def test_bridge_is_deterministic_per_seed():
    def run(seed):
        bridge = SingleAgentEnv("promise_war_v0")
        observation, _ = bridge.reset(seed=seed)
        out = [observation.tobytes()]
        done = False
        while not done:
            action = int(np.flatnonzero(bridge.action_masks())[0])
            observation, reward, terminated, truncated, _ = bridge.step(action)
            out.append((observation.tobytes(), reward))
            done = terminated or truncated
        return out

    assert run(3) == run(3)
    assert run(3) != run(4)


class AlwaysIllegal:
    """Plays the first action the mask forbids."""

    def act(self, observation):
        return int(np.flatnonzero(observation["action_mask"] == 0)[0])


def test_evaluate_counts_an_illegal_move_as_a_loss_not_a_truncation():
    result = evaluate(lambda: make("promise_war_v0"), AlwaysIllegal(), RandomAgent(2), games=6)
    assert (result.losses, result.truncated, result.mean_reward) == (6, 0, -1.0)


def test_evaluate_counts_truncated_games_apart():
    def capped():
        return make("promise_war_v0", max_tricks=1)

    result = evaluate(capped, RandomAgent(1), RandomAgent(2), games=6)
    assert (result.truncated, result.wins + result.draws + result.losses) == (6, 0)


def test_evaluate_is_reproducible_for_a_seed_with_the_same_agent_objects():
    agent, opponent = RandomAgent(1), RandomAgent(2)
    first = evaluate(lambda: make("promise_war_v0"), agent, opponent, games=30, seed=5)
    again = evaluate(lambda: make("promise_war_v0"), agent, opponent, games=30, seed=5)
    assert first == again


def test_maskable_ppo_trains_saves_loads_and_plays_legally(tmp_path):
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from cardarena.agents import MaskablePolicyAgent

    bridge = SingleAgentEnv("promise_war_v0")
    bridge.reset(seed=0)
    model = sb3_contrib.MaskablePPO("MlpPolicy", bridge, n_steps=128, batch_size=64,
                                    n_epochs=1, seed=0, device="cpu")  # fmt: skip
    model.learn(total_timesteps=256)
    model.save(tmp_path / "model.zip")
    loaded = sb3_contrib.MaskablePPO.load(tmp_path / "model.zip", device="cpu")
    box = make("promise_war_v0").observation_space("player_0")["observation"]
    agent = MaskablePolicyAgent(loaded, box)
    # Through the raw env an illegal move would raise instead of quietly losing.
    result = evaluate(lambda: make_raw("promise_war_v0"), agent, RandomAgent(0), games=10)
    assert result.wins + result.draws + result.losses == 10
