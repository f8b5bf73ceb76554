"""``cardarena.openspiel.exact``: agents as OpenSpiel policies (a function of the information
state only, the random agent exactly uniform), exact NashConv on the EFG copy of the tree
(equal to OpenSpiel's Python ``exploitability.nash_conv`` and to a brute force over pure
strategies), CFR+ improving with iterations, and the script end to end."""

from __future__ import annotations

import itertools
import json
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel
import pytest
from helpers import random_policy
from open_spiel.python import policy as os_policy
from open_spiel.python.algorithms import exploitability

import cardarena.openspiel
from cardarena.agents import AGENT_SPECS, BaseAgent, env_spec_of
from cardarena.agents.specs import AgentEntry
from cardarena.openspiel import exact

TINY = {"decks": "1 1 2", "max_power": 2}  # 278 histories
SMALL = {"decks": "1 2 3", "max_power": 3}  # 4,168 histories
IRONMAN_TINY = {"deck": "attack_1:1 attack_2:1", "victory_cards": 2, "max_rounds": 1}
IRONMAN_SMALL = {
    "deck": "attack_1:1 attack_2:1 energy_shield:1", "victory_cards": 2, "max_rounds": 1
}  # fmt: skip
CARDLINE_TINY = {"hand_size": 1, "deck": "B:2 A:1 C:3"}


def load(env_name: str, params: dict[str, Any]) -> Any:
    return cardarena.openspiel.load_game(env_name, **params)


def decision_states(game: Any) -> list[Any]:
    states, stack = [], [game.new_initial_state()]
    while stack:
        state = stack.pop()
        if state.is_terminal():
            continue
        if state.is_chance_node():
            stack.extend(state.child(a) for a, _ in state.chance_outcomes())
            continue
        states.append(state)
        stack.extend(state.child(a) for a in state.legal_actions())
    return states


@pytest.mark.parametrize(
    ("env_name", "params"),
    [("promise_war_v0", TINY), ("ironman_war_v0", IRONMAN_TINY), ("cardline_v0", CARDLINE_TINY)],
)
def test_random_agent_is_openspiel_uniform_random(env_name: str, params: dict[str, Any]) -> None:
    game = load(env_name, params)
    uniform = exploitability.nash_conv(game, os_policy.UniformRandomPolicy(game))
    adapted = exact.AgentPolicy(game, "random")
    assert exploitability.nash_conv(game, adapted) == pytest.approx(uniform, abs=1e-12)
    for state in decision_states(game)[:50]:
        legal = state.legal_actions()
        assert adapted.action_probabilities(state) == pytest.approx(
            {a: 1 / len(legal) for a in legal}
        )
    # The same through the C++ copy of the tree the script uses.
    report = exact.run(env_name, params, ["random"], iterations=0)
    assert report["agents"]["random"]["nash_conv"] == pytest.approx(uniform, abs=1e-9)
    assert report["agents"]["random"]["information_states"] == {
        "enumerated": report["tree"]["information_states"]
    }


@pytest.mark.parametrize(
    ("env_name", "params", "spec"),
    [
        ("promise_war_v0", SMALL, "heuristic"),
        ("promise_war_v0", SMALL, "random"),
        ("ironman_war_v0", IRONMAN_TINY, "heuristic"),
        ("ironman_war_v0", IRONMAN_SMALL, "heuristic"),
        ("cardline_v0", {**CARDLINE_TINY, "first_player": "0"}, "heuristic"),
    ],
)
def test_agent_policy_is_a_function_of_the_information_state(
    env_name: str, params: dict[str, Any], spec: str
) -> None:
    game = load(env_name, params)
    adapted = exact.AgentPolicy(game, spec, seeds=2, cache=False)
    seen: dict[str, dict[int, float]] = {}
    shared = 0
    for state in decision_states(game):
        player = state.current_player()
        key = f"{player}|{state.information_state_string(player)}"
        probabilities = adapted.action_probabilities(state)
        assert set(probabilities) <= set(state.legal_actions())
        assert sum(probabilities.values()) == pytest.approx(1.0)
        if key in seen:
            shared += 1
            assert probabilities == seen[key], key
        seen[key] = probabilities
    assert shared > 0  # some information states hold several histories


