"""Text rendering of a Promise War table: public information plus the hand of the player to act
(the seat a human at the terminal would be sitting in)."""

from __future__ import annotations

import numpy as np

from .rules import PHASE_NAMES, PromiseWarState


def _cards(counts: np.ndarray) -> str:
    listed = [str(power) for power in np.repeat(np.arange(len(counts)), counts)]
    return " ".join(listed) if listed else "-"


def render_table(state: PromiseWarState) -> str:
    actor = state.current_player()
    if state.is_terminal():
        status = "game over: rewards " + ", ".join(
            f"player_{seat} {reward:+g}" for seat, reward in enumerate(state.returns())
        )
    elif state.is_truncated():
        status = f"truncated at the cap of {state.game.max_tricks} tricks"
    else:
        status = f"to act: player_{actor}"
    lines = [f"Promise War: trick {state.tricks_played + 1}, {PHASE_NAMES[state.phase]}; {status}"]
    for seat in range(state.num_players):
        marks = []
        if state.sitting_out[seat]:
            marks.append("sitting out")
        if seat in state.contenders and not state.is_terminal():
            marks.append("picked" if state.has_picked[seat] else "to pick")
        if state.last_revealed[seat] >= 0:
            marks.append(f"revealed {state.last_revealed[seat]}")
        lines.append(
            f"  player_{seat}: hand {state.hand_sizes[seat]}, deck {state.deck_sizes[seat]}, "
            f"won {state.victory_sizes[seat]}" + (f" [{'; '.join(marks)}]" if marks else "")
        )
    lines.append(
        f"  pot: face up {_cards(state.pot_face_up)}; face down {len(state.pot_face_down)}"
    )
    if actor >= 0:
        lines.append(f"  player_{actor}'s hand: {_cards(state.hands[actor])}")
    return "\n".join(lines)
