"""Vector PPO's magnet term (``--kl-coef``, ``--magnet``): the KL divergence by hand, the loss
it adds with its coefficient and sign, each reference's update rule, and a resumed run that
ends bit for bit where the uninterrupted one ends, its magnet included."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from cardarena.agents.checkpoint_reader import MAGNET  # noqa: E402
from cardarena.cli import main  # noqa: E402
from cardarena.envs.core import InvalidConfigError  # noqa: E402
from cardarena.training.checkpoint import load_checkpoint  # noqa: E402
from cardarena.training.train import train  # noqa: E402
from cardarena.training.train_args import TrainArgs  # noqa: E402
from cardarena.training.vector.ppo import (  # noqa: E402
    ActorCritic,
    Magnet,
    PPOConfig,
    masked_entropy,
    masked_kl,
    masked_log_probs,
    ppo_losses,
    uniform_log_probs,
)

MASKS = torch.tensor([[True, True, False], [True, True, True]])
LOGITS = torch.tensor([[1.0, 0.0, 5.0], [0.0, 1.0, 2.0]])
REFERENCE = torch.tensor([[0.0, 2.0, -3.0], [1.0, 1.0, 1.0]])


def _probs(logits: list[float]) -> np.ndarray:
    e = np.exp(np.array(logits) - max(logits))
    return e / e.sum()


def test_masked_kl_by_hand():
    p0, q0 = _probs([1.0, 0.0]), _probs([0.0, 2.0])  # row 0: the third action is illegal
    p1, q1 = _probs([0.0, 1.0, 2.0]), np.full(3, 1 / 3)
    expected = [float((p0 * np.log(p0 / q0)).sum()), float((p1 * np.log(p1 / q1)).sum())]
    kl = masked_kl(masked_log_probs(LOGITS, MASKS), masked_log_probs(REFERENCE, MASKS), MASKS)
    assert kl.tolist() == pytest.approx(expected, rel=1e-5)
    same = masked_log_probs(LOGITS, MASKS)
    assert masked_kl(same, same, MASKS).tolist() == pytest.approx([0.0, 0.0], abs=1e-7)


def test_a_row_without_legal_actions_adds_no_kl():
    masks = torch.tensor([[False, False, False]])
    log_probs = masked_log_probs(LOGITS[:1], masks)
    assert masked_kl(log_probs, uniform_log_probs(masks), masks).tolist() == [0.0]


def test_a_forced_move_has_probability_one_under_the_uniform_magnet():
    """One legal action: the uniform policy is certain of it (log-prob 0), so a forced move
    adds no KL (kills the floor of the legal count ``clamp(min=1)`` made 2)."""
    masks = torch.tensor([[False, True, False]])
    assert uniform_log_probs(masks)[0, 1].item() == 0.0
    log_probs = masked_log_probs(torch.tensor([[3.0, -1.0, 2.0]]), masks)
    assert masked_kl(log_probs, uniform_log_probs(masks), masks).item() == 0.0


def test_the_uniform_magnet_is_log_legal_actions_minus_the_entropy():
    log_probs = masked_log_probs(LOGITS, MASKS)
    uniform = uniform_log_probs(MASKS)
    assert uniform.exp().masked_fill(~MASKS, 0).sum(-1).tolist() == pytest.approx([1.0, 1.0])
    expected = torch.log(MASKS.sum(-1).float()) - masked_entropy(log_probs, MASKS)
    assert masked_kl(log_probs, uniform, MASKS).tolist() == pytest.approx(expected.tolist())


def _losses(kl_coef: float, magnet: torch.Tensor | None, logits: torch.Tensor = LOGITS):
    return ppo_losses(
        logits,
        torch.tensor([0.5, -0.5]),
        MASKS,
        torch.tensor([0, 2]),
        torch.tensor([-0.7, -1.1]),
        torch.tensor([1.0, -1.0]),
        torch.tensor([1.0, 0.0]),
        clip_range=0.2,
        vf_coef=0.5,
        ent_coef=0.01,
        kl_coef=kl_coef,
        magnet_log_probs=magnet,
    )


def test_the_total_adds_kl_coef_times_the_mean_kl():
    magnet = masked_log_probs(REFERENCE, MASKS)
    plain, pulled = _losses(0.0, None), _losses(0.3, magnet)
    kl = masked_kl(masked_log_probs(LOGITS, MASKS), magnet, MASKS).mean()
    assert float(plain.kl) == 0.0
    assert float(pulled.kl) == pytest.approx(float(kl))
    assert float(pulled.total - plain.total) == pytest.approx(0.3 * float(kl), rel=1e-5)
    for name in ("policy", "value", "entropy"):
        assert float(getattr(pulled, name)) == float(getattr(plain, name))


def test_a_magnet_without_a_coefficient_adds_nothing():
    """``ppo_losses``' ``kl_coef`` defaults to 0: the KL is reported, the total is plain PPO's
    (kills the default made 1.0)."""
    magnet = masked_log_probs(REFERENCE, MASKS)
    plain = _losses(0.0, None)
    given = ppo_losses(LOGITS, torch.tensor([0.5, -0.5]), MASKS, torch.tensor([0, 2]),
                       torch.tensor([-0.7, -1.1]), torch.tensor([1.0, -1.0]),
                       torch.tensor([1.0, 0.0]), clip_range=0.2, vf_coef=0.5, ent_coef=0.01,
                       magnet_log_probs=magnet)  # fmt: skip
    assert float(given.kl) > 0 and float(given.total) == float(plain.total)


def test_descending_the_total_moves_the_policy_toward_the_magnet():
    magnet = masked_log_probs(REFERENCE, MASKS)
    logits = LOGITS.clone().requires_grad_(True)
    before = float(masked_kl(masked_log_probs(logits.detach(), MASKS), magnet, MASKS).mean())
    _losses(10.0, magnet, logits).total.backward()
    with torch.no_grad():
        after = float(masked_kl(masked_log_probs(logits - 0.01 * logits.grad, MASKS), magnet,
                                MASKS).mean())  # fmt: skip
    assert after < before


def _network(seed: int) -> ActorCritic:
    torch.manual_seed(seed)
    return ActorCritic(4, 3, (5,), "float32")


def _weights(network: torch.nn.Module) -> dict[str, np.ndarray]:
    return {k: v.detach().numpy().copy() for k, v in network.state_dict().items()}


def test_copy_follows_the_network_every_n_rollouts_only():
    network = _network(0)
    magnet = Magnet(network, PPOConfig(kl_coef=0.1, magnet="copy", magnet_every=3, net_arch=(5,)))
    start = _weights(network)
    assert all(np.array_equal(magnet.state()[k], start[k]) for k in start)
    network.load_state_dict(_network(1).state_dict())
    for rollouts in (1, 2):
        magnet.after_rollout(rollouts)
        assert all(np.array_equal(magnet.state()[k], start[k]) for k in start)
    magnet.after_rollout(3)
    now = _weights(network)
    assert all(np.array_equal(magnet.state()[k], now[k]) for k in now)


def test_average_moves_rate_of_the_way_after_every_rollout():
    network = _network(0)
    magnet = Magnet(network, PPOConfig(kl_coef=0.1, magnet="average", magnet_rate=0.25,
                                       net_arch=(5,)))  # fmt: skip
    old = _weights(network)
    network.load_state_dict(_network(1).state_dict())
    new = _weights(network)
    magnet.after_rollout(1)
    for key in old:
        np.testing.assert_allclose(magnet.state()[key], 0.75 * old[key] + 0.25 * new[key],
                                   rtol=1e-6, atol=1e-7)  # fmt: skip


def test_the_magnets_probabilities_are_its_networks():
    network = _network(0)
    magnet = Magnet(network, PPOConfig(kl_coef=0.1, magnet="copy", net_arch=(5,)))
    observations = torch.randn(2, 4)
    expected = masked_log_probs(network(observations)[0], MASKS)
    assert torch.equal(magnet.log_probs(observations, MASKS), expected)
    uniform = Magnet(network, PPOConfig(kl_coef=0.1, net_arch=(5,)))
    assert uniform.state() is None
    assert torch.equal(uniform.log_probs(observations, MASKS), uniform_log_probs(MASKS))


def test_an_unknown_magnet_is_refused():
    with pytest.raises(InvalidConfigError, match=r"magnet must be one of .* got 'bogus'"):
        Magnet(_network(0), PPOConfig(kl_coef=0.1, magnet="bogus", net_arch=(5,)))


# --- in a run ----------------------------------------------------------------------------
ROLLOUT = 8 * 8
SMALL = dict(
    backend="vector", num_envs=8, rollout_steps=8, minibatch_size=32, n_epochs=2,
    net_arch=[16, 16], checkpoint_every=2 * ROLLOUT, eval_every=0, final_eval_games=0,
    selfplay=True, snapshot_every=2 * ROLLOUT, league_eval_games=0, seed=3, progress=False,
    torch_threads=1, precision="float32", kl_coef=0.5,
)  # fmt: skip


def _train(out: Path, steps: int, **overrides) -> Path:
    return train(TrainArgs(env="promise_war_v0", steps=steps, out=out, **{**SMALL, **overrides}))


@pytest.mark.parametrize(
    "magnet", [{"magnet": "average", "magnet_rate": 0.3}, {"magnet": "copy", "magnet_every": 3}]
)
def test_a_resumed_run_ends_with_the_uninterrupted_runs_network_and_magnet(tmp_path, magnet):
    whole = load_checkpoint(_train(tmp_path / "whole", 7 * ROLLOUT, **magnet))
    _train(tmp_path / "parts", 4 * ROLLOUT, **magnet)  # the copy's refresh falls after step 3
    parts = load_checkpoint(_train(tmp_path / "parts", 7 * ROLLOUT, resume=True, **magnet))
    assert whole.magnet is not None and parts.magnet is not None
    for ours, theirs in ((whole.network, parts.network), (whole.magnet, parts.magnet)):
        assert all(np.array_equal(ours[k], theirs[k]) for k in ours)
    assert not all(np.array_equal(whole.magnet[k], whole.network[k]) for k in whole.network)


def test_a_copy_magnet_is_the_network_of_its_last_copy_in_a_run(tmp_path):
    """In a run, ``copy`` follows the network after every ``magnet_every``-th rollout: after
    3 rollouts with a copy every 2, the magnet is the network as it was after rollout 2."""
    final = load_checkpoint(_train(tmp_path / "run", 3 * ROLLOUT, magnet="copy",
                                   magnet_every=2, checkpoint_every=ROLLOUT))  # fmt: skip
    second = load_checkpoint(tmp_path / "run" / "checkpoints" / f"step_{2 * ROLLOUT}")
    assert final.magnet is not None
    assert all(np.array_equal(final.magnet[k], second.network[k]) for k in second.network)
    assert not all(np.array_equal(final.magnet[k], final.network[k]) for k in final.network)


def test_the_term_changes_training_and_the_plain_run_keeps_no_magnet(tmp_path):
    plain = load_checkpoint(_train(tmp_path / "plain", 2 * ROLLOUT, kl_coef=0.0))
    pulled = load_checkpoint(_train(tmp_path / "pulled", 2 * ROLLOUT, magnet="average"))
    assert plain.magnet is None and not (tmp_path / "plain" / "latest" / MAGNET).exists()
    quiet = (tmp_path / "plain" / "logs" / "run_0" / "progress.csv").read_text().splitlines()
    assert all(float(row.split(",")[-1]) == 0.0 for row in quiet[1:])  # no term, no KL
    assert not all(np.array_equal(plain.network[k], pulled.network[k]) for k in plain.network)
    progress = (tmp_path / "pulled" / "logs" / "run_0" / "progress.csv").read_text().splitlines()
    kl = [float(row.split(",")[-1]) for row in progress[1:]]
    assert progress[0].endswith(",kl") and all(value > 0 for value in kl)


def test_a_corrupt_magnet_file_is_refused_by_name(tmp_path):
    _train(tmp_path / "run", 2 * ROLLOUT, magnet="average")
    np.savez(tmp_path / "run" / "latest" / MAGNET, nonsense=np.zeros(3))
    with pytest.raises(InvalidConfigError, match=f"{MAGNET} is corrupt"):
        load_checkpoint(tmp_path / "run" / "latest")


def test_a_resume_with_other_magnet_flags_is_refused(tmp_path):
    _train(tmp_path / "run", 2 * ROLLOUT, magnet="average")
    with pytest.raises(InvalidConfigError, match=r"--magnet 'average' \(now 'copy'\)"):
        _train(tmp_path / "run", 4 * ROLLOUT, resume=True, magnet="copy")


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--magnet", "nearest"], "--magnet: invalid choice: 'nearest'"),
        (["--magnet-rate", "0"], "--magnet-rate"),
        (["--kl-coef", "-1"], "--kl-coef"),
        (["--magnet-every", "0"], "--magnet-every"),
    ],
)
def test_bad_magnet_flags_are_refused_naming_the_flag(tmp_path, capsys, flags, message):
    try:
        code = main(["train", "promise_war_v0", "--backend", "vector", *flags,
                     "--out", str(tmp_path / "run")])  # fmt: skip
    except SystemExit as stop:
        code = stop.code
    assert code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "run" / "latest").exists()


def test_kl_of_a_point_mass_against_uniform_is_log_n():
    masks = torch.tensor([[True, True, True, True]])
    log_probs = masked_log_probs(torch.tensor([[0.0, 0.0, 60.0, 0.0]]), masks)
    kl = masked_kl(log_probs, uniform_log_probs(masks), masks)
    assert float(kl) == pytest.approx(math.log(4), abs=1e-5)


class _Payload:
    """Writes its marker file when unpickled: proof that a load ran code."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.write_text, (self.marker, "ran"))


