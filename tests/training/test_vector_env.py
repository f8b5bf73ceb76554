"""The vector single-learner envs (SB3 ``LearnerVecEnv``, Gymnasium ``LearnerGymVectorEnv``)
and the vector opponents: the VecEnv and VectorEnv contracts (neither library has a checker
for a vectorized env, so the checks are written here), the learner's view proved equal to
``SingleAgentEnv``'s in the very same game states, seeding, opponent forms, and MaskablePPO
training through them."""

from __future__ import annotations

import numpy as np
import pytest
from fifth_game import NAME as TEST_GAME
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.monitor import Monitor

from cardarena.agents import (
    BaseAgent,
    EnvSpec,
    MaskablePolicyAgent,
    NumpyPolicy,
    PretrainedAgent,
    RandomAgent,
)
from cardarena.agents.pretrained import shipped_policies
from cardarena.agents.vector import (
    RowsAgent,
    VectorHeuristic,
    VectorPolicy,
    VectorRandom,
    as_vector,
    vector_agent,
)
from cardarena.envs import make_raw
from cardarena.envs.core import IllegalActionError, InvalidConfigError
from cardarena.envs.vector import make_vec
from cardarena.training import SingleAgentEnv
from cardarena.training.league import LeaguePool
from cardarena.training.vector.vec_env import LearnerGymVectorEnv, LearnerVecEnv

#: The test game and one real game with a heuristic, a shipped policy and no chance after the
#: deal (so a reference env loaded with a batch game's state plays the same game to its end).
GAMES = [TEST_GAME, "promise_war_v0"]
ADAPTERS = [LearnerVecEnv, LearnerGymVectorEnv]


class FirstLegal:
    """A vector opponent that always plays its lowest legal action (draws nothing)."""

    def act(self, observations, masks, seats, slots, rng):
        return np.argmax(masks, axis=1).astype(np.int64)

    def new_games(self, slots):
        pass


class FirstLegalAgent(BaseAgent):
    """The same player as a scalar agent (it has no vector form: ``RowsAgent`` plays it)."""

    def act(self, observation):
        return int(np.flatnonzero(observation["action_mask"])[0])


def random_actions(masks, rng):
    """A uniform legal action per row (0 where no action is legal)."""
    counts = masks.sum(axis=1)
    picks = (rng.random(len(masks)) * np.maximum(counts, 1)).astype(np.int64)
    return np.where(counts > 0, np.argmax(np.cumsum(masks, axis=1) > picks[:, None], axis=1), 0)


def reset(venv, seed=None):
    if isinstance(venv, LearnerGymVectorEnv):
        return venv.reset(seed=seed)[0]
    if seed is not None:
        venv.seed(seed)
    return venv.reset()


def step(venv, actions):
    """(obs, rewards, terminated, truncated, final observations by game) of either adapter."""
    if isinstance(venv, LearnerGymVectorEnv):
        obs, rewards, terminated, truncated, _ = venv.step(actions)
        done = terminated | truncated
        return obs, rewards, terminated, truncated, {g: obs[g] for g in np.flatnonzero(done)}
    obs, rewards, done, infos = venv.step(actions)
    truncated = np.array([info.get("TimeLimit.truncated", False) for info in infos])
    finals = {g: infos[g]["terminal_observation"] for g in np.flatnonzero(done)}
    return obs, rewards, done & ~truncated, done & truncated, finals


# --- the VecEnv / VectorEnv contracts ------------------------------------------------------
@pytest.mark.parametrize("env_name", GAMES)
def test_vec_env_contract(env_name):
    n = 32
    venv = LearnerVecEnv(env_name, n, seed=1)
    raw = make_raw(env_name)
    box, actions = venv.observation_space, venv.action_space
    assert isinstance(box, spaces.Box) and box.dtype == np.float32
    assert box.shape == raw.observation_space("player_0")["observation"].shape
    assert (box.low == 0).all() and (box.high == 1).all()
    assert actions == spaces.Discrete(raw.num_actions)
    obs = venv.reset()
    assert obs.shape == (n, *box.shape) and obs.dtype == np.float32
    rng = np.random.default_rng(0)
    seats, episodes = set(), 0
    for _ in range(120):
        assert all(box.contains(row) for row in obs)
        masks = np.stack(venv.env_method("action_masks"))  # as MaskablePPO reads them
        assert masks.shape == (n, actions.n) and masks.dtype == np.bool_
        assert masks.any(axis=1).all()  # every game has the learner to act
        seats.update(venv.get_attr("learner"))
        obs, rewards, dones, infos = venv.step(random_actions(masks, rng))
        assert rewards.shape == (n,) and rewards.dtype == np.float32
        assert dones.shape == (n,) and dones.dtype == np.bool_
        assert isinstance(infos, list) and len(infos) == n
        for game in range(n):
            if dones[game]:
                episodes += 1
                info = infos[game]
                assert box.contains(info["terminal_observation"])
                assert info["episode"]["r"] == rewards[game] and info["episode"]["l"] > 0
                assert info["TimeLimit.truncated"] is False
            else:
                assert rewards[game] == 0.0 and "terminal_observation" not in infos[game]
    assert episodes > n and seats == set(raw.possible_agents)  # seats drawn per deal
    assert venv.env_is_wrapped(Monitor) == [True] * n  # its episode infos are there
    bad = random_actions(venv.action_masks(), rng)
    illegal = np.flatnonzero(~venv.action_masks()[3])
    bad[3] = illegal[0] if illegal.size else actions.n
    with pytest.raises(IllegalActionError, match="game 3: illegal action"):
        venv.step(bad)


