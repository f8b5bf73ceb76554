"""A person's seat at a table of agents: the one game loop text play (``cardarena play``) and
the web table (``cardarena serve``) share.

``Table`` deals a game of any registered env, seats a person and fills every other seat with
an agent from one spec, and plays the agents' turns until the person is to act or the game is
over. What the person may know comes only from three places, each limited to their seat:
``view()`` (the env's ``table_view``), ``story()`` (the event lines they saw since they last
asked; ``core.events``) and ``legal_actions()``. The rules state is never handed out.
"""

from __future__ import annotations

import math
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from cardarena.envs import make_raw
from cardarena.envs.core import InvalidConfigError, check_seed
from cardarena.envs.core.events import Event

from .base import EnvSpec, choose, needs_state, start_game
from .specs import make_agent

#: The largest seed a fresh deal draws (printed so the game can be dealt again).
FRESH_SEED_LIMIT = 2**31


def fresh_seed() -> int:
    """A seed for a new deal (from the operating system, not from any game generator)."""
    return secrets.randbelow(FRESH_SEED_LIMIT)


@dataclass(frozen=True)
class Outcome:
    """How the game ended for the person: ``result`` is "won", "lost", "drew" or
    "truncated"; ``line`` says it in a sentence with the scores."""

    result: str
    line: str
    returns: dict[str, float]


