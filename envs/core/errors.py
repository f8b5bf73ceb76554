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
