"""``cardarena.agents.vector`` at its edges: every kind of network agent reaches the same
vector policy, its defaults are the scalar agent's, sampling stays legal at the extremes (a
uniform draw of exactly 0, logits in the hundreds), and a row-by-row agent is started and
reseeded once per game and seat. Each test names the slip it catches."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from cardarena.agents import EnvSpec, make_agent
from cardarena.agents import vector as vector_module
from cardarena.agents.base import BaseAgent
from cardarena.agents.numpy_policy import NumpyPolicy, NumpyPolicyAgent
from cardarena.agents.vector import RowsAgent, VectorPolicy, vector_agent, vector_heuristic
from cardarena.envs.core import InvalidConfigError, ObservationScaler

ENV = EnvSpec("promise_war_v0")


def _policy(bias: float = 0.0, seed: int = 0) -> NumpyPolicy:
    raw = ENV.make_raw()
    seat = raw.possible_agents[0]
    scaler = ObservationScaler(raw.observation_space(seat)["observation"])
    size, actions = scaler.offset.size, int(raw.action_space(seat).n)
    rng = np.random.default_rng(seed)
    layers = [
        (rng.normal(0, 1, (8, size)).astype(np.float32), np.zeros(8, np.float32)),
        (rng.normal(0, 1, (actions, 8)).astype(np.float32), np.full(actions, bias, np.float32)),
    ]
    return NumpyPolicy(
        layers, "tanh", scaler.offset, scaler.scale, {"env": ENV.name, "source": "unit test"}
    )


def _rows(n: int = 6) -> tuple[np.ndarray, np.ndarray]:
    raw = ENV.make_raw()
    raw.reset(seed=0)
    observed = raw.observe(raw.agent_selection)
    observations = np.repeat(observed["observation"][None], n, axis=0)
    masks = np.repeat(observed["action_mask"][None].astype(bool), n, axis=0)
    return observations, masks


class _ZeroDraws:
    """A generator whose every uniform draw is exactly 0.0 (``random()`` may return it)."""

    def random(self, size: int) -> np.ndarray:
        return np.zeros(size)


def test_a_vector_policy_is_greedy_unless_told_otherwise():
    """Kills the default ``deterministic=True`` -> ``False``."""
    policy = _policy()
    agent = VectorPolicy(policy)
    observations, masks = _rows()
    logits = np.where(masks, agent.logits(observations), -np.inf)
    assert agent.deterministic
    actions = agent.act(
        observations, masks, np.zeros(6, int), np.arange(6), np.random.default_rng(0)
    )
    assert (actions == logits.argmax(axis=1)).all()


def test_a_draw_of_exactly_zero_picks_the_first_legal_action_not_a_masked_one():
    """Inverse CDF: the first action whose cumulative weight passes the target. With a target
    of 0, the masked actions before it (cumulative weight exactly 0) must not count as passed
    (kills ``cdf <= targets`` -> ``cdf < targets``, which returns action 0, masked here)."""
    agent = VectorPolicy(_policy(), deterministic=False)
    observations, masks = _rows()
    masks[:, 0] = False
    first_legal = masks.argmax(axis=1)
    actions = agent.act(observations, masks, np.zeros(6, int), np.arange(6), _ZeroDraws())
    assert (actions == first_legal).all()


def test_sampling_with_logits_in_the_hundreds_stays_a_distribution():
    """The softmax is shifted by the row's largest logit: ``exp(400)`` overflows float64
    (kills ``logits - max`` -> ``logits + max``: every weight infinite, the draw not one the
    softmax would make)."""
    agent = VectorPolicy(_policy(bias=400.0), deterministic=False)
    observations, masks = _rows(2000)
    actions = agent.act(observations, masks, np.zeros(2000, int), np.arange(2000),
                        np.random.default_rng(0))  # fmt: skip
    logits = np.where(masks[0], agent.logits(observations[:1])[0], -np.inf).astype(np.float64)
    expected = np.exp(logits - logits.max())
    expected /= expected.sum()
    frequencies = np.bincount(actions, minlength=masks.shape[1]) / len(actions)
    assert masks[0][actions].all()
    np.testing.assert_allclose(frequencies, expected, atol=0.04)


def test_no_rows_give_no_actions():
    """Kills ``np.zeros(0, ...)`` -> ``np.zeros(-1, ...)``."""
    observations, masks = _rows()
    for agent in (VectorPolicy(_policy()), VectorPolicy(_policy(), deterministic=False)):
        actions = agent.act(observations[:0], masks[:0], np.zeros(0, int), np.zeros(0, int),
                            np.random.default_rng(0))  # fmt: skip
        assert actions.shape == (0,) and actions.dtype == np.int64


def test_a_vector_policy_names_its_source():
    """Kills ``meta.get("source") or meta.get("env")`` -> ``and``."""
    assert repr(VectorPolicy(_policy())) == "VectorPolicy('unit test', deterministic=True)"


@pytest.mark.parametrize("deterministic", [True, False])
def test_an_exported_file_spec_keeps_the_agents_default_and_its_option(tmp_path, deterministic):
    """``x.npz`` plays greedily as ``make_agent("x.npz")`` does, ``x.npz:deterministic=false``
    samples (kills the default ``True`` -> ``False`` of the spec's option)."""
    path = _policy().save(tmp_path / "x.npz")
    plain = vector_agent(str(path), ENV)
    assert isinstance(plain, VectorPolicy) and plain.deterministic
    told = vector_agent(f"{path}:deterministic={str(deterministic).lower()}", ENV)
    assert isinstance(told, VectorPolicy) and told.deterministic is deterministic


def _same_network(vector: Any, policy: NumpyPolicy) -> bool:
    observations, _ = _rows(3)
    return isinstance(vector, VectorPolicy) and np.allclose(
        vector.logits(observations), [policy.logits(o) for o in observations], atol=1e-5
    )


@pytest.mark.parametrize("deterministic", [True, False])
def test_a_numpy_policy_agent_reaches_its_own_network(deterministic):
    """A ``NumpyPolicyAgent`` holding a policy is played by that policy (its ``policy``
    attribute; kills ``kind is NumpyPolicyAgent`` -> ``is not``, which reads ``_policy``)."""
    policy = _policy(seed=4)
    agent = NumpyPolicyAgent(policy, seed=0, deterministic=deterministic)
    vector = vector_agent(agent, ENV)
    assert _same_network(vector, policy) and vector.deterministic is deterministic


def test_a_checkpoint_agent_reaches_its_checkpoints_network(tmp_path):
    """A checkpoint folder agent is started for the env and played by its network."""
    pytest.importorskip("torch")
    from cardarena.training.train import train
    from cardarena.training.train_args import TrainArgs

    final = train(TrainArgs(
        env="promise_war_v0", backend="vector", steps=64, num_envs=8, rollout_steps=8,
        minibatch_size=32, n_epochs=1, net_arch=[8], eval_every=0, final_eval_games=0,
        checkpoint_every=64, out=tmp_path / "run", progress=False, torch_threads=1,
        precision="float32",
    ))  # fmt: skip
    agent = make_agent(f"{final}:deterministic=false")
    vector = vector_agent(agent, ENV)
    agent.start_game("player_0", ENV)
    assert _same_network(vector, agent._policy) and not vector.deterministic


def test_a_missing_vector_heuristic_module_means_none_and_a_broken_one_raises(
    monkeypatch, tmp_path
):
    """A vector heuristic whose own module is not there is "not written yet" (None); a
    module that is there but imports something missing is a bug and raises (kills the
    ``rpartition(".")[2]`` index made 1 or 3)."""
    table = vector_module.VECTOR_HEURISTICS
    monkeypatch.setitem(table, ENV.name, "cardarena.agents.heuristics.vector_unwritten:X")
    assert vector_heuristic(ENV) is None
    (tmp_path / "cardarena_broken_heuristic.py").write_text("import cardarena_no_such_dep\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(table, ENV.name, "cardarena_broken_heuristic:X")
    with pytest.raises(ModuleNotFoundError, match="cardarena_no_such_dep"):
        vector_heuristic(ENV)


class _Recorder(BaseAgent):
    """Plays the first legal action and records every ``start_game`` and reseed."""

    log: list[tuple[str, Any]] = []

    def start_game(self, seat: str, env_spec: EnvSpec) -> None:
        super().start_game(seat, env_spec)
        _Recorder.log.append(("start", seat))

    def seed(self, seed: int | None) -> None:
        super().seed(seed)
        _Recorder.log.append(("seed", seed))

    def act(self, observation: dict[str, np.ndarray]) -> int:
        return int(np.flatnonzero(observation["action_mask"])[0])


def test_a_row_agent_is_started_once_per_game_and_seat():
    """The first move of a (slot, seat) starts its copy; later moves do not; ``new_games``
    makes the next move start it again (kills ``key not in self._known`` -> ``in``)."""
    _Recorder.log = []
    rows = RowsAgent(_Recorder(), ENV)
    observations, masks = _rows(2)
    seats, slots = np.array([0, 1]), np.array([5, 5])
    rng = np.random.default_rng(0)
    rows.act(observations, masks, seats, slots, rng)
    starts = [entry for entry in _Recorder.log if entry[0] == "start"]
    assert starts == [("start", "player_0"), ("start", "player_1")]
    rows.act(observations, masks, seats, slots, rng)
    assert [entry for entry in _Recorder.log if entry[0] == "start"] == starts
    rows.new_games(np.array([5]))
    rows.act(observations, masks, seats, slots, rng)
    assert len([entry for entry in _Recorder.log if entry[0] == "start"]) == 4
    assert len([entry for entry in _Recorder.log if entry[0] == "seed"]) >= 4


def test_a_bare_numpy_policy_plays_greedily():
    """``vector_agent(NumpyPolicy)`` is the policy's greedy play, as ``NumpyPolicyAgent``'s
    default (kills ``_policy_for(item, env_spec, True)`` -> ``False``)."""
    policy = _policy(seed=2)
    vector = vector_agent(policy, ENV)
    assert _same_network(vector, policy) and vector.deterministic


def test_an_exported_file_spec_with_an_unknown_option_is_refused(tmp_path):
    """Only ``deterministic`` is an option of an ``.npz`` spec (kills ``if unknown`` ->
    ``if not unknown``, which refuses every good spec and passes every bad one)."""
    path = _policy().save(tmp_path / "x.npz")
    with pytest.raises(InvalidConfigError, match=r"unknown option 'temperature'; .* takes 'det"):
        vector_agent(f"{path}:temperature=2", ENV)


class _OddAct:
    """Has ``new_games`` and an ``act`` whose signature cannot be read."""

    def __init__(self, act: Any) -> None:
        self.act = act

    def new_games(self, slots: np.ndarray) -> None:
        pass


@pytest.mark.parametrize("act", [5, math.log], ids=["not callable", "builtin"])
def test_an_object_whose_act_has_no_signature_is_not_taken_for_a_vector_agent(act):
    """``inspect.signature`` raises TypeError (not callable) or ValueError (a builtin): such an
    object is no vector agent (it has no vector form; ``as_vector`` plays it row by row),
    and the error is not the caller's (kills either exception left out of the ``except``)."""
    assert vector_agent(_OddAct(act), ENV) is None


def test_every_action_can_be_drawn_the_last_one_too():
    """A network with no opinion (all logits equal) samples every legal action alike, the
    last action included (kills the target scaled by ``cdf[:, -2]``, which never reaches it)."""
    policy = _policy()
    flat = NumpyPolicy([(np.zeros_like(w), np.zeros_like(b)) for w, b in policy.layers],
                       "tanh", policy.offset, policy.factor, policy.meta)  # fmt: skip
    agent = VectorPolicy(flat, deterministic=False)
    observations, masks = _rows(4000)
    masks[:] = True
    actions = agent.act(observations, masks, np.zeros(4000, int), np.arange(4000),
                        np.random.default_rng(1))  # fmt: skip
    counts = np.bincount(actions, minlength=masks.shape[1])
    expected = 4000 / masks.shape[1]
    assert (np.abs(counts - expected) < 5 * np.sqrt(expected)).all(), counts


def test_every_row_agent_gets_its_own_seed():
    """Each (slot, seat) copy is reseeded from the batch's generator with a seed of its own
    (kills the seed range ``2**63`` made ``1**63``, every copy seed 0, or ``2*63``: 126
    seeds, copies sharing streams)."""
    _Recorder.log = []
    rows = RowsAgent(_Recorder(), ENV)
    observations, masks = _rows(64)
    rows.act(observations, masks, np.arange(64) % 2, np.arange(64) // 2, np.random.default_rng(0))
    seeds = [seed for kind, seed in _Recorder.log if kind == "seed" and seed is not None]
    assert len(seeds) == 64 and len(set(seeds)) == 64


def test_a_subclass_of_a_known_agent_is_not_taken_for_it():
    """A user's subclass of ``HeuristicAgent`` or ``PretrainedAgent`` may play differently, so
    it has no vector form (``as_vector`` plays it row by row), not the parent's (kills
    ``isinstance(...) and kind is ...`` made ``or``)."""
    from cardarena.agents import HeuristicAgent, PretrainedAgent

    class Cautious(HeuristicAgent):
        pass

    class Greedy(PretrainedAgent):
        pass

    assert vector_agent(Cautious(seed=0), ENV) is None
    assert vector_agent(Greedy(seed=0), ENV) is None


def test_a_missing_exported_file_is_an_unknown_spec():
    """A ``.npz`` name that is no file is read as any other spec (kills ``endswith(".npz")
    and is_file()`` made ``or``, which tries to load the missing file)."""
    with pytest.raises(InvalidConfigError, match=r"unknown agent spec 'nothere\.npz'"):
        vector_agent("nothere.npz", ENV)


class _ActsOnSlotsButNeverForgets:
    """``act`` takes ``slots`` but there is no ``new_games``: not a vector agent."""

    def act(self, observations, masks, seats, slots, rng):
        return np.zeros(len(seats), np.int64)


def test_a_vector_agent_needs_new_games_too():
    """Kills ``act is None or not hasattr(item, "new_games")`` made ``and``."""
    assert vector_agent(_ActsOnSlotsButNeverForgets(), ENV) is None


@pytest.mark.parametrize(
    "env_name", ["promise_war_v0", "ironman_war_v0", "beast_wars_v0", "cardline_v0"]
)
def test_a_vector_heuristic_gives_no_actions_for_no_rows(env_name):
    """Kills ``np.zeros(0, ...)`` made ``np.zeros(1, ...)`` in each vector heuristic."""
    spec = EnvSpec(env_name)
    heuristic = vector_heuristic(spec)
    raw = spec.make_raw()
    raw.reset(seed=0)
    observed = raw.observe(raw.agent_selection)
    observations = observed["observation"][None][:0]
    masks = observed["action_mask"][None].astype(bool)[:0]
    none = np.zeros(0, np.int64)
    actions = heuristic.act(observations, masks, none, none, np.random.default_rng(0))
    assert actions.shape == (0,) and actions.dtype == np.int64


@pytest.mark.parametrize(
    "env_name", ["promise_war_v0", "ironman_war_v0", "cardline_v0", "beast_wars_v0"]
)
def test_a_vector_heuristic_names_the_first_row_without_a_legal_action(env_name):
    """Every game's vector heuristic refuses such a batch the same way, naming the row."""
    from cardarena.envs.vector import make_vec

    batch = make_vec(env_name, 6, seed=3).reset()
    observations = np.array(batch.raw_observation)
    masks = np.array(batch.action_mask)
    masks[[2, 4]] = False
    heuristic = vector_heuristic(EnvSpec(env_name))
    seats = np.array(batch.current_player)
    with pytest.raises(ValueError, match=r"^row 2 has no legal action \(all-False mask\)"):
        heuristic.act(observations, masks, seats, np.arange(6), np.random.default_rng(0))
