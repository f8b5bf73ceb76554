"""Loading a saved OpenSpiel state without unpickling it.

OpenSpiel serializes a Python game's state as ``history=...``, ``move_number=...`` and a
base64 pickle of the state's ``__dict__`` (open_spiel/python/pybind11/python_games.cc), and
``game.deserialize_state`` unpickles that last line: run on a string from someone else, it
runs whatever code the string holds. ``load_state`` reads the history line alone (numbers
only, size checked before anything is parsed) and replays it through the rules, each action
checked legal, so a string from anywhere can at worst be refused.
"""

from __future__ import annotations

import re

import pyspiel

from cardarena.envs.core import InvalidConfigError

#: Longest saved string ``load_state`` reads (a history of about 100,000 moves).
MAX_SAVED_CHARS = 2_000_000
_PAIR = re.compile(r"(-?\d{1,3}):(\d{1,9})")


def load_state(game: pyspiel.Game, saved: str) -> pyspiel.State:
    """The state ``saved`` (``state.serialize()``, or just its ``history=`` line) describes,
    rebuilt by replaying its moves on ``game.new_initial_state()``. Refused with
    ``InvalidConfigError`` naming the problem: too long, not a history, a move the rules do
    not allow there (chance outcomes included)."""
    if not isinstance(saved, str):
        raise InvalidConfigError(f"a saved state is a str, got {type(saved).__name__}")
    if len(saved) > MAX_SAVED_CHARS:
        raise InvalidConfigError(
            f"the saved state has {len(saved):,} characters; at most {MAX_SAVED_CHARS:,} are read"
        )
    first = saved.split("\n", 1)[0]
    if not first.startswith("history="):
        raise InvalidConfigError(
            f"a saved state starts with 'history=' (state.serialize()); got {first[:40]!r}"
        )
    body = first[len("history=") :]
    pairs = body.split(",") if body else []
    state = game.new_initial_state()
    for index, pair in enumerate(pairs):
        match = _PAIR.fullmatch(pair)
        if match is None:
            raise InvalidConfigError(
                f"move {index} of the saved history, {pair[:40]!r}, is not 'player:action'"
            )
        player, action = int(match.group(1)), int(match.group(2))
        actor = state.current_player()
        allowed = (
            [outcome for outcome, _ in state.chance_outcomes()]
            if state.is_chance_node()
            else state.legal_actions()
        )
        if state.is_terminal() or player != actor or action not in allowed:
            raise InvalidConfigError(
                f"move {index} of the saved history, {pair!r}, cannot be played there "
                f"(to act: {actor}; allowed: {allowed[:20]})"
            )
        state.apply_action(action)
    return state
