"""Exact exploitability of cardarena agents, and a CFR+ equilibrium, on a small configuration.

``python -m cardarena.openspiel.exact promise_war_v0 'decks=1 2 3,max_power=3' --agents
random,heuristic --iterations 200 --json out.json`` prints, for every agent, its exact NashConv
(and, for two-player zero-sum games, its exploitability = NashConv / 2) with each seat's
best-response value, then the same for the average policy of CFR+ after ``--iterations``
iterations and the game value under it (docs/openspiel.md, "Exact answers on small decks").

How it works:

1. **The tree, once.** The whole OpenSpiel tree of the configuration (``cardarena.openspiel``,
   chance explicit) is walked once and written as a Gambit ``.efg`` game: every chance node with
   its probabilities, every decision node in the information set of its
   ``information_state_string``, every terminal with its returns. ``pyspiel.load_efg_game``
   loads it as a C++ game, on which OpenSpiel's C++ ``nash_conv``, ``TabularBestResponse``,
   ``expected_returns`` and ``CFRPlusSolver`` run without calling back into Python (the walk is
   the only Python pass; a test checks the copy gives the same NashConv as OpenSpiel's Python
   ``exploitability.nash_conv`` on the Python game).
2. **Agents as policies.** ``AgentPolicy`` (in ``agent_policy``) is an OpenSpiel ``Policy``:
   at a state it rebuilds, from the rules states on the way, the env observations its seat was
   shown at each of its own decisions so far (``{"observation", "action_mask"}``, exactly what
   ``env.observe`` gives; a function of the information state, which lists them), replays the
   agent on them from ``start_game`` and asks it for the current one.
   An agent that draws from its own generator (a random player, a heuristic breaking a tie
   or picking a plan) is a mixed strategy; its policy here is the equivalent behaviour
   strategy (Kuhn): the probability of each action given the information state *and the
   agent's own earlier actions in it*, over the agent's random draws. The agent's generator
   is replaced by one that enumerates every small ``rng.integers(n)`` draw (``n`` up to 64,
   one value at a time: tie-breaks, Iron Man's sacrificed battle): each sequence of draws is
   weighed by its probability and kept only if the replay repeats the actions the seat
   actually took. That is exact. Any other draw (``rng.random``, ``standard_normal``,
   ``shuffle``, wide ranges) comes from a seeded generator, and the answer is averaged over
   ``--seeds K`` of them: the policy is then exactly the behaviour strategy of "one of K
   seeded copies, drawn at the start of the game" (with the integer draws still
   enumerated), which approaches the agent as K grows, and is the agent itself when those
   draws change no decision (Iron Man's heuristic draws jitter that only orders equal cards:
   its figures are the same for every K). If a state has more than ``MAX_PATHS`` draw
   sequences (a search agent), the whole replay is seeded instead. Either way the policy is
   a fixed function of the information state, and the NashConv reported is exact for it.
   ``information_states`` in the report says which way each was answered ("unreachable":
   the agent never reaches it; its answer there changes no value). An agent that remembers
   across games (``memory``) is replayed with whatever it has remembered so far.
3. **Numbers.** NashConv = sum over seats of (best-response value - on-policy value), with
   every seat playing the agent. In a two-player zero-sum game exploitability is NashConv / 2
   (OpenSpiel's ``exploitability``). Cardline is not zero-sum (a shared win pays both): its
   NashConv is the sum of what each seat gains by deviating alone, no exploitability.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import pyspiel

from . import GAME_NAMES, load_game
from .agent_policy import (
    DEFAULT_SEEDS,
    MAX_ENUMERATED_RANGE,
    MAX_PATHS,
    AgentPolicy,
    Decision,
    EnumeratingRng,
    seat_decisions,
)
from .game import CardArenaGame

#: Most histories walked before a configuration is refused as not small (``--limit``).
DEFAULT_LIMIT = 2_000_000


# --- the tree as a C++ game --------------------------------------------------------------------
@dataclass
class Infoset:
    """One information state of the cardarena tree: its EFG number and name, and a state in it
    (for asking an agent)."""

    player: int
    number: int
    state: Any
    actions: list[int]
    efg_key: str = ""
    efg_actions: dict[int, int] = field(default_factory=dict)


@dataclass
class ExactTree:
    """The whole tree of a cardarena game, copied into a C++ EFG game (``efg``)."""

    game: CardArenaGame
    efg: pyspiel.Game
    infosets: dict[str, Infoset]
    histories: int
    terminals: int
    chance_nodes: int
    decision_nodes: int
    seconds: float

    def tabular(self, probabilities: dict[str, dict[int, float]]) -> dict[str, list]:
        """A policy on cardarena information states (``"player|string"`` keys) as the
        ``{efg infostate: [(efg action, p)]}`` dict pyspiel's C++ algorithms take."""
        table = {}
        for key, infoset in self.infosets.items():
            probs = probabilities[key]
            table[infoset.efg_key] = [
                (infoset.efg_actions[a], float(probs.get(a, 0.0))) for a in infoset.actions
            ]
        return table

    def from_efg(self, efg_policy: Any) -> dict[str, dict[int, float]]:
        """A C++ tabular policy of the EFG game back on cardarena information states."""
        out = {}
        for key, infoset in self.infosets.items():
            back = {efg: a for a, efg in infoset.efg_actions.items()}
            probs = dict(efg_policy.policy_table()[infoset.efg_key])
            out[key] = {back[efg]: float(p) for efg, p in probs.items()}
        return out


