"""Vector PPO's starting point and its report, pinned where the mutation run
(docs/mutation/training.vector_ppo.md) found them loose: ``PPOConfig``'s defaults are the
documented ones, a fresh network is initialised as SB3's ``MlpPolicy``, the precision follows
the CPU's bfloat16 units, and ``update`` reports means over its minibatches, not sums."""

from __future__ import annotations

import dataclasses
import io
from types import SimpleNamespace

import numpy as np
import pytest
from gymnasium import spaces

torch = pytest.importorskip("torch")

from ppo_rollout import fill_rollout  # noqa: E402
from torch import nn  # noqa: E402

from cardarena.envs.core import bounds_digest  # noqa: E402
from cardarena.training.train_args import FALLBACK, VECTOR_DEFAULTS, TrainArgs  # noqa: E402
from cardarena.training.vector import config as vector_config  # noqa: E402
from cardarena.training.vector import ppo as vector_ppo  # noqa: E402
from cardarena.training.vector.ppo import ActorCritic, PPOConfig, VectorPPO  # noqa: E402


def test_ppo_config_defaults_are_the_documented_ones():
    """Kills an off-by-one in each default of ``PPOConfig`` (num_envs, clip_range, ent_coef,
    max_grad_norm, learning_rate, net_arch ...): the flag-backed ones are `cardarena train`'s
    defaults, the per-game ones those of the table's fallback game."""
    flags = {f.name: f.default for f in dataclasses.fields(TrainArgs)}
    config = PPOConfig()
    for name in ("num_envs", "rollout_steps", "n_epochs", "gamma", "gae_lambda", "clip_range",
                 "vf_coef", "max_grad_norm", "kl_coef", "magnet", "magnet_every",
                 "magnet_rate"):  # fmt: skip
        assert getattr(config, name) == flags[name], name
    assert config.net_arch == tuple(FALLBACK["net_arch"]) == (128, 128)
    assert config.learning_rate == FALLBACK["learning_rate"]
    assert config.ent_coef == FALLBACK["ent_coef"]
    assert config.minibatch_size == VECTOR_DEFAULTS["promise_war_v0"]["minibatch_size"]
    assert config.precision == "float32"


def test_a_fresh_network_is_initialised_as_sb3s_mlp_policy():
    """Orthogonal weights with gain sqrt(2) in the hidden layers, 0.01 in the action head and
    1 in the value head, zero biases (kills the initialisation loop never running, and each
    gain off by one)."""
    network = ActorCritic(6, 4, (8, 5), "float32")
    gains = {"mlp_extractor": np.sqrt(2.0), "action_net": 0.01, "value_net": 1.0}
    checked = 0
    for prefix, gain in gains.items():
        for layer in getattr(network, prefix).modules():
            if isinstance(layer, nn.Linear):
                singular = torch.linalg.svdvals(layer.weight.detach()).numpy()
                np.testing.assert_allclose(singular, gain, rtol=1e-5, err_msg=prefix)
                assert not layer.bias.detach().any(), prefix
                checked += 1
    assert checked == 6  # two hidden layers in each branch, and the two heads


@pytest.mark.parametrize(
    ("cpuinfo", "expected"),
    [
        ("flags\t\t: fpu sse2 avx2 amx_bf16 amx_tile\n", "bfloat16"),
        ("flags\t\t: fpu sse2 avx2 avx512f avx512_bf16\n", "bfloat16"),
        ("flags\t\t: fpu sse2 avx2 avx512f\n", "float32"),
    ],
)
def test_the_default_precision_follows_the_cpus_bfloat16_units(monkeypatch, cpuinfo, expected):
    """Either unit is enough, neither gives float32 (kills ``or`` -> ``and`` and the ``not``
    added to the test of the flags)."""
    opened: list[str] = []

    def fake_open(path: str, *args: object, **kwargs: object) -> io.StringIO:
        opened.append(path)
        return io.StringIO(cpuinfo)

    monkeypatch.setattr(vector_config, "open", fake_open, raising=False)
    assert vector_ppo.default_precision() == expected
    assert opened == ["/proc/cpuinfo"]


