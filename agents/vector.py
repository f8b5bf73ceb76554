"""Agents that act for many games at once: the opponents of the vector training envs.

A ``VectorAgent`` answers ``act(observations, masks, seats, slots, rng)`` for any subset of
``M`` rows: each row is one game's seat to act, its observation *raw* (unscaled, as the env's
``observe`` gives it) and its legal mask; ``slots`` are the games' indices in their batch (an
agent that remembers things within a game keys its memory by slot and seat) and
``new_games(slots)`` says those games start anew. Randomness comes only from the ``rng`` the
caller passes, so a seeded batch replays exactly.

``vector_agent(spec_or_agent, env_spec)`` turns an agent spec string (``"random"``,
``"heuristic"``, ``"pretrained"``, an exported ``.npz``, a saved ``.zip`` or a checkpoint
folder) or a scalar ``Agent`` into its vector twin, or None when it has none (a torch
``MaskablePolicyAgent``, the Cardline knowledge agents, a person). ``rows_agent`` plays any
scalar ``Agent`` row by row behind the same interface, slowly, for those. A search agent
(``ismcts``: ``needs_state``) has no vector form and plays row by row only when the caller
passes ``state_of`` (the batch's ``state_of(slot)``, e.g. ``BatchEnv.state_of``), which gives
each row's rules state for ``choose`` to resample; without it ``as_vector`` refuses it.
"""

from __future__ import annotations

import copy
import importlib
import inspect
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from cardarena.envs.core import InvalidConfigError
from cardarena.envs.core.kernels import random_legal_actions
from cardarena.envs.core.moved import deprecate

from .base import Agent, EnvSpec, choose, needs_state
from .heuristics import HeuristicAgent, has_heuristic
from .numpy_policy import ACTIVATIONS, NumpyPolicy, NumpyPolicyAgent
from .policy_agent import MaskablePolicyAgent
from .pretrained import PretrainedAgent
from .rows_parallel import Row, RowWorkers, begin_game, current_search_jobs
from .specs import entry_of, make_agent, register_vector_form, spec_entry

#: Env name -> ``"module:Class"`` of its vector heuristic (``act(observations, masks, seats,
#: rng[, slots])``, optionally ``new_games(slots)``), imported on first use; a game whose
#: module is missing or unfinished simply has no vector heuristic.
VECTOR_HEURISTICS: dict[str, str] = {
    "promise_war_v0": "cardarena.agents.heuristics.vector_promise_war:VectorPromiseWarHeuristic",
    "ironman_war_v0": "cardarena.agents.heuristics.vector_ironman_war:VectorIronManWarHeuristic",
    "beast_wars_v0": "cardarena.agents.heuristics.vector_beast_wars:VectorBeastWarsHeuristic",
    "cardline_v0": "cardarena.agents.heuristics.vector_cardline:VectorCardlineHeuristic",
}


@runtime_checkable
class VectorAgent(Protocol):
    """Acts for ``M`` rows at once (module docstring)."""

    def act(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        seats: np.ndarray,
        slots: np.ndarray,
        rng: np.random.Generator,
    ) -> np.ndarray:
        """One legal action per row (int64 ``[M]``): ``observations`` float32 ``[M, D]`` raw,
        ``masks`` bool ``[M, A]`` (every row has a legal action), ``seats`` and ``slots``
        int64 ``[M]``."""
        ...

    def new_games(self, slots: np.ndarray) -> None:
        """The games in ``slots`` start anew: forget what was remembered of them."""
        ...


class VectorRandom:
    """Uniformly random legal actions, one uniform per row from ``rng``."""

    spec = "random"

    def act(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        seats: np.ndarray,
        slots: np.ndarray,
        rng: np.random.Generator,
    ) -> np.ndarray:
        return random_legal_actions(np.ascontiguousarray(masks, np.bool_), rng)

    def new_games(self, slots: np.ndarray) -> None:
        pass

    def __repr__(self) -> str:
        return "VectorRandom()"