def _quote(text: str) -> str:
    return '"' + text.replace('"', "'") + '"'


def build_tree(game: CardArenaGame, limit: int = DEFAULT_LIMIT) -> ExactTree:
    """Walk every history of ``game`` once (depth first, as EFG lists nodes) and load the
    copy with ``pyspiel.load_efg_game``; past ``limit`` histories, ``ValueError``."""
    start = time.perf_counter()
    num_players = game.num_players()
    names = " ".join(_quote(f"player_{p}") for p in range(num_players))
    lines = [f"EFG 2 R {_quote(str(game))} {{ {names} }}"]
    infosets: dict[str, Infoset] = {}
    counts = {"histories": 0, "terminals": 0, "chance": 0, "decision": 0}
    per_player = [0] * num_players
    stack = [game.new_initial_state()]
    while stack:
        state = stack.pop()
        counts["histories"] += 1
        if counts["histories"] > limit:
            raise ValueError(
                f"{game}: more than {limit:,} histories, not a small configuration (see the "
                "tree sizes in docs/openspiel.md; --limit raises the bound)"
            )
        if state.is_terminal():
            counts["terminals"] += 1
            payoffs = " ".join(repr(float(r)) for r in state.returns())
            lines.append(f't "" {counts["terminals"]} "" {{ {payoffs} }}')
            continue
        if state.is_chance_node():
            counts["chance"] += 1
            outcomes = state.chance_outcomes()
            body = " ".join(f'"c{a}" {p!r}' for a, p in outcomes)
            lines.append(f'c "" {counts["chance"]} "" {{ {body} }} 0')
            actions = [a for a, _ in outcomes]
        else:
            counts["decision"] += 1
            player = state.current_player()
            key = f"{player}|{state.information_state_string(player)}"
            actions = state.legal_actions()
            infoset = infosets.get(key)
            if infoset is None:
                per_player[player] += 1
                infoset = infosets[key] = Infoset(player, per_player[player], state, actions)
            elif infoset.actions != actions:
                raise RuntimeError(f"two legal action sets in one information state: {key!r}")
            body = " ".join(f'"a{a}"' for a in actions)
            lines.append(f'p "" {player + 1} {infoset.number} "I{infoset.number}" {{ {body} }} 0')
        stack.extend(state.child(a) for a in reversed(actions))
    efg = pyspiel.load_efg_game("\n".join(lines) + "\n")
    _label(efg, infosets)
    return ExactTree(
        game, efg, infosets, counts["histories"], counts["terminals"], counts["chance"],
        counts["decision"], time.perf_counter() - start,
    )  # fmt: skip


def _label(efg: pyspiel.Game, infosets: dict[str, Infoset]) -> None:
    """Find each information set's EFG infostate string and action ids (one C++ walk)."""
    by_number = {(i.player, i.number): i for i in infosets.values()}
    stack = [efg.new_initial_state()]
    while stack:
        state = stack.pop()
        if state.is_terminal():
            continue
        if state.is_chance_node():
            stack.extend(state.child(a) for a, _ in state.chance_outcomes())
            continue
        player = state.current_player()
        key = state.information_state_string(player)
        number = int(key.rsplit("-I", 1)[1])
        infoset = by_number[(player, number)]
        if not infoset.efg_key:
            infoset.efg_key = key
            for action in state.legal_actions():
                name = state.action_to_string(player, action)
                infoset.efg_actions[int(name[1:])] = action
        stack.extend(state.child(a) for a in state.legal_actions())
    missing = [k for k, i in infosets.items() if not i.efg_key]
    if missing:
        raise RuntimeError(f"{len(missing)} information states missing from the EFG copy")