class Table:
    """One game: ``env_name`` with ``config``, the person in ``seat`` (the first seat by
    default), every other seat played by ``make_agent(vs)``; dealt from ``seed`` (a fresh one
    when None; ``seed`` tells which).

    Agent seeds derive from the deal's seed, so the same seed and the same moves replay the
    same game, unless ``think_seconds`` cut a search agent's decision short (the web table's
    budget; ``actions`` still replay it exactly). A ``vs`` that cannot play this config (a
    pretrained agent for another table size or variant) is refused here with the agent's own
    message. ``stop`` ends the agents' first turns early, as in ``advance``.
    """

    def __init__(
        self,
        env_name: str,
        vs: str,
        seat: str | None = None,
        seed: int | None = None,
        config: dict[str, Any] | None = None,
        think_seconds: float | None = None,
        stop: threading.Event | None = None,
    ) -> None:
        self.config = dict(config or {})
        #: Most seconds a search agent may think about one decision (None: no limit).
        self.think_seconds = think_seconds
        self.env = make_raw(env_name, render_mode="ansi", **self.config)
        self.env_name = env_name
        self.seats = list(self.env.possible_agents)
        self.human = self.seats[0] if seat is None else seat
        if self.human not in self.seats:
            raise InvalidConfigError(
                f"seat must be one of {', '.join(self.seats)}, got {self.human!r}"
            )
        self.human_index = self.seats.index(self.human)
        self.seed = fresh_seed() if seed is None else check_seed(seed)
        self.vs = vs
        spec = EnvSpec(env_name, self.config)
        self.opponents = {}
        for index, name in enumerate(self.seats):
            if name != self.human:
                agent = make_agent(vs, seed=self.seed * 100 + index)
                start_game(agent, name, spec)
                self.opponents[name] = agent
        self.env.record_events()
        self.env.reset(seed=self.seed)
        #: Every action of the game in order (``play --record`` replays them).
        self.actions: list[int] = []
        self._told = 0  # how far into the state's event log the person has read
        self.advance(stop)

    # --- the game ---------------------------------------------------------------------------
    @property
    def state(self) -> Any:
        return self.env.game_state

    def is_over(self) -> bool:
        return bool(self.state.is_terminal() or self.state.is_truncated())

    def to_act(self) -> bool:
        """Whether the person must choose now."""
        return not self.is_over() and self.env.agent_selection == self.human

    def owes_moves(self) -> bool:
        """Whether agents are to move before the person can (an ``advance`` was stopped)."""
        return not self.is_over() and self.env.agent_selection != self.human

    def advance(self, stop: threading.Event | None = None) -> None:
        """Play the agents' turns until the person is to act or the game is over, or until
        ``stop`` is set (checked between decisions and, through ``should_stop``, inside a
        search agent's; a later ``advance`` goes on from there)."""
        while self.owes_moves() and not (stop is not None and stop.is_set()):
            agent = self.env.agent_selection
            opponent = self.opponents[agent]
            if needs_state(opponent):
                opponent.should_stop = self._budget(stop)  # type: ignore[attr-defined]
            action = int(choose(opponent, self.env.observe(agent), self.env, agent))
            if stop is not None and stop.is_set():
                return  # a decision cut short by the client leaving is not played
            self.env.step(action)  # checked: an agent's illegal action raises here
            self.actions.append(action)

    def _budget(self, stop: threading.Event | None) -> Callable[[], bool] | None:
        """When a search must end: ``think_seconds`` from now, or once ``stop`` is set."""
        if self.think_seconds is None and stop is None:
            return None
        deadline = time.monotonic() + (self.think_seconds or math.inf)
        if stop is None:
            return lambda: time.monotonic() > deadline
        return lambda: stop.is_set() or time.monotonic() > deadline

    def act(self, action: int, stop: threading.Event | None = None) -> None:
        """The person plays ``action``; ``IllegalActionError`` (naming the legal ones) if it is
        not legal or it is not their turn, and nothing changes then. The agents answer as in
        ``advance(stop)``."""
        from cardarena.envs.core import IllegalActionError

        if not self.to_act():
            raise IllegalActionError(
                "the game is over" if self.is_over() else f"it is {self.env.agent_selection}'s turn"
            )
        self.env.step(action)
        self.actions.append(int(action))
        self.advance(stop)

    # --- what the person sees ---------------------------------------------------------------
    def legal_actions(self) -> list[tuple[int, str]]:
        """The person's legal (action, name) pairs now; empty when it is not their turn."""
        if not self.to_act():
            return []
        mask = self.env.legal_mask()
        return [(int(a), self.state.action_to_string(int(a))) for a in np.flatnonzero(mask)]

    def visible_events(self, start: int = 0) -> list[Event]:
        """The events the person saw, from position ``start`` of the whole log on."""
        log = self.state.events or []
        return [e for e in log[start:] if e.visible_to(self.human_index)]

    def describe(self, event: Event) -> str:
        return self.env.describe_event(event, self.human_index)

    def story(self) -> list[str]:
        """The lines the person has not read yet, one per event they saw, in order."""
        log = self.state.events or []
        lines = [self.describe(e) for e in log[self._told :] if e.visible_to(self.human_index)]
        self._told = len(log)
        return lines

    def history(self) -> list[str]:
        """Every line the person saw since the deal (the web table's log)."""
        return [self.describe(event) for event in self.visible_events()]

    def view(self) -> dict[str, Any]:
        return self.env.table_view(self.human_index)

    def svg(self) -> str:
        return self.env.table_svg(self.view(), self.legal_actions())

    def text(self) -> str:
        """The table as text from the person's seat (the env's ``ansi`` render shows the hand
        of the seat to act, which is the person whenever they are asked)."""
        return str(self.env.render())

    def outcome(self) -> Outcome | None:
        """How it ended for the person, or None while the game runs."""
        if not self.is_over():
            return None
        returns = dict(zip(self.seats, map(float, self.state.returns()), strict=True))
        scores = dict(zip(self.seats, map(float, self.state.scores()), strict=True))
        counted = getattr(self.state, "score_name", "scores")  # RulesState names it
        shown = ", ".join(f"{'you' if s == self.human else s} {scores[s]:g}" for s in self.seats)
        shown = f"{counted}: {shown}"
        if self.state.is_truncated():
            return Outcome(
                "truncated", f"the game reached its cap with no winner ({shown})", returns
            )
        mine = returns[self.human]
        best = max(returns.values())
        if mine > 0:
            result, line = "won", "you won"
        elif mine < 0 or mine < best:
            result, line = "lost", "you lost"
        else:
            result, line = "drew", "a draw"
            if len(self.seats) > 2 and any(r < 0 for r in returns.values()):
                line = "you tied for first (a draw)"
        return Outcome(result, f"{line} ({shown})", returns)


__all__ = ["FRESH_SEED_LIMIT", "Outcome", "Table", "fresh_seed"]
