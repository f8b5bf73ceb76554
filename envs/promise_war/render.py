"""Text rendering of a Promise War table: public information plus the hand of the player to act
(the seat a human at the terminal would be sitting in).

The header says where the game is now (trick k, or trick k's tiebreak and who is in it), never
the last trick; once the game is over it says who won with the scores.
"""

from __future__ import annotations

import numpy as np

from .rules import TIEBREAK, PromiseWarState
from .story import plural


def _cards(counts: np.ndarray) -> str:
    listed = [str(power) for power in np.repeat(np.arange(len(counts)), counts)]
    return " ".join(listed) if listed else "-"


def _joined(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _status(state: PromiseWarState) -> str:
    names = state.game.agent_names
    scores = ", ".join(f"{names[s]} {won}" for s, won in enumerate(state.victory_sizes))
    if state.is_terminal():
        returns = state.returns()
        winners = [names[s] for s, r in enumerate(returns) if r > 0]
        tied = [names[s] for s, r in enumerate(returns) if r == max(returns)]
        result = f"{winners[0]} wins" if winners else f"{_joined(tied)} tie for the most cards"
        played = plural(state.tricks_played, "trick")
        return f"game over after {played}: {result} (cards won: {scores})"
    if state.is_truncated():
        return (
            f"truncated at the cap of {plural(state.game.max_tricks, 'trick')}, no winner "
            f"(cards won: {scores})"
        )
    stage = f"trick {state.tricks_played + 1}"
    if state.phase == TIEBREAK:
        stage += f", tiebreak between {_joined([names[s] for s in state.contenders])}"
        how = "pick a card to play face up"
    else:
        how = "pick a card face down"
    return f"{stage}; to act: {names[state.current_player()]} ({how})"


def render_table(state: PromiseWarState) -> str:
    actor = state.current_player()
    over = state.is_terminal() or state.is_truncated()
    names = state.game.agent_names
    lines = [f"Promise War: {_status(state)}"]
    for seat in range(state.num_players):
        marks = []
        if state.sitting_out[seat]:
            marks.append("sitting out")
        elif not over:
            if seat in state.contenders:
                marks.append("picked" if state.has_picked[seat] else "to pick")
            elif state.phase == TIEBREAK:
                marks.append("not in the tiebreak")
        if state.pot_face_down_by_player[seat]:
            marks.append(f"{state.pot_face_down_by_player[seat]} face down in the pot")
        if state.last_revealed[seat] >= 0:
            marks.append(f"last revealed {state.last_revealed[seat]}")
        lines.append(
            f"  {names[seat]}: hand {state.hand_sizes[seat]}, deck {state.deck_sizes[seat]}, "
            f"won {state.victory_sizes[seat]}" + (f" [{'; '.join(marks)}]" if marks else "")
        )
    lines.append(
        f"  pot: face up {_cards(state.pot_face_up)}; face down {len(state.pot_face_down)}"
    )
    if actor >= 0:
        lines.append(f"  {names[actor]}'s hand: {_cards(state.hands[actor])}")
    return "\n".join(lines)