def _filled_model(n_epochs: int, kl_coef: float = 0.0) -> VectorPPO:
    """A learner with a fixed random rollout of 16 rows and a learning rate of 0, so every
    update sees the same weights."""
    config = PPOConfig(
        num_envs=4, rollout_steps=4, minibatch_size=16, n_epochs=n_epochs, learning_rate=0.0,
        net_arch=(8,), kl_coef=kl_coef,
    )  # fmt: skip
    batch = SimpleNamespace(
        num_actions=4, scaler=SimpleNamespace(offset=np.zeros(6, np.float32)), engine=_ENGINE
    )
    model = VectorPPO(batch, config, seed=1)
    fill_rollout(model.rollout, seed=1)
    return model


def test_update_reports_the_mean_of_its_minibatches_not_the_sum():
    """Three epochs of the same whole-rollout minibatch with unmoving weights report what one
    epoch does (kills ``value / max(updates, 1)`` -> ``value * max(updates, 1)``)."""
    once = _filled_model(n_epochs=1, kl_coef=0.1).update()
    thrice = _filled_model(n_epochs=3, kl_coef=0.1).update()
    names = {"policy_loss", "value_loss", "entropy", "clip_fraction", "kl"}
    assert set(once) == set(thrice) == names
    assert once["value_loss"] > 0 and once["entropy"] > 0 and once["kl"] > 0
    for name, value in once.items():
        assert thrice[name] == pytest.approx(value, rel=1e-5, abs=1e-7), name


def test_the_values_of_no_observations_are_an_empty_float32_array():
    """The network is not run on zero rows (kills ``np.zeros(0, ...)`` -> ``np.zeros(-1, ...)``,
    a path the rollout itself never takes)."""
    values = _filled_model(n_epochs=1).values_of(np.zeros((0, 6), np.float32))
    assert values.shape == (0,) and values.dtype == np.float32


@pytest.mark.parametrize("differs", ["offset", "factor"])
def test_a_warm_start_is_refused_when_either_half_of_the_scaler_differs(differs):
    """Offset and factor must both be one of the Box's known scalers (kills ``and`` -> ``or``
    between the two): the ``[0, 1]`` one or the network scaler's, and nothing else."""
    box = spaces.Box(0.0, 100.0, (6,), np.float32)

    def policy(offset: float = 0.0, factor: float = 0.01) -> SimpleNamespace:
        return SimpleNamespace(
            layers=[(np.zeros((8, 6)), np.zeros(8)), (np.zeros((4, 8)), np.zeros(4))],
            activation="tanh", offset=np.full(6, offset, np.float32),
            factor=np.full(6, factor, np.float32), actions=4,
            meta={"observation_bounds": bounds_digest(box)},
        )  # fmt: skip

    assert vector_ppo.warm_start_problem(policy(), (8,), box, 4) is None
    assert vector_ppo.warm_start_problem(policy(factor=0.1), (8,), box, 4) is None
    bent = policy(offset=2.0) if differs == "offset" else policy(factor=0.5)
    problem = vector_ppo.warm_start_problem(bent, (8,), box, 4)
    assert problem is not None and "observation scaler differs" in problem


def test_a_warm_start_cannot_be_changed_once_made():
    """It names the network a run began from (kills ``frozen=True`` -> ``False``)."""
    start = vector_ppo.WarmStart(SimpleNamespace(), None, "the shipped policy")
    with pytest.raises(dataclasses.FrozenInstanceError):
        start.source = "another"  # type: ignore[misc]


def test_a_vector_checkpoint_keeps_every_setting_under_sb3s_names():
    """``update`` always normalises advantages per minibatch and never stops early on the KL,
    and the settings a checkpoint keeps must say so, each value the config's own (every value
    distinct here, so two fields swapped fail too)."""
    config = PPOConfig(
        num_envs=4, rollout_steps=4, minibatch_size=16, n_epochs=3, learning_rate=7e-4,
        gamma=0.91, gae_lambda=0.83, clip_range=0.17, ent_coef=0.013, vf_coef=0.61,
        max_grad_norm=0.37, net_arch=(8, 5),
    )  # fmt: skip
    batch = SimpleNamespace(num_actions=4, scaler=SimpleNamespace(offset=np.zeros(6, np.float32)))
    assert VectorPPO(batch, config, seed=1).learner_state().settings == {
        "n_steps": 4, "batch_size": 16, "n_epochs": 3, "learning_rate": 7e-4, "gamma": 0.91,
        "gae_lambda": 0.83, "clip_range": 0.17, "ent_coef": 0.013, "vf_coef": 0.61,
        "max_grad_norm": 0.37, "normalize_advantage": True, "target_kl": None,
        "net_arch": [8, 5],
    }  # fmt: skip


