"""The chance protocol (``cardarena.envs.core.chance``): ``ScriptedChance`` deals exactly, and
the rules modules draw randomness through it and nothing else during play."""

from __future__ import annotations

import ast
import itertools
import random
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from openspiel_cases import ALL_CASES, case_id, env_config

from cardarena.envs import make_raw
from cardarena.envs.core.chance import CHANCE_METHODS, NeedChance, ScriptedChance, StrictChance

RULES = sorted((Path(__file__).resolve().parents[2] / "envs").glob("*/rules.py"))
GAME_RULES = [path for path in RULES if path.parent.name != "vector"]


def all_scripts(run: Any) -> dict[Any, Fraction]:
    """Every way chance can go in ``run(chance)``, as result -> exact probability."""
    results: dict[Any, Fraction] = {}
    pending: list[tuple[list[int], Fraction]] = [([], Fraction(1))]
    while pending:
        script, weight = pending.pop()
        try:
            result = run(ScriptedChance(script))
        except NeedChance as need:
            assert sum(p for _, p in need.outcomes) == 1
            pending.extend(([*script, value], weight * p) for value, p in need.outcomes)
            continue
        results[result] = results.get(result, Fraction(0)) + weight
    return results


def uniform_orderings(items: list[int]) -> dict[tuple[int, ...], Fraction]:
    """What a uniform shuffle gives, by brute force over all n! orderings."""
    orders = Counter(itertools.permutations(items))
    total = sum(orders.values())
    return {order: Fraction(count, total) for order, count in orders.items()}


@pytest.mark.parametrize("items", [[3], [1, 2], [2, 2, 5], [0, 1, 1, 2, 2, 2], [4, 3, 2, 1, 0]])
def test_shuffle_deals_every_ordering_with_its_probability(items: list[int]) -> None:
    def run(chance: ScriptedChance) -> tuple[int, ...]:
        values = list(items)
        chance.shuffle(values)
        return tuple(values)

    assert all_scripts(run) == uniform_orderings(items)

    def run_array(chance: ScriptedChance) -> tuple[int, ...]:
        values = np.array(items, dtype=np.int64)
        chance.shuffle(values)
        assert values.dtype == np.int64
        return tuple(values.tolist())

    assert all_scripts(run_array) == uniform_orderings(items)


def test_permutation_and_integers() -> None:
    def run(chance: ScriptedChance) -> tuple[int, ...]:
        return (int(chance.integers(3)), *chance.permutation(3).tolist())

    expected = {
        (k, *order): p / 3 for order, p in uniform_orderings([0, 1, 2]).items() for k in range(3)
    }
    assert all_scripts(run) == expected
    assert ScriptedChance().integers(1) == 0  # one outcome: no draw


def test_script_runs_out_and_refuses_impossible_outcomes() -> None:
    chance = ScriptedChance([1])
    with pytest.raises(NeedChance) as need:
        chance.shuffle([1, 1, 2, 3])
    assert need.value.outcomes == [(1, Fraction(1, 3)), (2, Fraction(1, 3)), (3, Fraction(1, 3))]
    with pytest.raises(ValueError, match="not possible"):
        ScriptedChance([7]).shuffle([1, 2])
    for call in (lambda c: c.integers(0, 5), lambda c: c.integers(2.0), lambda c: c.random()):
        with pytest.raises((TypeError, AttributeError)):
            call(ScriptedChance())


def test_strict_chance_records_what_it_drew() -> None:
    chance = StrictChance(np.random.default_rng(1))
    values = [0, 1, 1, 2]
    chance.shuffle(values)
    replay = [0, 1, 1, 2]
    ScriptedChance(chance.script).shuffle(replay)
    assert replay == values and sorted(values) == [0, 1, 1, 2]


def _forbidden(*_: Any, **__: Any) -> Any:
    raise AssertionError("a rules module drew randomness outside the chance protocol")


@pytest.mark.parametrize("case", ALL_CASES, ids=case_id)
def test_rules_draw_only_through_the_protocol(
    case: tuple[str, dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Play whole games with a ``StrictChance`` (the protocol's methods and nothing else)
    while Python's and numpy's global generators and new numpy generators raise: any other
    draw fails. The chance object is the one the state keeps, and every move that draws uses
    it."""
    env_name, params = case
    env = make_raw(env_name, **env_config(env_name, params))
    rules = env.game
    choose = np.random.default_rng(5)
    sources = [StrictChance(np.random.Generator(np.random.PCG64(seed))) for seed in range(2)]
    for name in ("random", "randint", "shuffle", "choice", "sample", "uniform", "getrandbits"):
        monkeypatch.setattr(random, name, _forbidden)
    for name in ("default_rng", "random", "rand", "randint", "shuffle", "permutation", "choice",
                 "seed", "Generator", "RandomState"):  # fmt: skip
        monkeypatch.setattr(np.random, name, _forbidden)
    for chance in sources:
        state = rules.new_initial_state(chance)
        assert any(value is chance for value in vars(state).values())
        while state.current_player() != -1:
            legal = np.flatnonzero(state.legal_action_mask())
            state.apply_legal_action(int(legal[int(choose.integers(len(legal)))]))
        assert chance.used == len(chance.script) > 0


def _random_calls(source: str) -> list[str]:
    """Calls in ``source`` on a generator other than the protocol's, outside
    ``resample_from_infostate`` (search may draw freely from the rng it is given)."""
    tree = ast.parse(source)
    bad: list[str] = []

    def visit(node: ast.AST, function: str) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            function = node.name
            for statement in node.body:
                visit(statement, function)
            return
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names]
            if "random" in names or getattr(node, "module", None) == "random":
                bad.append(f"line {node.lineno}: imports random")
        if isinstance(node, ast.Attribute) and function != "resample_from_infostate":
            base = ast.unparse(node.value)
            if base.endswith(("rng", "_rng")) and node.attr not in CHANCE_METHODS:
                bad.append(f"line {node.lineno}: {base}.{node.attr}")
            if base == "np.random" and node.attr != "Generator":
                bad.append(f"line {node.lineno}: np.random.{node.attr}")
        for child in ast.iter_child_nodes(node):
            visit(child, function)

    visit(tree, "")
    return bad


@pytest.mark.parametrize("path", GAME_RULES, ids=lambda p: p.parent.name)
def test_rules_source_names_only_protocol_draws(path: Path) -> None:
    assert _random_calls(path.read_text()) == []


def test_the_source_check_sees_other_draws() -> None:
    source = """
import random
def deal(self, rng: np.random.Generator):
    rng.shuffle(self.pile)
    self._rng.random()
    np.random.default_rng(0)
def resample_from_infostate(self, seat, rng):
    return np.random.default_rng(int(rng.integers(2**63)))
"""
    assert _random_calls(source) == [
        "line 2: imports random",
        "line 5: self._rng.random",
        "line 6: np.random.default_rng",
    ]
