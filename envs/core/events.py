"""What happened at the table, as the players saw it: the event log a person reads.

Observations are what an agent needs; a person also needs the story between two of their
turns (who played what, who took the trick, which battle was conceded, where the card went).
A rules state records that story only when asked to (``record_events()``: text play and the
web table ask, training does not pay for it), as a list of ``Event``:

- ``kind`` names what happened (``"revealed"``, ``"trick_won"``, ``"conceded"`` ...; each game
  lists its kinds in ``envs/<game>/story.py``);
- ``fields`` holds its JSON-able details (ints, strings, lists of them);
- ``seen_by`` is ``PUBLIC`` when the whole table sees it, else the one seat that does (your
  own face-down card: nobody else may read that event).

``visible_events(events, seat)`` is the only way an event reaches a player, and each game's
``describe(event, viewer)`` turns one into the line that player reads ("you", not
"player_0"). ``resample_from_infostate`` keeps only the events its seat can see
(``events_seen_by``), so a resampled twin never carries another player's secret.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

#: ``Event.seen_by`` of an event the whole table sees.
PUBLIC = -1


@dataclass(frozen=True, eq=True)
class Event:
    """One thing that happened, and who saw it."""

    kind: str
    fields: Mapping[str, Any] = field(default_factory=dict)
    seen_by: int = PUBLIC

    def visible_to(self, seat: int) -> bool:
        return self.seen_by == PUBLIC or self.seen_by == seat

    def to_json(self) -> dict[str, Any]:
        """``{"kind", "fields", "public"}``: what the web API sends (to a seat that sees it)."""
        return {"kind": self.kind, "fields": dict(self.fields), "public": self.seen_by == PUBLIC}


def visible_events(events: Iterable[Event], seat: int) -> list[Event]:
    """The events ``seat`` saw, in order."""
    return [event for event in events if event.seen_by == PUBLIC or event.seen_by == seat]


events_seen_by = visible_events


class EventLog:
    """Mixin for rules states: an opt-in log of ``Event``. ``events`` is None (nothing is
    recorded, the default) until ``record_events()``; ``clone()`` copies the list."""

    events: list[Event] | None = None

    def record_events(self) -> None:
        """Start recording (an already recording state keeps its log)."""
        if self.events is None:
            self.events = []

    def log(self, kind: str, seen_by: int = PUBLIC, **fields: Any) -> None:
        """Record one event if this state records; a no-op otherwise (one attribute test)."""
        if self.events is not None:
            self.events.append(Event(kind, fields, seen_by))


def describe_generic(event: Event, names: tuple[str, ...], viewer: int) -> str:
    """A plain line for a game without its own ``describe``: ``kind: key=value ...``, with
    seat numbers in ``seat``/``winner`` fields named (``you`` for the viewer)."""

    def shown(key: str, value: Any) -> str:
        if key in ("seat", "winner", "player") and isinstance(value, int) and value >= 0:
            return "you" if value == viewer else names[value]
        return str(value)

    details = " ".join(f"{key}={shown(key, value)}" for key, value in event.fields.items())
    return f"{event.kind.replace('_', ' ')}{': ' + details if details else ''}"


__all__ = [
    "PUBLIC",
    "Event",
    "EventLog",
    "describe_generic",
    "events_seen_by",
    "visible_events",
]
