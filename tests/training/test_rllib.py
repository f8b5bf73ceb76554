"""The RLlib backend (``cardarena.training.rllib``): the multi-agent env contract, the masked
module and its numpy export on every env, and a real two-node Ray cluster on this machine.

Skipped as a whole when the ``rllib`` extra (ray[rllib]) is not installed.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import numpy as np
import pytest

if os.environ.get("CARDARENA_REQUIRE_RLLIB"):  # make test-rllib: a missing ray must fail
    import ray.rllib
else:
    pytest.importorskip("ray.rllib", reason="the 'rllib' extra (ray[rllib]) is not installed")

import ray
from helpers import env_names
from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig

from cardarena.agents import NumpyPolicy, NumpyPolicyAgent, PretrainedAgent, RandomAgent
from cardarena.agents.heuristics import has_heuristic
from cardarena.envs import make_raw
from cardarena.envs.core import InvalidConfigError, ObservationScaler
from cardarena.evaluation import evaluate
from cardarena.training import rllib as rl

#: Ray's workers are other processes, which see the games cardarena registers, not the test game.
ENV_NAMES = env_names(builtin=True)


def _random_episode(env: rl.CardArenaMultiAgentEnv, seed: int) -> dict[str, float]:
    """One game with random legal actions, checking the turn-based contract at every step;
    returns each seat's summed reward."""
    rng = np.random.default_rng(seed)
    observations, _ = env.reset(seed=seed)
    totals: dict[str, float] = {}
    while True:
        assert len(observations) == 1, "only the seat to act gets an observation"
        ((seat, observation),) = observations.items()
        assert seat in env.learners
        assert seat == env.aec.agent_selection
        assert env.observation_spaces[seat].contains(observation)
        np.testing.assert_array_equal(
            observation["action_mask"], env.aec.action_mask(seat).astype(np.float32)
        )
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        observations, rewards, terminateds, truncateds, _ = env.step({seat: action})
        assert set(rewards) <= set(env.learners)
        for key, value in rewards.items():
            totals[key] = totals.get(key, 0.0) + value
        if terminateds["__all__"] or truncateds["__all__"]:
            assert set(observations) == set(env.learners), "every learner sees the end"
            return totals


@pytest.mark.parametrize("name", ENV_NAMES)
def test_multi_agent_env_pays_every_seat_its_game_result(name: str) -> None:
    env = rl.CardArenaMultiAgentEnv({"env": name})
    scaler = ObservationScaler(env.aec.observation_space(env.possible_agents[0])["observation"])
    assert np.array_equal(env.scaler.offset, scaler.offset)  # the SB3 bridge's scaler
    for seed in range(15):
        totals = _random_episode(env, seed)
        # cardarena pays at the end only: a seat's total is its final AEC reward, also for
        # the seat that did not make the last move.
        final = {seat: float(env.aec.rewards[seat]) for seat in env.possible_agents}
        assert totals == pytest.approx(final)


@pytest.mark.parametrize("name", ENV_NAMES)
def test_opponent_share_puts_one_learning_seat_against_built_in_agents(name: str) -> None:
    env = rl.CardArenaMultiAgentEnv(
        {
            "env": name,
            "opponents": ["random", "heuristic"] if has_heuristic(name) else ["random"],
            "opponent_share": 1.0,
        }
    )
    seats_learned = set()
    for seed in range(12):
        totals = _random_episode(env, seed)
        assert len(env.learners) == 1
        seats_learned |= set(env.learners)
        assert set(totals) == set(env.learners)
    assert seats_learned == set(env.possible_agents), "the learning seat rotates"


def _module(name: str) -> rl.MaskedPPOTorchRLModule:
    env = rl.CardArenaMultiAgentEnv({"env": name})
    seat = env.possible_agents[0]
    return rl.MaskedPPOTorchRLModule(
        observation_space=env.observation_spaces[seat],
        action_space=env.action_spaces[seat],
        inference_only=False,
        model_config=DefaultModelConfig(fcnet_hiddens=[32, 32], vf_share_layers=False),
    )


@pytest.mark.parametrize("name", ENV_NAMES)
def test_numpy_export_matches_the_rl_module_and_masks_illegal_actions(
    name: str, tmp_path: Path
) -> None:
    module = _module(name)
    layers, activation = rl.numpy_layers(module)
    assert activation == "tanh" and len(layers) == 3
    raw = make_raw(name)
    seat = raw.possible_agents[0]
    scaler = ObservationScaler(raw.observation_space(seat)["observation"])
    policy = NumpyPolicy(layers, activation, scaler.offset, scaler.scale, {"env": name})
    assert rl.check_rllib_export(policy, module, name, games=5) == 0
    # The module's own greedy action is legal even when the mask allows one action only.
    n = int(raw.action_space(seat).n)
    observations = np.random.default_rng(0).random((n, scaler.offset.size), dtype=np.float32)
    actions = rl.module_greedy_actions(module, observations, np.eye(n, dtype=np.float32))
    np.testing.assert_array_equal(actions, np.arange(n))