def game_tree(game: Any) -> Any:
    """The whole tree as nested tuples: ("t", returns), ("c", [(p, child)]) or
    ("d", player, infostate string, legal actions, {action: child}, state)."""

    def build(state: Any) -> Any:
        if state.is_terminal():
            return ("t", state.returns())
        if state.is_chance_node():
            return ("c", [(p, build(state.child(a))) for a, p in state.chance_outcomes()])
        player = state.current_player()
        legal = state.legal_actions()
        children = {a: build(state.child(a)) for a in legal}
        return ("d", player, state.information_state_string(player), legal, children, state)

    return build(game.new_initial_state())


def brute_force_nash_conv(
    game: Any, mixture: list[tuple[float, list[Callable[[Any], int]]]]
) -> float:
    """NashConv of a mixture of pure joint strategies (weight, one function of the state per
    seat), each seat drawing its own pure strategy independently, by enumerating every pure
    strategy of the deviating seat."""
    num_players = game.num_players()
    root = game_tree(game)
    infosets: dict[int, dict[str, list[int]]] = defaultdict(dict)
    pending = [root]
    while pending:
        node = pending.pop()
        if node[0] == "c":
            pending.extend(child for _, child in node[1])
        elif node[0] == "d":
            infosets[node[1]][node[2]] = node[3]
            pending.extend(node[4].values())

    def value(choosers: list[Callable[[Any], int]], seat: int) -> float:
        def walk(node: Any) -> float:
            if node[0] == "t":
                return float(node[1][seat])
            if node[0] == "c":
                return sum(p * walk(child) for p, child in node[1])
            return walk(node[4][choosers[node[1]](node)])

        return walk(root)

    def as_chooser(function: Callable[[Any], int]) -> Callable[[Any], int]:
        return lambda node: function(node[5])

    total = 0.0
    for seat in range(num_players):
        on_policy = 0.0
        for combo in itertools.product(mixture, repeat=num_players):
            weight = float(np.prod([w for w, _ in combo]))
            choosers = [as_chooser(combo[p][1][p]) for p in range(num_players)]
            on_policy += weight * value(choosers, seat)
        keys = sorted(infosets[seat])
        others = [p for p in range(num_players) if p != seat]
        best = -np.inf
        for actions in itertools.product(*(infosets[seat][k] for k in keys)):
            pure = dict(zip(keys, actions, strict=True))

            def deviate(node: Any, pure: dict[str, int] = pure) -> int:
                return pure[node[2]]

            deviation = 0.0
            for combo in itertools.product(mixture, repeat=len(others)):
                weight = float(np.prod([w for w, _ in combo]))
                choosers = [deviate] * num_players
                for p, (_, functions) in zip(others, combo, strict=True):
                    choosers[p] = as_chooser(functions[p])
                deviation += weight * value(choosers, seat)
            best = max(best, deviation)
        total += best - on_policy
    return total


def min_legal(state: Any) -> int:
    return int(min(state.legal_actions()))


class LowestCard(os_policy.Policy):
    """A hand-made deterministic policy: always the lowest legal card."""

    def __init__(self, game: Any) -> None:
        super().__init__(game, list(range(game.num_players())))

    def action_probabilities(self, state: Any, player_id: int | None = None) -> dict[int, float]:
        return {min(state.legal_actions()): 1.0}