class VectorPolicy:
    """A ``NumpyPolicy`` (shipped ``pretrained`` agents, exports, self-play snapshots) for all
    rows in one matrix product per layer: rows scaled with the policy's own offset and factor,
    then the masked argmax, or with ``deterministic=False`` one draw per row from the masked
    softmax (inverse CDF on one uniform per row from ``rng``)."""

    def __init__(self, policy: NumpyPolicy, deterministic: bool = True) -> None:
        self.policy = policy
        self.deterministic = bool(deterministic)
        self._layers = [(np.ascontiguousarray(w.T), b) for w, b in policy.layers]
        self._activate = ACTIVATIONS[policy.activation]

    def logits(self, observations: np.ndarray) -> np.ndarray:
        """float32 ``[M, A]`` logits of raw observation rows ``[M, D]``."""
        policy = self.policy
        x = (np.asarray(observations, np.float32) - policy.offset) * policy.factor
        for weight_t, bias in self._layers[:-1]:
            x = self._activate(x @ weight_t + bias)
        weight_t, bias = self._layers[-1]
        return x @ weight_t + bias

    def act(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        seats: np.ndarray,
        slots: np.ndarray,
        rng: np.random.Generator,
    ) -> np.ndarray:
        masks = np.asarray(masks, np.bool_)
        if masks.shape[0] == 0:
            return np.zeros(0, np.int64)
        if not masks.any(axis=1).all():
            raise ValueError("every row needs a legal action (the seat to act's mask)")
        logits = np.where(masks, self.logits(observations), -np.inf)
        if self.deterministic:
            return np.argmax(logits, axis=1).astype(np.int64)
        shifted = np.exp((logits - logits.max(axis=1, keepdims=True)).astype(np.float64))
        cdf = np.cumsum(shifted, axis=1)
        targets = rng.random(masks.shape[0]) * cdf[:, -1]
        # The first action whose cumulative weight passes the target: never an illegal one
        # (its weight is exactly 0, so it cannot be where the sum first passes).
        return (cdf <= targets[:, None]).sum(axis=1).astype(np.int64)

    def new_games(self, slots: np.ndarray) -> None:
        pass

    def __repr__(self) -> str:
        source = self.policy.meta.get("source") or self.policy.meta.get("env")
        return f"VectorPolicy({source!r}, deterministic={self.deterministic})"


class VectorHeuristic:
    """A game's vector heuristic behind the ``VectorAgent`` signature (the heuristics take
    ``rng`` before an optional ``slots``)."""

    spec = "heuristic"

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self._takes_slots = "slots" in inspect.signature(inner.act).parameters
        self._new_games = getattr(inner, "new_games", None)

    def act(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        seats: np.ndarray,
        slots: np.ndarray,
        rng: np.random.Generator,
    ) -> np.ndarray:
        if self._takes_slots:
            actions = self.inner.act(observations, masks, seats, rng=rng, slots=slots)
        else:
            actions = self.inner.act(observations, masks, seats, rng=rng)
        return np.asarray(actions, np.int64)

    def new_games(self, slots: np.ndarray) -> None:
        if self._new_games is not None:
            self._new_games(slots)

    def __repr__(self) -> str:
        return f"VectorHeuristic({type(self.inner).__name__})"


def vector_heuristic(env_spec: EnvSpec) -> VectorHeuristic | None:
    """A new instance of ``env_spec``'s vector heuristic, or None if it has none (yet)."""
    target = VECTOR_HEURISTICS.get(env_spec.name)
    if target is None:
        return None
    module_name, _, class_name = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as missing:
        if missing.name is not None and module_name.endswith(missing.name.rpartition(".")[2]):
            return None  # not written yet
        raise
    built = getattr(module, class_name, None)
    if built is None:
        return None
    return VectorHeuristic(built(env_spec))