# --- a real two-node Ray cluster on this machine -----------------------------------------
@pytest.fixture(scope="module")
def two_node_cluster():
    """Head node with 1 CPU plus a second node with 1 CPU: two env runners of 1 CPU each
    cannot both fit on one node, so Ray must place one on the second node.

    Ray's single-machine switch (what it uses on macOS and Windows) keeps every node on the
    loopback address instead of the machine's network address: no traffic leaves the host.
    """
    import ray._private.ray_constants as ray_constants
    from ray.cluster_utils import Cluster

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ray_constants, "ENABLE_RAY_CLUSTER", False)
        cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
        try:
            second = cluster.add_node(num_cpus=1)
            cluster.wait_for_nodes()
            ray.init(address=cluster.address, include_dashboard=False, log_to_driver=False)
            yield cluster.head_node.node_id, second.node_id
        finally:
            ray.shutdown()
            cluster.shutdown()


TINY = rl.RLlibSettings(hidden=(32, 32), train_batch_size=256, minibatch_size=128, num_epochs=1)


@pytest.mark.rllib
def test_two_node_cluster_trains_resumes_and_exports_legal_policies(
    two_node_cluster: tuple[str, str], tmp_path: Path
) -> None:
    head, second = two_node_cluster
    alive = [node for node in ray.nodes() if node["Alive"]]
    assert {node["NodeID"] for node in alive} == {head, second}
    assert {node["NodeManagerAddress"] for node in alive} == {"127.0.0.1"}
    started = time.perf_counter()
    for name in ENV_NAMES:
        out = tmp_path / name
        summary = rl.train_rllib(
            name, 2 * TINY.train_batch_size, out, num_env_runners=2,
            settings=TINY, eval_games=0, log=lambda _: None,
        )  # fmt: skip
        rows = [json.loads(line) for line in (out / "progress.jsonl").read_text().splitlines()]
        assert len(rows) >= 2
        by_node = rows[-1]["steps_by_node"]
        assert by_node.get(second, 0) > 0, f"no samples from the second node: {by_node}"
        assert by_node.get(head, 0) > 0, f"no samples from the head node: {by_node}"
        path = Path(summary["policies"][rl.SHARED]["path"])
        # The export plays only legal moves: the raw env raises on an illegal one.
        agent = PretrainedAgent(path=str(path))
        result = evaluate(lambda name=name: make_raw(name), agent, RandomAgent(), 30, seed=7)
        assert result.games == 30
        # ... and acts as the trained RLModule does, read back from the checkpoint.
        module = rl.load_module(out / "checkpoint", rl.SHARED)
        policy = rl.export_rllib_policy(out / "checkpoint", rl.SHARED, tmp_path / f"{name}.npz")
        assert rl.check_rllib_export(policy, module, name, games=5) == 0
    # Resume continues the same run: counters and iterations go on from the checkpoint. It
    # also grows a league: the snapshot taken joins random in both runners' opponent pools.
    out = tmp_path / "promise_war_v0"
    before = rl.read_checkpoint_meta(out / "checkpoint")
    rl.train_rllib(
        "promise_war_v0", before["env_steps"] + 1, out, num_env_runners=2, resume=True,
        settings=TINY, eval_games=0, snapshot_every=1, opponents=["random"], log=lambda _: None,
    )  # fmt: skip
    after = rl.read_checkpoint_meta(out / "checkpoint")
    assert after["iteration"] == before["iteration"] + 1
    assert after["env_steps"] > before["env_steps"]
    assert (out / "snapshots" / f"iter_{after['iteration']}.npz").is_file()
    pool, weights = rl.league_pool(out, ["random"], baseline_share=0.3)
    assert pool[0] == "random" and isinstance(pool[1], NumpyPolicyAgent) and len(pool) == 2
    assert weights == pytest.approx([0.3, 0.7])  # the baseline keeps its share
    elapsed = time.perf_counter() - started
    print(f"two-node cluster: {len(ENV_NAMES)} envs trained and one resumed in {elapsed:.0f}s")