def test_two_advantages_are_normalised_and_near_equal_ones_stay_bounded():
    """Any minibatch of two or more rows is normalised (kills ``numel() > 1`` -> ``> 2``); the
    epsilon is added to the std, so near-equal advantages do not blow up (kills ``+ 1e-8`` ->
    ``- 1e-8``, which divides by almost zero here)."""
    pair = vector_ppo.normalize_advantages(torch.tensor([1.0, 3.0]))
    np.testing.assert_allclose(pair.numpy(), [-0.70710677, 0.70710677], rtol=1e-5)
    near = vector_ppo.normalize_advantages(torch.tensor([0.0, 1e-8]))
    assert near.abs().max() < 0.71


def test_a_ratio_of_exactly_one_is_never_counted_as_clipped():
    """With ``clip_range`` 0 nothing that did not move is outside the range (kills ``>`` ->
    ``>=`` in the clip fraction)."""
    log_probs = torch.log(torch.tensor([0.2, 0.5, 0.3]))
    _, fraction = vector_ppo.clipped_policy_loss(log_probs, log_probs, torch.ones(3), 0.0)
    assert float(fraction) == 0.0


def test_a_minibatchs_losses_cannot_be_changed_once_computed():
    """Kills ``frozen=True`` -> ``False`` on ``PPOLosses``."""
    zero = torch.zeros(())
    losses = vector_ppo.PPOLosses(zero, zero, zero, zero, zero, zero)
    with pytest.raises(dataclasses.FrozenInstanceError):
        losses.total = torch.ones(())  # type: ignore[misc]


def test_a_refused_warm_start_names_where_the_network_came_from():
    """The message names ``source``, or "that policy" without one (kills ``or`` -> ``and``)."""
    policy = SimpleNamespace(layers=[(np.zeros((4, 8)), np.zeros(4))], activation="relu")
    model = _filled_model(n_epochs=1)
    with pytest.raises(vector_ppo.InvalidConfigError, match="cannot start from the shipped pol"):
        model.warm_start(vector_ppo.WarmStart(policy, None, "the shipped policy"))
    with pytest.raises(vector_ppo.InvalidConfigError, match="cannot start from that policy: "):
        model.warm_start(vector_ppo.WarmStart(policy))


def test_the_default_precision_is_float32_where_cpuinfo_cannot_be_read(monkeypatch):
    """No /proc (macOS, a sandbox): float32, not an exception (kills ``except OSError`` ->
    an exception that never happens)."""

    def no_proc(path: str, *args: object, **kwargs: object) -> io.StringIO:
        raise FileNotFoundError(path)

    monkeypatch.setattr(vector_config, "open", no_proc, raising=False)
    assert vector_ppo.default_precision() == "float32"


def test_a_config_cannot_be_changed_once_made():
    """A run's config is the one its checkpoint records (kills ``frozen=True`` -> ``False``)."""
    with pytest.raises(dataclasses.FrozenInstanceError):
        PPOConfig().gamma = 0.5  # type: ignore[misc]


def test_an_update_of_no_epochs_reports_zero_losses():
    """``n_epochs=0`` trains nothing and says so with zeros (kills ``max(updates, 1)`` ->
    ``max(updates, 0)``, a division by zero)."""
    losses = _filled_model(n_epochs=0).update()
    assert losses == dict.fromkeys(
        ("policy_loss", "value_loss", "entropy", "clip_fraction", "kl"), 0.0
    )


