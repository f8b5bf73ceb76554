"""Count a game's whole tree: histories (chance, decision and terminal nodes) and information
states, and for small two-player trees the NashConv of the uniform random policy.

``python -m cardarena.openspiel.tree_size cardarena_promise_war '{"decks": "1 2 3"}'`` prints
one JSON line (the figures of docs/openspiel.md). ``--limit N`` stops past N histories
and says so; ``--after-deal`` counts the subtree below the first deal (each chance node at the
start takes its first outcome), for games whose deal alone is too big.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from dataclasses import asdict, dataclass
from typing import Any

import pyspiel

import cardarena.openspiel  # noqa: F401 (registers the games)

#: Largest tree (histories) whose NashConv is computed: the best responses keep every state.
NASH_CONV_LIMIT = 60_000


@dataclass
class TreeSize:
    """What a depth-first walk counted (``complete`` False: it stopped at the limit)."""

    histories: int = 0
    terminals: int = 0
    chance_nodes: int = 0
    decision_nodes: int = 0
    infostates: int = 0
    max_depth: int = 0
    complete: bool = True


def count_tree(root: Any, limit: int = 3_000_000) -> TreeSize:
    """Walk the tree below ``root`` (a pyspiel state); information states are told apart by
    (player to act, ``information_state_string``), kept as 16-byte digests."""
    size = TreeSize()
    infostates: set[bytes] = set()
    stack = [(root, 0)]
    while stack:
        state, depth = stack.pop()
        size.histories += 1
        size.max_depth = max(size.max_depth, depth)
        if size.histories > limit:
            size.complete = False
            break
        if state.is_terminal():
            size.terminals += 1
            continue
        if state.is_chance_node():
            size.chance_nodes += 1
            actions = [action for action, _ in state.chance_outcomes()]
        else:
            size.decision_nodes += 1
            key = f"{state.current_player()}|{state.information_state_string()}"
            infostates.add(hashlib.blake2b(key.encode(), digest_size=16).digest())
            actions = state.legal_actions()
        stack.extend((state.child(action), depth + 1) for action in actions)
    size.infostates = len(infostates)
    return size


def after_deal(game: Any) -> Any:
    """The first state past the chance nodes at the start, each taking its first outcome."""
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    return state


def measure(name: str, params: dict[str, Any], limit: int, below_deal: bool) -> dict[str, Any]:
    game = pyspiel.load_game(name, params)
    start = time.perf_counter()
    root = after_deal(game) if below_deal else game.new_initial_state()
    size = count_tree(root, limit)
    result: dict[str, Any] = {"game": name, "params": params, "after_deal": below_deal}
    result.update(asdict(size), seconds=round(time.perf_counter() - start, 1))
    small = size.complete and size.histories <= NASH_CONV_LIMIT
    if small and not below_deal and game.num_players() == 2:
        from open_spiel.python import policy
        from open_spiel.python.algorithms import exploitability

        start = time.perf_counter()
        uniform = policy.UniformRandomPolicy(game)
        result["nash_conv_uniform"] = exploitability.nash_conv(game, uniform)
        result["nash_conv_seconds"] = round(time.perf_counter() - start, 1)
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", help="an OpenSpiel name, e.g. cardarena_promise_war")
    parser.add_argument("params", nargs="?", default="{}", help="game parameters as JSON")
    parser.add_argument("--limit", type=int, default=3_000_000, help="most histories to walk")
    parser.add_argument("--after-deal", action="store_true", help="count below the first deal")
    args = parser.parse_args(argv)
    print(json.dumps(measure(args.game, json.loads(args.params), args.limit, args.after_deal)))


if __name__ == "__main__":
    main()
