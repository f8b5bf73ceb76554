"""Text rendering of a High Card table: public information plus the hand of the player to act
(the seat a human at the terminal would be sitting in)."""

from __future__ import annotations

import numpy as np

from .rules import AGENT_NAMES, HighCardState


def _ranks(row: np.ndarray) -> str:
    shown = [str(index + 1) for index in np.flatnonzero(row).tolist()]
    return " ".join(shown) if shown else "-"


def render_table(state: HighCardState) -> str:
    actor = state.current_player()
    if state.is_terminal():
        status = "game over: rewards " + ", ".join(
            f"{name} {reward:+g}" for name, reward in zip(AGENT_NAMES, state.returns(), strict=True)
        )
    else:
        status = f"to act: {AGENT_NAMES[actor]}"
    lines = [f"High Card: round {state.rounds_played + 1} of {state.game.num_rounds}; {status}"]
    for seat, name in enumerate(AGENT_NAMES):
        mark = " [picked]" if state.has_picked[seat] else ""
        lines.append(
            f"  {name}: hand {state.hand_sizes[seat]}, won {state.won[seat]}, "
            f"shown {_ranks(state.played[seat])}{mark}"
        )
    lines.append(f"  stock: {len(state.stock)} cards")
    if actor >= 0:
        lines.append(f"  {AGENT_NAMES[actor]}'s hand: {_ranks(state.hands[actor])}")
    return "\n".join(lines)
