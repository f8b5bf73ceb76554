"""Vector PPO's terms one by one against numbers worked by hand on tiny batches: the masked
distribution, the step cap's bootstrap, GAE across ended, cut and newly dealt games, advantage
normalisation, the clipped policy loss, the value loss, the entropy bonus and the total the
optimiser minimises. Training runs and resumes are tested in ``test_train_vector.py``; these
fail when a term is wrong even where training would still run and improve. A rollout row is one
learner decision (``LearnerBatch`` plays the other seats inside its step and credits their
turns' rewards to the learner's), so GAE has no seats to tell apart."""

from __future__ import annotations

import copy
import math
from types import SimpleNamespace

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from ppo_rollout import fill_rollout  # noqa: E402
from torch import nn  # noqa: E402

from cardarena.training.vector.batch import LearnerBatch  # noqa: E402
from cardarena.training.vector.ppo import (  # noqa: E402
    PPOConfig,
    Rollout,
    VectorPPO,
    bootstrap_truncated,
    clipped_policy_loss,
    gae,
    masked_entropy,
    masked_log_probs,
    normalize_advantages,
    ppo_losses,
)

LN = math.log


# --- 2. the masked distribution ----------------------------------------------------------
def test_masked_log_probs_and_entropy_by_hand():
    """Legal exps 1, 3, 1 give probabilities 0.2, 0.6, 0.2 however large the illegal logit."""
    logits = torch.tensor([[0.0, LN(3), 30.0, 0.0], [7.0, -2.0, 5.0, 1.0]], requires_grad=True)
    masks = torch.tensor([[True, True, False, True], [False, False, True, False]])
    log_probs = masked_log_probs(logits, masks)
    probs = log_probs.exp().detach()
    assert probs[0].tolist() == pytest.approx([0.2, 0.6, 0.0, 0.2], abs=1e-6)
    assert probs[1].tolist() == pytest.approx([0.0, 0.0, 1.0, 0.0], abs=1e-6)
    assert log_probs[0, 1].item() == pytest.approx(LN(0.6), abs=1e-6)
    assert log_probs[1, 2].item() == pytest.approx(0.0, abs=1e-6)
    entropy = masked_entropy(log_probs, masks)
    # -(0.2 ln 0.2 + 0.6 ln 0.6 + 0.2 ln 0.2) = 0.9503; one legal action: 0
    assert entropy.tolist() == pytest.approx([-(2 * 0.2 * LN(0.2) + 0.6 * LN(0.6)), 0.0], abs=1e-6)
    entropy.sum().backward()
    assert logits.grad is not None and torch.isfinite(logits.grad).all()
    assert (logits.grad[~masks] == 0).all()  # illegal logits take no part, not even a NaN


# --- 3. the step cap's bootstrap ---------------------------------------------------------
def test_bootstrap_truncated_adds_the_discounted_value_to_the_cut_rows_only():
    reward = np.array([1.0, -1.0, 0.5], np.float32)
    bootstrap_truncated(reward, np.array([0, 2]), np.array([4.0, -2.0], np.float32), 0.5)
    assert reward.tolist() == [1.0 + 0.5 * 4.0, -1.0, 0.5 + 0.5 * -2.0]


OBSERVATION_SIZE, ACTIONS = 3, 2
# Per step, per game: (reward, terminated, truncated, value of the final observation or None,
# value of the next observation). The value of an observation is its feature 0 (_ValueIsFeature).
START = (1.0, 0.5)
SCRIPT = (
    ((0.0, False, False, None, 2.0), (0.0, False, False, None, 1.5)),
    # game 0 cut by the cap at (value) 4, dealt anew at 10; game 1 won, its final state 8
    ((1.0, False, True, 4.0, 10.0), (-1.0, True, False, 8.0, 3.0)),
    # game 1 cut by the cap at 5 in the rollout's last step, dealt anew at 7
    ((0.0, False, False, None, 6.0), (2.0, False, True, 5.0, 7.0)),
)


def _observations(values: list[float]) -> np.ndarray:
    observations = np.full((len(values), OBSERVATION_SIZE), 0.25, np.float32)
    observations[:, 0] = values
    return observations