class RowsAgent:
    """Any scalar ``Agent`` as a ``VectorAgent``, one ``act`` call per row (slow: for agents
    without a vector form). Every (slot, seat) gets its own copy of the prototype, told
    ``start_game`` and reseeded from ``rng`` before its first move of each game, as the
    single-game bridge treats its drawn opponents. A torch ``MaskablePolicyAgent`` (no memory,
    no generator, a model too big to copy per seat) is shared by every row. A search agent
    needs ``state_of`` (slot -> that game's rules state now; module docstring)."""

    def __init__(
        self,
        prototype: Agent | str,
        env_spec: EnvSpec,
        state_of: Callable[[int], Any] | None = None,
    ) -> None:
        self.prototype = prototype
        self.env_spec = env_spec
        self.state_of: Callable[[int], Any] = state_of or _no_state
        sample = make_agent(prototype) if isinstance(prototype, str) else prototype
        self._searching = needs_state(sample)
        if self._searching and state_of is None:
            raise InvalidConfigError(
                f"{sample!r} is a search agent: it plays on the vector engine only when the "
                "caller gives each game's rules state (as_vector(agent, env_spec, "
                "state_of=batch.state_of)); play it in a scalar harness instead: eval "
                "without --vector or --field, play, serve, a tournament"
            )
        self.seat_names = list(env_spec.make_raw().possible_agents)
        self._shared = prototype if isinstance(prototype, MaskablePolicyAgent) else None
        self._agents: dict[tuple[int, int], Agent] = {}
        self._fresh: set[tuple[int, int]] = set()
        # Inside search_jobs(n), a search agent's rows go to n worker processes (made at the
        # first move), with the same moves (agents.rows_parallel).
        self._jobs = current_search_jobs() if self._searching else 1
        self._reseeds = hasattr(sample, "seed")
        self._workers: RowWorkers | None = None
        self._known: set[tuple[int, int]] = set()

    def _turn(self, key: tuple[int, int], rng: np.random.Generator) -> tuple[bool, int | None]:
        """Whether ``key``'s agent starts a game with this move (its first move ever, or the
        first since ``new_games``), and then the reseed drawn for it from ``rng``, in row
        order (None: the agent has no ``seed``)."""
        if key not in self._known:
            self._known.add(key)
            self._fresh.add(key)
        if key not in self._fresh:
            return False, None
        self._fresh.discard(key)
        return True, int(rng.integers(2**63)) if self._reseeds else None

    def _agent(self, key: tuple[int, int], rng: np.random.Generator) -> Agent:
        if self._shared is not None:
            return self._shared
        fresh, seed = self._turn(key, rng)
        agent = self._agents.get(key)
        if agent is None:
            proto = self.prototype
            agent = make_agent(proto) if isinstance(proto, str) else copy.deepcopy(proto)
            self._agents[key] = agent
        if fresh:
            begin_game(agent, seed, self.seat_names[key[1]], self.env_spec)
        return agent

    def act(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        seats: np.ndarray,
        slots: np.ndarray,
        rng: np.random.Generator,
    ) -> np.ndarray:
        if self._jobs > 1:
            return self._act_in_workers(observations, masks, seats, slots, rng)
        out = np.zeros(len(seats), np.int64)
        for m in range(len(seats)):
            agent = self._agent((int(slots[m]), int(seats[m])), rng)
            view = _row_view(observations, masks, m)
            if self._searching:
                state = self.state_of(int(slots[m]))
                out[m] = int(choose(agent, view, state, int(seats[m])))
            else:
                out[m] = int(agent.act(view))
        return out

    def _act_in_workers(
        self,
        observations: np.ndarray,
        masks: np.ndarray,
        seats: np.ndarray,
        slots: np.ndarray,
        rng: np.random.Generator,
    ) -> np.ndarray:
        """``act`` on the workers: ``_turn`` draws the reseeds here, in row order, as for
        ``_agent``, and each worker plays its agents as ``_agent`` would."""
        if self._workers is None:
            proto = self.prototype
            prototype = make_agent(proto) if isinstance(proto, str) else proto
            self._workers = RowWorkers(prototype, self.env_spec, self.seat_names, self._jobs)
        rows: list[Row] = []
        for m in range(len(seats)):
            key = (int(slots[m]), int(seats[m]))
            fresh, seed = self._turn(key, rng)
            view = _row_view(observations, masks, m)
            rows.append((key[0], key[1], fresh, seed, view, self.state_of(key[0])))
        return np.asarray(self._workers.act(rows), np.int64)

    def new_games(self, slots: np.ndarray) -> None:
        for slot in np.asarray(slots, np.int64).tolist():
            self._fresh.update((slot, seat) for seat in range(len(self.seat_names)))

    def __repr__(self) -> str:
        return f"RowsAgent({self.prototype!r})"