def test_hand_made_policy_nash_conv_is_the_brute_force_value() -> None:
    # decks "1 1 2": the smallest Promise War where play matters (with "1 2" every policy
    # has NashConv 0).
    game = load("promise_war_v0", TINY)
    lowest = LowestCard(game)
    tree = exact.build_tree(game)
    table = tree.tabular(
        {key: lowest.action_probabilities(infoset.state) for key, infoset in tree.infosets.items()}
    )
    result = exact.evaluate(tree, table)
    brute = brute_force_nash_conv(game, [(1.0, [min_legal, min_legal])])
    assert brute == pytest.approx(2.0)  # the best response wins every game
    assert result["nash_conv"] == pytest.approx(brute, abs=1e-9)
    assert result["nash_conv"] == pytest.approx(exploitability.nash_conv(game, lowest), abs=1e-9)
    assert result["exploitability"] == pytest.approx(brute / 2, abs=1e-9)
    assert result["gain"] == pytest.approx(
        [b - v for b, v in zip(result["best_response_value"], result["on_policy_value"],
                               strict=True)]
    )  # fmt: skip


class CoinAgent(BaseAgent):
    """Draws one coin per game (``rng.integers(2)`` at its first decision) and then always
    plays the legal action at that index (mod the number of legal actions): a mixed strategy
    whose behaviour strategy depends on its own earlier actions."""

    spec = "coin"

    def start_game(self, seat: str, env_spec: Any) -> None:
        super().start_game(seat, env_spec)
        self.coin: int | None = None

    def act(self, observation: dict[str, np.ndarray]) -> int:
        if self.coin is None:
            self.coin = int(self.rng.integers(2))
        legal = np.flatnonzero(observation["action_mask"])
        return int(legal[self.coin % legal.size])


def test_a_mixed_agent_is_its_behaviour_strategy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(AGENT_SPECS, "coin", AgentEntry(CoinAgent, "test"))
    game = load("promise_war_v0", TINY)
    report = exact.run("promise_war_v0", TINY, ["coin"], iterations=0)
    entry = report["agents"]["coin"]
    assert entry["information_states"].get("enumerated", 0) > 0

    def pure(coin: int) -> Callable[[Any], int]:
        def play(state: Any) -> int:
            legal = state.legal_actions()
            return legal[coin % len(legal)]

        return play

    brute = brute_force_nash_conv(game, [(0.5, [pure(0), pure(0)]), (0.5, [pure(1), pure(1)])])
    assert entry["nash_conv"] == pytest.approx(brute, abs=1e-9)
    adapted = exact.AgentPolicy(game, "coin")
    assert exploitability.nash_conv(game, adapted) == pytest.approx(brute, abs=1e-9)


def test_cfr_plus_nash_conv_decreases_with_iterations() -> None:
    tree = exact.build_tree(load("promise_war_v0", TINY))
    result = exact.solve(tree, 100)
    curve = [point["nash_conv"] for point in result["nash_conv_curve"]]
    assert [point["iterations"] for point in result["nash_conv_curve"]] == [1, 10, 100]
    assert curve[0] > curve[1] > curve[2]
    assert result["nash_conv"] == pytest.approx(curve[-1], abs=1e-9)
    assert result["nash_conv"] < 0.01
    assert abs(result["game_value"]) < 0.01  # symmetric decks: the game is fair


def test_iron_man_heuristic_enumerates_its_plan_and_seeds_its_jitter() -> None:
    # Its sacrificed battle (integers(3)) is enumerated; its jitter (rng.random) only orders
    # equal cards, so the figures do not depend on the number of seeds.
    reports = [
        exact.run("ironman_war_v0", IRONMAN_SMALL, ["heuristic"], 0, seeds=k)["agents"]
        for k in (1, 3)
    ]
    assert reports[0]["heuristic"]["information_states"]["enumerated and seeded"] > 0
    assert reports[0]["heuristic"]["nash_conv"] == pytest.approx(2 / 3, abs=1e-9)
    assert reports[1]["heuristic"]["nash_conv"] == pytest.approx(2 / 3, abs=1e-9)