# --- the numbers -------------------------------------------------------------------------------
def evaluate(tree: ExactTree, table: dict[str, list]) -> dict[str, Any]:
    """NashConv of a policy played by every seat, with each seat's best-response value and
    on-policy value (exact, C++ on the EFG copy)."""
    efg = tree.efg
    root = efg.new_initial_state()
    tabular = pyspiel.TabularPolicy(table)
    on_policy = list(pyspiel.expected_returns(root, tabular, -1, True))
    best = [
        float(pyspiel.TabularBestResponse(efg, p, table).value_from_state(root))
        for p in range(efg.num_players())
    ]
    gains = [b - v for b, v in zip(best, on_policy, strict=True)]
    result: dict[str, Any] = {
        "nash_conv": float(sum(gains)),
        "best_response_value": best,
        "on_policy_value": [float(v) for v in on_policy],
        "gain": gains,
    }
    if zero_sum(tree) and efg.num_players() == 2:
        result["exploitability"] = result["nash_conv"] / 2
    return result


def zero_sum(tree: ExactTree) -> bool:
    """Whether the game is zero-sum (the env's metadata, per configuration)."""
    return tree.game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM


def agent_table(tree: ExactTree, spec: str, seeds: int, seed: int) -> tuple[dict, dict]:
    """The agent's probabilities at every information state, and how they were computed."""
    agent_policy = AgentPolicy(tree.game, spec, seeds=seeds, seed=seed)
    probabilities = {
        key: agent_policy.action_probabilities(infoset.state, infoset.player)
        for key, infoset in tree.infosets.items()
    }
    return probabilities, dict(agent_policy.how)


def checkpoints(iterations: int) -> list[int]:
    """1, 10, 100, ... below ``iterations``, and ``iterations``."""
    marks = [10**k for k in range(int(math.log10(max(iterations, 1))) + 1)]
    return sorted({m for m in marks if m < iterations} | {iterations})


def solve(tree: ExactTree, iterations: int) -> dict[str, Any]:
    """CFR+ (``pyspiel.CFRPlusSolver``) on the EFG copy: the average policy's NashConv along
    the way, its values and the game value (seat 0's expected return under it)."""
    start = time.perf_counter()
    solver = pyspiel.CFRPlusSolver(tree.efg)
    curve = []
    marks = checkpoints(iterations) if iterations > 0 else []
    done = 0
    for mark in marks:
        for _ in range(mark - done):
            solver.evaluate_and_update_policy()
        done = mark
        average = solver.average_policy()
        curve.append({"iterations": mark, "nash_conv": float(pyspiel.nash_conv(tree.efg, average))})
    table = {k: list(v) for k, v in solver.tabular_average_policy().policy_table().items()}
    result = evaluate(tree, table)
    result.update(
        iterations=iterations,
        nash_conv_curve=curve,
        game_value=result["on_policy_value"][0],
        seconds=round(time.perf_counter() - start, 2),
    )
    return result


def parse_params(text: str) -> dict[str, Any]:
    """``'decks=1 2 3,max_power=3'`` (OpenSpiel's ``key=value`` form, commas between) or a JSON
    object; values are typed by the game's defaults."""
    text = text.strip()
    if text.startswith("{"):
        return dict(json.loads(text))
    params: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, equals, value = item.partition("=")
        if not equals:
            raise ValueError(f"parameter {item!r}: write key=value")
        params[key.strip()] = value.strip()
    return params


def typed(env_name: str, params: dict[str, Any]) -> dict[str, Any]:
    from .specs import SPECS

    defaults = SPECS[env_name].defaults
    out: dict[str, Any] = {}
    for key, value in params.items():
        if key not in defaults:
            raise ValueError(f"unknown parameter {key!r}; {env_name} takes {sorted(defaults)}")
        kind = type(defaults[key])
        if isinstance(value, str) and kind is bool:
            out[key] = value.lower() in ("1", "true", "yes")
        elif isinstance(value, str) and kind in (int, float):
            out[key] = kind(value)
        else:
            out[key] = value
    return out


