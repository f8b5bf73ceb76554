"""Text rendering of an Iron Man 2 Game of War table: pawns, this round's battles, both sides
of the current battle with totals, and the hand of the player to act (a human's seat)."""

from __future__ import annotations

import numpy as np

from .rules import (
    AGENTS,
    COMMIT,
    DECISION_NAMES,
    DRAW,
    KINDS,
    NO_CARD,
    NUM_BATTLES,
    UNDECIDED,
    IronManWarState,
)


def _cards(counts: np.ndarray) -> str:
    listed = [f"{KINDS[k]}" + (f" x{n}" if n > 1 else "") for k, n in enumerate(counts) if n]
    return ", ".join(listed) if listed else "-"


def _result(state: IronManWarState, battle: int) -> str:
    result = state.battle_results[battle]
    if result == DRAW:
        return "draw"
    if result != UNDECIDED:
        return f"won by {AGENTS[result]}"
    if battle == state.battle and not state.is_terminal() and not state.is_truncated():
        return "to come" if state.decision == COMMIT else "in progress"
    return "to come"


def _last_round(state: IronManWarState) -> str | None:
    """The previous round's flips and results: a beginner round (and the last battle of an
    advanced one) resolves inside one step, so this is where its outcome shows."""
    if all(result == UNDECIDED for result in state.previous_results):
        return None
    battles = []
    for battle, result in enumerate(state.previous_results):
        flips = " vs ".join(
            KINDS[k] if k != NO_CARD else "none" for k in state.previous_flipped[:, battle]
        )
        outcome = "draw" if result == DRAW else f"won by {AGENTS[result]}"
        battles.append(f"{battle + 1} {outcome} ({flips})")
    return "  last round: " + "; ".join(battles)


def render_table(state: IronManWarState) -> str:
    game = state.game
    seat = state.current_player()
    if state.is_terminal():
        status = f"game over: {AGENTS[state.winner]} wins" if state.winner >= 0 else "game over"
    elif state.is_truncated():
        status = f"truncated at the cap of {game.max_rounds} rounds"
    else:
        status = f"to act: {AGENTS[seat]} ({DECISION_NAMES[state.decision]})"
    lines = [
        f"Iron Man 2 Game of War ({game.variant}): round {state.round}, "
        f"battle {state.battle + 1} of {NUM_BATTLES}; {status}",
        f"  pawns on Victory Cards 1..{game.victory_cards}: "
        + ", ".join(f"{AGENTS[s]} at {state.pawns[s]}" for s in range(2)),
        "  battles: " + "; ".join(f"{b + 1} {_result(state, b)}" for b in range(NUM_BATTLES)),
    ]
    last_round = _last_round(state)
    if last_round is not None:
        lines.append(last_round)
    for s in range(2):
        face_down = [str(b + 1) for b in range(NUM_BATTLES) if state.face_down[s, b]]
        flipped = [KINDS[k] if k != NO_CARD else "none" for k in state.flipped[s]]
        lines.append(
            f"  {AGENTS[s]:<11}: hand {state.hand_sizes[s]}, deck {state.deck_sizes[s]}, "
            f"discard {state.discard_sizes[s]}, face down for battles "
            f"{', '.join(face_down) or '-'}; flipped {' / '.join(flipped)}"
        )
        lines.append(
            f"  {'':<11}  in battle: {_cards(state.battle_cards[s])} = total "
            f"{state.battle_totals[s]} ({state.battle_card_counts[s]} cards)"
            + (f"; kept from won battles: {_cards(state.table[s])}" if state.table[s].any() else "")
        )
    if seat >= 0:
        lines.append(f"  {AGENTS[seat]}'s hand: {_cards(state.hands[seat])}")
    return "\n".join(lines)