def _rewrite_listed(checkpoint: Path, name: str) -> None:
    from cardarena.training import checkpoint as ckpt

    meta = json.loads((checkpoint / "meta.json").read_text())
    meta["files"][name] = ckpt._sha256(checkpoint / name)
    (checkpoint / "meta.json").write_text(json.dumps(meta))


def test_a_pickle_in_magnet_npz_never_runs(tmp_path):
    latest = _train(tmp_path / "run", 2 * ROLLOUT, magnet="average").parent.parent / "latest"
    marker = tmp_path / "marker"
    with np.load(latest / MAGNET) as arrays:
        contents = {key: arrays[key] for key in arrays.files}
    evil = np.empty(1, dtype=object)
    evil[0] = _Payload(marker)
    contents["action_net.bias"] = evil
    np.savez(latest / MAGNET, **contents, allow_pickle=True)
    _rewrite_listed(latest, MAGNET)  # a matching checksum: the format itself must refuse it
    with pytest.raises(InvalidConfigError, match=MAGNET):
        load_checkpoint(latest)
    with pytest.raises(InvalidConfigError, match=MAGNET):
        _train(tmp_path / "run", 4 * ROLLOUT, resume=True, magnet="average")
    assert not marker.exists()
    with np.load(latest / MAGNET, allow_pickle=True) as arrays:  # the payload is live:
        arrays["action_net.bias"]  # an unpickling reader would have run it
    assert marker.read_text() == "ran"


