"""Agent specs against the rule of tests/core/test_input_edges.py, for configuration: an option
value (``make_agent("ismcts:iterations=5")``) and a seed (``make_agent(spec, seed=...)``) are
taken when they are what the agent documents (a seed: None or a non-negative Python or numpy
integer, played exactly as the Python int; options: the documented type and range) and
refused with ``InvalidConfigError`` otherwise, never with another exception."""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import pytest
from edge_values import INT_TYPES, action_values
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import cardarena.training  # noqa: F401  (registers every agent spec)
from cardarena.agents import AGENT_SPECS, EnvSpec, choose, make_agent, parse_spec, start_game
from cardarena.agents.habits import HABITS, plans
from cardarena.agents.heuristics.cardline import NoisyAgent
from cardarena.agents.ismcts import MAX_EXPLORATION, MAX_ITERATIONS
from cardarena.envs import make_raw
from cardarena.envs.core import InvalidConfigError

#: Every spec, buildable as it stands (``habit`` needs its plan).
SPECS = sorted(spec if spec != "habit" else "habit:plan=highest" for spec in AGENT_SPECS)
#: Specs whose agents play the default Promise War (the seed check plays a few decisions).
PLAYERS = ("random", "heuristic", "ismcts:iterations=3", "pretrained:deterministic=false")


def seed_is_taken(seed: Any) -> bool:
    """The documented seed: None, or a non-negative integer (numpy's too), never a bool."""
    if seed is None:
        return True
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        return False
    return int(seed) >= 0


def decisions(agent: Any, seed: int = 5, moves: int = 12) -> list[int]:
    """The agent's choices in every seat of one seeded Promise War game."""
    env = make_raw("promise_war_v0")
    spec = EnvSpec("promise_war_v0", {})
    env.reset(seed=seed)
    chosen = []
    for _ in range(moves):
        seat = env.agent_selection
        start_game(agent, seat, spec)
        action = choose(agent, env.observe(seat), env, seat)
        chosen.append(action)
        env.step(action)
        if not env.agents or env.terminations[env.agent_selection]:
            break
    return chosen


def check_seed(spec: str, seed: Any) -> str:
    if not seed_is_taken(seed):
        with pytest.raises(InvalidConfigError, match="seed"):
            make_agent(spec, seed=seed)
        return "refused"
    agent = make_agent(spec, seed=seed)
    if spec in PLAYERS and seed is not None:
        assert decisions(agent) == decisions(make_agent(spec, seed=int(seed))), seed
    return "taken"


@pytest.mark.parametrize("spec", [*SPECS, *PLAYERS])
def test_every_seed_bound(spec):
    values: list[Any] = [None, -1, 0, 1, 2**31, 2**63, 2**64, 10**40, *map(np.int64, (0, 7))]
    values += [kind(7) for kind in INT_TYPES] + [np.int8(-1), np.int64(-(2**63))]
    values += [1.0, 0.5, math.nan, np.float32(7), True, False, np.bool_(True), "7", [7]]
    values += [np.array(7)]
    for seed in values:
        check_seed(spec, seed)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spec=st.sampled_from([*SPECS, *PLAYERS]), seed=action_values(2**32, [0, 3, 2**31]))
def test_any_seed_is_taken_as_its_int_or_refused(spec, seed):
    event(check_seed(spec, seed))


# --- option values: the documented type and range ------------------------------------------
_INTEGER = re.compile(r"[+-]?[0-9]{1,40}")


def parsed(text: str) -> Any:
    """What the module docstring says a value's text means: bool, int, finite float, or the
    text itself (None where the text itself is refused: nan, inf, over 40 digits)."""
    stripped = text.strip()
    if stripped.lower() in ("true", "false"):
        return stripped.lower() == "true"
    if _INTEGER.fullmatch(stripped):
        return int(stripped)
    if re.fullmatch(r"[+-]?[0-9]{41,}", stripped):
        return None
    try:
        value = float(stripped)
    except ValueError:
        return stripped
    if "_" in stripped or not re.fullmatch(r"[0-9eE.+-]+", stripped):
        return None if stripped.lower().lstrip("+-") in ("nan", "inf", "infinity") else stripped
    return value if math.isfinite(value) else None


