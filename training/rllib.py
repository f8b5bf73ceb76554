"""Ray RLlib backend: every cardarena env as an RLlib multi-agent env, PPO self-play on a
local Ray or an existing cluster, and export of the trained policy to a numpy-only file.

Needs the ``rllib`` extra (``ray[rllib]``, which pins its own gymnasium). Nothing else in
``cardarena`` imports this module, so the package and the SB3 path never import ray.

Pieces (RLlib's new API stack: RLModule, EnvRunner, Learner):

- ``CardArenaMultiAgentEnv``: a turn-based ``MultiAgentEnv`` over the AEC env. Only the seat to
  act gets an observation; rewards reach every learning seat as they accrue, and when the game
  ends every learning seat gets its final observation and reward (also when the last move was
  another seat's). Observations are ``{"observations": scaled, "action_mask": float mask}``,
  scaled by the same ``ObservationScaler`` as the SB3 bridge. Seats may also be played by
  cardarena agents (``opponents``: random, heuristic, exported snapshots), the SB3 league idea:
  a share of the games puts one learning seat, drawn per game, against them.
- ``MaskedPPOTorchRLModule``: RLlib's default PPO torch module with illegal actions' logits
  pushed to the float minimum, so sampling and greedy acting only pick legal moves.
- ``build_ppo_config``: one shared policy for all seats (self-play) or one policy per seat.
- ``train_rllib``: train, checkpoint each iteration (``--resume`` continues), export and
  evaluate against random with the cardarena tooling.
- ``export_rllib_policy``: the torch actor MLP (encoder + pi head) as a ``NumpyPolicy``
  (``pretrained:path=FILE.npz``), which ``cardarena eval``/``play`` use without ray or torch.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeAlias

import gymnasium
import numpy as np
import ray
import torch
from gymnasium import spaces
from ray.rllib.algorithms.algorithm import Algorithm
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import (
    DefaultPPOTorchRLModule,
)
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModule, RLModuleSpec
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.utils.torch_utils import FLOAT_MIN

from cardarena.agents import (
    Agent,
    NumpyPolicy,
    NumpyPolicyAgent,
    env_spec_of,
    per_seat,
    start_game,
)
from cardarena.envs import ENVS, make
from cardarena.envs.core import InvalidConfigError, ObservationScaler

from .evaluate import MatchResult, evaluate
from .export import random_decisions
from .jsonl import append_jsonl
from .records import package_version
from .stats import wilson_interval

#: The shared policy's id in self-play (every seat maps to it).
SHARED = "shared"
#: Written next to every RLlib checkpoint: which env and policies it holds (for export).
META_FILE = "cardarena_rllib.json"
#: Sub-path of an Algorithm checkpoint where each policy's RLModule is saved.
MODULE_PATH = ("learner_group", "learner", "rl_module")
#: Key under ``result["env_runners"]`` with env steps sampled per Ray node id.
STEPS_BY_NODE = "cardarena_env_steps_by_node"

#: RLlib's per-agent dicts (``MultiAgentDict``) and what ``step`` returns.
AgentDict: TypeAlias = dict[Any, Any]
StepResult: TypeAlias = tuple[AgentDict, AgentDict, AgentDict, AgentDict, AgentDict]


# --- the env ----------------------------------------------------------------------------
class CardArenaMultiAgentEnv(MultiAgentEnv):
    """A registered cardarena env as a turn-based RLlib ``MultiAgentEnv``.

    Config keys (an RLlib ``EnvContext`` or a plain dict):
        env: the env name (a key of ``cardarena.envs.ENVS``).
        env_config: keyword arguments for ``make`` (e.g. ``num_players``).
        opponents: agent specs (or ``Agent`` objects) for a share of the games; empty for
            pure self-play, where every seat learns.
        opponent_share: probability that a game puts one learning seat (drawn uniformly, so
            every seat is practised) against one opponent drawn from ``opponents``.
    """

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        config = dict(config or {})
        self.env_name: str = config.get("env", "promise_war_v0")
        self.env_config: dict[str, Any] = dict(config.get("env_config") or {})
        self.aec = make(self.env_name, **self.env_config)
        self.aec.warn_on_illegal = False  # the masked policy never plays one; info says so
        seats = list(self.aec.possible_agents)
        box = self.aec.observation_space(seats[0])["observation"]
        self.scaler = ObservationScaler(box)
        self.num_actions = int(self.aec.action_space(seats[0]).n)
        space = observation_space(self.scaler, self.num_actions)
        self.observation_spaces = dict.fromkeys(seats, space)
        self.action_spaces = dict.fromkeys(seats, spaces.Discrete(self.num_actions))
        super().__init__()
        self.possible_agents = seats
        self.agents = seats[:]
        self.opponents: list[Agent | str] = []
        self.opponent_share = 0.0
        self.weights: np.ndarray | None = None
        self.set_opponents(config.get("opponents") or [], float(config.get("opponent_share", 0)))
        self.learners: list[str] = seats[:]
        self.seat_agents: dict[str, Agent] = {}
        self._pending = dict.fromkeys(seats, 0.0)

    def set_opponents(
        self,
        opponents: Sequence[Agent | str],
        share: float,
        weights: Sequence[float] | None = None,
    ) -> None:
        """Replace the opponent pool (applies from the next reset); called on every env
        runner by ``set_opponent_pool`` when the league grows. ``weights``: how often each
        entry is drawn (default: equally often)."""
        if not 0.0 <= share <= 1.0:
            raise InvalidConfigError(f"opponent_share must lie in [0, 1], got {share}")
        self.opponents = list(opponents)
        self.opponent_share = share if self.opponents else 0.0
        self.weights = None
        if weights is not None:
            array = np.asarray(weights, dtype=float)
            if array.shape != (len(self.opponents),) or (array < 0).any() or array.sum() <= 0:
                raise InvalidConfigError(
                    f"opponent weights must be {len(self.opponents)} non-negative numbers "
                    f"with a positive sum, got {list(weights)}"
                )
            self.weights = array / array.sum()

    # gymnasium API ------------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[AgentDict, AgentDict]:
        gymnasium.Env.reset(self, seed=seed)
        rng = self.np_random
        self.aec.reset(seed=int(rng.integers(2**31 - 1)), options=options)
        seats: list[str] = list(self.aec.possible_agents)
        self._pending = dict.fromkeys(seats, 0.0)
        self.learners, self.seat_agents = seats[:], {}
        if self.opponents and rng.random() < self.opponent_share:
            learner = seats[int(rng.integers(len(seats)))]
            others = [s for s in seats if s != learner]
            if self.weights is None:
                entry = self.opponents[int(rng.integers(len(self.opponents)))]
            else:
                entry = self.opponents[int(rng.choice(len(self.opponents), p=self.weights))]
            self.learners = [learner]
            self.seat_agents = per_seat(entry, others)
            spec = env_spec_of(self.aec)
            for seat, agent in self.seat_agents.items():
                if hasattr(agent, "seed"):
                    agent.seed(int(rng.integers(2**31 - 1)))
                start_game(agent, seat, spec)
        self.agents = list[Any](self.learners)
        observations, _, done, _, infos = self._advance()
        if done["__all__"]:
            raise RuntimeError("the game ended before any learning seat could act")
        return observations, infos

    def step(self, action_dict: AgentDict) -> StepResult:  # type: ignore[override, unused-ignore]
        seat = self.aec.agent_selection
        if seat not in action_dict:
            raise ValueError(f"{seat} is to act, but the actions were for {list(action_dict)}")
        self.aec.step(int(action_dict[seat]))
        self._collect_rewards()
        return self._advance()

    # internals ----------------------------------------------------------------------------
    def _collect_rewards(self) -> None:
        """The AEC ``rewards`` of the transition just made, added for every seat, so a seat
        is paid even when it is not to act next (or ever again)."""
        for seat, reward in self.aec.rewards.items():
            self._pending[seat] = self._pending.get(seat, 0.0) + float(reward)

    def _observation(self, seat: str, final: bool = False) -> dict[str, np.ndarray]:
        raw = self.aec.observe(seat)
        mask = raw["action_mask"].astype(np.float32)
        if final:
            # Never acted on; all-ones keeps the masked logits of the bootstrap step finite.
            mask = np.ones_like(mask)
        return {"observations": self.scaler(raw["observation"]), "action_mask": mask}

    def _advance(self) -> StepResult:
        """Let built-in opponents move until a learning seat must act or the game is over."""
        aec = self.aec
        while True:
            seat = aec.agent_selection
            if aec.terminations[seat] or aec.truncations[seat]:
                return self._finish()
            if seat in self.learners:
                rewards = {s: self._pending.pop(s, 0.0) for s in self.learners}
                self._pending = dict.fromkeys(self.learners, 0.0)
                flags = {"__all__": False}
                return {seat: self._observation(seat)}, rewards, flags, dict(flags), {}
            aec.step(self.seat_agents[seat].act(aec.observe(seat)))
            self._collect_rewards()

    def _finish(self) -> StepResult:
        """Every learning seat's final observation, reward and flag, in one step."""
        aec = self.aec
        truncated = any(aec.truncations[s] for s in self.learners)
        observations = {s: self._observation(s, final=True) for s in self.learners}
        rewards = {s: self._pending.get(s, 0.0) for s in self.learners}
        terminateds = {s: not truncated for s in self.learners}
        truncateds = {s: truncated for s in self.learners}
        terminateds["__all__"], truncateds["__all__"] = not truncated, truncated
        infos = {s: dict(aec.infos.get(s, {})) for s in self.learners}
        return observations, rewards, terminateds, truncateds, infos


