"""The values every front is tried with at its bounds (the ``test_*_edges.py`` files), and
the one rule they are judged by (tests/core/test_input_edges.py states it).

``intended_index`` is written here from the rule, not imported from the package, so a front
that drifts from the rule fails against it.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
from hypothesis import strategies as st

#: Numpy integer types an integer action may come as (each played like the Python int).
INT_TYPES = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)
#: Numpy float and bool types (refused, whatever the value).
OTHER_NUMPY_TYPES = (np.float16, np.float32, np.float64, np.bool_)


def intended_index(value: Any) -> int | None:
    """The integer ``value`` stands for under the rule, or None if it is not an integer at
    all: Python ints (not bools), numpy integers, 0-d and one-element integer arrays."""
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, np.ndarray) and value.dtype.kind in "iu" and value.size == 1:
        return int(value.reshape(-1)[0])
    return None


def is_playable(value: Any, mask: np.ndarray) -> bool:
    """Whether the rule plays ``value`` for a player whose legal mask is ``mask``."""
    index = intended_index(value)
    return index is not None and 0 <= index < len(mask) and bool(mask[index])


def bound_integers(num_actions: int, legal: Sequence[int]) -> list[int]:
    """Every bound of ``Discrete(num_actions)`` and of the machine integers, and the legal
    actions themselves."""
    n = num_actions
    return sorted(
        {-(2**64), -(2**63), -1, 0, 1, n - 1, n, n + 1, 2**31, 2**63 - 1, 2**63, 2**64 - 1}
        | {2**64, 10**40, *legal}
    )


def _numpy_integers(values: Sequence[int]) -> st.SearchStrategy[Any]:
    """``values`` as each numpy integer type that can hold them."""

    def fits(kind: type) -> list[Any]:
        info = np.iinfo(kind)
        return [kind(v) for v in values if info.min <= v <= info.max]

    return st.sampled_from([v for kind in INT_TYPES for v in fits(kind)])


def _numpy_value(kind: type, value: float) -> Any:
    with np.errstate(over="ignore"):  # a large value as float16 is inf: still a float
        return kind(value)


def action_values(num_actions: int, legal: Sequence[int]) -> st.SearchStrategy[Any]:
    """Anything a caller might pass as one action: integers at every bound and at random,
    each legal action as a Python int, as every numpy integer type and as integer arrays,
    floats (whole ones too, and nan), bools, numpy floats and bools, strings, None,
    containers and other number types."""
    bounds = bound_integers(num_actions, legal)
    integers = st.one_of(
        st.sampled_from(bounds),
        st.sampled_from(list(legal)),
        st.integers(-3, num_actions + 3),
        st.integers(-(2**70), 2**70),
    )
    floats = st.one_of(
        st.sampled_from([1.0, 0.5, -0.0, math.nan, math.inf, -math.inf, float(num_actions)]),
        st.sampled_from([float(a) for a in legal]),
        st.floats(allow_nan=True, allow_infinity=True),
    )
    numpy_others = st.builds(
        _numpy_value,
        st.sampled_from(OTHER_NUMPY_TYPES),
        st.sampled_from([0, 1, *legal, num_actions, 0.5]),
    )
    arrays = st.one_of(
        st.sampled_from(list(legal)).map(np.array),  # 0-d, int64
        st.sampled_from(list(legal)).map(lambda a: np.array([a], np.uint64)),
        st.sampled_from([num_actions, -1]).map(np.array),
        st.sampled_from(list(legal)).map(lambda a: np.array([a, a])),
        st.sampled_from(list(legal)).map(lambda a: np.array(float(a))),
        st.just(np.array(True)),
        st.just(np.array([], np.int64)),
    )
    texts = st.one_of(
        st.sampled_from(["0", "1", "", "1.0", "nan", "True", str(num_actions)]),
        st.sampled_from([str(a) for a in legal]),
        st.text(max_size=4),
    )
    others = st.sampled_from(
        [None, True, False, [0], (0,), {0: 0}, b"0", 1j, Decimal(1), Fraction(1), object()]
    )
    return st.one_of(
        integers,
        _numpy_integers(bounds),
        st.sampled_from(list(legal)).flatmap(lambda a: _numpy_integers([a])),
        floats,
        numpy_others,
        arrays,
        texts,
        others,
    )


def assert_same(before: Any, after: Any, where: str = "") -> None:
    """Equal down to arrays (bit for bit, dtype included), dicts, lists and scalars."""
    if isinstance(before, np.ndarray):
        assert isinstance(after, np.ndarray) and before.dtype == after.dtype, where
        assert np.array_equal(before, after, equal_nan=before.dtype.kind == "f"), where
    elif isinstance(before, dict):
        assert isinstance(after, dict) and before.keys() == after.keys(), where
        for key in before:
            assert_same(before[key], after[key], f"{where}[{key!r}]")
    elif isinstance(before, (list, tuple)):
        assert type(before) is type(after) and len(before) == len(after), where
        for index, (a, b) in enumerate(zip(before, after, strict=True)):
            assert_same(a, b, f"{where}[{index}]")
    else:
        assert before == after or (before != before and after != after), (where, before, after)


def aec_snapshot(env: Any) -> dict[str, Any]:
    """Everything a client can read of an AEC env (raw or wrapped), copied."""
    return copy.deepcopy(
        {
            "agents": list(env.agents),
            "agent_selection": env.agent_selection,
            "rewards": dict(env.rewards),
            "cumulative": dict(env._cumulative_rewards),
            "terminations": dict(env.terminations),
            "truncations": dict(env.truncations),
            "infos": env.infos,
            "observations": {agent: env.observe(agent) for agent in env.possible_agents},
            "state": env.state(),
            "steps": env.unwrapped.num_steps,
        }
    )
