"""The SB3 bridge gives the learner its own observation and its own reward, and MaskablePPO
trains and evaluates through it."""

from __future__ import annotations

import numpy as np
import pytest

from cardarena.agents import RandomAgent
from cardarena.envs import make, make_raw
from cardarena.envs.core import InvalidConfigError, ObservationScaler
from cardarena.training import SingleAgentEnv, evaluate


@pytest.mark.parametrize("num_players", [2, 4])
def test_learner_gets_its_own_observation_mask_and_final_reward(num_players):
    bridge = SingleAgentEnv("promise_war_v0", env_config={"num_players": num_players})
    assert bridge.scaler == ObservationScaler(
        bridge.aec.observation_space("player_0")["observation"]
    )
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
            own = bridge.aec.unwrapped.observe(learner)["observation"]
            assert np.array_equal(observation, bridge.scaler(own))
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


@pytest.mark.parametrize("seat", ["player_0", "player_2"])
def test_a_fixed_learner_keeps_its_seat_in_every_episode(seat):
    bridge = SingleAgentEnv("promise_war_v0", learner=seat, env_config={"num_players": 3})
    rng = np.random.default_rng(0)
    for episode in range(25):
        _, info = bridge.reset(seed=episode)
        assert info["learner"] == seat
        done = False
        while not done:
            raw = bridge.aec.unwrapped
            assert raw.possible_agents[raw.game_state.current_player()] == seat
            action = int(rng.choice(np.flatnonzero(bridge.action_masks())))
            _, _, terminated, truncated, _ = bridge.step(action)
            done = terminated or truncated


def test_a_free_learner_takes_every_seat_about_equally_often():
    bridge = SingleAgentEnv("promise_war_v0", env_config={"num_players": 3})
    counts = {f"player_{i}": 0 for i in range(3)}
    for episode in range(300):
        counts[bridge.reset(seed=episode)[1]["learner"]] += 1
    assert all(70 <= n <= 130 for n in counts.values()), counts


def test_one_agent_as_opponent_plays_every_other_seat():
    class Counting(RandomAgent):
        calls = 0

        def act(self, observation):
            Counting.calls += 1
            return super().act(observation)

    bridge = SingleAgentEnv("promise_war_v0", opponent=Counting(0), learner="player_0",
                            env_config={"num_players": 4})  # fmt: skip
    assert set(bridge.opponents) == {"player_1", "player_2", "player_3"}
    assert len({id(agent) for agent in bridge.opponents.values()}) == 3  # no shared memory
    bridge.reset(seed=0)
    assert Counting.calls == 0  # player_0 acts first
    bridge.step(int(np.flatnonzero(bridge.action_masks())[0]))
    assert Counting.calls == 3


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


class SeatSpy:
    """Plays randomly and records which seat it was asked for (read from the env)."""

    def __init__(self, env):
        self.env, self.seats, self.rng = env, [], np.random.default_rng(0)

    def act(self, observation):
        self.seats.append(self.env.agent_selection)
        return int(self.rng.choice(np.flatnonzero(observation["action_mask"])))


@pytest.mark.parametrize("num_players", [2, 3, 5])
def test_evaluate_rotates_the_agent_through_every_seat_game_by_game(num_players):
    env = make("promise_war_v0", num_players=num_players)
    spy = SeatSpy(env)
    games = 4 * num_players
    played = []

    def env_fn():
        return env

    original_reset = env.reset

    def reset(seed=None, options=None):
        original_reset(seed=seed, options=options)
        played.append(len(spy.seats))

    env.reset = reset
    result = evaluate(env_fn, spy, RandomAgent(1), games=games)
    assert dict(result.seat_games) == {f"player_{i}": 4 for i in range(num_players)}
    bounds = [*played, len(spy.seats)]
    for game in range(games):
        asked = set(spy.seats[bounds[game] : bounds[game + 1]])
        assert asked <= {f"player_{game % num_players}"}, (game, asked)


class FirstLegal:
    def act(self, observation):
        return int(np.flatnonzero(observation["action_mask"])[0])


class LastLegal:
    def act(self, observation):
        return int(np.flatnonzero(observation["action_mask"])[-1])


def test_evaluate_counts_wins_draws_and_losses_exactly_as_the_games_ended():
    from cardarena.training import play_game

    env_fn = lambda: make("promise_war_v0", max_power=3)  # noqa: E731
    result = evaluate(env_fn, FirstLegal(), LastLegal(), games=40, seed=3)
    env = env_fn()
    outcomes = []
    for game in range(40):
        me = env.possible_agents[game % 2]
        lineup = {a: (FirstLegal() if a == me else LastLegal()) for a in env.possible_agents}
        outcomes.append(play_game(env, lineup, seed=3 + game).rewards[me])
    expected = (outcomes.count(1.0), outcomes.count(0.0), outcomes.count(-1.0))
    assert (result.wins, result.draws, result.losses) == expected
    assert min(expected) > 0  # the check covers all three outcomes
    assert result.total_reward == sum(outcomes)


