"""The SB3 bridge gives the learner its own observation and its own reward, and MaskablePPO
trains and evaluates through it."""

from __future__ import annotations

import numpy as np
import pytest

from cardarena.agents import RandomAgent
from cardarena.envs import ENVS, make, make_raw
from cardarena.envs.core import ILLEGAL_ACTION, TERMINATED, InvalidConfigError, ObservationScaler
from cardarena.evaluation import evaluate
from cardarena.training import SingleAgentEnv


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
    from cardarena.evaluation import play_game

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
    from cardarena.evaluation import play_game

    env = make("promise_war_v0")
    record = play_game(env, {a: RandomAgent(i) for i, a in enumerate(env.possible_agents)}, seed=4)
    assert record.final_info["outcome"] == TERMINATED
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
    assert info["outcome"] == ILLEGAL_ACTION and info["offender"] == 0


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


def _save_small_model(sb3_contrib, path):
    """An untrained MaskablePPO for promise_war_v0 with max_power 4, saved at ``path``."""
    bridge = SingleAgentEnv("promise_war_v0", env_config={"max_power": 4})
    bridge.reset(seed=0)
    model = sb3_contrib.MaskablePPO("MlpPolicy", bridge, n_steps=64, batch_size=32, n_epochs=1,
                                    seed=0, device="cpu")  # fmt: skip
    model.save(path)
    return model


def test_a_saved_model_is_an_agent_spec_and_a_foreign_one_is_refused(tmp_path):
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from cardarena.agents import make_agent

    _save_small_model(sb3_contrib, tmp_path / "pw.zip")
    spec = str(tmp_path / "pw.zip")
    result = evaluate(lambda: make_raw("promise_war_v0", max_power=4), make_agent(spec),
                      "random", games=6)  # fmt: skip
    assert result.wins + result.draws + result.losses == 6  # raw env: an illegal move raises
    with pytest.raises(InvalidConfigError, match=r"trained for observations .* but promise_war"):
        evaluate(lambda: make("promise_war_v0"), make_agent(spec), "random", games=1)
    with pytest.raises(InvalidConfigError, match="no saved model at"):
        make_agent(str(tmp_path / "missing.zip"))
    (tmp_path / "junk.zip").write_bytes(b"not a zip")
    with pytest.raises(InvalidConfigError, match=r"junk\.zip' is not a readable \.zip"):
        evaluate(lambda: make("promise_war_v0"), make_agent(str(tmp_path / "junk.zip")),
                 "random", games=1)  # fmt: skip


# --- Opponent samplers, vectorised masks, consecutive decisions, illegal modes, registration ---


class Tagged(RandomAgent):
    """A random agent that says which list entry it came from."""

    def __init__(self, tag, seed=None):
        super().__init__(seed)
        self.tag = tag


def _play_out(bridge, rng):
    done = False
    while not done:
        action = int(rng.choice(np.flatnonzero(bridge.action_masks())))
        _, _, terminated, truncated, _ = bridge.step(action)
        done = terminated or truncated


def test_a_list_of_opponents_is_drawn_uniformly_per_episode_with_one_instance_per_seat():
    entries = [Tagged("a"), Tagged("b"), "random"]
    bridge = SingleAgentEnv("promise_war_v0", opponent=entries, env_config={"num_players": 3})
    rng = np.random.default_rng(0)
    drawn = []
    for episode in range(90):
        _, info = bridge.reset(seed=episode)
        others = [a for s, a in bridge.opponents.items() if s != info["learner"]]
        assert len({id(a) for a in others}) == 2  # each seat its own instance
        assert all(a is not e for a in others for e in entries)  # copies, never the templates
        drawn.append(getattr(others[0], "tag", "random"))
        assert {getattr(a, "tag", "random") for a in others} == {drawn[-1]}
        if episode < 5:
            _play_out(bridge, rng)
    assert all(15 <= drawn.count(tag) <= 45 for tag in "ab") and drawn.count("random") >= 15
    again = SingleAgentEnv("promise_war_v0", opponent=entries, env_config={"num_players": 3})
    replay = []
    for episode in range(90):
        again.reset(seed=episode)
        replay.append(getattr(next(iter(again.opponents.values())), "tag", "random"))
    assert replay == drawn  # drawn from the bridge's own seeded generator
    with pytest.raises(InvalidConfigError, match="at least one"):
        SingleAgentEnv("promise_war_v0", opponent=[])
    with pytest.raises(InvalidConfigError, match="opponent must be an Agent"):
        SingleAgentEnv("promise_war_v0", opponent=[RandomAgent(), 3])


