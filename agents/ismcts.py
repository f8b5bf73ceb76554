"""Information-set Monte-Carlo tree search (``ismcts``): the search baseline next to the
learned agents, for every game and table size.

ISMCTS (Cowling, Powley and Whitehouse 2012, "Information Set Monte Carlo Tree Search"). Each
iteration

1. draws a determinization: a rules state from the seat's information set
   (``sample_infostate``: everything it cannot see dealt again from the agent's generator);
2. descends the tree along the actions legal in *that* determinization, choosing with UCB1
   on the acting seat's own mean return, where an action's exploration term counts the
   iterations in which it was available (legal) rather than its node's visits;
3. adds one untried legal action;
4. plays uniformly random legal moves on the pure rules to the end of the game;
5. adds every seat's return to every node and action on the path.

The root action played is the most visited one; the tree is built anew for every decision.

What a node is (option ``nodes``):

- ``observations`` (default): a decision node is the acting seat and *its own observation*
  (the env's encoded observation, a transposition table), so no seat's choice inside the
  search depends on what that seat cannot see, as in Cowling's multiple-observer ISMCTS.
  It costs one observation encoding per tree step (not per rollout step).
- ``actions``: the textbook single-observer SO-ISMCTS, nodes are action sequences from the
  root (every seat's actions). Cheaper, but an opponent's node follows the searching seat's
  face-down action as if it were visible (in Promise War the later pickers of a trick "see"
  the earlier picks inside the search), which makes the search cautious.

The agent is a *search agent* (``needs_state = True``, ``agents.base``): it answers
``act_searching(observation, sampled_state)``, and the harness's ``choose`` hands it a state
whose hidden cards were already redrawn, so it never holds the true ones. Before searching it
puts that copy into a canonical form (``canonical_infostate``), so the decision depends only
on the seat's information set and the agent's seed, bit for bit, whatever the true hidden
cards are (a test checks it for every game).

Spec: ``ismcts:iterations=100,c=1.4,nodes=observations`` (``iterations`` 1..100000,
determinizations per decision; ``c`` the UCB1 exploration constant, >= 0, 1.4 = Cowling's
0.7 on [0, 1] rewards scaled to the games' [-1, 1] returns). The seed is the harness's
(``make_agent(spec, seed)``; tournaments and records reseed every game). It plays in the
scalar harnesses (eval without ``--vector`` or ``--field``, play, serve, tournaments, the
records) and row by row on the batched engine only where the caller passes ``state_of``
(``agents.batched``). ``bench/ismcts_time.py`` measures the time per decision. A harness
with a time budget sets ``should_stop`` (``agents.table.Table`` does for the web table): the
search then ends early with the most visited action so far, so such a decision depends on
timing too.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from cardarena.envs.core import InvalidConfigError
from cardarena.envs.core.validation import check_choice, check_int

from .base import BaseAgent, EnvSpec, Observation, legal_actions, sample_infostate
from .specs import register_agent

#: Most iterations per decision (a bound on time and memory, roughly a minute per decision).
MAX_ITERATIONS = 100_000
#: Largest exploration constant accepted (far past any useful value).
MAX_EXPLORATION = 100.0
#: Rollout moves between two polls of ``should_stop`` (a long game's rollout takes seconds).
STOP_POLL_STEPS = 256
#: What a tree node is (module docstring).
NODE_KINDS = ("observations", "actions")


class _SortingRandom:
    """Stands in for a generator so that ``resample_from_infostate`` deals the hidden cards
    out in sorted order: every shuffle sorts, every permutation is the identity, every integer
    is the lowest. The result is a state of the same information set that depends on that set
    alone."""

    def shuffle(self, items: Any) -> None:
        if isinstance(items, np.ndarray) and items.ndim != 1:
            raise TypeError("only one-dimensional shuffles have a sorted stand-in")
        items.sort()

    def permutation(self, items: Any) -> np.ndarray:
        if isinstance(items, (int, np.integer)):
            return np.arange(int(items))
        return np.sort(np.asarray(items))

    def integers(self, low: Any, high: Any = None, size: Any = None, **_: Any) -> Any:
        value = 0 if high is None else low
        return value if size is None else np.full(size, value, np.int64)


def canonical_infostate(state: Any, seat: int) -> Any:
    """A copy of ``state`` of the same information set of ``seat`` that depends on that set
    only: the game's own ``resample_from_infostate`` with shuffles that sort (twice, so that
    cards dealt into places chosen by position settle too). A game whose resampling draws in
    another way (no such game today) gets a plain copy: the search stays a fair draw from the
    information set, only not bit-identical across the hidden cards."""
    sorting: Any = _SortingRandom()
    try:
        return state.resample_from_infostate(seat, sorting).resample_from_infostate(seat, sorting)
    except (AttributeError, TypeError, ValueError):
        return state.clone()


class _Node:
    """A decision node (its ``children`` are its actions' statistics) or one action's
    statistics: visits, availability and every seat's return sum. With ``nodes=actions`` an
    action's statistics are also the node that follows it."""

    __slots__ = ("available", "children", "totals", "visits")

    def __init__(self, players: int) -> None:
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.available = 1
        self.totals = [0.0] * players


class ISMCTSAgent(BaseAgent):
    """ISMCTS with random rollouts on the rules (module docstring); a search agent."""

    spec = "ismcts"
    needs_state: ClassVar[bool] = True

    def __init__(
        self,
        seed: int | None = None,
        iterations: int = 100,
        c: float = 1.4,
        nodes: str = "observations",
    ) -> None:
        super().__init__(seed)
        self.nodes = check_choice(nodes, "ismcts: nodes", NODE_KINDS)
        self._encoder: tuple[EnvSpec, Any, Any] | None = None
        self.iterations = check_int(iterations, "ismcts: iterations", 1, MAX_ITERATIONS)
        if (
            isinstance(c, bool)
            or not isinstance(c, (int, float))
            or not math.isfinite(c)
            or not 0 <= c <= MAX_EXPLORATION
        ):
            raise InvalidConfigError(
                f"ismcts: c (the exploration constant) must be a number in [0, "
                f"{MAX_EXPLORATION:g}], got {c!r}"
            )
        self.c = float(c)
        #: Root action -> visits of the last search (empty after a forced move): the
        #: agent's action distribution, for tests and analysis.
        self.root_visits: dict[int, int] = {}
        #: Set by a harness with a budget (the web table): polled between iterations and
        #: every ``STOP_POLL_STEPS`` moves of a rollout; once it returns True the search ends
        #: and the most visited action so far is played (the lowest legal one if none was).
        self.should_stop: Callable[[], bool] | None = None

    def start_game(self, seat: str, env_spec: EnvSpec) -> None:
        super().start_game(seat, env_spec)
        if self.nodes == "observations" and (self._encoder is None or self._encoder[0] != env_spec):
            raw = env_spec.make_raw()
            self._encoder = (env_spec, raw, raw.layout.buffer())

    def act(self, observation: Observation) -> int:
        raise TypeError(
            f"{self!r} is a search agent: it needs a sampled rules state, so call "
            "cardarena.agents.choose(agent, observation, env, seat) (every cardarena harness "
            "does) instead of act(observation)"
        )

    def act_searching(self, observation: Observation, sampled_state: Any) -> int:
        """The most visited root action after ``iterations`` iterations from
        ``sampled_state`` (a state drawn from this seat's information set)."""
        legal = legal_actions(observation)
        seat = int(sampled_state.current_player())
        if not np.array_equal(
            np.asarray(observation["action_mask"], bool), sampled_state.legal_action_mask()
        ):
            raise ValueError(
                "the sampled state's legal actions differ from the observation's: the harness "
                "handed the state of another seat or another moment"
            )
        if legal.size == 1:
            self.root_visits = {}
            return int(legal[0])
        base = canonical_infostate(sampled_state, seat)
        if getattr(base, "events", None) is not None:
            base.events = None  # the search's moves are nobody's story (and logging is slow)
        root = self._search(base, seat)
        self.root_visits = {a: child.visits for a, child in sorted(root.children.items())}
        best = max(
            legal.tolist(),
            key=lambda a: (
                (root.children[a].visits, root.children[a].totals[seat], -a)
                if a in root.children
                else (0, 0.0, -a)
            ),
        )
        return int(best)

    def _search(self, base: Any, seat: int) -> _Node:
        players = len(base.agent_names)
        root = _Node(players)
        keyed = self.nodes == "observations"
        if keyed:
            if self._encoder is None:
                raise RuntimeError(f"{self!r}: call start_game(seat, env_spec) before searching")
            _, raw, buffer = self._encoder
            encode, views, flat = raw.encode, buffer.views, buffer.array
            table: dict[tuple[int, bytes], _Node] = {}

            def node_of(state: Any, player: int) -> _Node:
                buffer.clear()
                encode(state, player, views)
                key = (player, flat.tobytes())
                found = table.get(key)
                if found is None:
                    found = table[key] = _Node(players)
                return found

            root = node_of(base, seat)
        rng = self.rng
        draw = random.Random(int(rng.integers(2**63))).random
        c = self.c
        sqrt, log = math.sqrt, math.log
        stop = self.should_stop
        for _ in range(self.iterations):
            if stop is not None and stop():
                break
            state = sample_infostate(base, seat, rng)
            node: _Node | None = root
            path = [root]
            while not (state.is_terminal() or state.is_truncated()):
                player = state.current_player()
                if node is None:
                    node = node_of(state, player)
                legal = state.legal_action_mask().nonzero()[0].tolist()
                children = node.children
                untried = [a for a in legal if a not in children]
                if untried:
                    action = untried[int(draw() * len(untried))]
                    for a in legal:
                        if a in children:
                            children[a].available += 1
                    node = children[action] = _Node(players)
                    state.apply_legal_action(action)
                    path.append(node)
                    break
                best_score = -math.inf
                action = legal[0]
                for a in legal:
                    child = children[a]
                    child.available += 1
                    score = child.totals[player] / child.visits + c * sqrt(
                        log(child.available) / child.visits
                    )
                    if score > best_score:
                        best_score, action = score, a
                edge = children[action]
                state.apply_legal_action(action)
                path.append(edge)
                # The next node: the edge's own subtree, or the next acting seat's view.
                node = None if keyed else edge
            rollout = 0
            while not (state.is_terminal() or state.is_truncated()):
                moves = state.legal_action_mask().nonzero()[0]
                state.apply_legal_action(int(moves[int(draw() * moves.size)]))
                rollout += 1
                if stop is not None and rollout % STOP_POLL_STEPS == 0 and stop():
                    return root  # this iteration is dropped unscored
            returns = state.returns()
            for visited in path:
                visited.visits += 1
                totals = visited.totals
                for index in range(players):
                    totals[index] += returns[index]
        return root

    def __repr__(self) -> str:
        return f"<ISMCTSAgent {self.spec!r} iterations={self.iterations} c={self.c:g}>"


def _ismcts(
    seed: int | None = None, iterations: int = 100, c: float = 1.4, nodes: str = "observations"
) -> ISMCTSAgent:
    return ISMCTSAgent(seed, iterations=iterations, c=c, nodes=nodes)


register_agent(
    "ismcts",
    _ismcts,
    "information-set MCTS on sampled hidden cards (options iterations=100, c=1.4, nodes)",
)

__all__ = ["MAX_ITERATIONS", "ISMCTSAgent", "canonical_infostate"]
