"""A trained policy network as plain numpy: the format of the shipped ``pretrained`` agents.

An SB3 ``MaskablePPO`` ``MlpPolicy`` acts through three parts: the observation (scaled by
``ObservationScaler``), the policy MLP (``Linear`` + activation per hidden
layer) and the action head (``Linear`` to one logit per action). Acting greedily means the
argmax of the logits over legal actions. That is a few matrix products, so a policy exported
from a checkpoint (``cardarena export``) plays with numpy alone: no torch, no SB3, and a file
of the policy weights only (no optimiser state), a few hundred KB. ``cardarena export --value``
adds the value network (its own MLP, then a head of one output), which a search reads as its
estimate of a position's return (``ismcts:leaf=value``).

File format (``.npz``, read with ``allow_pickle=False``):

- ``meta``: a JSON string: ``format``, ``env`` (id with version), ``config``,
  ``observation_shape``, ``actions``, ``activation`` (``tanh`` or ``relu``), optional
  ``observation_bounds`` (``bounds_digest`` of the Box it was trained on; without it only the
  ``[0, 1]`` scaler, whose arrays are the bounds themselves, is accepted), optional
  ``samples`` (true: the agent plays by sampling from the policy, as it was trained to with
  ``cardarena train --sample``; absent or false: its most likely action) and free-form
  provenance (training step, the command that trained it, package version).
- ``weight_<i>``, ``bias_<i>``: the layers in order, the last one the action head;
  ``weight_<i>`` has shape ``(outputs, inputs)`` as in torch.
- ``scale_offset``, ``scale_factor``: the ``ObservationScaler`` used in training, checked
  against the env's own at load time (an env whose observation bounds changed is refused).
- optional ``value_weight_<i>``, ``value_bias_<i>``: the value network in the same form, on
  the same scaled observation, its last layer of one output (the seat's expected return).

Policies are exchanged, so ``load`` trusts nothing in the file (``cardarena.agents.safe_npz``
reads it: headers checked before any array is decompressed, no pickle): at most
``MAX_POLICY_FILE_BYTES`` (256 MiB; the shipped ones are 0.1 to 2.3 MB), ``MAX_LAYERS``
layers (16), each array at most ``MAX_POLICY_ARRAY_BYTES`` (128 MiB) and all together
``MAX_POLICY_TOTAL_BYTES`` (256 MiB); ``meta`` a single string of at most
``MAX_META_CHARS`` characters (4 Mi) holding a JSON object (``untrusted.parse_json`` limits);
every other array a float array of the right rank whose values are all finite (a NaN weight
is refused here, not found as an "all-zero action_mask" in the middle of a tournament).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from cardarena.envs.core import InvalidConfigError, ObservationScaler, matching_scaler
from cardarena.envs.core.untrusted import parse_json, show

from .base import BaseAgent, Observation, legal_actions
from .safe_npz import load_npz

FORMAT = 1
#: Limits of ``NumpyPolicy.load`` (module docstring).
MAX_POLICY_FILE_BYTES = 256 * 1024 * 1024
MAX_POLICY_ARRAY_BYTES = 128 * 1024 * 1024
MAX_POLICY_TOTAL_BYTES = 256 * 1024 * 1024
MAX_LAYERS = 16
MAX_META_CHARS = 4 * 1024 * 1024
ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0.0),
}


class NumpyPolicy:
    """Masked greedy (or sampled) actions from an exported MLP policy."""

    def __init__(
        self,
        layers: list[tuple[np.ndarray, np.ndarray]],
        activation: str,
        scaler_offset: np.ndarray,
        scaler_factor: np.ndarray,
        meta: Mapping[str, Any],
        value_layers: list[tuple[np.ndarray, np.ndarray]] | None = None,
    ) -> None:
        if activation not in ACTIVATIONS:
            raise InvalidConfigError(
                f"unknown activation {activation!r}; supported: {sorted(ACTIVATIONS)}"
            )
        if not layers:
            raise InvalidConfigError("a policy needs at least the action layer")
        self.offset = _finite(scaler_offset, "scale_offset")
        self.factor = _finite(scaler_factor, "scale_factor")
        if self.offset.ndim != 1 or self.factor.shape != self.offset.shape:
            raise InvalidConfigError(
                f"scale_offset {self.offset.shape} and scale_factor {self.factor.shape} must "
                "be vectors of one length (one entry per observation value)"
            )
        self.layers = _chained(layers, int(self.offset.size), "")
        #: The value network's layers, or None when the file has none.
        self.value_layers = None
        if value_layers is not None:
            self.value_layers = _chained(value_layers, int(self.offset.size), "value_")
            if self.value_layers[-1][0].shape[0] != 1:
                raise InvalidConfigError(
                    f"the value network's last layer has {self.value_layers[-1][0].shape[0]} "
                    "outputs; it must have 1 (the expected return)"
                )
        self.activation = activation
        self._activate = ACTIVATIONS[activation]
        self.meta = dict(meta)

    @property
    def actions(self) -> int:
        return int(self.layers[-1][0].shape[0])

    @property
    def samples(self) -> bool:
        """Whether the agent plays by sampling from this policy (meta ``samples``), which is
        how an agent spec naming the file plays unless given ``deterministic=...``."""
        return self.meta.get("samples") is True

    def logits(self, observation: np.ndarray) -> np.ndarray:
        """Action logits for one raw (unscaled) observation vector."""
        return self._forward(self.layers, observation)

    @property
    def has_value(self) -> bool:
        return self.value_layers is not None

    def value(self, observation: np.ndarray) -> float:
        """The value network's estimate of the observing seat's return, for one raw
        observation vector; ``ValueError`` when the file carries no value network."""
        if self.value_layers is None:
            raise ValueError(
                "this policy has no value network (export it with cardarena export --value)"
            )
        return float(self._forward(self.value_layers, observation)[0])

    def _forward(
        self, layers: list[tuple[np.ndarray, np.ndarray]], observation: np.ndarray
    ) -> np.ndarray:
        x = (np.asarray(observation, np.float32) - self.offset) * self.factor
        for weight, bias in layers[:-1]:
            x = self._activate(weight @ x + bias)
        weight, bias = layers[-1]
        return weight @ x + bias

    def act(
        self,
        observation: np.ndarray,
        action_mask: np.ndarray,
        rng: np.random.Generator | None = None,
    ) -> int:
        """The best legal action, or one sampled from the masked softmax when ``rng`` is given."""
        if rng is None:
            return int(np.argmax(self._masked_logits(observation, action_mask)))
        probabilities = self.probabilities(observation, action_mask)
        return int(rng.choice(probabilities.size, p=probabilities))

    def probabilities(
        self, observation: np.ndarray, action_mask: np.ndarray, greedy: bool = False
    ) -> np.ndarray:
        """What ``act`` plays, as probabilities over the actions (float64): the masked softmax
        it samples from, or with ``greedy`` the one-hot of the action it picks without ``rng``."""
        logits = self._masked_logits(observation, action_mask).astype(np.float64)
        if greedy:
            return np.eye(logits.size)[int(np.argmax(logits))]
        weights = np.exp(logits - logits.max())
        return weights / weights.sum()

    def _masked_logits(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        logits = np.where(np.asarray(action_mask, bool), self.logits(observation), -np.inf)
        if not np.isfinite(logits).any():
            raise ValueError("no legal action in this observation (all-zero action_mask)")
        return logits

    def check_env(self, observation_box: Any, actions: int, env_name: str) -> None:
        """Refuse an env this policy was not trained for, saying what differs."""
        scaler = ObservationScaler(observation_box)
        if self.meta.get("env") != env_name:
            raise InvalidConfigError(
                f"this policy was trained for {self.meta.get('env')!r}, not {env_name!r}"
            )
        if scaler.offset.shape != self.offset.shape or actions != self.actions:
            raise InvalidConfigError(
                f"policy for observations {self.offset.shape} and {self.actions} actions, but "
                f"{env_name} has {scaler.offset.shape} and {actions}"
            )
        bounds = self.meta.get("observation_bounds")
        if matching_scaler(observation_box, self.offset, self.factor, bounds) is None:
            raise InvalidConfigError(
                f"{env_name}'s observation bounds differ from the ones this policy was trained "
                "with (the env changed since the export); retrain or re-export"
            )

    # --- files ---------------------------------------------------------------------------
    def save(self, path: str | Path) -> Path:
        """Write the ``.npz`` (compressed) described in the module docstring."""
        path = Path(path)
        meta = {**self.meta, "format": FORMAT, "activation": self.activation}
        arrays: dict[str, np.ndarray] = {
            "meta": np.array(json.dumps(meta, sort_keys=True)),
            "scale_offset": self.offset,
            "scale_factor": self.factor,
        }
        for prefix, layers in (("", self.layers), ("value_", self.value_layers or [])):
            for index, (weight, bias) in enumerate(layers):
                arrays[f"{prefix}weight_{index}"] = weight
                arrays[f"{prefix}bias_{index}"] = bias
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(path.name + ".partial.npz")
        np.savez_compressed(temporary, **arrays)  # type: ignore[arg-type]
        temporary.replace(path)
        return path

    @classmethod
    def load(cls, path: str | Path) -> NumpyPolicy:
        """Read an exported policy; a missing, corrupt, foreign or oversized file raises
        ``InvalidConfigError`` naming the file and the problem (limits: module docstring)."""
        path = Path(path)
        if not path.is_file():
            raise InvalidConfigError(f"no exported policy at {str(path)!r}")
        what = f"exported policy {str(path)!r}"
        arrays = load_npz(
            path,
            what,
            max_file_bytes=MAX_POLICY_FILE_BYTES,
            max_entries=3 + 4 * MAX_LAYERS,
            max_array_bytes=MAX_POLICY_ARRAY_BYTES,
            max_total_bytes=MAX_POLICY_TOTAL_BYTES,
            allowed_dtypes=("f",),
            text_entries={"meta": MAX_META_CHARS},
            max_ndim=2,
        )
        missing = [name for name in ("meta", "scale_offset", "scale_factor") if name not in arrays]
        if missing:
            raise InvalidConfigError(
                f"{what} is not an exported cardarena policy (no {', '.join(missing)})"
            )
        meta_array = arrays.pop("meta")
        if meta_array.dtype.kind != "U":
            raise InvalidConfigError(f"{what}: 'meta' must be a JSON string, not numbers")
        meta = parse_json(str(meta_array[()]), f"{what}: meta")
        if not isinstance(meta, dict):
            raise InvalidConfigError(
                f"{what}: meta must be a JSON object, got a {type(meta).__name__} {show(meta)}"
            )
        if meta.get("format") != FORMAT:
            raise InvalidConfigError(
                f"{what} has policy format {show(meta.get('format'))}; this cardarena "
                f"reads format {FORMAT}"
            )
        activation = meta.get("activation")
        if not isinstance(activation, str) or activation not in ACTIVATIONS:
            raise InvalidConfigError(
                f"{what}: meta 'activation' is {show(activation)}; supported: "
                f"{', '.join(sorted(ACTIVATIONS))}"
            )
        if not isinstance(meta.get("observation_bounds", ""), str):
            raise InvalidConfigError(
                f"{what}: meta 'observation_bounds' is {show(meta['observation_bounds'])}; it "
                "must be a string (the bounds_digest of the env's observation Box)"
            )
        if not isinstance(meta.get("samples", False), bool):
            raise InvalidConfigError(
                f"{what}: meta 'samples' is {show(meta['samples'])}; it must be true or false"
            )
        offset, factor = arrays.pop("scale_offset"), arrays.pop("scale_factor")
        layers = _layer_arrays(arrays, "", what)
        value = _layer_arrays(arrays, "value_", what) if "value_weight_0" in arrays else None
        try:
            return cls(layers, activation, offset, factor, meta, value)
        except InvalidConfigError as error:
            raise InvalidConfigError(f"{what}: {error}") from None


def _layer_arrays(
    arrays: Mapping[str, np.ndarray], prefix: str, what: str
) -> list[tuple[np.ndarray, np.ndarray]]:
    """The ``{prefix}weight_<i>``, ``{prefix}bias_<i>`` pairs of a file, refused unless every
    index from 0 has both."""
    weights = {
        k.removeprefix(f"{prefix}weight_") for k in arrays if k.startswith(f"{prefix}weight_")
    }
    biases = {k.removeprefix(f"{prefix}bias_") for k in arrays if k.startswith(f"{prefix}bias_")}
    expected = {str(index) for index in range(max(len(weights), len(biases)))}
    if not weights or weights != expected or biases != expected:
        missing = sorted(
            [f"{prefix}weight_{i}" for i in expected - weights]
            + [f"{prefix}bias_{i}" for i in expected - biases]
        )
        raise InvalidConfigError(
            f"{what}: layer arrays incomplete (missing {', '.join(missing) or 'all'})"
        )
    return [
        (arrays[f"{prefix}weight_{i}"], arrays[f"{prefix}bias_{i}"]) for i in range(len(expected))
    ]


def _chained(
    layers: list[tuple[np.ndarray, np.ndarray]], inputs: int, prefix: str
) -> list[tuple[np.ndarray, np.ndarray]]:
    """``layers`` as finite float32 arrays, refused unless each one's inputs are the previous
    one's outputs (the first's the observation size)."""
    if not layers:
        which = "value" if prefix else "policy"
        raise InvalidConfigError(f"the {which} network needs at least its last layer")
    chained = []
    for index, (weight, bias) in enumerate(layers):
        weight = _finite(weight, f"{prefix}weight_{index}")
        bias = _finite(bias, f"{prefix}bias_{index}")
        if weight.ndim != 2 or bias.shape != (weight.shape[0],) or weight.shape[1] != inputs:
            raise InvalidConfigError(
                f"{prefix}layer {index}: weight {weight.shape} and bias {bias.shape} do not "
                f"chain onto {inputs} inputs"
            )
        inputs = weight.shape[0]
        chained.append((np.ascontiguousarray(weight), bias))
    return chained


def _finite(values: Any, name: str) -> np.ndarray:
    """``values`` as float32, refused unless it is a float array of finite numbers (also
    after the cast: a float64 weight of 1e300 would become inf)."""
    array = np.asarray(values)
    if array.dtype.kind != "f":
        raise InvalidConfigError(f"{name} must be a float array, got dtype {array.dtype}")
    with np.errstate(over="ignore"):  # an overflow to inf is reported below
        array = array.astype(np.float32, copy=False)
    if not np.isfinite(array).all():
        bad = int(array.size - np.count_nonzero(np.isfinite(array)))
        raise InvalidConfigError(
            f"{name} holds {bad:,} non-finite value(s) (NaN or infinity; as float32); a "
            "policy's weights, biases and scaler must all be finite"
        )
    return array


class NumpyPolicyAgent(BaseAgent):
    """An ``Agent`` acting with a ``NumpyPolicy``: greedy, or sampled from the masked softmax
    with the agent's own seeded generator when ``deterministic=False``; ``None`` (the default)
    plays as the policy's file says (``NumpyPolicy.samples``)."""

    def __init__(
        self,
        policy: NumpyPolicy | None = None,
        seed: int | None = None,
        deterministic: bool | None = None,
    ) -> None:
        super().__init__(seed)
        self.policy = policy
        #: What the agent was told (None: as the policy's file says).
        self.asked_deterministic = deterministic

    def greedy_with(self, policy: NumpyPolicy) -> bool:
        """Whether this agent takes ``policy``'s most likely action (else it samples)."""
        if self.asked_deterministic is not None:
            return self.asked_deterministic
        return not policy.samples

    @property
    def deterministic(self) -> bool:
        """Whether it plays greedily with its policy (before it has one: as told, else True)."""
        if self.policy is None:
            return self.asked_deterministic is not False
        return self.greedy_with(self.policy)

    def probabilities(self, observation: Observation) -> np.ndarray:
        """What ``act`` plays from this observation, as probabilities over the actions: the
        one-hot of the greedy action, or the masked softmax it samples from with
        ``deterministic=False``. The agent keeps no memory between decisions, so this is its
        whole behaviour (``cardarena.openspiel.exact`` reads it)."""
        if self.policy is None:
            raise RuntimeError(f"{self!r}: call start_game(seat, env_spec) before probabilities()")
        legal_actions(observation)
        return self.policy.probabilities(
            observation["observation"], observation["action_mask"], greedy=self.deterministic
        )

    def act(self, observation: Observation) -> int:
        if self.policy is None:
            raise RuntimeError(f"{self!r}: call start_game(seat, env_spec) before act()")
        legal_actions(observation)
        return self.policy.act(
            observation["observation"],
            observation["action_mask"],
            None if self.deterministic else self.rng,
        )


