"""Batched engines: many games of one env advanced per numpy/numba call.

``make_vec(name, num_envs, seed, **config)`` gives a ``BatchEnv`` whose ``reset``/``step``
return a ``Batch`` of rows (observation and mask for the seat to act, rewards, terminated,
truncated). Each game's batched rules live beside its reference rules
(``envs/<game>/batched.py``) and are checked against them transition by transition in the tests.
"""

from ..core.kernels import random_legal_actions
from .front import Batch, BatchEnv, batched_rules_class, has_batched, make_vec
from .rules import BatchedRules

__all__ = [
    "Batch",
    "BatchEnv",
    "BatchedRules",
    "batched_rules_class",
    "has_batched",
    "make_vec",
    "random_legal_actions",
]
