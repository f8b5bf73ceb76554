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

``replay_page(record, start, count)`` is the viewer's form (the web table's ``POST
/api/replays``): the same checks over the whole record, but only the frames ``start`` ..
``start + count - 1`` are rendered and named, and the rules state logs its events only inside
that window, so the cost of a long game is the rules' work per action, not a text per step.
Both step the rules state directly (``apply_legal_action`` after the mask check, what
``env.step`` does minus the PettingZoo bookkeeping nobody reads here) and render through the
env.

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
from cardarena.envs.core.events import Event
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


@dataclass(frozen=True)
class ReplayFrame:
    """One position of a replayed game, as a viewer shows it: ``step`` 0 is the deal (no
    move: ``agent``, ``action`` and ``description`` are None), step ``k`` the table after the
    k-th action, with the events that action caused (``illegal``: it ended the game)."""

    step: int
    text: str
    events: tuple[Event, ...] = ()
    agent: str | None = None
    action: int | None = None
    description: str | None = None
    illegal: bool = False

    def as_step(self) -> ReplayStep:
        """This frame as ``replay`` yields it (a move's frame only)."""
        if self.agent is None or self.action is None or self.description is None:
            raise ValueError("the deal is not a step")
        return ReplayStep(self.agent, self.action, self.description, self.text)


@dataclass(frozen=True)
class ReplayPage:
    """Some frames of a checked game (``replay_page``): ``total_steps`` actions in all, so
    frames ``0 .. total_steps``; ``frames`` starts at frame ``start``."""

    total_steps: int
    start: int
    frames: tuple[ReplayFrame, ...]


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
    return _every_step(env, record)


def _every_step(env: Any, record: MatchRecord) -> Iterator[ReplayStep]:
    for frame in _walk(env, record, 1, len(record.actions) + 1, events=False):
        yield frame.as_step()


def replay_page(
    record: MatchRecord,
    start: int,
    count: int,
    check_version: bool = True,
    max_chars: int | None = None,
) -> ReplayPage:
    """Frames ``start`` .. ``start + count - 1`` of ``record``'s game (0 is the deal, ``k`` the
    table after the k-th action), each with the events it caused, after checking the whole
    record exactly as ``replay`` does (``ReplayError`` if it fails anywhere, in the page or not).

    Only the frames asked for are rendered, named and logged: the rest of the game is stepped
    on the rules state alone, so a page of a million-action game costs the rules' own work
    per action plus ``count`` renders, and holds ``count`` texts. ``max_chars`` ends the page
    early once its texts reach that many characters (it always holds one frame), for configs
    whose table text is long. A ``start`` past the last frame gives no frames.
    """
    if start < 0 or count < 1:
        raise ValueError(f"a page starts at a frame >= 0 and holds >= 1; got {start}, {count}")
    env = _open(record, check_version)
    total = len(record.actions)
    stop = min(start + count, total + 1)
    frames = tuple(_walk(env, record, start, stop, events=True, max_chars=max_chars))
    return ReplayPage(total, start, frames)


def _walk(
    env: Any,
    record: MatchRecord,
    first: int,
    stop: int,
    events: bool,
    max_chars: int | None = None,
) -> Iterator[ReplayFrame]:
    """Check every action of ``record`` on ``env`` (just reset) and yield frames ``first`` ..
    ``stop - 1``; the final checks run after the last action whatever the window.

    The actions go to the rules state directly (``apply_legal_action`` after the mask check,
    what ``env.step`` does without its PettingZoo bookkeeping); ``env.render()`` draws from
    that state. With ``events`` the state's event log is on only inside the window and
    emptied at each frame, so it never holds more than one frame's events.
    """
    state = env.game_state
    seats = env.possible_agents
    actions = record.actions
    logs = events and hasattr(state, "record_events")
    budget = max_chars
    if first == 0 and stop > 0:
        if logs:
            state.record_events()  # a fresh state logs its deal (as ``env.record_events``)
        text = env.render()
        budget = _spend(budget, text)
        if budget == 0:
            stop = 1
        yield ReplayFrame(0, text, _taken(state) if logs else ())
        if logs and stop == 1:
            state.events = None
    illegal_ended = False
    last = len(actions) - 1
    for index, action in enumerate(actions):
        if state.is_terminal() or state.is_truncated():
            raise ReplayError(
                f"the game ended after {index} actions but the record has {len(actions)}: "
                f"{len(actions) - index} action(s) remain (the action list was tampered with)"
            )
        agent = seats[state.current_player()]
        if not isinstance(action, int) or isinstance(action, bool) or action < 0:
            raise ReplayError(f"action {index} of the record, {show(action)}, is not an action")
        mask = state.legal_action_mask()
        step = index + 1
        shown = first <= step < stop
        if not (action < len(mask) and mask[action]):
            claimed = (
                record.outcome == ILLEGAL_ACTION.label
                and index == last
                and record.offender == agent
                and action < len(mask)
            )
            if not claimed:
                raise ReplayError(
                    f"action {index} of the record, {show(action)}, is not legal for {agent} "
                    "at this step (the action list was tampered with, or the record is of "
                    f"another game); legal: {_legal_names(state, mask)}"
                )
            if shown:
                name = f"illegal: {state.action_to_string(action)}"
                yield ReplayFrame(step, env.render(), (), agent, action, name, illegal=True)
            illegal_ended = True
            break
        if record.outcome == ILLEGAL_ACTION.label and index == last:
            raise ReplayError(
                f"the record says {record.offender} ended the game with an illegal action, "
                f"but its last action, {action} ({state.action_to_string(action)}), is legal "
                f"for {agent} (the record was tampered with)"
            )
        if not shown:
            state.apply_legal_action(action)
            continue
        if logs and step == first:
            state.events = []  # the window opens: log from here (no opening lines mid-game)
        name = state.action_to_string(action)  # named before the move changes the state
        state.apply_legal_action(action)
        text = env.render()
        budget = _spend(budget, text)
        if budget == 0:
            stop = step + 1
        yield ReplayFrame(step, text, _taken(state) if logs else (), agent, action, name)
        if logs and step == stop - 1:
            state.events = None  # the window closed: the rest of the game logs nothing
    _check_end(env, record, illegal_ended)


def _spend(budget: int | None, text: str) -> int | None:
    """What is left of a page's character budget after ``text`` (None: no budget)."""
    return None if budget is None else max(0, budget - len(text))


def _taken(state: Any) -> tuple[Event, ...]:
    """The events logged since the last frame, and an empty log for the next one."""
    log = state.events or []
    taken = tuple(log)
    log.clear()
    return taken


def _check_end(env: Any, record: MatchRecord, illegal_ended: bool) -> None:
    """After the last action: the game is over, as the record says, with its returns."""
    state = env.game_state
    seats = list(env.possible_agents)
    actions = record.actions
    if illegal_ended:
        outcome = ILLEGAL_ACTION.label
        returns = {
            seat: ILLEGAL_ACTION_REWARD if seat == record.offender else 0.0 for seat in seats
        }
    else:
        if not (state.is_terminal() or state.is_truncated()):
            agent = seats[state.current_player()]
            raise ReplayError(
                f"the actions ran out after {len(actions)} steps but the game is not over "
                f"({agent} is to act; the action list was tampered with)"
            )
        outcome = (TERMINATED if state.is_terminal() else TRUNCATED).label
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


__all__ = [
    "ReplayError",
    "ReplayFrame",
    "ReplayPage",
    "ReplayStep",
    "initial_text",
    "replay",
    "replay_page",
]