def from_sb3_policy(policy: Any, scaler: ObservationScaler, meta: Mapping[str, Any]) -> NumpyPolicy:
    """The acting half of an SB3 ``MaskableActorCriticPolicy`` (``model.policy``) as numpy.

    Supports the ``MlpPolicy`` shape: a flatten features extractor, ``mlp_extractor.policy_net``
    made of ``Linear`` and ``Tanh``/``ReLU`` modules, and the ``action_net`` head.
    """
    import torch.nn as nn

    layers: list[tuple[np.ndarray, np.ndarray]] = []
    activation: str | None = None
    for module in policy.mlp_extractor.policy_net:
        if isinstance(module, nn.Linear):
            layers.append(_linear(module))
        elif isinstance(module, nn.Tanh | nn.ReLU):
            kind = "tanh" if isinstance(module, nn.Tanh) else "relu"
            if activation not in (None, kind):
                raise InvalidConfigError("mixed activations cannot be exported")
            activation = kind
        else:
            raise InvalidConfigError(f"cannot export a policy layer {type(module).__name__}")
    if not isinstance(policy.features_extractor, _flatten_extractor()):
        raise InvalidConfigError(
            f"cannot export features extractor {type(policy.features_extractor).__name__} "
            "(only MlpPolicy's FlattenExtractor)"
        )
    layers.append(_linear(policy.action_net))
    return NumpyPolicy(layers, activation or "tanh", scaler.offset, scaler.scale, meta)


def _linear(module: Any) -> tuple[np.ndarray, np.ndarray]:
    return (
        module.weight.detach().cpu().numpy().astype(np.float32),
        module.bias.detach().cpu().numpy().astype(np.float32),
    )


def _flatten_extractor() -> type:
    from stable_baselines3.common.torch_layers import FlattenExtractor

    return FlattenExtractor


__all__ = ["FORMAT", "NumpyPolicy", "NumpyPolicyAgent", "from_sb3_policy"]