def test_a_gumbel_draw_of_exactly_zero_still_picks_a_legal_action(monkeypatch):
    """``torch.rand`` can return 0.0; clamped to 1e-20 its Gumbel noise stays finite, so the
    argmax is a legal action (kills the clamp's floor made -1: noise of -inf everywhere, and
    the argmax falls on action 0, masked here)."""
    model = _filled_model(n_epochs=1)
    monkeypatch.setattr(torch, "rand", lambda shape, **kwargs: torch.zeros(shape))
    masks = torch.ones((3, 4), dtype=torch.bool)
    masks[:, 0] = False
    actions, chosen, _ = model._act(torch.zeros((3, 6)), masks)
    assert (actions != 0).all() and np.isfinite(chosen).all()


def _warm_model() -> VectorPPO:
    config = PPOConfig(num_envs=2, rollout_steps=2, minibatch_size=4, net_arch=(8,))
    scaler = SimpleNamespace(offset=np.zeros(6, np.float32), scale=np.ones(6, np.float32))
    return VectorPPO(SimpleNamespace(num_actions=4, scaler=scaler, engine=_ENGINE), config, seed=0)


#: The engine of the stand-in batches: only its observation Box (six values in [0, 1]).
_ENGINE = SimpleNamespace(observation_space=spaces.Box(0.0, 1.0, (6,), np.float32))


def _warm_policy(**changes: object) -> SimpleNamespace:
    policy = SimpleNamespace(
        layers=[(np.zeros((8, 6)), np.zeros(8)), (np.zeros((4, 8)), np.zeros(4))],
        activation="tanh", offset=np.zeros(6), factor=np.ones(6), actions=4, meta={},
    )  # fmt: skip
    policy.__dict__.update(changes)
    return policy


def test_the_value_branch_is_copied_only_when_every_value_weight_fits():
    """All of the value branch with its shapes: copied; one weight missing or another shape:
    the value branch starts fresh, and the message says which (kills ``bool(value) and`` ->
    ``or``, and the ``not`` added before ``if value``)."""
    own = {k: v.numpy().copy() for k, v in _warm_model().network.state_dict().items()}
    value = {k: np.full_like(v, 0.25) for k, v in own.items() if "value_net" in k}
    whole = _warm_model()
    assert whole.warm_start(vector_ppo.WarmStart(_warm_policy(), value)) == (
        "policy and value networks"
    )
    assert all(np.allclose(whole.network.state_dict()[k].numpy(), 0.25) for k in value)
    missing = dict(list(value.items())[1:])
    partial = _warm_model()
    fresh = {k: v.clone() for k, v in partial.network.state_dict().items()}
    said = partial.warm_start(vector_ppo.WarmStart(_warm_policy(), missing))
    assert said.startswith("policy network (the value network has other shapes")
    for name in value:
        assert torch.equal(partial.network.state_dict()[name], fresh[name]), name
    said = _warm_model().warm_start(vector_ppo.WarmStart(_warm_policy(), None))
    assert said == "policy network (no value network to copy: it starts fresh)"


def test_a_warm_start_is_refused_when_the_observation_size_alone_differs():
    """Observation size or action count: either is enough (kills ``or`` -> ``and``)."""
    box = spaces.Box(0.0, 1.0, (6,), np.float32)
    assert vector_ppo.warm_start_problem(_warm_policy(), (8,), box, 4) is None
    wider = _warm_policy(offset=np.zeros(7), factor=np.ones(7))
    problem = vector_ppo.warm_start_problem(wider, (8,), box, 4)
    assert problem is not None and "7 observation values and 4 actions" in problem
    problem = vector_ppo.warm_start_problem(_warm_policy(actions=5), (8,), box, 4)
    assert problem is not None and "5 actions" in problem


def test_the_vector_learner_is_a_learner_and_impersonates_nothing():
    """The checkpoint code saves it through ``learner_state()``; it does not pose as an SB3
    model by answering for attributes it does not have."""
    from cardarena.training.learner import Learner

    model = _filled_model(n_epochs=1)
    assert isinstance(model, Learner) and "__getattr__" not in vars(VectorPPO)
    for name in ("n_epochs", "policy_kwargs", "policy", "n_steps"):
        assert not hasattr(model, name), name