def test_play_game_reports_decisions_and_the_final_info():
    from cardarena.training import play_game

    env = make("promise_war_v0")
    record = play_game(env, {a: RandomAgent(i) for i, a in enumerate(env.possible_agents)}, seed=4)
    assert record.final_info["outcome"] == "terminated"
    assert record.steps == record.final_info["steps"]
    assert record.rewards == {a: env.unwrapped.game_state.returns()[i]
                              for i, a in enumerate(env.possible_agents)}  # fmt: skip


def test_the_bridge_passes_gymnasiums_env_checker_and_illegal_moves_are_terminations_only():
    from gymnasium.utils.env_checker import check_env

    bridge = SingleAgentEnv("promise_war_v0", learner="player_0")
    check_env(bridge, skip_render_check=True)
    bridge.reset(seed=0)
    illegal = int(np.flatnonzero(~bridge.action_masks())[0])
    _, reward, terminated, truncated, info = bridge.step(illegal)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["outcome"] == "illegal_action" and info["offender"] == "player_0"


class RecordingModel:
    """Stands in for an SB3 model: records the observation it is given."""

    def __init__(self):
        self.inputs = []

    def predict(self, observation, action_masks=None, deterministic=True):
        self.inputs.append(np.array(observation))
        return np.array(int(np.flatnonzero(action_masks)[0])), None


def test_a_policy_agent_feeds_its_model_exactly_what_the_bridge_trained_it_on():
    from cardarena.agents import MaskablePolicyAgent

    for seed in range(5):
        bridge = SingleAgentEnv("promise_war_v0", learner="player_1",
                                env_config={"num_players": 3})  # fmt: skip
        model = RecordingModel()
        box = bridge.aec.observation_space("player_1")["observation"]
        agents = [MaskablePolicyAgent(model, bridge.scaler), MaskablePolicyAgent(model, box)]
        observation, _ = bridge.reset(seed=seed)
        done = False
        while not done:
            raw = bridge.aec.unwrapped.observe("player_1")
            for agent in agents:
                agent.act(raw)
                assert np.array_equal(model.inputs[-1], observation)
            assert observation.min() >= 0 and observation.max() <= 1
            action = int(np.flatnonzero(bridge.action_masks())[-1])
            observation, _, terminated, truncated, _ = bridge.step(action)
            done = terminated or truncated


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
    agent = MaskablePolicyAgent(loaded, bridge.scaler)
    # Through the raw env an illegal move would raise instead of quietly losing.
    result = evaluate(lambda: make_raw("promise_war_v0"), agent, RandomAgent(0), games=10)
    assert result.wins + result.draws + result.losses == 10


class Remembering(RandomAgent):
    """Records the seat and env it was told at every game start."""

    def __init__(self, seed=None):
        super().__init__(seed)
        self.starts = []

    def start_game(self, seat, env_spec):
        super().start_game(seat, env_spec)
        self.starts.append((seat, env_spec.name, env_spec.config))


def test_every_seat_gets_its_own_agent_told_its_seat_and_env():
    env_fn = lambda: make("promise_war_v0", num_players=3, max_power=5)  # noqa: E731
    template = Remembering(0)
    agent = Remembering(1)
    evaluate(env_fn, agent, template, games=6)
    assert template.starts == []  # copies played, never the template itself
    assert [s[0] for s in agent.starts] == ["player_0", "player_1", "player_2"] * 2
    assert agent.starts[0][1:] == ("promise_war_v0", {"num_players": 3, "max_power": 5})
    bridge = SingleAgentEnv("promise_war_v0", opponent=template, learner="player_0",
                            env_config={"num_players": 3})  # fmt: skip
    bridge.reset(seed=0)
    seats = {seat: agent.starts for seat, agent in bridge.opponents.items() if agent.starts}
    assert {seat: starts[0][0] for seat, starts in seats.items()} == {
        "player_1": "player_1", "player_2": "player_2"}  # fmt: skip
    bridge = SingleAgentEnv("promise_war_v0", opponent="random")
    assert len({id(a) for a in bridge.opponents.values()}) == 2


def test_a_saved_model_is_an_agent_spec_and_a_foreign_one_is_refused(tmp_path):
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from cardarena.agents import make_agent

    bridge = SingleAgentEnv("promise_war_v0", env_config={"max_power": 4})
    bridge.reset(seed=0)
    model = sb3_contrib.MaskablePPO("MlpPolicy", bridge, n_steps=64, batch_size=32, n_epochs=1,
                                    seed=0, device="cpu")  # fmt: skip
    model.save(tmp_path / "pw.zip")
    spec = str(tmp_path / "pw.zip")
    result = evaluate(lambda: make_raw("promise_war_v0", max_power=4), make_agent(spec),
                      "random", games=6)  # fmt: skip
    assert result.wins + result.draws + result.losses == 6  # raw env: an illegal move raises
    with pytest.raises(InvalidConfigError, match=r"trained for observations .* but promise_war"):
        evaluate(lambda: make("promise_war_v0"), make_agent(spec), "random", games=1)
    with pytest.raises(InvalidConfigError, match="no saved model at"):
        make_agent(str(tmp_path / "missing.zip"))
    (tmp_path / "junk.zip").write_bytes(b"not a zip")
    with pytest.raises(InvalidConfigError, match=r"cannot load .*junk\.zip"):
        evaluate(lambda: make("promise_war_v0"), make_agent(str(tmp_path / "junk.zip")),
                 "random", games=1)  # fmt: skip