def _row_view(observations: np.ndarray, masks: np.ndarray, m: int) -> dict[str, np.ndarray]:
    """Row ``m`` as the observation dict a scalar agent reads."""
    return {
        "observation": np.array(observations[m], np.float32),
        "action_mask": masks[m].astype(np.int8),
    }


def _no_state(slot: int) -> Any:
    raise InvalidConfigError("this RowsAgent was given no state_of: it cannot play a search agent")


def _policy_for(policy: NumpyPolicy, env_spec: EnvSpec, deterministic: bool) -> VectorPolicy:
    raw = env_spec.make_raw()
    seat = raw.possible_agents[0]
    policy.check_env(
        raw.observation_space(seat)["observation"], int(raw.action_space(seat).n), env_spec.name
    )
    return VectorPolicy(policy, deterministic)


def vector_agent(spec_or_agent: Any, env_spec: EnvSpec) -> VectorAgent | None:
    """The vector form of an agent spec string or a scalar agent for ``env_spec``'s games, or
    None when it has none: the form its kind registered (``register_vector_form``). A bad
    spec, or an agent that cannot play this env (a policy trained for another one,
    ``heuristic`` in a game without one), raises ``InvalidConfigError``. ``env_spec`` is the
    unscaled env (no ``normalize_observation``): rows are raw."""
    item = spec_or_agent
    if isinstance(item, NumpyPolicy):
        return _policy_for(item, env_spec, not item.samples)
    if isinstance(item, str):
        item = make_agent(item)
    if _is_vector_agent(item):
        return item
    if not isinstance(item, Agent):
        raise InvalidConfigError(f"expected an agent, a vector agent or a spec, got {item!r}")
    entry = entry_of(item)
    if entry is None or entry.vector is None:
        return None
    return entry.vector(item, env_spec)


def _random_form(agent: Agent, env_spec: EnvSpec) -> VectorAgent:
    return VectorRandom()


def _heuristic_form(agent: Agent, env_spec: EnvSpec) -> VectorAgent | None:
    if not has_heuristic(env_spec.name):
        heuristic: HeuristicAgent = copy.deepcopy(agent)  # type: ignore[assignment]
        heuristic.start_game("", env_spec)  # raises, naming the envs it plays
    return vector_heuristic(env_spec)


def _pretrained_form(agent: Agent, env_spec: EnvSpec) -> VectorAgent:
    pretrained: PretrainedAgent = agent  # type: ignore[assignment]
    # The very file its start_game would play (chosen by table size), played as it would.
    policy = pretrained.policy_for(env_spec)
    return VectorPolicy(policy, pretrained.greedy_with(policy))


def _saved_policy_form(agent: Agent, env_spec: EnvSpec) -> VectorAgent | None:
    """An exported policy, a checkpoint or a saved SB3 model, as the numpy policy it plays
    (None: a model only torch can run, ``trust_pickle`` with a custom network)."""
    loaded: Any = copy.deepcopy(agent)
    numpy_agent = isinstance(loaded, NumpyPolicyAgent)
    if not numpy_agent or loaded.policy is None:
        seat = env_spec.make_raw().possible_agents[0]
        loaded.start_game(seat, env_spec)
    policy = getattr(loaded, "policy" if numpy_agent else "_policy", None)
    if not isinstance(policy, NumpyPolicy):
        return None
    return _policy_for(policy, env_spec, loaded.deterministic)