def test_an_opponent_sampler_is_asked_at_every_reset_with_the_bridges_generator():
    from cardarena.training.single_agent import OpponentSampler

    class Pool:
        def __init__(self):
            self.rngs, self.members = [], [Tagged("old"), "random", Tagged("new")]

        def sample(self, rng):
            self.rngs.append(rng)
            return self.members[int(rng.integers(len(self.members)))]

    pool = Pool()
    assert isinstance(pool, OpponentSampler)
    bridge = SingleAgentEnv("promise_war_v0", opponent=pool, learner="player_0")
    seen = set()
    rng = np.random.default_rng(1)
    for episode in range(30):
        bridge.reset(seed=episode)
        assert pool.rngs[-1] is bridge.np_random
        opponent = bridge.opponents["player_1"]
        assert all(opponent is not m for m in pool.members)
        seen.add(getattr(opponent, "tag", "random"))
        _play_out(bridge, rng)
    assert len(pool.rngs) == 30 and seen == {"old", "new", "random"}
    bridge.set_opponent("random")  # back to a fixed opponent
    bridge.reset(seed=0)
    assert bridge.sampler is None and not hasattr(bridge.opponents["player_1"], "tag")


def _bridge_fn(seed):
    def build():
        return SingleAgentEnv("promise_war_v0", env_config={"max_power": 4})

    return build


def test_action_masks_work_through_subproc_and_dummy_vec_envs():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    vec = SubprocVecEnv([_bridge_fn(0), _bridge_fn(1)], start_method="fork")
    try:
        vec.seed(0)
        vec.reset()
        masks = vec.env_method("action_masks")
        assert len(masks) == 2 and all(m.dtype == bool and m.any() for m in masks)
        actions = np.array([int(np.flatnonzero(m)[0]) for m in masks])
        vec.step(actions)
        assert all(m.any() for m in vec.env_method("action_masks"))
    finally:
        vec.close()
    dummy = DummyVecEnv([_bridge_fn(0), _bridge_fn(1)])
    dummy.reset()
    masks = get_action_masks(dummy)
    assert masks.shape == (2, dummy.action_space.n) and masks.dtype == bool
    assert np.array_equal(masks[0], dummy.envs[0].action_masks())


def test_iron_man_commits_three_cards_as_consecutive_learner_decisions_with_its_own_obs():
    bridge = SingleAgentEnv("ironman_war_v0", learner="iron_man")
    observation, _ = bridge.reset(seed=0)
    raw = bridge.aec.unwrapped
    layout = raw.layout
    for slot in range(3):  # iron_man commits its three cards first
        assert raw.agent_selection == "iron_man"
        assert np.array_equal(observation, bridge.scaler(raw.observe("iron_man")["observation"]))
        view = layout.view(raw.observe("iron_man")["observation"])
        assert view["commit_slot"][slot] == 1 and view["decision"][0] == 1
        action = int(np.flatnonzero(bridge.action_masks())[0])
        observation, reward, terminated, truncated, _ = bridge.step(action)
        assert (reward, terminated, truncated) == (0.0, False, False)
    assert raw.agent_selection == "iron_man"  # war_machine committed in between
    assert np.array_equal(observation, bridge.scaler(raw.observe("iron_man")["observation"]))


@pytest.mark.parametrize("name", sorted(ENVS))
def test_the_learner_gets_its_final_reward_when_an_opponent_ends_the_game(name):
    class LastMover(RandomAgent):
        def act(self, observation):
            LastMover.last = "opponent"
            return super().act(observation)

    bridge = SingleAgentEnv(name, opponent=LastMover(0))
    rng = np.random.default_rng(0)
    ended_by_opponent = 0
    for episode in range(12):
        _, info = bridge.reset(seed=episode)
        seat = bridge.aec.unwrapped.agent_name_mapping[info["learner"]]
        total, done = 0.0, False
        while not done:
            LastMover.last = "learner"
            action = int(rng.choice(np.flatnonzero(bridge.action_masks())))
            _, reward, terminated, truncated, _ = bridge.step(action)
            total += reward
            done = terminated or truncated
        state = bridge.aec.unwrapped.game_state
        if terminated:
            assert total == state.returns()[seat]
            ended_by_opponent += LastMover.last == "opponent"
    assert ended_by_opponent > 0


def test_illegal_loss_ends_the_episode_with_minus_one_also_on_a_raw_env():
    for aec in ("promise_war_v0", make_raw("promise_war_v0")):
        bridge = SingleAgentEnv(aec, learner="player_0", illegal="loss")
        bridge.reset(seed=0)
        illegal = int(np.flatnonzero(~bridge.action_masks())[0])
        observation, reward, terminated, truncated, info = bridge.step(illegal)
        assert (reward, terminated, truncated) == (-1.0, True, False)
        assert info["outcome"] == ILLEGAL_ACTION and info["offender"] == 0
        assert bridge.observation_space.contains(observation)
        bridge.reset(seed=1)  # the next episode starts normally
        legal = int(np.flatnonzero(bridge.action_masks())[0])
        assert bridge.step(legal)[1] == 0.0
    with pytest.raises(InvalidConfigError, match="illegal must be one of"):
        SingleAgentEnv("promise_war_v0", illegal="ignore")