@pytest.mark.parametrize("env_name", GAMES)
def test_gym_vector_env_contract_and_next_step_autoreset(env_name):
    n = 16
    venv = LearnerGymVectorEnv(env_name, n, seed=2)
    assert venv.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    single = venv.single_observation_space
    assert isinstance(single, spaces.Box) and venv.observation_space.shape == (n, *single.shape)
    assert venv.single_action_space == spaces.Discrete(make_raw(env_name).num_actions)
    assert venv.action_space == spaces.MultiDiscrete([venv.single_action_space.n] * n)
    obs, infos = venv.reset(seed=2)
    assert venv.observation_space.contains(obs)
    rng = np.random.default_rng(1)
    ended_before = np.zeros(n, np.bool_)
    ends = 0
    for _ in range(150):
        masks = infos["action_mask"]
        assert masks.shape == (n, venv.single_action_space.n) and masks.dtype == np.bool_
        assert (masks.any(axis=1) == ~ended_before).all()  # an ended game has an empty mask
        actions = random_actions(masks, rng)
        actions[ended_before] = 10**6  # ignored: those games are dealt anew instead
        obs, rewards, terminated, truncated, infos = venv.step(actions)
        assert venv.observation_space.contains(obs)
        assert rewards.dtype == np.float32 and terminated.dtype == truncated.dtype == np.bool_
        done = terminated | truncated
        # the reset step: no reward, not done, a fresh game with the learner to act
        assert not done[ended_before].any() and (rewards[ended_before] == 0).all()
        assert infos["action_mask"][ended_before].any(axis=1).all()
        assert np.array_equal(infos["learner"], venv.learner_seats)
        ended_before = done
        ends += int(done.sum())
    assert ends > n


def test_a_truncated_game_says_so_in_both_adapters():
    config = {"max_rounds": 1}  # Iron Man stops after its first round
    for adapter in ADAPTERS:
        venv = adapter("ironman_war_v0", 8, seed=0, **config)
        reset(venv, 0)
        rng, truncations = np.random.default_rng(0), 0
        for _ in range(40):
            _obs, rewards, _terminated, truncated, finals = step(
                venv, random_actions(venv.action_masks(), rng)
            )
            truncations += int(truncated.sum())
            assert (rewards[truncated] == 0).all()
            assert all(venv.core.scaler.space.contains(final) for final in finals.values())
        assert truncations > 0


# --- the learner's view is SingleAgentEnv's --------------------------------------------------
def reference_at(venv, game):
    """A ``SingleAgentEnv`` (first-legal opponents) continuing batch game ``game`` from its
    state, the learner in the same seat; returns it and its learner observation."""
    core = venv.core
    seat = core.seat_names[int(core.learner_seat[game])]
    raw = make_raw(core.env_name, **core.env_spec.config)
    bridge = SingleAgentEnv(raw, opponent=FirstLegalAgent(), learner=seat)
    bridge.reset(seed=0)
    raw.set_state(core.engine.state_of(game))
    observation, *_ = bridge._advance()
    return bridge, observation


