"""One registry for every door: a kind declares its scalar builder and its vector form (or why
it plays row by row), a spec means the same agent at the table and on the vector engine, and
a kind that declared nothing says so when the vector engine has to play it row by row."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from helpers import random_policy

from cardarena.agents import (
    AGENT_SPECS,
    PATH_KINDS,
    BaseAgent,
    EnvSpec,
    HeuristicAgent,
    NumpyPolicyAgent,
    make_agent,
    register_agent,
    register_vector_form,
)
from cardarena.agents import vector as vector_module
from cardarena.agents.specs import entry_of
from cardarena.agents.vector import RowsAgent, VectorPolicy, as_vector, vector_agent
from cardarena.envs.core import InvalidConfigError

ENV = EnvSpec("promise_war_v0")
BUILT_IN = ("random", "heuristic", "oracle", "noisy", "memory", "pretrained", "habit", "ismcts")


def test_every_built_in_kind_declares_its_vector_form_or_why_it_has_none():
    for name in BUILT_IN:
        entry = AGENT_SPECS[name]
        assert (entry.vector is None) != (entry.rows is None), name
        assert entry.kinds, f"{name} names no class: its instances would be no kind"
    assert set(vector_module.ROW_BY_ROW) == {n for n in BUILT_IN if AGENT_SPECS[n].rows}
    for name in ("exported", "checkpoint", "sb3-zip"):
        assert PATH_KINDS[name].vector is not None and PATH_KINDS[name].matches is not None


def _exported(tmp_path) -> str:
    return str(random_policy(ENV).save(tmp_path / "policy.npz"))


@pytest.mark.parametrize("option", ["", ":deterministic=false"])
def test_an_exported_file_is_the_same_agent_in_both_doors(tmp_path, option):
    """``FILE.npz`` was a spec on the vector engine only; it is one in ``make_agent`` too, and
    both doors play the same network with the same option."""
    spec = _exported(tmp_path) + option
    scalar = make_agent(spec)
    assert type(scalar) is NumpyPolicyAgent and scalar.deterministic == (option == "")
    vector = vector_agent(spec, ENV)
    assert isinstance(vector, VectorPolicy) and vector.deterministic == scalar.deterministic
    for (mine, _), (theirs, _) in zip(vector.policy.layers, scalar.policy.layers, strict=True):
        np.testing.assert_array_equal(mine, theirs)
    assert vector_agent(scalar, ENV).deterministic == scalar.deterministic


def test_an_instance_is_its_kind_by_its_exact_class():
    """A subclass is another kind: it does not inherit a vector form written for its base."""

    class Cautious(HeuristicAgent):
        pass

    assert entry_of(HeuristicAgent()) is AGENT_SPECS["heuristic"]
    assert entry_of(Cautious()) is None
    assert vector_agent(Cautious(), ENV) is None


class _Lowest(BaseAgent):
    """A user's agent: the lowest legal action."""

    def act(self, observation):
        return int(np.flatnonzero(observation["action_mask"])[0])


def test_a_kind_without_a_declared_form_says_so_once_and_still_plays():
    vector_module._SAID.discard("_Lowest")
    with pytest.warns(UserWarning, match="_Lowest has no vector form .* row by row") as said:
        rows = as_vector(_Lowest(), ENV)
    assert isinstance(rows, RowsAgent)
    assert said[0].filename == __file__  # the warning points at the line that asked
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        as_vector(_Lowest(), ENV)  # said once per kind, not once per game


def test_a_kind_that_declared_why_it_plays_row_by_row_is_not_warned_about():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rows = as_vector("habit:plan=" + _a_plan(), ENV)
    assert isinstance(rows, RowsAgent)


def _a_plan() -> str:
    from cardarena.agents.habits import plans

    return next(iter(plans(ENV.name)))


def test_a_registered_kind_declares_a_form_and_is_played_in_it():
    class Mine(_Lowest):
        pass

    def build(seed=None):
        return Mine(seed)

    register_agent("mine-test", build, "test: the lowest legal action", kinds=(Mine,))
    try:
        form = vector_module.VectorRandom()
        register_vector_form("mine-test", lambda agent, env_spec: form)
        assert vector_agent("mine-test", ENV) is form
        assert vector_agent(Mine(), ENV) is form
    finally:
        AGENT_SPECS.pop("mine-test")


def test_register_vector_form_takes_a_builder_or_a_reason_for_a_known_kind():
    with pytest.raises(ValueError, match="not both"):
        register_vector_form("random", lambda agent, env_spec: None, rows="why")
    with pytest.raises(ValueError, match="not both"):
        register_vector_form("random")
    with pytest.raises(InvalidConfigError, match="no agent kind 'nobody'"):
        register_vector_form("nobody", rows="why")


def _registered(name: str, vector=None) -> None:
    """A kind registered for one test: the lowest legal action, with ``vector`` as its
    vector builder (None: none declared)."""

    def build(seed=None):
        return _Lowest(seed)

    register_agent(name, build, "test: the lowest legal action")
    if vector is not None:
        register_vector_form(name, vector)


def test_a_spec_of_a_kind_without_a_declared_form_is_named_by_its_kind():
    _registered("plain-test")
    try:
        vector_module._SAID.discard("plain-test")
        with pytest.warns(UserWarning, match="^plain-test has no vector form"):
            assert isinstance(as_vector("plain-test", ENV), RowsAgent)
    finally:
        AGENT_SPECS.pop("plain-test")


def test_a_kind_whose_form_declines_an_instance_plays_it_row_by_row_quietly():
    """A declared vector builder may return None for one instance (as the saved-policy kinds
    do for a model only torch runs): the kind has a form, so nothing is warned."""
    _registered("declines-test", vector=lambda agent, env_spec: None)
    try:
        vector_module._SAID.discard("declines-test")
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert isinstance(as_vector("declines-test", ENV), RowsAgent)
    finally:
        AGENT_SPECS.pop("declines-test")
