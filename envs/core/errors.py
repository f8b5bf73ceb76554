"""Errors raised by cardarena.

Both subclass ``ValueError`` so callers that already catch bad values keep working, and both
carry a message naming the offending value and what would have been allowed.
"""

from __future__ import annotations


class CardArenaError(Exception):
    """Base class of every error cardarena raises on purpose."""


class IllegalActionError(CardArenaError, ValueError):
    """An action that is malformed, out of range, not legal now, or sent after the game ended."""


class InvalidConfigError(CardArenaError, ValueError):
    """A bad constructor argument, reset option, deck or data file."""


class UnknownAgentError(CardArenaError, KeyError):
    """An agent name that is not one of the env's ``possible_agents``.

    A ``KeyError`` (agents are dict keys throughout PettingZoo) whose message names the agents.
    """

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def has_module(name: str) -> bool:
    """Whether the optional module ``name`` can be imported (without importing it)."""
    from importlib.util import find_spec

    try:
        return find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def install_hint(extra: str) -> str:
    """How to add the optional ``extra``, for every "needs the X extra" message. cardarena is
    installed from its clone (``make`` builds ``.venv`` there; it is on no package index), and
    the constraints file keeps torch the CPU build."""
    return f".venv/bin/pip install -c .ci/constraints.txt -e '.[{extra}]' in the cardarena clone"