@pytest.mark.parametrize("adapter", ADAPTERS, ids=lambda a: a.__name__)
@pytest.mark.parametrize(
    ("env_name", "config"), [(TEST_GAME, {}), ("promise_war_v0", {"num_players": 3})], ids=str
)
def test_the_learner_sees_what_single_agent_env_shows_in_the_same_states(adapter, env_name, config):
    """Every game of the batch is followed by a reference bridge loaded with its state: each
    observation, mask, reward, end and final observation must be the bridge's."""
    n = 8
    venv = adapter(env_name, n, seed=5, opponent=FirstLegal(), **config)
    obs = reset(venv, 5)
    bridges = []
    for game in range(n):
        bridge, first = reference_at(venv, game)
        assert np.array_equal(first, obs[game])
        bridges.append(bridge)
    rng = np.random.default_rng(0)
    dealing = np.zeros(n, np.bool_)  # next-step autoreset: this step deals the game anew
    ends = 0
    for _ in range(200):
        masks = venv.action_masks()
        actions = random_actions(masks, rng)
        obs, rewards, terminated, truncated, finals = step(venv, actions)
        for game in range(n):
            if dealing[game]:
                assert rewards[game] == 0 and not (terminated[game] or truncated[game])
                bridges[game], first = reference_at(venv, game)
                assert np.array_equal(first, obs[game])
                dealing[game] = False
                continue
            assert np.array_equal(bridges[game].action_masks(), masks[game])
            seen, reward, ended, cut, _ = bridges[game].step(int(actions[game]))
            assert reward == rewards[game]
            assert (ended, cut) == (terminated[game], truncated[game])
            if ended or cut:
                ends += 1
                assert np.array_equal(seen, finals[game])
                if adapter is LearnerGymVectorEnv:
                    dealing[game] = True
                else:
                    bridges[game], first = reference_at(venv, game)
                    assert np.array_equal(first, obs[game])
            else:
                assert np.array_equal(seen, obs[game])
    assert ends >= n


def test_rows_agree_with_the_engine_observe():
    venv = LearnerVecEnv("promise_war_v0", 16, seed=4, opponent="heuristic", num_players=4)
    obs = venv.reset()
    rng = np.random.default_rng(2)
    for _ in range(40):
        seats = venv.learner_seats
        assert (venv.core.rules.current_player == seats).all()
        assert np.array_equal(obs, venv.scaler(venv.core.engine.observe(seats)))
        obs, *_ = venv.step(random_actions(venv.action_masks(), rng))


# --- seeding -----------------------------------------------------------------------------
def trajectory(venv, reset_seed=None, steps=60):
    """Everything the learner sees over ``steps`` random legal moves after a reset."""
    rng = np.random.default_rng(0)
    rows = [reset(venv, reset_seed).copy(), venv.learner_seats]
    for _ in range(steps):
        obs, rewards, terminated, _truncated, _ = step(
            venv, random_actions(venv.action_masks(), rng)
        )
        rows += [obs.copy(), rewards.copy(), terminated.copy(), venv.learner_seats]
    return rows


@pytest.mark.parametrize("adapter", ADAPTERS, ids=lambda a: a.__name__)
def test_a_seed_fixes_deals_seats_and_opponents(adapter):
    def run(seed, opponent="pretrained:deterministic=false"):
        return trajectory(adapter("promise_war_v0", 16, seed=seed, opponent=opponent))

    first = run(7)
    assert all(np.array_equal(a, b) for a, b in zip(first, run(7), strict=True))
    assert not all(np.array_equal(a, b) for a, b in zip(first, run(8), strict=True))
    venv = adapter("promise_war_v0", 16, seed=3, opponent="pretrained:deterministic=false")
    trajectory(venv)
    again = trajectory(venv, reset_seed=7)  # reseeding replays the seed's games
    assert all(np.array_equal(a, b) for a, b in zip(first, again, strict=True))
    assert not all(np.array_equal(a, b) for a, b in zip(first, trajectory(venv), strict=True))


# --- opponents ---------------------------------------------------------------------------
def test_opponent_forms_and_swapping():
    spec = EnvSpec("promise_war_v0")
    assert isinstance(vector_agent("random", spec), VectorRandom)
    assert isinstance(vector_agent(RandomAgent(), spec), VectorRandom)
    assert isinstance(vector_agent("heuristic", spec), VectorHeuristic)
    assert isinstance(vector_agent("pretrained", spec), VectorPolicy)
    assert isinstance(vector_agent(PretrainedAgent(), spec), VectorPolicy)
    torch_agent = MaskablePolicyAgent(object(), make_raw("promise_war_v0").layout.space())
    assert vector_agent(torch_agent, spec) is None
    assert isinstance(as_vector(torch_agent, spec), RowsAgent)
    assert vector_agent("oracle", EnvSpec("cardline_v0")) is None
    with pytest.raises(InvalidConfigError, match="no strategy"):
        vector_agent("heuristic", EnvSpec(TEST_GAME))
    ironman = EnvSpec("ironman_war_v0")
    with pytest.raises(InvalidConfigError, match="trained for"):
        vector_agent(PretrainedAgent(path=shipped_policies()["promise_war_v0"]), ironman)

    venv = LearnerVecEnv("promise_war_v0", 64, seed=0, opponent=["random", "heuristic"])
    venv.reset()
    rng = np.random.default_rng(0)
    for _ in range(10):
        venv.step(random_actions(venv.action_masks(), rng))
    kinds = {type(venv.core._pool[int(i)]) for i in venv.core.opponent_of}
    assert kinds == {VectorRandom, VectorHeuristic}
    venv.env_method("set_opponent", LeaguePool(baselines=("random", "pretrained")))
    for _ in range(30):
        venv.step(random_actions(venv.action_masks(), rng))
    kinds = {type(venv.core._pool[int(i)]) for i in venv.core.opponent_of}
    assert kinds == {VectorRandom, VectorPolicy}