def test_a_listed_magnet_that_is_missing_leaves_the_checkpoint_incomplete(tmp_path):
    from cardarena.agents.checkpoint_reader import is_complete

    latest = _train(tmp_path / "run", 2 * ROLLOUT, magnet="copy").parent.parent / "latest"
    assert is_complete(latest)
    (latest / MAGNET).unlink()
    assert not is_complete(latest)
    with pytest.raises(InvalidConfigError, match=f"{MAGNET} is missing"):
        load_checkpoint(latest)


def test_a_resume_brings_latest_up_with_its_magnet(tmp_path):
    """A kill between a save's two writes: ``latest`` is copied from the newer ``step_N``,
    magnet included, and the run goes on from there."""
    from cardarena.training.resume import resume_latest

    out = tmp_path / "run"
    _train(out, 4 * ROLLOUT, magnet="average")
    newest = out / "checkpoints" / f"step_{4 * ROLLOUT}"

    shutil.rmtree(out / "latest")
    shutil.copytree(out / "checkpoints" / f"step_{2 * ROLLOUT}", out / "latest")
    assert load_checkpoint(resume_latest(out)).step == 4 * ROLLOUT
    copied, saved = load_checkpoint(out / "latest").magnet, load_checkpoint(newest).magnet
    assert copied is not None and saved is not None
    assert all(np.array_equal(copied[k], saved[k]) for k in saved)


def test_a_resumed_uniform_magnet_run_ends_with_the_uninterrupted_runs_network(tmp_path):
    """The uniform magnet keeps nothing in a checkpoint (no ``magnet.npz``), so a resume must
    take the magnet's absence as "nothing to load", not as something to load."""
    whole = load_checkpoint(_train(tmp_path / "whole", 7 * ROLLOUT, magnet="uniform"))
    _train(tmp_path / "parts", 4 * ROLLOUT, magnet="uniform")
    parts = load_checkpoint(_train(tmp_path / "parts", 7 * ROLLOUT, resume=True, magnet="uniform"))
    assert whole.magnet is None and parts.magnet is None
    assert all(np.array_equal(whole.network[k], parts.network[k]) for k in whole.network)