def _number(value: Any, low: float, high: float) -> bool:
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        and low <= value <= high
    )


#: option -> (spec name, attribute, whether a parsed value is taken)
OPTIONS = {
    "iterations": ("ismcts", "iterations",
                   lambda v: type(v) is int and 1 <= v <= MAX_ITERATIONS),
    "c": ("ismcts", "c", lambda v: _number(v, 0, MAX_EXPLORATION)),
    "nodes": ("ismcts", "nodes", lambda v: v in ("observations", "actions")),
    "sigma": ("noisy", "sigma", lambda v: _number(v, 0, NoisyAgent.MAX_SIGMA)),
    "deterministic": ("pretrained", "deterministic", lambda v: isinstance(v, bool)),
    "plan": ("habit", "plan", lambda v: any(v in plans(env) for env in HABITS)),
}  # fmt: skip


def check_option(option: str, text: str) -> str:
    name, attribute, taken = OPTIONS[option]
    spec = f"{name}:{option}={text}"
    value = parsed(text)
    if value is None or value == "" or not taken(value):
        with pytest.raises(InvalidConfigError):
            make_agent(spec)
        return "refused"
    agent = make_agent(spec)
    assert getattr(agent, attribute) == value and parse_spec(spec)[1] == {option: value}
    return "taken"


def option_texts(option: str) -> st.SearchStrategy[str]:
    top = {"iterations": MAX_ITERATIONS, "c": MAX_EXPLORATION, "sigma": NoisyAgent.MAX_SIGMA}
    bound = top.get(option, 1)
    numbers = [-1, 0, 1, bound, bound + 1, 2**63, 10**40, 10**41, -(2**63)]
    values = st.one_of(
        st.sampled_from([str(v) for v in numbers] + [f"{float(v)!r}" for v in numbers]),
        st.sampled_from(["1.0", "0.5", "nan", "inf", "-inf", "1e400", "true", "false", "TRUE"]),
        st.sampled_from(["", " 5", "+5", "-0", "0x10", "1_000", "observations", "actions"]),
        st.integers(-(2**70), 2**70).map(str),
        st.floats(allow_nan=True).map(repr),
        st.text(max_size=6),
    )
    return values.filter(lambda text: "," not in text and "=" not in text)  # the spec's syntax


@pytest.mark.parametrize("option", sorted(OPTIONS))
def test_every_option_bound(option):
    top = {"iterations": MAX_ITERATIONS, "c": MAX_EXPLORATION, "sigma": NoisyAgent.MAX_SIGMA}
    bound = top.get(option, 1)
    for value in (-1, 0, 1, bound, bound + 1, 2**63, 10**40, 10**41, 1.0, 0.5):
        check_option(option, str(value))
    for text in ("nan", "inf", "true", "false", "", "abc", "observations", "actions", "1e400"):
        check_option(option, text)
    for text in ("highest", "rush", "turtle"):  # plans of the habit zoo
        check_option(option, text)


@settings(max_examples=300, deadline=None)
@given(option=st.sampled_from(sorted(OPTIONS)), data=st.data())
def test_any_option_value_is_taken_or_refused(option, data):
    event(check_option(option, data.draw(option_texts(option), label="text")))


@pytest.mark.parametrize(
    "spec",
    ["ismcts:iterations=5,iterations=6", "random:seed=3", "random:nope=1", "ismcts:iterations",
     "ismcts:=5", "", "   ", ":", "nope"],
)  # fmt: skip
def test_a_malformed_spec_is_an_invalid_config_error(spec):
    """A key given twice is refused rather than the last one silently winning."""
    with pytest.raises(InvalidConfigError):
        make_agent(spec)


@pytest.mark.parametrize("spec", [None, 3, 3.0, True, b"random", ["random"]])
def test_a_spec_that_is_not_a_string_is_an_invalid_config_error(spec):
    with pytest.raises(InvalidConfigError, match="non-empty string"):
        make_agent(spec)
