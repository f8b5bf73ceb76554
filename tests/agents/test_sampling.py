"""Every sampling path draws from the distribution it states, measured.

The paths: a policy's masked softmax drawn one decision at a time (``NumpyPolicy.act`` with a
generator: ``pretrained:deterministic=false``, ``NumpyPolicyAgent``, exported files and
checkpoints) and for a batch of rows (``VectorPolicy``, the ``vector_agent`` form of the
same specs); the learner's Gumbel-max draw (``VectorPPO``), whose reported probabilities are
``masked_log_probs``; uniform legal play (``RandomAgent``, ``VectorRandom`` and its kernel
``random_legal_actions``); ISMCTS's untried-action choice and its rollout moves.

No agent has a temperature option (``deterministic`` is the only sampling switch), so a
temperature ``T`` is made by dividing a policy's action head by ``T``: exactly ``logits / T``.

Each test draws thousands of actions with a fixed seed and checks them with
``assert_frequencies``: an action of probability 0 (masked) is never drawn, and every legal
action's count passes a two-sided Chernoff bound, Bonferroni-corrected over all the actions
checked, so a correct sampler fails one call with probability below ``ALPHA``. The
probabilities are computed here, from the policy's arrays and the env's own scaler, not with
the code under test, so a scale, a mask or an index it gets wrong is seen.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from helpers import env_names

from cardarena.agents import EnvSpec, NumpyPolicy, NumpyPolicyAgent, make_agent
from cardarena.agents.ismcts import ISMCTSAgent
from cardarena.agents.pretrained import load_policy, shipped_policy_path
from cardarena.agents.random_agent import RandomAgent
from cardarena.agents.vector import VectorPolicy, VectorRandom, vector_agent
from cardarena.envs import make_raw
from cardarena.envs.core import ObservationScaler, known_scalers
from cardarena.envs.core.kernels import random_legal_actions
from cardarena.training.export import random_decisions

#: Chance that ``assert_frequencies`` fails one call on a correct sampler (at most).
ALPHA = 1e-6
SHIPPED = env_names(pretrained=True)
#: Masks over 9 actions with gaps at both ends and inside, and a forced move.
GAPPY_MASKS = np.array(
    [
        [1, 1, 1, 1, 1, 1, 1, 1, 1],
        [0, 1, 0, 0, 1, 0, 0, 1, 0],
        [1, 0, 1, 1, 0, 1, 0, 0, 1],
        [0, 0, 0, 0, 0, 0, 0, 0, 1],
        [1, 1, 0, 0, 0, 0, 0, 0, 0],
    ],
    bool,
)


# --- the statistics ------------------------------------------------------------------------
def _kl(observed: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """Bernoulli KL divergence ``KL(observed || expected)``, elementwise (0 log 0 = 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        hit = np.where(observed > 0, observed * np.log(observed / expected), 0.0)
        miss = np.where(observed < 1, (1 - observed) * np.log((1 - observed) / (1 - expected)), 0.0)
    return hit + miss


def assert_frequencies(
    draws: np.ndarray, probabilities: np.ndarray, what: str, alpha: float = ALPHA
) -> np.ndarray:
    """Check ``draws`` (ints ``[R, N]``: ``N`` draws for each of ``R`` rows) against
    ``probabilities`` ``[R, A]``; returns the frequencies ``[R, A]``.

    Every draw must be an action (``0 <= a < A``) of positive probability. For each legal
    action, Chernoff's bound ``P(|count/N - p| >= |q - p|) <= 2 exp(-N KL(q || p))`` holds
    whatever ``p``, so requiring ``N KL(q || p) <= log(2 cells / alpha)`` for all ``cells``
    legal actions fails a correct sampler with probability below ``alpha`` (union bound).
    At ``N = 10,000`` and 20 legal actions checked that is about +-2.7 points at ``p = 0.3``."""
    draws = np.atleast_2d(np.asarray(draws, np.int64))
    probabilities = np.atleast_2d(np.asarray(probabilities, np.float64))
    rows, width = probabilities.shape
    assert draws.shape[0] == rows
    outside = (draws < 0) | (draws >= width)
    assert not outside.any(), f"{what}: drew {np.unique(draws[outside])}, not in 0..{width - 1}"
    counts = np.stack([np.bincount(row, minlength=width) for row in draws])
    impossible = (probabilities <= 0) & (counts > 0)
    assert not impossible.any(), (
        f"{what}: drew masked (probability 0) actions: (row, action) "
        f"{np.argwhere(impossible).tolist()}"
    )
    frequencies = counts / draws.shape[1]
    legal = probabilities > 0
    threshold = math.log(2 * int(legal.sum()) / alpha)
    score = draws.shape[1] * _kl(frequencies, np.where(legal, probabilities, 0.5))
    wrong = legal & (score > threshold)
    assert not wrong.any(), f"{what}: frequencies off (N KL > {threshold:.1f}): " + "; ".join(
        f"row {r} action {a}: drew {frequencies[r, a]:.4f}, stated {probabilities[r, a]:.4f}"
        for r, a in np.argwhere(wrong)[:8]
    )
    return frequencies


# --- stated probabilities, computed here -------------------------------------------------
def _env_scaler(env_name: str) -> ObservationScaler:
    """The scaler the shipped policy of ``env_name`` was trained with, built from the env's
    Box: whichever of its ``known_scalers`` the file's factor is (the ``[0, 1]`` one, or the
    network scaler's)."""
    raw = make_raw(env_name)
    box = raw.observation_space(raw.possible_agents[0])["observation"]
    shipped = load_policy(shipped_policy_path(EnvSpec(env_name)))
    found = [known for known in known_scalers(box) if np.array_equal(known.scale, shipped.factor)]
    assert found, f"the shipped {env_name} policy has a scaler of none of the Box's kinds"
    return found[0]


def stated_probabilities(
    policy: NumpyPolicy, scaler: ObservationScaler, observations: np.ndarray, masks: np.ndarray
) -> np.ndarray:
    """The masked softmax of ``policy``'s logits, in float64 from its weight arrays and the
    env's scaler (not through ``policy.logits``)."""
    x = (np.asarray(observations, np.float64) - scaler.offset) * scaler.scale
    for weight, bias in policy.layers[:-1]:
        x = x @ weight.T.astype(np.float64) + bias
        x = np.tanh(x) if policy.activation == "tanh" else np.maximum(x, 0.0)
    weight, bias = policy.layers[-1]
    logits = np.where(masks, x @ weight.T.astype(np.float64) + bias, -np.inf)
    weights = np.exp(logits - logits.max(axis=1, keepdims=True))
    return weights / weights.sum(axis=1, keepdims=True)


def at_temperature(policy: NumpyPolicy, temperature: float) -> NumpyPolicy:
    """``policy`` with logits divided by ``temperature`` (its action head scaled)."""
    weight, bias = policy.layers[-1]
    head = (weight / np.float32(temperature), bias / np.float32(temperature))
    return NumpyPolicy(
        [*policy.layers[:-1], head], policy.activation, policy.offset, policy.factor, policy.meta
    )


def spread_decisions(env_name: str, rows: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """The ``rows`` real decisions (two random games) on which the shipped policy's choice
    is most uncertain (highest entropy): where a wrong sampler shows most."""
    observations, masks = random_decisions(env_name, games=2)
    masks = masks.astype(bool)
    policy = load_policy(shipped_policy_path(EnvSpec(env_name)))
    p = stated_probabilities(policy, _env_scaler(env_name), observations, masks)
    entropy = -np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0).sum(axis=1)
    chosen = np.argsort(-entropy, kind="stable")[:rows]
    return observations[chosen], masks[chosen]


def _scalar_draws(agent: Any, observations: np.ndarray, masks: np.ndarray, n: int) -> np.ndarray:
    return np.array(
        [
            [agent.act({"observation": o, "action_mask": m.astype(np.int8)}) for _ in range(n)]
            for o, m in zip(observations, masks, strict=True)
        ]
    )


def _vector_draws(
    agent: Any, observations: np.ndarray, masks: np.ndarray, n: int, seed: int
) -> np.ndarray:
    """``n`` draws per row from one ``act`` call over the rows repeated ``n`` times each."""
    rows = len(masks)
    repeated = np.repeat(np.arange(rows), n)
    zeros = np.zeros(rows * n, np.int64)
    actions = agent.act(
        observations[repeated], masks[repeated], zeros, zeros, np.random.default_rng(seed)
    )
    return np.asarray(actions).reshape(rows, n)


# --- policies --------------------------------------------------------------------------------
@pytest.mark.parametrize("env_name", SHIPPED)
def test_pretrained_sampling_follows_the_masked_softmax_one_decision_at_a_time(env_name):
    """``pretrained:deterministic=false`` (``NumpyPolicy.act`` with the agent's generator)
    draws each legal action as often as the policy's softmax says, never a masked one."""
    observations, masks = spread_decisions(env_name)
    agent = make_agent("pretrained:deterministic=false", seed=11)
    agent.start_game("player_0", EnvSpec(env_name))
    policy = load_policy(shipped_policy_path(EnvSpec(env_name)))
    stated = stated_probabilities(policy, _env_scaler(env_name), observations, masks)
    own = np.exp(np.where(masks, [policy.logits(o) for o in observations], -np.inf))
    np.testing.assert_allclose(own / own.sum(axis=1, keepdims=True), stated, atol=1e-5)
    said = [agent.probabilities({"observation": o, "action_mask": m.astype(np.int8)})
            for o, m in zip(observations, masks, strict=True)]  # fmt: skip
    np.testing.assert_allclose(said, stated, atol=1e-5)  # what cardarena.openspiel.exact reads
    draws = _scalar_draws(agent, observations, masks, 4_000)
    assert_frequencies(draws, stated, f"pretrained:deterministic=false on {env_name}")


@pytest.mark.parametrize("env_name", SHIPPED)
def test_the_greedy_agent_states_the_one_action_it_plays(env_name):
    observations, masks = random_decisions(env_name, games=1)
    agent = make_agent("pretrained:deterministic=true", seed=0)  # Iron Man's file samples
    agent.start_game("player_0", EnvSpec(env_name))
    for o, m in zip(observations[:20], masks[:20], strict=True):
        observation = {"observation": o, "action_mask": m.astype(np.int8)}
        said = agent.probabilities(observation)
        assert said.sum() == 1.0 and said[agent.act(observation)] == 1.0


@pytest.mark.parametrize("env_name", SHIPPED)
def test_vector_pretrained_sampling_follows_the_masked_softmax(env_name):
    """The vector form of ``pretrained:deterministic=false`` (``VectorPolicy``: inverse
    CDF) draws from the same distribution as the scalar agent, rows of one call apart."""
    observations, masks = spread_decisions(env_name)
    agent = vector_agent("pretrained:deterministic=false", EnvSpec(env_name))
    assert isinstance(agent, VectorPolicy) and not agent.deterministic
    stated = stated_probabilities(agent.policy, _env_scaler(env_name), observations, masks)
    logits = np.where(masks, agent.logits(observations), -np.inf)
    own = np.exp(logits - logits.max(axis=1, keepdims=True))
    np.testing.assert_allclose(own / own.sum(axis=1, keepdims=True), stated, atol=1e-5)
    draws = _vector_draws(agent, observations, masks, 10_000, seed=5)
    assert_frequencies(draws, stated, f"vector pretrained:deterministic=false on {env_name}")


@pytest.mark.parametrize("form", ["scalar", "vector"])
def test_a_lower_temperature_concentrates_the_draws_on_the_best_action(form):
    """At every temperature the draws follow the softmax of ``logits / T``; the best action's
    share grows as ``T`` falls, and greedy play (``deterministic``, ``T -> 0``) always takes
    it: a sampler that drops the logits' scale cannot pass all four."""
    env_name = "promise_war_v0"
    observations, masks = spread_decisions(env_name, rows=1)
    shipped = load_policy(shipped_policy_path(EnvSpec(env_name)))
    scaler = _env_scaler(env_name)
    best = int(np.argmax(stated_probabilities(shipped, scaler, observations, masks)[0]))
    shares = []
    for temperature in (4.0, 1.0, 0.25):
        policy = at_temperature(shipped, temperature)
        if form == "scalar":
            draws = _scalar_draws(NumpyPolicyAgent(policy, 3, False), observations, masks, 6_000)
        else:
            draws = _vector_draws(VectorPolicy(policy, False), observations, masks, 6_000, 3)
        stated = stated_probabilities(policy, scaler, observations, masks)
        frequencies = assert_frequencies(draws, stated, f"{form} policy at T={temperature}")
        shares.append(frequencies[0, best])
    if form == "scalar":
        greedy = _scalar_draws(NumpyPolicyAgent(shipped, 3, True), observations, masks, 50)
    else:
        greedy = _vector_draws(VectorPolicy(shipped, True), observations, masks, 50, 3)
    # Stated: 0.37, 0.48, 0.84; one standard deviation of a share is under 0.007 here.
    assert shares[0] + 0.05 < shares[1] < shares[2] - 0.05, shares
    assert (greedy == best).all()


def test_the_learners_gumbel_draws_follow_its_reported_probabilities():
    """``VectorPPO``'s rollout draw (Gumbel-max over ``masked_log_probs``) follows the
    probabilities it reports, and the log-probability it records is the drawn action's."""
    torch = pytest.importorskip("torch")
    from cardarena.training.vector.batch import LearnerBatch
    from cardarena.training.vector.ppo import PPOConfig, VectorPPO, WarmStart

    env_name, n = "promise_war_v0", 10_000
    shipped = load_policy(shipped_policy_path(EnvSpec(env_name)))
    widths = tuple(int(weight.shape[0]) for weight, _ in shipped.layers[:-1])
    batch = LearnerBatch(env_name, 2, 0, ["random"], True, {})
    config = PPOConfig(
        num_envs=2, rollout_steps=2, minibatch_size=4, net_arch=widths, precision="float32"
    )
    learner = VectorPPO(batch, config, seed=7)
    learner.warm_start(WarmStart(shipped))
    observations, masks = spread_decisions(env_name)
    stated = stated_probabilities(shipped, batch.scaler, observations, masks)
    repeated = np.repeat(np.arange(len(masks)), n)
    actions, chosen, _ = learner._act(
        torch.from_numpy(batch.scaler(observations[repeated])),
        torch.from_numpy(masks[repeated]),
    )
    draws = actions.reshape(len(masks), n)
    assert_frequencies(draws, stated, "VectorPPO rollout draw")
    np.testing.assert_allclose(chosen, np.log(stated[repeated, actions]), atol=1e-4)


# --- uniform legal play ---------------------------------------------------------------------
def _uniform(masks: np.ndarray) -> np.ndarray:
    return masks / masks.sum(axis=1, keepdims=True)


def test_the_random_agent_is_uniform_over_the_legal_actions():
    """``random`` draws every legal action equally often, wherever the gaps in the mask are."""
    observations = np.zeros((len(GAPPY_MASKS), 1), np.float32)
    draws = _scalar_draws(RandomAgent(seed=2), observations, GAPPY_MASKS, 6_000)
    assert_frequencies(draws, _uniform(GAPPY_MASKS), "RandomAgent")


def test_the_vector_random_agent_is_uniform_over_the_legal_actions():
    """``VectorRandom`` (the kernel ``random_legal_actions``, also the vector envs' random
    play) draws every legal action equally often."""
    observations = np.zeros((len(GAPPY_MASKS), 1), np.float32)
    draws = _vector_draws(VectorRandom(), observations, GAPPY_MASKS, 6_000, seed=4)
    assert_frequencies(draws, _uniform(GAPPY_MASKS), "VectorRandom")
    rows = np.repeat(GAPPY_MASKS, 6_000, axis=0)
    kernel = random_legal_actions(rows, np.random.default_rng(9)).reshape(len(GAPPY_MASKS), -1)
    assert_frequencies(kernel, _uniform(GAPPY_MASKS), "random_legal_actions")


# --- ISMCTS ---------------------------------------------------------------------------------
class _Corridor:
    """A one-seat game of ``length`` moves of open information whose legal actions at move
    ``d`` are ``masks[d % len(masks)]``. Every move applied, by any copy, is appended to the
    shared ``log`` as ``(move number, action)``: what the search played, in order."""

    agent_names = ("player_0",)

    def __init__(self, masks: np.ndarray, length: int, log: list[tuple[int, int]]) -> None:
        self.masks, self.length, self.log, self.moves = masks, length, log, 0

    def clone(self) -> _Corridor:
        twin = _Corridor(self.masks, self.length, self.log)
        twin.moves = self.moves
        return twin

    def resample_from_infostate(self, seat: int, rng: Any) -> _Corridor:
        return self.clone()

    def current_player(self) -> int:
        return 0

    def legal_action_mask(self) -> np.ndarray:
        if self.is_terminal():
            return np.zeros(self.masks.shape[1], bool)
        return self.masks[self.moves % len(self.masks)].copy()

    def apply_legal_action(self, action: int) -> None:
        self.log.append((self.moves, int(action)))
        self.moves += 1

    def is_terminal(self) -> bool:
        return self.moves >= self.length

    def is_truncated(self) -> bool:
        return False

    def returns(self) -> tuple[float, ...]:
        return (0.0,)


def _search(agent: ISMCTSAgent, state: _Corridor) -> None:
    mask = state.legal_action_mask().astype(np.int8)
    agent.act_searching({"observation": np.zeros(1, np.float32), "action_mask": mask}, state)


def test_ismcts_rollouts_play_uniformly_over_the_legal_actions():
    """After the one expansion of a one-iteration search, every move is a rollout move: each
    legal action of its position equally often, never a masked one."""
    log: list[tuple[int, int]] = []
    agent = ISMCTSAgent(seed=6, iterations=1, nodes="actions")
    masks = GAPPY_MASKS
    for _ in range(250):
        _search(agent, _Corridor(masks, 1 + 24 * len(masks), log))
    moves = np.array(log)
    rollout = moves[moves[:, 0] > 0]
    kinds = (rollout[:, 0] % len(masks)).argsort(kind="stable")
    draws = rollout[kinds, 1].reshape(len(masks), -1)
    assert_frequencies(draws, _uniform(masks), "ISMCTS rollout")


def test_ismcts_expands_the_untried_actions_in_a_uniform_order():
    """A search with one iteration per legal action tries each once, in an order drawn
    uniformly: the action tried k-th is any legal one equally often, for every k."""
    log: list[tuple[int, int]] = []
    mask = GAPPY_MASKS[[2]]
    legal = int(mask.sum())
    agent = ISMCTSAgent(seed=8, iterations=legal, nodes="actions")
    for _ in range(2_500):
        _search(agent, _Corridor(mask, 1, log))
    orders = np.array([action for _, action in log]).reshape(-1, legal)
    assert (np.sort(orders, axis=1) == np.flatnonzero(mask[0])).all()
    assert_frequencies(orders.T, np.repeat(_uniform(mask), legal, axis=0), "ISMCTS expansion")