def observation_space(scaler: ObservationScaler, num_actions: int) -> spaces.Dict:
    """The Dict space ``MaskedPPOTorchRLModule`` reads: scaled observation plus mask."""
    return spaces.Dict(
        {
            "observations": scaler.space,
            "action_mask": spaces.Box(0.0, 1.0, (num_actions,), np.float32),
        }
    )


# --- the masking RLModule ---------------------------------------------------------------
class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO torch module (MLP encoder, pi and value heads) that reads a Dict
    observation ``{"observations", "action_mask"}``: the networks see ``observations`` only,
    and illegal actions' logits get ``FLOAT_MIN`` added, in training, exploration and
    inference alike. (RLlib's ``ActionMaskingTorchRLModule`` lives in its examples package;
    this is the same idea without mutating the caller's batch.)"""

    def __init__(self, *, observation_space: gymnasium.Space | None = None, **kwargs: Any):
        if not isinstance(observation_space, spaces.Dict):
            raise InvalidConfigError(
                "MaskedPPOTorchRLModule needs a Dict observation space with 'observations' "
                f"and 'action_mask', got {observation_space!r}"
            )
        self.observation_space_with_mask = observation_space
        super().__init__(observation_space=observation_space["observations"], **kwargs)

    def setup(self) -> None:
        super().setup()
        # The networks are built for the inner Box; the module reports the env's Dict space.
        self.observation_space = self.observation_space_with_mask

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, inner = _split(batch)
        return _mask_logits(super()._forward(inner, **kwargs), mask)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, inner = _split(batch)
        return _mask_logits(super()._forward_train(inner, **kwargs), mask)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        if isinstance(batch[Columns.OBS], Mapping):
            _, batch = _split(batch)
        return super().compute_values(batch, embeddings)


def _split(batch: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """(mask, a shallow copy of ``batch`` whose OBS is the inner observation)."""
    observation = batch[Columns.OBS]
    inner = dict(batch)
    inner[Columns.OBS] = observation["observations"]
    return observation["action_mask"], inner


def _mask_logits(outputs: dict[str, Any], mask: Any) -> dict[str, Any]:
    outputs[Columns.ACTION_DIST_INPUTS] = outputs[Columns.ACTION_DIST_INPUTS] + torch.clamp(
        torch.log(mask), min=FLOAT_MIN
    )
    return outputs


# --- metrics: where the samples came from ------------------------------------------------
class NodeStepsCallback(RLlibCallback):
    """Counts env steps per Ray node id (``result["env_runners"][STEPS_BY_NODE]``), so a
    cluster run shows every node sampled."""

    def on_episode_end(self, *, episode: Any, metrics_logger: Any = None, **kwargs: Any) -> None:
        if metrics_logger is None:
            return
        node = ray.get_runtime_context().get_node_id()
        metrics_logger.log_value((STEPS_BY_NODE, node), episode.env_steps(), reduce="lifetime_sum")


# --- config -------------------------------------------------------------------------------
@dataclass(frozen=True)
class RLlibSettings:
    """PPO hyper-parameters of the RLlib backend (small batches: 2-core machines)."""

    hidden: tuple[int, ...] = (128, 128)
    train_batch_size: int = 2048
    minibatch_size: int = 256
    num_epochs: int = 5
    lr: float = 3e-4
    entropy_coeff: float = 0.01
    gamma: float = 0.99


def shared_policy_mapping(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    """Self-play: every seat acts and learns with the one shared policy."""
    return SHARED


def per_seat_policy_mapping(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    """One policy per seat, named after the seat."""
    return agent_id


def policy_ids(env: str, env_config: Mapping[str, Any] | None, policies: str) -> list[str]:
    """The policy ids for ``policies`` = ``"shared"`` or ``"per_seat"``."""
    if policies == "shared":
        return [SHARED]
    if policies == "per_seat":
        return list(make(env, **dict(env_config or {})).possible_agents)
    raise InvalidConfigError(f"policies must be 'shared' or 'per_seat', got {policies!r}")


def build_ppo_config(
    env: str,
    env_config: Mapping[str, Any] | None = None,
    num_env_runners: int = 1,
    policies: str = "shared",
    seed: int = 0,
    settings: RLlibSettings | None = None,
    opponents: Sequence[Agent | str] = (),
    opponent_share: float = 0.0,
    num_cpus_per_env_runner: int = 1,
) -> PPOConfig:
    """A ``PPOConfig`` training masked PPO on ``env``: shared self-play or per-seat policies.

    The learner runs in the driver (``num_learners=0``: no extra Ray actor, no CPU reserved),
    so ``num_env_runners`` Ray actors of ``num_cpus_per_env_runner`` CPUs each do all the
    sampling; with 0 the driver samples too.
    """
    if env not in ENVS:
        raise InvalidConfigError(f"unknown env {env!r}; available: {', '.join(sorted(ENVS))}")
    settings = settings or RLlibSettings()
    ids = policy_ids(env, env_config, policies)
    model = DefaultModelConfig(
        fcnet_hiddens=list(settings.hidden), fcnet_activation="tanh", vf_share_layers=False
    )
    specs = {pid: RLModuleSpec(module_class=MaskedPPOTorchRLModule) for pid in ids}
    env_settings = {
        "env": env,
        "env_config": dict(env_config or {}),
        "opponents": list(opponents),
        "opponent_share": float(opponent_share),
    }
    mapping: Any = shared_policy_mapping if policies == "shared" else per_seat_policy_mapping
    return (
        PPOConfig()
        .environment(CardArenaMultiAgentEnv, env_config=env_settings)
        .env_runners(
            num_env_runners=num_env_runners,
            num_envs_per_env_runner=1,
            num_cpus_per_env_runner=num_cpus_per_env_runner,
            rollout_fragment_length="auto",
        )
        .learners(num_learners=0)
        .training(
            train_batch_size_per_learner=settings.train_batch_size,
            minibatch_size=settings.minibatch_size,
            num_epochs=settings.num_epochs,
            lr=settings.lr,
            entropy_coeff=settings.entropy_coeff,
            gamma=settings.gamma,
        )
        .rl_module(
            model_config=model,
            rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs),
        )
        .multi_agent(policies=set(ids), policy_mapping_fn=mapping, policies_to_train=ids)
        .callbacks(NodeStepsCallback)
        .debugging(seed=seed)
    )


# --- export -------------------------------------------------------------------------------
def numpy_layers(module: Any) -> tuple[list[tuple[np.ndarray, np.ndarray]], str]:
    """The actor path of a default PPO torch RLModule (actor encoder MLP, then the pi head)
    as ``NumpyPolicy`` layers and their activation; refuses anything else (LayerNorm, mixed
    activations, a pi head with hidden layers of another activation)."""
    import torch.nn as nn

    encoder = module.encoder
    actor = getattr(encoder, "actor_encoder", None) or encoder.encoder
    sequence: list[Any] = []
    for part in (actor, module.pi):
        sequence += [m for m in part.modules() if not list(m.children())]
    layers: list[tuple[np.ndarray, np.ndarray]] = []
    kinds: set[str] = set()
    for index, layer in enumerate(sequence):
        if isinstance(layer, nn.Linear):
            if layers and not isinstance(sequence[index - 1], nn.Tanh | nn.ReLU):
                raise InvalidConfigError("two linear layers without an activation between")
            layers.append(_linear(layer))
        elif isinstance(layer, nn.Tanh | nn.ReLU):
            kinds.add("tanh" if isinstance(layer, nn.Tanh) else "relu")
        elif not isinstance(layer, nn.Identity):
            raise InvalidConfigError(f"cannot export a policy layer {type(layer).__name__}")
    if len(kinds) > 1:
        raise InvalidConfigError(f"mixed activations {sorted(kinds)} cannot be exported")
    if not isinstance(sequence[-1], nn.Linear):
        raise InvalidConfigError("the pi head must end in a Linear layer (the logits)")
    return layers, kinds.pop() if kinds else "tanh"


def _linear(layer: Any) -> tuple[np.ndarray, np.ndarray]:
    return (
        layer.weight.detach().cpu().numpy().astype(np.float32),
        layer.bias.detach().cpu().numpy().astype(np.float32),
    )


def load_module(checkpoint: str | Path, policy_id: str) -> RLModule:
    """One policy's RLModule from an Algorithm checkpoint, without starting Ray."""
    path = Path(checkpoint).joinpath(*MODULE_PATH, policy_id)
    if not path.is_dir():
        raise InvalidConfigError(f"no policy {policy_id!r} in checkpoint {str(checkpoint)!r}")
    return RLModule.from_checkpoint(path)


def read_checkpoint_meta(checkpoint: str | Path) -> dict[str, Any]:
    """What ``train_rllib`` wrote next to the checkpoint (env, config, policies, steps)."""
    path = Path(checkpoint) / META_FILE
    if not path.is_file():
        raise InvalidConfigError(f"{str(checkpoint)!r} is not a cardarena RLlib checkpoint")
    return dict(json.loads(path.read_text()))


def export_rllib_policy(
    source: Algorithm | str | Path,
    policy_id: str,
    out_npz: str | Path,
    env: str | None = None,
    env_config: Mapping[str, Any] | None = None,
    provenance: Mapping[str, Any] | None = None,
) -> NumpyPolicy:
    """Write ``policy_id`` of an Algorithm (or of a ``train_rllib`` checkpoint folder) as a
    ``NumpyPolicy`` file; ``pretrained:path=out_npz`` then plays it without ray or torch.

    The scaler is rebuilt from the env's Box exactly as the training env built it, and the
    meta names env and config, so ``PretrainedAgent`` refuses a mismatched env.
    """
    meta: dict[str, Any] = {"trained_with": "rllib", "policy_id": policy_id}
    if isinstance(source, str | Path):
        saved = read_checkpoint_meta(source)
        env = env or saved["env"]
        env_config = env_config if env_config is not None else saved.get("env_config")
        meta.update(step=saved.get("env_steps", 0), source=str(source))
        module: RLModule | None = load_module(source, policy_id)
    else:
        env_settings = dict(source.config.env_config) if source.config else {}
        env = env or env_settings["env"]
        env_config = env_config if env_config is not None else env_settings.get("env_config")
        module = source.get_module(policy_id)
    if env is None or module is None:
        raise InvalidConfigError(f"export needs the env name and policy {policy_id!r}")
    aec = make(env, **dict(env_config or {}))
    seat = aec.possible_agents[0]
    scaler = ObservationScaler(aec.observation_space(seat)["observation"])
    layers, activation = numpy_layers(module)
    meta.update(
        env=env,
        config=dict(env_config or {}),
        observation_shape=list(scaler.offset.shape),
        actions=int(aec.action_space(seat).n),
        exported_by=package_version(),
    )
    meta.update(provenance or {})
    policy = NumpyPolicy(layers, activation, scaler.offset, scaler.scale, meta)
    policy.save(out_npz)
    return policy


def module_greedy_actions(module: Any, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The RLModule's greedy actions on raw observations (scaled like the env scales them):
    the reference ``check_rllib_export`` compares the numpy export against."""
    batch = {
        Columns.OBS: {
            "observations": torch.as_tensor(observations, dtype=torch.float32),
            "action_mask": torch.as_tensor(masks, dtype=torch.float32),
        }
    }
    with torch.no_grad():
        logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS]
    return np.asarray(logits.argmax(dim=-1).cpu().numpy())


def check_rllib_export(policy: NumpyPolicy, module: Any, env: str, games: int = 20) -> int:
    """Play ``games`` random games of ``env`` and count the decisions where the numpy export
    and the RLModule pick different greedy actions (0 for a faithful export)."""
    raw_obs, masks = random_decisions(env, games, policy.meta.get("config"))
    scaled = np.stack([(o - policy.offset) * policy.factor for o in raw_obs]).astype(np.float32)
    theirs = module_greedy_actions(module, scaled, masks)
    mine = np.array([policy.act(o, m) for o, m in zip(raw_obs, masks, strict=True)])
    return int(np.sum(theirs != mine))


def set_opponent_pool(
    algo: Algorithm,
    opponents: Sequence[Agent | str],
    share: float,
    weights: Sequence[float] | None = None,
) -> None:
    """Send a new opponent pool (and its draw weights) to every env runner."""

    def update(runner: Any) -> None:
        # The local runner has no env when remote runners sample.
        for sub_env in getattr(runner.env, "envs", None) or []:
            sub_env.unwrapped.set_opponents(opponents, share, weights)

    group = algo.env_runner_group
    if group is None:
        raise RuntimeError("the algorithm has no env runners (stopped?)")
    group.foreach_env_runner(update, local_env_runner=True)


# --- training -----------------------------------------------------------------------------
def _init_ray(address: str | None, num_env_runners: int) -> bool:
    """Connect to ``address`` or start a small local Ray; True when this call started it."""
    if ray.is_initialized():
        return False
    if address:
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    else:
        ray.init(
            num_cpus=max(1, num_env_runners),
            include_dashboard=False,
            log_to_driver=False,
            configure_logging=False,
        )
    return True


def _recover_checkpoint(out: Path) -> None:
    """Put ``checkpoint.old`` back when a kill came between ``_save``'s two renames (the old
    checkpoint moved aside, the new one not yet in place)."""
    if not (out / "checkpoint").exists() and (out / "checkpoint.old").is_dir():
        (out / "checkpoint.old").rename(out / "checkpoint")


def _save(algo: Algorithm, out: Path, meta: Mapping[str, Any]) -> Path:
    """Checkpoint to ``out/checkpoint`` atomically: a killed save leaves the previous one."""
    final = out / "checkpoint"
    partial = out / "checkpoint.partial"
    shutil.rmtree(partial, ignore_errors=True)
    algo.save_to_path(partial.resolve())
    (partial / META_FILE).write_text(json.dumps(dict(meta), indent=1, sort_keys=True))
    old = out / "checkpoint.old"
    shutil.rmtree(old, ignore_errors=True)
    if final.exists():
        final.rename(old)
    partial.rename(final)
    shutil.rmtree(old, ignore_errors=True)
    return final


def env_steps(result: Mapping[str, Any]) -> int:
    """Env steps (decisions, all seats) sampled over the algorithm's lifetime."""
    value = result.get("num_env_steps_sampled_lifetime")
    if value is None:
        value = result.get("env_runners", {}).get("num_env_steps_sampled_lifetime", 0)
    return int(value)


def train_rllib(
    env: str,
    steps: int,
    out: str | Path,
    num_env_runners: int = 1,
    address: str | None = None,
    resume: bool = False,
    seed: int = 0,
    policies: str = "shared",
    env_config: Mapping[str, Any] | None = None,
    settings: RLlibSettings | None = None,
    opponents: Sequence[Agent | str] = (),
    opponent_share: float = 0.0,
    eval_games: int = 400,
    time_limit_s: float | None = None,
    snapshot_every: int = 0,
    baseline_share: float = 0.5,
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Train masked PPO on ``env`` until ``steps`` env steps (all seats) are sampled.

    Writes ``out/checkpoint`` (every iteration; ``resume`` continues from it with the same
    counters), ``out/progress.jsonl`` (one line per iteration), ``out/policy_<id>.npz`` (the
    export of each policy) and ``out/final_eval.jsonl`` (each export against random, seats
    rotating). Starts a local Ray unless ``address`` names a cluster or Ray is already up.
    ``time_limit_s`` stops after the first iteration past that wall time (still exporting and
    evaluating). ``snapshot_every`` > 0 (shared policy only) grows a league: every that many
    iterations the policy is frozen into ``out/snapshots/iter_<N>.npz`` and joins
    ``opponents`` in the pool that plays ``opponent_share`` of the games (0.5 if unset);
    ``opponents`` (the baselines) keep ``baseline_share`` of that pool's draws.
    Returns the final summary row.
    """
    out = Path(out)
    _recover_checkpoint(out)
    if not resume and (out / "checkpoint").exists():
        raise InvalidConfigError(f"{out} already holds a run; pass --resume or another --out")
    out.mkdir(parents=True, exist_ok=True)
    if snapshot_every > 0:
        if policies != "shared":
            raise InvalidConfigError("a snapshot league needs the shared self-play policy")
        opponent_share = opponent_share or 0.5
    config = build_ppo_config(
        env, env_config, num_env_runners, policies, seed, settings, opponents, opponent_share
    )
    started = _init_ray(address, num_env_runners)
    algo = config.build_algo()
    try:
        meta = {"env": env, "env_config": dict(env_config or {}), "policies": policies}
        done = _resume(algo, out / "checkpoint", meta, log) if resume else 0
        if snapshot_every > 0 and resume:
            set_opponent_pool(algo, *_league(out, opponents, baseline_share, opponent_share))
        start = time.perf_counter()
        while done < steps and (time_limit_s is None or time.perf_counter() - start < time_limit_s):
            begin = time.perf_counter()
            result = algo.train()
            done = env_steps(result)
            row = _progress_row(result, done, time.perf_counter() - begin)
            append_jsonl(out / "progress.jsonl", [row])
            if snapshot_every > 0 and algo.iteration % snapshot_every == 0:
                path = out / "snapshots" / f"iter_{algo.iteration}.npz"
                export_rllib_policy(algo, SHARED, path, provenance={"step": done})
                set_opponent_pool(algo, *_league(out, opponents, baseline_share, opponent_share))
            _save(algo, out, {**meta, "env_steps": done, "iteration": algo.iteration})
            log(f"iteration {row['iteration']}: {done} env steps, {row['steps_per_s']:.0f}/s")
        return _export_and_evaluate(algo, out, env, env_config, policies, done, eval_games, seed)
    finally:
        algo.stop()
        if started:
            ray.shutdown()


def _league(
    out: Path, baselines: Sequence[Agent | str], baseline_share: float, opponent_share: float
) -> tuple[list[Agent | str], float, list[float]]:
    pool, weights = league_pool(out, baselines, baseline_share)
    return pool, opponent_share, weights


#: League snapshots kept in the pool (the oldest leave first), as in the SB3 league.
MAX_SNAPSHOTS = 20


def league_pool(
    out: Path, baselines: Sequence[Agent | str], baseline_share: float = 0.5
) -> tuple[list[Agent | str], list[float]]:
    """The baselines plus the newest ``MAX_SNAPSHOTS`` frozen snapshots in ``out/snapshots``
    (loaded into memory, so env runners on other nodes need no shared file system), and the
    draw weights: the baselines keep ``baseline_share`` of the draws however many snapshots
    there are, as in the SB3 league (a league that lets them fade forgets them)."""
    paths = sorted(
        (out / "snapshots").glob("iter_*.npz"), key=lambda p: int(p.stem.removeprefix("iter_"))
    )
    snapshots = [NumpyPolicyAgent(NumpyPolicy.load(p)) for p in paths[-MAX_SNAPSHOTS:]]
    if not snapshots or not baselines:
        return [*baselines, *snapshots], [1.0] * (len(baselines) + len(snapshots))
    weights = [baseline_share / len(baselines)] * len(baselines)
    weights += [(1.0 - baseline_share) / len(snapshots)] * len(snapshots)
    return [*baselines, *snapshots], weights


def _resume(
    algo: Algorithm, checkpoint: Path, meta: Mapping[str, Any], log: Callable[[str], None]
) -> int:
    """Restore ``algo`` from ``checkpoint`` (weights, optimiser, counters); the env steps
    done so far. No checkpoint yet: a fresh start. Another env or policy layout: refused."""
    if not checkpoint.is_dir():
        log(f"no checkpoint at {checkpoint}: starting a new run")
        return 0
    saved = read_checkpoint_meta(checkpoint)
    for key, value in meta.items():
        if saved.get(key) != value:
            raise InvalidConfigError(
                f"cannot resume {checkpoint}: it has {key}={saved.get(key)!r}, not {value!r}"
            )
    algo.restore_from_path(checkpoint.resolve())
    log(f"resumed from {checkpoint} at iteration {algo.iteration}")
    return int(saved.get("env_steps", 0))


def _progress_row(result: Mapping[str, Any], done: int, seconds: float) -> dict[str, Any]:
    runners = result.get("env_runners", {})
    sampled = runners.get("num_env_steps_sampled", 0)
    return {
        "iteration": int(result.get("training_iteration", 0)),
        "env_steps": done,
        "seconds": seconds,
        "steps_per_s": float(sampled) / seconds if seconds > 0 else 0.0,
        "episode_len_mean": runners.get("episode_len_mean"),
        "steps_by_node": dict(runners.get(STEPS_BY_NODE, {})),
        "time": time.time(),
    }


def _export_and_evaluate(
    algo: Algorithm,
    out: Path,
    env: str,
    env_config: Mapping[str, Any] | None,
    policies: str,
    done: int,
    eval_games: int,
    seed: int,
) -> dict[str, Any]:
    """Export every policy and evaluate it against random with ``cardarena`` tooling."""
    summary: dict[str, Any] = {"env": env, "env_steps": done, "policies": {}}
    for pid in policy_ids(env, env_config, policies):
        path = out / f"policy_{pid}.npz"
        export_rllib_policy(algo, pid, path, provenance={"step": done})
        row: dict[str, Any] = {"policy": pid, "path": str(path), "env_steps": done}
        if eval_games > 0:
            result = evaluate_export(path, env, env_config, eval_games, seed + 1_000_000)
            low, high = wilson_interval(result.wins, result.games)
            row.update(
                win_rate_random=result.win_rate, wilson_95=[low, high], summary=result.summary()
            )
        append_jsonl(out / "final_eval.jsonl", [row])
        summary["policies"][pid] = row
    return summary


def evaluate_export(
    path: str | Path,
    env: str,
    env_config: Mapping[str, Any] | None = None,
    games: int = 400,
    seed: int = 0,
    opponent: str = "random",
) -> MatchResult:
    """An exported policy (``pretrained:path=...``) against ``opponent``, seats rotating."""
    from cardarena.agents import PretrainedAgent

    agent = PretrainedAgent(path=str(path))
    return evaluate(lambda: make(env, **dict(env_config or {})), agent, opponent, games, seed)


def train_from_args(args: Any) -> dict[str, Any]:
    """``cardarena train ENV --backend rllib``: the ``cardarena train`` flags that apply.

    ``--opponent`` specs play half the games (one learning seat against them, the rest is
    self-play); ``--selfplay`` adds a snapshot every ``--snapshot-every`` steps to that pool
    (baselines random and heuristic unless ``--opponent`` names others).
    """
    num_players = getattr(args, "num_players", None)
    selfplay = bool(getattr(args, "selfplay", False))
    opponents = list(getattr(args, "opponent", None) or [])
    if selfplay and not opponents:
        opponents = ["random", "heuristic"]
    batch = RLlibSettings().train_batch_size
    return train_rllib(
        env=args.env,
        steps=int(args.steps),
        out=args.out or Path("runs") / f"{args.env}_rllib",
        num_env_runners=int(getattr(args, "num_env_runners", 1)),
        address=getattr(args, "address", None),
        resume=bool(getattr(args, "resume", False)),
        seed=int(getattr(args, "seed", 0)),
        env_config={} if num_players is None else {"num_players": num_players},
        opponents=opponents,
        opponent_share=0.5 if opponents else 0.0,
        baseline_share=float(getattr(args, "baseline_share", 0.5)),
        eval_games=int(getattr(args, "final_eval_games", 400)),
        snapshot_every=max(1, int(getattr(args, "snapshot_every", batch)) // batch)
        if selfplay
        else 0,
    )


__all__ = [
    "SHARED",
    "STEPS_BY_NODE",
    "CardArenaMultiAgentEnv",
    "MaskedPPOTorchRLModule",
    "NodeStepsCallback",
    "RLlibSettings",
    "build_ppo_config",
    "check_rllib_export",
    "env_steps",
    "evaluate_export",
    "export_rllib_policy",
    "league_pool",
    "load_module",
    "module_greedy_actions",
    "numpy_layers",
    "policy_ids",
    "read_checkpoint_meta",
    "set_opponent_pool",
    "train_from_args",
    "train_rllib",
]