def test_an_agent_without_a_vector_form_plays_row_by_row_the_same_games():
    runs = [
        trajectory(LearnerVecEnv("promise_war_v0", 8, seed=1, opponent=opponent), steps=30)
        for opponent in (FirstLegal(), FirstLegalAgent())
    ]
    assert all(np.array_equal(a, b) for a, b in zip(*runs, strict=True))


def test_vector_policy_is_the_numpy_policy_row_by_row(tmp_path):
    path = shipped_policies()["promise_war_v0"]
    policy = NumpyPolicy.load(path)
    venv = make_vec("promise_war_v0", 64, seed=0)
    batch, rng = venv.reset(), np.random.default_rng(0)
    observations, masks = [], []
    for _ in range(40):
        live = batch.action_mask.any(axis=1)
        observations.append(batch.observation[live].copy())
        masks.append(batch.action_mask[live].copy())
        batch = venv.step(random_actions(batch.action_mask, rng))
    observations, masks = np.concatenate(observations), np.concatenate(masks)
    seats = slots = np.zeros(len(masks), np.int64)
    exported = vector_agent(str(policy.save(tmp_path / "copy.npz")), EnvSpec("promise_war_v0"))
    assert isinstance(exported, VectorPolicy)
    greedy = exported.act(observations, masks, seats, slots, rng)
    expected = [policy.act(o, m) for o, m in zip(observations, masks, strict=True)]
    assert greedy.tolist() == expected
    sampler = VectorPolicy(policy, deterministic=False)
    drawn = sampler.act(observations, masks, seats, slots, np.random.default_rng(3))
    assert masks[np.arange(len(masks)), drawn].all()
    again = sampler.act(observations, masks, seats, slots, np.random.default_rng(3))
    assert np.array_equal(drawn, again) and not np.array_equal(drawn, greedy)
    random_rows = VectorRandom().act(observations, masks, seats, slots, rng)
    assert masks[np.arange(len(masks)), random_rows].all()
    sampled = vector_agent(
        f"{tmp_path / 'copy.npz'}:deterministic=false", EnvSpec("promise_war_v0")
    )
    assert isinstance(sampled, VectorPolicy) and not sampled.deterministic
    with pytest.raises(InvalidConfigError, match="deterministic"):
        vector_agent(f"{tmp_path / 'copy.npz'}:deterministic=yes", EnvSpec("promise_war_v0"))


# --- training ----------------------------------------------------------------------------
@pytest.mark.parametrize("env_name", GAMES)
def test_maskable_ppo_trains_on_the_learner_vec_env(env_name, tmp_path):
    """Two updates, then self-play: the model's checkpoint as a vector opponent (through a
    league pool) acts as the model itself does."""
    from sb3_contrib import MaskablePPO

    from cardarena.training.checkpoint import save_checkpoint

    venv = LearnerVecEnv(env_name, 64, seed=0, opponent="random")
    model = MaskablePPO(
        "MlpPolicy", venv, n_steps=32, batch_size=512, n_epochs=1, seed=0, device="cpu"
    )
    model.learn(total_timesteps=2 * 32 * 64)
    assert model.num_timesteps == 2 * 32 * 64
    assert len(model.ep_info_buffer) > 0  # the Monitor-style episode infos arrive
    obs = venv.reset()
    actions, _ = model.predict(obs, action_masks=venv.action_masks(), deterministic=True)
    assert venv.action_masks()[np.arange(64), actions].all()
    spec = EnvSpec(env_name)
    snapshot = save_checkpoint(tmp_path / "snapshot", model, spec, venv.scaler, 4096)
    opponent = vector_agent(str(snapshot), spec)
    assert isinstance(opponent, VectorPolicy)
    raw = venv.core.engine.observe(venv.learner_seats)  # the rows unscaled
    games = np.arange(64)
    assert np.array_equal(opponent.act(raw, venv.action_masks(), games, games, None), actions)
    venv.set_opponent(LeaguePool(baselines=(), snapshots=[snapshot]))
    rng = np.random.default_rng(0)
    for _ in range(10):
        venv.step(random_actions(venv.action_masks(), rng))
    assert [type(agent) for agent in venv.core.opponents] == [VectorPolicy]