def test_too_many_draws_fall_back_to_seeded_copies() -> None:
    game = load("ironman_war_v0", IRONMAN_SMALL)
    adapted = exact.AgentPolicy(game, "heuristic", seeds=4, max_paths=2)
    for state in decision_states(game):
        for p in adapted.action_probabilities(state).values():
            assert p * 4 == pytest.approx(round(p * 4))
    assert adapted.how.get("seeded", 0) > 0


def test_the_script_runs_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "exact.json"
    exact.main(
        ["promise_war_v0", "decks=1 1 2,max_power=2", "--agents", "random,heuristic",
         "--iterations", "20", "--json", str(out)]
    )  # fmt: skip
    printed = capsys.readouterr().out
    assert "| random |" in printed and "| heuristic |" in printed and "CFR+" in printed
    report = json.loads(out.read_text())
    assert report["game"] == "promise_war_v0"
    assert report["params"] == {"decks": "1 1 2", "max_power": 2}
    assert report["zero_sum"] is True and report["num_players"] == 2
    assert report["tree"]["histories"] == 278
    assert report["tree"]["information_states"] == 18
    for entry in (*report["agents"].values(), report["cfr_plus"]):
        for key in ("nash_conv", "exploitability", "best_response_value", "on_policy_value",
                    "gain", "seconds"):  # fmt: skip
            assert key in entry
        assert len(entry["best_response_value"]) == 2
    assert report["agents"]["random"]["nash_conv"] == pytest.approx(1.5)
    assert report["cfr_plus"]["iterations"] == 20
    assert "game_value" in report["cfr_plus"] and "nash_conv_curve" in report["cfr_plus"]
    assert report["seconds"] > 0


def test_cardline_is_general_sum() -> None:
    report = exact.run("cardline_v0", CARDLINE_TINY, ["random"], iterations=5)
    assert report["zero_sum"] is False
    assert "exploitability" not in report["agents"]["random"]
    assert report["agents"]["random"]["nash_conv"] == pytest.approx(1.5556, abs=1e-4)


def test_parameters_are_read_as_the_game_types_them() -> None:
    params = exact.typed("promise_war_v0", exact.parse_params("decks=1 2 3,max_power=3"))
    assert params == {"decks": "1 2 3", "max_power": 3}
    assert exact.parse_params('{"decks": "1 2"}') == {"decks": "1 2"}
    with pytest.raises(ValueError, match="unknown parameter"):
        exact.typed("promise_war_v0", {"deck": "1"})
    assert isinstance(pyspiel.load_game("cardarena_promise_war", params), pyspiel.Game)


@pytest.mark.parametrize("deterministic", [False, True])
def test_a_network_is_read_as_the_probabilities_it_states(
    tmp_path: Path, deterministic: bool
) -> None:
    """A network keeps no memory, so its behaviour at an information state is its masked
    softmax (or argmax) on the observation there: read exactly, no seeds, and every seat's
    on-policy value is what playing those probabilities gives."""
    game = load("promise_war_v0", SMALL)
    env_spec = env_spec_of(game.adapter.env)
    policy = random_policy(env_spec, output_scale=2.0)
    path = policy.save(tmp_path / "net.npz")
    spec = f"pretrained:path={path},deterministic={str(deterministic).lower()}"
    adapted = exact.AgentPolicy(game, spec)
    states = decision_states(game)
    for state in states[:: max(1, len(states) // 200)]:
        player = state.current_player()
        observation = exact.seat_decisions(state, player)[-1].observation
        said = adapted.action_probabilities(state)
        expected = policy.probabilities(
            observation["observation"], observation["action_mask"], greedy=deterministic
        )
        assert said == {int(a): pytest.approx(float(expected[a])) for a in np.flatnonzero(expected)}
        if not deterministic:  # a softmax gives every legal action some probability
            assert sorted(said) == sorted(state.legal_actions())
    assert set(adapted.how) == {"stated"}
    report = exact.run("promise_war_v0", SMALL, [spec], iterations=0)["agents"][spec]
    assert exploitability.nash_conv(game, adapted) == pytest.approx(report["nash_conv"], abs=1e-9)
