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

Guided by a network (option ``policy``: ``pretrained``, the shipped network for the table,
or an exported ``.npz``): every decision node holds the network's probabilities over its legal
actions as a prior, the descent chooses by PUCT (AlphaZero's rule: mean return plus ``c``
times the prior times the square root of the node's visits over one plus the action's;
unvisited actions count a return of 0, the middle of the games' [-1, 1]), the leaf's
unvisited action is the one chosen, and option ``rollout`` (``policy``, the default with a
network, or ``random``) plays the rollout with the network sampling every seat's moves from
that seat's own observation. Option ``leaf=value`` replaces the rollout by the network's value
head, read from every seat's own observation at the leaf (each seat's estimated return, clipped
to [-1, 1]); it needs a file exported with ``cardarena export --value`` (the shipped networks
have none, so by default the network's value is its own play to the end). Option ``others``
says how the other seats choose inside the tree: ``search`` (default: PUCT on their own
returns, as a strong opponent would), ``policy`` (sampled from the network) or ``greedy`` (the
network's best action, as ``pretrained`` plays): the last two search for a reply to the network
itself rather than to the best opponent. The prior needs the seat's observation at each node,
so a network needs ``nodes=observations``.

Spec: ``ismcts:iterations=100,c=1.4,nodes=observations`` (``iterations`` 1..100000,
determinizations per decision; ``c`` the UCB1 exploration constant, >= 0, 1.4 = Cowling's
0.7 on [0, 1] rewards scaled to the games' [-1, 1] returns). The seed is the harness's
(``make_agent(spec, seed)``; tournaments and records reseed every game). It plays in the
scalar harnesses (eval without ``--vector`` or ``--field``, play, serve, tournaments, the
records) and row by row on the vector engine only where the caller passes ``state_of``
(``agents.vector``). ``bench/ismcts_time.py`` measures the time per decision. A harness
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
from .pretrained import PretrainedAgent
from .specs import register_agent

#: Most iterations per decision (a bound on time and memory, roughly a minute per decision).
MAX_ITERATIONS = 100_000
#: Largest exploration constant accepted (far past any useful value).
MAX_EXPLORATION = 100.0
#: Rollout moves between two polls of ``should_stop`` (a long game's rollout takes seconds).
STOP_POLL_STEPS = 256
#: What a tree node is (module docstring).
NODE_KINDS = ("observations", "actions")
#: How a rollout picks its moves (module docstring; ``policy`` needs a network).
ROLLOUTS = ("random", "policy")
#: How the other seats choose inside the tree (module docstring; ``policy`` needs a network).
OTHERS = ("search", "policy", "greedy")
#: How a leaf is scored (module docstring; ``value`` needs a network with a value head).
LEAVES = ("rollout", "value")


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

    __slots__ = ("available", "children", "prior", "totals", "visits")

    def __init__(self, players: int) -> None:
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.available = 1
        self.totals = [0.0] * players
        #: A guided search's network probabilities per action at this decision node.
        self.prior: list[float] | None = None


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
        policy: str | None = None,
        rollout: str | None = None,
        others: str = "search",
        leaf: str = "rollout",
    ) -> None:
        super().__init__(seed)
        self.nodes = check_choice(nodes, "ismcts: nodes", NODE_KINDS)
        self.policy = policy
        self.guide = _network_agent(policy, self.nodes)
        self.others = check_choice(others, "ismcts: others", OTHERS)
        if self.others != "search" and self.guide is None:
            raise InvalidConfigError(
                f"ismcts: others={self.others} needs a network to model the other seats with "
                "(policy=pretrained or policy=FILE.npz)"
            )
        self.rollout = check_choice(
            rollout if rollout is not None else "random" if policy is None else "policy",
            "ismcts: rollout",
            ROLLOUTS,
        )
        if self.rollout == "policy" and self.guide is None:
            raise InvalidConfigError(
                "ismcts: rollout=policy needs a network to roll out with (policy=pretrained "
                "or policy=FILE.npz)"
            )
        self.leaf = check_choice(leaf, "ismcts: leaf", LEAVES)
        if self.leaf == "value" and self.guide is None:
            raise InvalidConfigError(
                "ismcts: leaf=value needs a network with a value head (policy=FILE.npz, a file "
                "written by cardarena export --value)"
            )
        #: The guiding network for the env of the game being played (``start_game``).
        self.network: Any = None
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
        if self.guide is not None:
            self.network = self.guide.policy_for(env_spec)
            if self.leaf == "value" and not self.network.has_value:
                raise InvalidConfigError(
                    f"ismcts: leaf=value needs a value head, but policy={self.policy} has none "
                    f"for {env_spec.name} (export it with cardarena export --value)"
                )

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

            network = self.network

            def node_of(state: Any, player: int) -> _Node:
                buffer.clear()
                encode(state, player, views)
                key = (player, flat.tobytes())
                found = table.get(key)
                if found is None:
                    found = table[key] = _Node(players)
                    if network is not None:
                        mask = state.legal_action_mask()
                        found.prior = network.probabilities(flat, mask).tolist()
                return found

            root = node_of(base, seat)
        rng = self.rng
        draw = random.Random(int(rng.integers(2**63))).random
        c = self.c
        sqrt, log = math.sqrt, math.log
        stop = self.should_stop
        by_policy = self.rollout == "policy"
        by_value = self.leaf == "value"
        model_others = self.others != "search"
        greedy_others = self.others == "greedy"
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
                if node.prior is not None:  # guided: PUCT over the prior
                    modelled = model_others and player != seat
                    if modelled:  # another seat plays as the network would
                        if greedy_others:
                            action = max(legal, key=node.prior.__getitem__)
                        else:
                            mask = state.legal_action_mask()
                            action = _sample(np.asarray(node.prior), mask, draw())
                    else:
                        action = _puct(node, legal, player, c)
                    edge = children.get(action)
                    state.apply_legal_action(action)
                    if edge is None:
                        edge = children[action] = _Node(players)
                        if not modelled:  # a new leaf: expanded, then rolled out
                            path.append(edge)
                            break
                    path.append(edge)
                    node = None
                    continue
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
            if by_value and not (state.is_terminal() or state.is_truncated()):
                returns = []
                for index in range(players):  # each seat's own estimate, from its own view
                    buffer.clear()
                    encode(state, index, views)
                    returns.append(min(1.0, max(-1.0, self.network.value(flat))))
                _back_up(path, returns, players)
                continue
            rollout = 0
            while not (state.is_terminal() or state.is_truncated()):
                if by_policy:
                    player = state.current_player()
                    mask = state.legal_action_mask()
                    buffer.clear()
                    encode(state, player, views)
                    move = _sample(self.network.probabilities(flat, mask), mask, draw())
                else:
                    moves = state.legal_action_mask().nonzero()[0]
                    move = int(moves[int(draw() * moves.size)])
                state.apply_legal_action(move)
                rollout += 1
                if stop is not None and rollout % STOP_POLL_STEPS == 0 and stop():
                    return root  # this iteration is dropped unscored
            _back_up(path, state.returns(), players)
        return root

    def __repr__(self) -> str:
        guided = (
            ""
            if self.guide is None
            else f" policy={self.policy} rollout={self.rollout} leaf={self.leaf}"
        )
        return f"<ISMCTSAgent {self.spec!r} iterations={self.iterations} c={self.c:g}{guided}>"


def _back_up(path: list[_Node], returns: Any, players: int) -> None:
    """One more visit and every seat's return added to each node and action on ``path``."""
    for visited in path:
        visited.visits += 1
        totals = visited.totals
        for index in range(players):
            totals[index] += returns[index]


def _puct(node: _Node, legal: list[int], player: int, c: float) -> int:
    """The legal action of highest mean return for ``player`` plus ``c * prior *
    sqrt(visits) / (1 + its visits)``, the first of equals (module docstring)."""
    children, prior = node.children, node.prior
    assert prior is not None
    visits = 0
    for a in legal:
        child = children.get(a)
        if child is not None:
            visits += child.visits
    scale = c * math.sqrt(visits) if visits else c
    best_score, best = -math.inf, legal[0]
    for a in legal:
        child = children.get(a)
        if child is None or not child.visits:
            score = scale * prior[a]
        else:
            score = child.totals[player] / child.visits + scale * prior[a] / (1 + child.visits)
        if score > best_score:
            best_score, best = score, a
    return best


def _sample(probabilities: np.ndarray, mask: np.ndarray, u: float) -> int:
    """The action at ``u`` in [0, 1) of the cumulative ``probabilities`` (inverse CDF); a
    ``u`` past a sum rounded below 1 takes the last legal action."""
    action = int(np.searchsorted(np.cumsum(probabilities), u, side="right"))
    if action >= probabilities.size or not mask[action]:
        action = int(np.flatnonzero(mask)[-1])
    return action


def _network_agent(policy: str | None, nodes: str) -> PretrainedAgent | None:
    """The ``pretrained`` agent whose network guides the search (``policy``: ``pretrained`` or
    a ``.npz`` path), or None; refused with ``nodes=actions`` (no observation per node)."""
    if policy is None:
        return None
    if not isinstance(policy, str) or not policy:
        raise InvalidConfigError(
            f"ismcts: policy must be 'pretrained' or the path of an exported .npz, got {policy!r}"
        )
    if nodes != "observations":
        raise InvalidConfigError(
            "ismcts: a policy needs nodes=observations (its prior is read from the observation "
            f"of each node), got nodes={nodes}"
        )
    return PretrainedAgent(path=None if policy == "pretrained" else policy)


register_agent(
    "ismcts",
    ISMCTSAgent,
    "information-set MCTS on sampled hidden cards (options iterations=100, c=1.4, nodes, "
    "policy=pretrained|FILE.npz to guide it with a network, rollout=policy|random, "
    "leaf=rollout|value)",
    kinds=(ISMCTSAgent,),
)

__all__ = ["MAX_ITERATIONS", "ISMCTSAgent", "canonical_infostate"]