class _ScriptedBatch:
    """``LearnerBatch``'s face to ``VectorPPO.collect`` (same-step autoreset), playing SCRIPT."""

    num_actions = ACTIONS
    scaler = SimpleNamespace(offset=np.zeros(OBSERVATION_SIZE, np.float32))

    def __init__(self) -> None:
        self.t = 0
        self.observation = _observations(list(START))
        self.mask = np.ones((len(START), ACTIONS), np.bool_)

    def step(self, actions: np.ndarray) -> None:
        rows = SCRIPT[self.t]
        self.t += 1
        self.reward = np.array([row[0] for row in rows], np.float32)
        self.terminated = np.array([row[1] for row in rows])
        self.truncated = np.array([row[2] for row in rows])
        self.done = self.terminated | self.truncated
        self._finals = {g: row[3] for g, row in enumerate(rows) if row[3] is not None}
        self.final_return = np.zeros(len(rows))
        self.final_length = np.zeros(len(rows), np.int64)
        self.observation = _observations([row[4] for row in rows])

    def final_observations(self) -> dict[int, np.ndarray]:
        return {g: _observations([value])[0] for g, value in self._finals.items()}


class _ValueIsFeature(nn.Module):
    """Uniform logits, and the value of an observation is its feature 0."""

    def forward(self, observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return torch.zeros(observations.shape[0], ACTIONS), observations[:, 0].float()


def test_rollout_bootstraps_the_cut_game_from_its_last_state_and_gae_stops_at_every_end(
    monkeypatch,
):
    """``learn_rollout``'s collect and GAE on SCRIPT, gamma 0.5 and lambda 0.75 (gamma lambda
    0.375). A cut game's reward gains gamma times the value of the state the cap cut (not the
    new deal's, not 0); a won game gains nothing though it has a final state too."""
    config = PPOConfig(num_envs=2, rollout_steps=3, gamma=0.5, gae_lambda=0.75)
    model = VectorPPO(_ScriptedBatch(), config, seed=0)
    model.network = _ValueIsFeature()  # type: ignore[assignment]
    monkeypatch.setattr(model, "update", lambda: {})
    model.learn_rollout()
    rollout = model.rollout
    assert rollout.values.T.tolist() == [[1.0, 2.0, 10.0], [0.5, 1.5, 3.0]]
    assert rollout.dones.T.tolist() == [[False, True, False], [False, True, True]]
    # game 0, step 1: 1 + 0.5 * 4 (from 10, the new deal: 6; from 0: 1)
    # game 1, step 2: 2 + 0.5 * 5 (from 7, the new deal: 5.5; from 0: 2); step 1 won: -1
    assert rollout.rewards.T.tolist() == [[0.0, 3.0, 0.0], [0.0, -1.0, 4.5]]
    # game 0 (last value 6): t2: 0 + 0.5*6 - 10 = -7; t1 ended: 3 - 2 = 1;
    #   t0: 0 + 0.5*2 - 1 = 0, + 0.375*1 = 0.375
    # game 1 (last value 7 unused, t2 ended): t2: 4.5 - 3 = 1.5; t1 ended: -1 - 1.5 = -2.5;
    #   t0: 0 + 0.5*1.5 - 0.5 = 0.25, + 0.375*-2.5 = -0.6875
    assert rollout.advantages.T.tolist() == [[0.375, 1.0, -7.0], [-0.6875, -2.5, 1.5]]
    assert rollout.returns.T.tolist() == [[1.375, 3.0, 3.0], [-0.1875, -1.0, 4.5]]


def test_a_real_batchs_cut_games_are_bootstrapped_from_the_cut_state():
    """The scripted batch's contract, on Iron Man capped at one round: every cut game's reward
    is the engine's plus gamma times the value of its final observation, which is not the new
    deal's observation."""
    batch = LearnerBatch("ironman_war_v0", 8, 0, "random", True, {"max_rounds": 1})
    batch.reset()
    model = VectorPPO(batch, PPOConfig(num_envs=8, rollout_steps=12, net_arch=(8,)), seed=0)
    engine_rewards, expected = [], []
    step = batch.step

    def recording_step(actions: np.ndarray) -> None:
        step(actions)
        engine_rewards.append(batch.reward.copy())
        reward = batch.reward.copy()
        finals = batch.final_observations()
        for game in np.flatnonzero(batch.truncated):
            assert not np.array_equal(finals[game], batch.observation[game])
            reward[game] += model.config.gamma * model.values_of(finals[game][None])[0]
        expected.append(reward)

    batch.step = recording_step  # type: ignore[method-assign]
    model.collect()
    assert model.rollout.dones.any()
    cut = np.array(expected) != np.array(engine_rewards)
    assert cut.sum() >= 4
    np.testing.assert_allclose(model.rollout.rewards, np.array(expected), rtol=1e-6)


# --- 4. advantages -----------------------------------------------------------------------
def test_gae_by_hand_across_an_ongoing_a_new_and_a_finished_game():
    """gamma 0.5, lambda 0.5 (gamma lambda 0.25), three steps of three games."""
    rollout = Rollout.allocate(3, 3, 1, 1, torch.float32)
    rollout.rewards[:] = np.array([[1, 1, 1], [3, 0, 1], [0, 0, -1]], np.float32).T
    rollout.values[:] = np.array([[1, 1, 1], [1, 2, 2], [0, 0, 0.5]], np.float32).T
    rollout.dones[:] = np.array([[0, 0, 0], [1, 0, 0], [0, 0, 1]], np.bool_).T
    gae(rollout, np.array([2.0, 4.0, 100.0], np.float32), 0.5, 0.5)
    expected = [
        # no end, last value 2: t2: 1 + 0.5*2 - 1 = 1; t1: 1 + 0.5*1 - 1 = 0.5, + 0.25*1;
        # t0: 0.5 + 0.25*0.75
        [0.6875, 0.75, 1.0],
        # ended at t0, then a new deal (last value 4): t2: 1 + 0.5*4 - 2 = 1;
        # t1: 0 + 0.5*2 - 2 = -1, + 0.25*1; t0: 3 - 1 = 2 (no value, no carry from the new deal)
        [2.0, -0.75, 1.0],
        # ended at t2, the last value 100 unused: t2: -1 - 0.5; t1: 0.5*0.5 - 0 + 0.25*-1.5;
        # t0: 0 + 0.25*-0.125
        [-0.03125, -0.125, -1.5],
    ]
    assert rollout.advantages.T.tolist() == expected
    assert rollout.returns.T.tolist() == [
        [1.6875, 1.75, 2.0],
        [3.0, 1.25, 3.0],
        [-0.03125, -0.125, -1.0],
    ]


# --- 5. the losses -----------------------------------------------------------------------
def test_advantages_are_centred_and_scaled_over_the_minibatch():
    # mean 2, deviations 3 -1 1 -3 0, squares sum 20, unbiased variance 20 / 4 = 5
    normalised = normalize_advantages(torch.tensor([5.0, 1.0, 3.0, -1.0, 2.0]))
    expected = [d / math.sqrt(5) for d in (3, -1, 1, -3, 0)]
    assert normalised.tolist() == pytest.approx(expected, rel=1e-6)
    assert normalize_advantages(torch.tensor([4.0])).tolist() == [4.0]  # one row: no std
    assert normalize_advantages(torch.full((3,), 7.0)).tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize(
    ("ratio", "advantage", "objective"),
    [
        (1.5, 3.0, 1.2 * 3.0),  # better and too likely: capped at 1 + 0.2
        (0.5, -1.0, 0.8 * -1.0),  # worse and too unlikely: capped at 1 - 0.2
        (0.5, 1.0, 0.5 * 1.0),  # better but less likely: the min keeps the unclipped
        (1.5, -3.0, 1.5 * -3.0),  # worse but more likely: the min keeps the unclipped
        (1.1, -2.0, 1.1 * -2.0),  # inside the range: no clipping
    ],
    ids=["upper-clip", "lower-clip", "min-keeps-low-ratio", "min-keeps-high-ratio", "inside"],
)
def test_the_clipped_policy_loss_per_side(ratio: float, advantage: float, objective: float):
    """One row each (the loss is -min(r A, clip(r, 0.8, 1.2) A)), on both clip sides."""
    old = torch.tensor([LN(0.25)])
    new = old + LN(ratio)
    loss, clip_fraction = clipped_policy_loss(new, old, torch.tensor([advantage]), 0.2)
    assert loss.item() == pytest.approx(-objective, rel=1e-5)
    assert clip_fraction.item() == (1.0 if abs(ratio - 1) > 0.2 else 0.0)


# The minibatch of the worked example: five rows over three actions. The logits are 0 where
# legal and 30 where not, so the chosen action's probability is 1 / (legal actions); the old
# log-probs are set so the ratios are 1.5, 0.5, 0.5, 1.5, 1.1.
MASKS = [[1, 1, 0], [1, 0, 1], [0, 1, 1], [1, 1, 1], [1, 0, 0]]
ACTIONS_TAKEN = [1, 2, 1, 0, 0]
CHOSEN_PROBS = [1 / 2, 1 / 2, 1 / 2, 1 / 3, 1.0]
RATIOS = [1.5, 0.5, 0.5, 1.5, 1.1]
ADVANTAGES = [5.0, 1.0, 3.0, -1.0, 2.0]  # normalised: (3, -1, 1, -3, 0) / sqrt(5)
VALUES = [1.0, 2.0, 0.0, -1.0, 0.5]
RETURNS = [2.0, 0.0, 0.0, 1.0, 0.5]  # errors 1, -2, 0, 2, 0


def _minibatch(
    advantages: list[float] = ADVANTAGES, values: list[float] = VALUES
) -> dict[str, torch.Tensor]:
    masks = torch.tensor(MASKS, dtype=torch.bool)
    old = [LN(p) - LN(r) for p, r in zip(CHOSEN_PROBS, RATIOS, strict=True)]
    return {
        "logits": torch.where(masks, 0.0, 30.0).requires_grad_(),
        "values": torch.tensor(values, requires_grad=True),
        "masks": masks,
        "actions": torch.tensor(ACTIONS_TAKEN),
        "old_log_probs": torch.tensor(old),
        "advantages": torch.tensor(advantages),
        "returns": torch.tensor(RETURNS),
    }


def test_ppo_losses_by_hand():
    """Every term and the total; the signs and coefficients are the docstring's."""
    losses = ppo_losses(**_minibatch(), clip_range=0.2, vf_coef=0.5, ent_coef=0.1)
    # min(r A, clip(r) A) in units of 1/sqrt(5): min(4.5, 3.6), min(-0.5, -0.8), min(0.5, 0.8),
    # min(-4.5, -3.6), 0  ->  3.6 - 0.8 + 0.5 - 4.5 + 0 = -1.2; the loss is minus its mean
    policy = 1.2 / 5 / math.sqrt(5)
    value = (1 + 4 + 0 + 4 + 0) / 5  # unclipped MSE
    entropy = (3 * LN(2) + LN(3) + 0) / 5  # uniform over 2, 2, 2, 3 and 1 legal actions
    assert losses.policy.item() == pytest.approx(policy, rel=1e-5)
    assert losses.value.item() == pytest.approx(value, rel=1e-6)
    assert losses.entropy.item() == pytest.approx(entropy, rel=1e-6)
    assert losses.clip_fraction.item() == pytest.approx(4 / 5)
    assert losses.total.item() == pytest.approx(policy + 0.5 * value - 0.1 * entropy, rel=1e-5)


def test_the_value_term_pulls_values_to_returns_with_its_coefficient():
    """d total / d value_i = vf_coef * 2 (value_i - return_i) / n; illegal logits get none."""
    batch = _minibatch()
    ppo_losses(**batch, clip_range=0.2, vf_coef=0.5, ent_coef=0.1).total.backward()
    expected = [0.5 * 2 * (v - r) / 5 for v, r in zip(VALUES, RETURNS, strict=True)]
    assert batch["values"].grad.tolist() == pytest.approx(expected, rel=1e-6)
    assert (batch["logits"].grad[~batch["masks"]] == 0).all()


def test_descending_the_total_raises_entropy_and_the_better_actions_probability():
    """With equal advantages (0 once centred) and exact values, only the entropy bonus is
    left: a step down the total spreads the policy over the legal actions. With advantages,
    the step makes the better action likelier and the worse one less likely."""
    skewed = torch.tensor([[2.0, 0.0, -1.0]] * 5)
    batch = _minibatch(advantages=[1.0] * 5, values=RETURNS)
    logits = (skewed + batch.pop("logits").detach()).requires_grad_()
    before = masked_entropy(masked_log_probs(logits, batch["masks"]), batch["masks"])
    ppo_losses(logits, **batch, clip_range=0.2, vf_coef=0.5, ent_coef=0.1).total.backward()
    after_logits = logits.detach() - 1.0 * logits.grad
    after = masked_entropy(masked_log_probs(after_logits, batch["masks"]), batch["masks"])
    assert (after[:4] > before[:4]).all()  # the fifth row has one legal action

    masks = torch.ones(2, 2, dtype=torch.bool)
    logits = torch.zeros(2, 2, requires_grad=True)
    actions = torch.tensor([0, 1])
    old = torch.full((2,), LN(0.5))
    ppo_losses(
        logits,
        torch.zeros(2),
        masks,
        actions,
        old,
        torch.tensor([1.0, -1.0]),
        torch.zeros(2),
        clip_range=0.2,
        vf_coef=0.5,
        ent_coef=0.0,
    ).total.backward()
    probs = torch.softmax(logits.detach() - 0.1 * logits.grad, -1)
    assert probs[0, 0] > 0.5 and probs[1, 1] < 0.5


class _SizeOnly:
    """What ``VectorPPO.__init__`` reads of a batch."""

    num_actions = 4
    scaler = SimpleNamespace(offset=np.zeros(6, np.float32))


def test_update_steps_down_the_gradient_of_the_whole_total():
    """One epoch, one minibatch: Adam's first step moves each weight by -lr g / (|g| + eps)
    with g the gradient of ``ppo_losses(...).total`` on the rollout's own rows; dropping a term
    (or feeding another array) moves the weights elsewhere. The returned means are the terms."""
    config = PPOConfig(
        num_envs=4,
        rollout_steps=4,
        minibatch_size=16,
        n_epochs=1,
        learning_rate=1e-3,
        max_grad_norm=1e9,
        net_arch=(8,),
    )
    model = VectorPPO(_SizeOnly(), config, seed=1)
    rollout, n = model.rollout, 16
    fill_rollout(rollout, seed=1)
    reference = copy.deepcopy(model.network)
    logits, values = reference(rollout.observations.reshape(n, -1))
    losses = ppo_losses(
        logits,
        values,
        rollout.masks.reshape(n, -1),
        torch.from_numpy(rollout.actions.reshape(n)),
        torch.from_numpy(rollout.log_probs.reshape(n)),
        torch.from_numpy(rollout.advantages.reshape(n)),
        torch.from_numpy(rollout.returns.reshape(n)),
        clip_range=config.clip_range,
        vf_coef=config.vf_coef,
        ent_coef=config.ent_coef,
    )
    losses.total.backward()
    stats = model.update()
    for (name, moved), start in zip(
        model.network.named_parameters(), reference.parameters(), strict=True
    ):
        assert start.grad is not None
        step = -1e-3 * start.grad / (start.grad.abs() + 1e-5)
        torch.testing.assert_close(
            moved.detach() - start.detach(), step, atol=2e-6, rtol=0, msg=name
        )
    assert stats["policy_loss"] == pytest.approx(losses.policy.item(), rel=1e-4, abs=1e-7)
    assert stats["value_loss"] == pytest.approx(losses.value.item(), rel=1e-5)
    assert stats["entropy"] == pytest.approx(losses.entropy.item(), rel=1e-5)
    assert stats["clip_fraction"] == pytest.approx(losses.clip_fraction.item())
