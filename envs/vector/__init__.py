"""Vector engines: many games of one env advanced per numpy/numba call.

``make_vec(name, num_envs, seed, **config)`` gives a ``BatchEnv`` whose ``reset``/``step``
return a ``Batch`` of rows (observation and mask for the seat to act, rewards, terminated,
truncated). Each game's vector rules live beside its reference rules
(``envs/<game>/vector.py``) and are checked against them transition by transition in the tests.
"""

from typing import TYPE_CHECKING

from ..core.kernels import random_legal_actions
from ..core.moved import deprecate
from .front import Batch, BatchEnv, has_vector, make_vec, vector_rules_class
from .rules import VectorRules

if not TYPE_CHECKING:
    # The old names, from before "vector" replaced "batched" (cardarena.envs.core.moved).
    __getattr__ = deprecate(
        __name__,
        names={
            "BatchedRules": "VectorRules",
            "batched_rules_class": "vector_rules_class",
            "has_batched": "has_vector",
        },
    )

__all__ = [
    "Batch",
    "BatchEnv",
    "VectorRules",
    "has_vector",
    "make_vec",
    "random_legal_actions",
    "vector_rules_class",
]
