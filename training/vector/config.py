"""The vector learner's settings (``PPOConfig``) and the precision its network runs in.

``cardarena train ENV --backend vector`` builds a ``PPOConfig`` from its flags
(``training.vector.run.ppo_config``); each field is a flag, documented there.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The ``precision`` choices.
PRECISIONS = ("bfloat16", "float32")


def default_precision() -> str:
    """``bfloat16`` where the CPU multiplies bfloat16 matrices natively (AMX, AVX-512 BF16),
    else ``float32`` (emulated bfloat16 would be slower than float32)."""
    try:
        with open("/proc/cpuinfo") as handle:
            flags = handle.read(1 << 16)
    except OSError:
        return "float32"
    return "bfloat16" if ("amx_bf16" in flags or "avx512_bf16" in flags) else "float32"


@dataclass(frozen=True)
class PPOConfig:
    """The hyper-parameters (each is a ``cardarena train`` flag, documented there)."""

    num_envs: int = 1024
    rollout_steps: int = 32
    minibatch_size: int = 8192
    n_epochs: int = 5
    learning_rate: float = 3e-4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    net_arch: tuple[int, ...] = (128, 128)
    precision: str = "float32"
    kl_coef: float = 0.0
    magnet: str = "uniform"
    magnet_every: int = 10
    magnet_rate: float = 0.05

    @property
    def rollout_size(self) -> int:
        return self.num_envs * self.rollout_steps


__all__ = ["PRECISIONS", "PPOConfig", "default_precision"]