def run(
    env_name: str,
    params: dict[str, Any],
    agents: Sequence[str],
    iterations: int,
    seeds: int = DEFAULT_SEEDS,
    seed: int = 0,
    limit: int = DEFAULT_LIMIT,
) -> dict[str, Any]:
    """Every number of the report, as a JSON-ready dict (the fields: docs/openspiel.md)."""
    start = time.perf_counter()
    if env_name in GAME_NAMES.values():
        env_name = next(e for e, s in GAME_NAMES.items() if s == env_name)
    params = typed(env_name, params)
    game = load_game(env_name, **params)
    tree = build_tree(game, limit)
    report: dict[str, Any] = {
        "game": env_name,
        "openspiel_game": str(game),
        "params": params,
        "all_params": dict(game.get_parameters()),
        "num_players": game.num_players(),
        "zero_sum": zero_sum(tree),
        "tree": {
            "histories": tree.histories,
            "decision_nodes": tree.decision_nodes,
            "chance_nodes": tree.chance_nodes,
            "terminals": tree.terminals,
            "information_states": len(tree.infosets),
            "seconds": round(tree.seconds, 2),
        },
        "seeds": seeds,
        "seed": seed,
        "agents": {},
    }
    for spec in agents:
        began = time.perf_counter()
        probabilities, how = agent_table(tree, spec, seeds, seed)
        entry = evaluate(tree, tree.tabular(probabilities))
        entry.update(information_states=how, seconds=round(time.perf_counter() - began, 2))
        report["agents"][spec] = entry
    if iterations > 0:
        report["cfr_plus"] = solve(tree, iterations)
    report["seconds"] = round(time.perf_counter() - start, 2)
    return report


def table_lines(report: dict[str, Any]) -> Iterator[str]:
    """The report as a Markdown table."""
    players = report["num_players"]
    zs = report["zero_sum"] and players == 2
    tree = report["tree"]
    yield (
        f"{report['openspiel_game']}: {tree['histories']:,} histories, "
        f"{tree['information_states']:,} information states (tree {tree['seconds']} s)"
    )
    seats = " | ".join(f"BR value seat {p}" for p in range(players))
    head = f"| policy | NashConv |{' exploitability |' if zs else ''} {seats} | value seat 0 | s |"
    yield head
    yield "|" + "---|" * (head.count("|") - 1)
    rows = list(report["agents"].items())
    if "cfr_plus" in report:
        rows.append((f"CFR+ ({report['cfr_plus']['iterations']} it.)", report["cfr_plus"]))
    for name, entry in rows:
        cells = [name, f"{entry['nash_conv']:.4f}"]
        if zs:
            cells.append(f"{entry['exploitability']:.4f}")
        cells += [f"{v:+.4f}" for v in entry["best_response_value"]]
        cells += [f"{entry['on_policy_value'][0]:+.4f}", f"{entry['seconds']}"]
        yield "| " + " | ".join(cells) + " |"
    if "cfr_plus" in report:
        points = report["cfr_plus"]["nash_conv_curve"]
        curve = ", ".join(f"{c['iterations']}: {c['nash_conv']:.4f}" for c in points)
        value = report["cfr_plus"]["game_value"]
        yield f"CFR+ NashConv by iteration: {curve}; game value (seat 0) {value:+.4f}"
    yield f"total {report['seconds']} s"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m cardarena.openspiel.exact",
        description="Exact NashConv of cardarena agents and of CFR+ on a small configuration.",
    )
    parser.add_argument("game", help="env name (promise_war_v0, ...) or OpenSpiel name")
    parser.add_argument(
        "params", nargs="?", default="",
        help="parameters: 'decks=1 2 3,max_power=3' (key=value, commas between) or JSON",
    )  # fmt: skip
    parser.add_argument("--agents", default="random,heuristic", help="agent specs, ';' or ','")
    parser.add_argument("--iterations", type=int, default=100, help="CFR+ iterations (0: none)")
    parser.add_argument("--seeds", type=int, default=DEFAULT_SEEDS, help="seeded copies (above)")
    parser.add_argument("--seed", type=int, default=0, help="base seed of the seeded copies")
    parser.add_argument("--limit", type=int, default=DEFAULT_LIMIT, help="most histories")
    parser.add_argument("--json", help="write every number to this file")
    args = parser.parse_args(argv)
    separator = ";" if ";" in args.agents else ","
    agents = [a.strip() for a in args.agents.split(separator) if a.strip()]
    try:
        report = run(
            args.game, parse_params(args.params), agents, args.iterations, args.seeds,
            args.seed, args.limit,
        )  # fmt: skip
    except ValueError as error:
        parser.error(str(error))
    for line in table_lines(report):
        print(line)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(report, handle, indent=2)
            handle.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())


# The agents-as-policies half lives in .agent_policy; its names stay importable from here.
__all__ = [
    "DEFAULT_LIMIT",
    "DEFAULT_SEEDS",
    "MAX_ENUMERATED_RANGE",
    "MAX_PATHS",
    "AgentPolicy",
    "Decision",
    "EnumeratingRng",
    "ExactTree",
    "Infoset",
    "agent_table",
    "build_tree",
    "checkpoints",
    "evaluate",
    "main",
    "parse_params",
    "run",
    "seat_decisions",
    "solve",
    "table_lines",
    "typed",
    "zero_sum",
]