@pytest.mark.parametrize("env_name", GAMES)
def test_the_gym_vector_env_feeds_a_maskable_policy(env_name):
    """Gymnasium's VectorEnv is not an SB3 env: act with a MaskablePPO policy over it, through
    ``RecordEpisodeStatistics``, as a Gymnasium training loop would."""
    from gymnasium.wrappers.vector import RecordEpisodeStatistics
    from sb3_contrib import MaskablePPO

    model = MaskablePPO("MlpPolicy", LearnerVecEnv(env_name, 4, seed=0), n_steps=8, device="cpu")
    venv = RecordEpisodeStatistics(LearnerGymVectorEnv(env_name, 64, seed=0))
    obs, infos = venv.reset(seed=0)
    returns = []
    for _ in range(64):
        masks = infos["action_mask"]
        actions, _ = model.predict(obs, action_masks=np.where(masks.any(1)[:, None], masks, True))
        obs, _, _, _, infos = venv.step(actions)
        if "episode" in infos:
            returns += infos["episode"]["r"][infos["_episode"]].tolist()
    assert returns and all(-1 <= r <= 1 for r in returns)


class _Spy:
    """Records the calls of one ``BatchEnv`` method, then runs it."""

    def __init__(self, monkeypatch, name):
        from cardarena.envs.vector.front import BatchEnv

        self.calls: list[tuple] = []
        original = getattr(BatchEnv, name)

        def recorded(engine, *args, **kwargs):
            self.calls.append((args, kwargs))
            return original(engine, *args, **kwargs)

        monkeypatch.setattr(BatchEnv, name, recorded)


@pytest.mark.parametrize("same_step", [True, False])
def test_the_learners_batch_is_seeded_dealt_and_checked_by_the_vector_front(monkeypatch, same_step):
    """One seeding, one deal, one action check: the learner's batch drives the vector
    front's own (``BatchEnv.seed_slots``, ``deal``, ``check_actions``), in either autoreset
    mode, and a refused action is named as ``make_vec`` names one, the seat included."""
    from cardarena.training.vector.batch import LearnerBatch

    seeded, dealt, checked = (_Spy(monkeypatch, n) for n in ("seed_slots", "deal", "check_actions"))
    batch = LearnerBatch("promise_war_v0", 6, 11, FirstLegal(), same_step, {})
    assert [args for args, _ in seeded.calls] == [(batch._deal_seed,)]
    batch.reset()
    assert dealt.calls and dealt.calls[-1][0][0].all()  # every slot dealt at reset
    rng = np.random.default_rng(0)
    games = 0
    while games < 6:
        before = len(dealt.calls)
        batch.step(random_actions(batch.mask, rng))
        games += int(batch.done.sum())
        if same_step:  # dealt in the very step it ended (after the learner's or a later move)
            now = [args[0] for args, _ in dealt.calls[before:]]
            assert np.logical_or.reduce([batch.done, *now]).tolist() == batch.done.tolist()
            assert sum(int(which.sum()) for which in now) == int(batch.done.sum())
        if not same_step and batch.pending.any():  # dealt by the next step
            pending = batch.pending.copy()
            batch.step(random_actions(batch.mask, rng))
            assert dealt.calls[-1][0][0].tolist() == pending.tolist()
    assert {kwargs["who"] for _, kwargs in checked.calls} == {"the learner"}
    legal = np.flatnonzero(batch.mask[2])
    bad = random_actions(batch.mask, rng)
    bad[2] = np.flatnonzero(~batch.mask[2])[0]
    seat = batch.seat_names[int(batch.learner_seat[2])]
    state = batch.engine.state_of(2)
    names = ", ".join(f"{a} ({state.action_to_string(a)})" for a in legal)
    with pytest.raises(IllegalActionError) as refused:
        batch.step(bad)
    assert str(refused.value) == (
        f"game 2: illegal action {bad[2]} ({state.action_to_string(int(bad[2]))}) for the "
        f"learner ({seat}); legal actions: {names}"
    )
    bad[2] = batch.num_actions
    with pytest.raises(IllegalActionError, match=rf"out of range 0\.\.{batch.num_actions - 1}"):
        batch.step(bad)