def test_illegal_resample_plays_a_random_legal_action_and_says_so():
    bridge = SingleAgentEnv(make_raw("promise_war_v0"), learner="player_0", illegal="resample")
    bridge.reset(seed=0)
    flags = []
    for _ in range(200):
        illegal = np.flatnonzero(~bridge.action_masks())
        action = int(illegal[0]) if illegal.size else 0
        _, _, terminated, truncated, info = bridge.step(action)  # a raw env would raise
        flags.append(info["resampled"])
        if terminated or truncated:
            assert info.get("outcome") != ILLEGAL_ACTION
            bridge.reset()
    assert any(flags)
    bridge.reset(seed=0)
    legal = int(np.flatnonzero(bridge.action_masks())[0])
    assert bridge.step(legal)[4]["resampled"] is False


@pytest.mark.parametrize("illegal", ["mask", "loss", "resample"])
def test_plain_ppo_trains_with_every_illegal_option(illegal):
    sb3 = pytest.importorskip("stable_baselines3")
    bridge = SingleAgentEnv("promise_war_v0", env_config={"max_power": 4}, illegal=illegal)
    model = sb3.PPO("MlpPolicy", bridge, n_steps=64, batch_size=64, n_epochs=1, seed=0,
                    device="cpu")  # fmt: skip
    model.learn(total_timesteps=256)
    assert model.num_timesteps >= 256


def test_plain_a2c_and_dqn_train_with_resampling():
    sb3 = pytest.importorskip("stable_baselines3")
    bridge = SingleAgentEnv("cardline_v0", illegal="resample")
    sb3.A2C("MlpPolicy", bridge, n_steps=16, seed=0, device="cpu").learn(total_timesteps=128)
    dqn = sb3.DQN("MlpPolicy", bridge, learning_starts=32, buffer_size=500, batch_size=16,
                  train_freq=8, seed=0, device="cpu")  # fmt: skip
    dqn.learn(total_timesteps=128)


def test_every_env_is_registered_with_gymnasium():
    import gymnasium

    from cardarena.training import GYM_IDS, gym_id
    from cardarena.training.gym_registration import register_gym_envs

    # Idempotent; it also picks up an env registered after cardarena.training was imported.
    ids = register_gym_envs()
    assert ids == [gym_id(name) for name in ENVS] and set(GYM_IDS) <= set(ids)
    assert gym_id("promise_war_v0") == "cardarena/promise_war-single-v0"
    for name in ENVS:
        env = gymnasium.make(gym_id(name), learner=None, opponent="random", illegal="resample")
        bridge = env.unwrapped
        assert isinstance(bridge, SingleAgentEnv) and bridge.illegal == "resample"
        assert bridge.aec.unwrapped.metadata["name"] == name
        observation, _ = env.reset(seed=0)
        assert env.observation_space.contains(observation)
        env.step(int(np.flatnonzero(bridge.action_masks())[0]))
    env = gymnasium.make("cardarena/promise_war-single-v0", env_config={"num_players": 3})
    assert env.unwrapped.aec.unwrapped.possible_agents[-1] == "player_2"


@pytest.mark.parametrize("name", sorted(ENVS))
def test_gymnasium_and_sb3_env_checkers_pass_for_every_env(name):
    from gymnasium.utils.env_checker import check_env as gym_check
    from stable_baselines3.common.env_checker import check_env as sb3_check

    from cardarena.training import gym_id
    from cardarena.training.gym_registration import register_gym_envs

    register_gym_envs()  # an env registered after cardarena.training was imported, too

    for illegal in ("mask", "resample"):
        gym_check(SingleAgentEnv(name, illegal=illegal), skip_render_check=True)
        sb3_check(SingleAgentEnv(name, illegal=illegal), warn=True)
    import gymnasium

    gym_check(gymnasium.make(gym_id(name)).unwrapped, skip_render_check=True)


def test_saved_models_load_once_per_process_however_many_agents_play_them(tmp_path):
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from cardarena.agents import EnvSpec, make_agent, policy_agent

    model = _save_small_model(sb3_contrib, tmp_path / "pw.zip")
    loads = []
    original = policy_agent.SavedModelAgent._load

    def counting(self, env_spec):
        loads.append(env_spec)
        return original(self, env_spec)

    policy_agent.SavedModelAgent._load = counting
    try:
        spec = EnvSpec("promise_war_v0", {"max_power": 4})
        agents = [make_agent(str(tmp_path / "pw.zip")) for _ in range(5)]
        for seat, agent in zip(["player_0", "player_1"] * 3, agents, strict=False):
            agent.start_game(seat, spec)
        assert len(loads) == 1
        model.save(tmp_path / "pw.zip")  # a new version of the file is loaded again
        make_agent(str(tmp_path / "pw.zip")).start_game("player_0", spec)
        assert len(loads) == 2
    finally:
        policy_agent.SavedModelAgent._load = original