#: Why the kinds without a vector form play row by row (each a scalar call per game).
ROW_BY_ROW = {
    "oracle": "it reads the true card values of each game's deck, one game at a time",
    "noisy": "it draws its noise per card from its own generator, one game at a time",
    "memory": "it remembers revealed values across games, which a row of a batch cannot",
    "habit": "its plans are written for one game (no vector form yet)",
    "ismcts": "a search plays each game from that game's own state (RowsAgent gives it one)",
}
for _name, _build in (
    ("random", _random_form),
    ("heuristic", _heuristic_form),
    ("pretrained", _pretrained_form),
    ("exported", _saved_policy_form),
    ("checkpoint", _saved_policy_form),
    ("sb3-zip", _saved_policy_form),
):
    register_vector_form(_name, _build)
for _name, _why in ROW_BY_ROW.items():
    register_vector_form(_name, rows=_why)


def _is_vector_agent(item: Any) -> bool:
    """A user's own vector agent (``act`` takes ``slots``, it has ``new_games``)."""
    act = getattr(item, "act", None)
    if act is None or not hasattr(item, "new_games"):
        return False
    try:
        return "slots" in inspect.signature(act).parameters
    except (TypeError, ValueError):
        return False


def as_vector(
    spec_or_agent: Any, env_spec: EnvSpec, state_of: Callable[[int], Any] | None = None
) -> VectorAgent:
    """``vector_agent``, falling back to ``RowsAgent`` (row by row) when there is no vector
    form; ``state_of`` (slot -> rules state) lets a search agent play that way, and without it
    a search agent is refused with ``InvalidConfigError``."""
    agent = vector_agent(spec_or_agent, env_spec)
    if agent is not None:
        return agent
    _say_row_by_row(spec_or_agent)
    return RowsAgent(spec_or_agent, env_spec, state_of)


def _say_row_by_row(spec_or_agent: Any) -> None:
    """Warn, once per kind, when a kind that declared no vector form plays row by row: it
    runs, one scalar call per game, but a batch of thousands of games is then no faster than
    that many games one by one."""
    item = spec_or_agent
    entry = spec_entry(item) if isinstance(item, str) else entry_of(item)
    if entry is not None and entry.rows is not None:
        return  # declared (``ROW_BY_ROW``): it says why in the registry
    if entry is not None and entry.vector is not None:
        return  # it has a form, but not this instance (a model only torch runs)
    kind = item.partition(":")[0] if isinstance(item, str) else type(item).__qualname__
    if kind in _SAID:
        return
    _SAID.add(kind)
    warnings.warn(
        f"{kind} has no vector form (cardarena.agents.register_vector_form): it plays row by "
        "row, one call per game",
        UserWarning,
        stacklevel=3,
    )


#: The kinds already warned about in this process.
_SAID: set[str] = set()


if not TYPE_CHECKING:
    # The old names, from before "vector" replaced "batched" (cardarena.envs.core.moved).
    __getattr__ = deprecate(
        __name__,
        names={
            "BATCHED_HEURISTICS": "VECTOR_HEURISTICS",
            "BatchedAgent": "VectorAgent",
            "BatchedHeuristic": "VectorHeuristic",
            "BatchedPolicy": "VectorPolicy",
            "BatchedRandom": "VectorRandom",
            "as_batched": "as_vector",
            "batched_agent": "vector_agent",
            "batched_heuristic": "vector_heuristic",
        },
    )

__all__ = [
    "ROW_BY_ROW",
    "VECTOR_HEURISTICS",
    "RowsAgent",
    "VectorAgent",
    "VectorHeuristic",
    "VectorPolicy",
    "VectorRandom",
    "as_vector",
    "vector_agent",
    "vector_heuristic",
]