@pytest.mark.rllib
def test_per_seat_policies_and_a_league_pool_on_the_cluster(
    two_node_cluster: tuple[str, str], tmp_path: Path
) -> None:
    """One policy per seat, half the games against the heuristic, then a frozen snapshot of
    one seat's policy joins the pool of every env runner (on both nodes)."""
    name = "ironman_war_v0"
    config = rl.build_ppo_config(
        name, num_env_runners=2, policies="per_seat", settings=TINY,
        opponents=["heuristic"], opponent_share=0.5,
    )  # fmt: skip
    algo = config.build_algo()
    try:
        seats = rl.policy_ids(name, None, "per_seat")
        assert len(seats) == 2
        result = algo.train()
        snapshot = rl.export_rllib_policy(algo, seats[0], tmp_path / "snapshot.npz")
        rl.set_opponent_pool(algo, ["heuristic", NumpyPolicyAgent(snapshot)], 0.5)
        pools = algo.env_runner_group.foreach_env_runner(
            lambda runner: [len(e.unwrapped.opponents) for e in runner.env.envs],
            local_env_runner=False,
        )
        assert pools == [[2], [2]]
        result = algo.train()
        trained = result["env_runners"]["num_module_steps_sampled"]
        assert set(trained) == set(seats) and all(trained[s] > 0 for s in seats)
        for seat in seats:
            path = tmp_path / f"{seat}.npz"
            rl.export_rllib_policy(algo, seat, path)
            evaluate(lambda: make_raw(name), PretrainedAgent(path=str(path)), "heuristic", 10)
    finally:
        algo.stop()


def test_a_checkpoint_moved_aside_by_a_killed_save_is_put_back(tmp_path: Path) -> None:
    (tmp_path / "checkpoint.old").mkdir()  # killed between _save's two renames
    with pytest.raises(InvalidConfigError, match="already holds a run"):
        rl.train_rllib("promise_war_v0", 10, tmp_path, log=lambda _: None)
    assert (tmp_path / "checkpoint").is_dir() and not (tmp_path / "checkpoint.old").exists()


def test_league_pool_keeps_the_baselines_share(tmp_path: Path) -> None:
    policy = NumpyPolicy(
        [(np.zeros((11, 106), np.float32), np.zeros(11, np.float32))],
        "tanh", np.zeros(106, np.float32), np.ones(106, np.float32), {"env": "promise_war_v0"},
    )  # fmt: skip
    assert rl.league_pool(tmp_path, ["random", "heuristic"]) == (["random", "heuristic"], [1, 1])
    for iteration in (1, 2, 3, 4):
        policy.save(tmp_path / "snapshots" / f"iter_{iteration}.npz")
    pool, weights = rl.league_pool(tmp_path, ["random", "heuristic"], baseline_share=0.5)
    assert len(pool) == 6 and sum(weights[:2]) == pytest.approx(0.5)
    env = rl.CardArenaMultiAgentEnv({"env": "promise_war_v0", "opponents": pool,
                                     "opponent_share": 1.0})  # fmt: skip
    env.set_opponents(pool, 1.0, weights)
    snapshot_games = 0
    for seed in range(400):
        env.reset(seed=seed)
        snapshot_games += any(isinstance(a, NumpyPolicyAgent) for a in env.seat_agents.values())
    assert 0.4 < snapshot_games / 400 < 0.6  # uniform over 6 entries would give 2/3
    with pytest.raises(InvalidConfigError, match="opponent weights must be 6"):
        env.set_opponents(pool, 1.0, [1.0, 2.0])


def test_a_new_run_refuses_an_out_folder_that_holds_one(tmp_path: Path) -> None:
    (tmp_path / "checkpoint").mkdir()
    with pytest.raises(InvalidConfigError, match="already holds a run; pass --resume"):
        rl.train_rllib("promise_war_v0", 10, tmp_path, log=lambda _: None)


@pytest.mark.rllib
def test_cardarena_train_backend_rllib_resumes_and_prints_the_agent_spec(
    two_node_cluster: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The command line a user types: train, refuse to overwrite, resume, play the export."""
    from cardarena.cli import main

    out = tmp_path / "run"
    common = ["train", "promise_war_v0", "--backend", "rllib", "--out", str(out),
              "--num-env-runners", "2", "--final-eval-games", "4", "--no-progress"]  # fmt: skip
    assert main([*common, "--steps", "2048"]) == 0
    first = rl.read_checkpoint_meta(out / "checkpoint")
    assert main([*common, "--steps", "2048"]) == 2  # a second run into the same folder
    assert main([*common, "--steps", "4096", "--resume"]) == 0
    printed = capsys.readouterr()
    assert "already holds a run; pass --resume" in printed.err
    assert f"play it as pretrained:path={out / 'policy_shared.npz'}" in printed.out
    # The resume went on from the first run's counters. (How many iterations a budget takes
    # is Ray's: on a starved machine its env runners time out and return smaller batches.)
    resumed = rl.read_checkpoint_meta(out / "checkpoint")
    assert first["env_steps"] >= 2048 and resumed["env_steps"] >= 4096
    assert resumed["iteration"] > first["iteration"] >= 1
    rows = [json.loads(line) for line in (out / "progress.jsonl").read_text().splitlines()]
    assert [row["iteration"] for row in rows] == list(range(1, resumed["iteration"] + 1))
    agent = PretrainedAgent(path=str(out / "policy_shared.npz"))
    assert evaluate(lambda: make_raw("promise_war_v0"), agent, "random", 4).games == 4
