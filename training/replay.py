"""Replays: re-play a ``MatchRecord``'s actions on a fresh env, bit-exactly, without agents.

``replay(record)`` rebuilds the raw env from the record's env id and config, resets it with
the record's seed and applies the recorded actions one by one, yielding after each the acting
seat, the action, its readable name (``state.action_to_string``, taken before the move) and
the table as text (``render()`` in ``ansi`` mode). A record that cannot be this game fails
with ``ReplayError`` saying why: another cardarena version made it (unless
``check_version=False``), an action is not legal at its step (a tampered list, or another
game), the actions run out before the game ends or remain after it, or the game ends with
other returns or another outcome than the record says.

A game ended by an illegal move (``outcome == "illegal_action"``) replays up to that move,
which must be illegal for the recorded offender; it is yielded with the text unchanged, and
the returns are ``env()``'s: -1 to the offender, 0 to everyone else.

A record may come from anyone: whatever it holds, replaying it raises ``ReplayError`` (or the
``InvalidConfigError`` of reading it), never another exception. Its config goes through the
env's own validation and limits (``cardarena.envs.core.validation``), its actions are checked
against the legal mask before each step, and a game cannot outlast its own turn cap, so a
replay costs at most one game of the record's env.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from cardarena.envs import make_raw
from cardarena.envs.core import ILLEGAL_ACTION, TERMINATED, TRUNCATED, CardArenaError
from cardarena.envs.core.untrusted import show
from cardarena.envs.core.wrappers import ILLEGAL_ACTION_REWARD

from .records import MatchRecord, package_version


class ReplayError(CardArenaError, ValueError):
    """A record that cannot be replayed as the game it claims to be."""


@dataclass(frozen=True)
class ReplayStep:
    """One decision of a replayed game and the table after it."""

    agent: str
    action: int
    description: str
    text: str


def _open(record: MatchRecord, check_version: bool) -> Any:
    """The raw env of ``record``, reset with its seed (every check that needs no step)."""
    if check_version and record.version != package_version():
        raise ReplayError(
            f"the record was made with cardarena {record.version} but this is cardarena "
            f"{package_version()}; the rules or the deal may differ (to try anyway: "
            "replay(record, check_version=False), or `cardarena replay --any-version`)"
        )
    try:
        record.check()
    except CardArenaError as error:
        raise ReplayError(f"inconsistent record: {error}") from None
    if not isinstance(record.config, dict) or not all(isinstance(k, str) for k in record.config):
        raise ReplayError(f"the record's config is not an object: {show(record.config)}")
    try:
        env = make_raw(record.env, **{**record.config, "render_mode": "ansi"})
    except (CardArenaError, TypeError, ValueError, OverflowError, RecursionError) as error:
        raise ReplayError(f"cannot rebuild {show(record.env)} from the record: {error}") from None
    if sorted(env.possible_agents) != sorted(record.lineup):
        raise ReplayError(
            f"the record's seats {show(sorted(record.lineup))} are not {record.env}'s seats "
            f"{env.possible_agents} with config {show(record.config)}"
        )
    try:
        env.reset(seed=record.seed)
    except (CardArenaError, TypeError, ValueError, OverflowError) as error:
        raise ReplayError(
            f"cannot reset {record.env} with seed {show(record.seed)}: {error}"
        ) from None
    return env


def initial_text(record: MatchRecord, check_version: bool = True) -> str:
    """The table as text before the first move of ``record``'s game."""
    return str(_open(record, check_version).render())


def replay(record: MatchRecord, check_version: bool = True) -> Iterator[ReplayStep]:
    """The steps of ``record``'s game, re-played on the raw env (module docstring).

    The version, the record's consistency and the env are checked at once; an illegal or
    missing action and the final returns are checked as the iteration reaches them, so a
    caller that shows steps as they come sees every step before the one that fails.
    """
    env = _open(record, check_version)
    return _steps(env, record)


def _steps(env: Any, record: MatchRecord) -> Iterator[ReplayStep]:
    actions = record.actions
    illegal_ended = False
    for index, action in enumerate(actions):
        state = env.game_state
        if state.is_terminal() or state.is_truncated():
            raise ReplayError(
                f"the game ended after {index} actions but the record has {len(actions)}: "
                f"{len(actions) - index} action(s) remain (the action list was tampered with)"
            )
        agent = env.agent_selection
        mask = state.legal_action_mask()
        if not isinstance(action, int) or isinstance(action, bool) or action < 0:
            raise ReplayError(f"action {index} of the record, {show(action)}, is not an action")
        legal = action < len(mask) and bool(mask[action])
        if not legal:
            claimed = (
                record.outcome == ILLEGAL_ACTION
                and index == len(actions) - 1
                and record.offender == agent
                and action < len(mask)
            )
            if claimed:
                yield ReplayStep(
                    agent, action, f"illegal: {state.action_to_string(action)}", env.render()
                )
                illegal_ended = True
                break
            raise ReplayError(
                f"action {index} of the record, {show(action)}, is not legal for {agent} at this "
                f"step (the action list was tampered with, or the record is of another game); "
                f"legal: {_legal_names(state, mask)}"
            )
        if record.outcome == ILLEGAL_ACTION and index == len(actions) - 1:
            raise ReplayError(
                f"the record says {record.offender} ended the game with an illegal action, "
                f"but its last action, {action} ({state.action_to_string(action)}), is legal "
                f"for {agent} (the record was tampered with)"
            )
        description = state.action_to_string(action)
        env.step(action)
        yield ReplayStep(agent, action, description, env.render())
    state = env.game_state
    seats = list(env.possible_agents)
    if illegal_ended:
        outcome = ILLEGAL_ACTION
        returns = {
            seat: ILLEGAL_ACTION_REWARD if seat == record.offender else 0.0 for seat in seats
        }
    else:
        if not (state.is_terminal() or state.is_truncated()):
            raise ReplayError(
                f"the actions ran out after {len(actions)} steps but the game is not over "
                f"({env.agent_selection} is to act; the action list was tampered with)"
            )
        outcome = TERMINATED if state.is_terminal() else TRUNCATED
        returns = {seat: float(value) for seat, value in zip(seats, state.returns(), strict=True)}
    if outcome != record.outcome:
        raise ReplayError(
            f"the replayed game ended {outcome!r} but the record says {record.outcome!r}"
        )
    if returns != record.returns:
        raise ReplayError(
            f"the replayed game's returns {returns} differ from the record's "
            f"{show(record.returns, 200)}"
        )


def _legal_names(state: Any, mask: np.ndarray, limit: int = 12) -> str:
    legal = np.flatnonzero(mask).tolist()
    names = [f"{a} ({state.action_to_string(a)})" for a in legal[:limit]]
    if len(legal) > limit:
        names.append(f"... {len(legal) - limit} more")
    return ", ".join(names) or "none"


__all__ = ["ReplayError", "ReplayStep", "initial_text", "replay"]
