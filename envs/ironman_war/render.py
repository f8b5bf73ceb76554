"""Text rendering of an Iron Man 2 Game of War table: pawns, this round's battles, both sides
of the current battle with totals, and the hand and face-down cards of the player to act (a
human's seat).

The header names the battle the current choice is for: while committing, the battle the next
face-down card goes to (``commit_slot``), not the battle last fought.
"""

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
        flips = [KINDS[k] if k != NO_CARD else "none" for k in state.previous_flipped[:, battle]]
        if result == DRAW:
            shown = " vs ".join(f"{AGENTS[s]}'s {flips[s]}" for s in range(2))
            battles.append(f"{battle + 1} draw ({shown})")
        else:
            # The winner's card first, so a war_machine win does not read as iron_man's card.
            battles.append(
                f"{battle + 1} won by {AGENTS[result]} ({flips[result]} vs {flips[1 - result]})"
            )
    return "  last round: " + "; ".join(battles) + " (flipped cards, the winner's first)"


def header_battle(state: IronManWarState) -> str:
    """The battle the current choice is about: the one being committed for during the commit
    (so the header never says battle 1 while the menu commits to battle 2), else the one
    being fought."""
    if state.decision == COMMIT:
        return f"commit for battle {state.commit_slot + 1} of {NUM_BATTLES}"
    if state.is_terminal() or state.is_truncated():
        return "all battles fought"
    return f"battle {state.battle + 1} of {NUM_BATTLES}"


def _own_hidden(state: IronManWarState, seat: int) -> list[str]:
    """``seat``'s own face-down cards (shown to that seat only: the render is the actor's)."""
    lines = []
    own = [
        f"battle {b + 1} {KINDS[state.committed[seat, b]]}"
        for b in range(NUM_BATTLES)
        if state.face_down[seat, b]
    ]
    if own:
        lines.append(f"  {AGENTS[seat]}'s face-down cards: {', '.join(own)}")
    if state.has_pending[seat]:
        lines.append(f"  {AGENTS[seat]}'s face-down pick: {KINDS[state.pending_play[seat]]}")
    return lines


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
        f"{header_battle(state)}; {status}",
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
            f"{state.battle_totals[s]} ({state.battle_card_counts[s]} "
            f"card{'' if state.battle_card_counts[s] == 1 else 's'})"
            + (f"; kept from won battles: {_cards(state.table[s])}" if state.table[s].any() else "")
        )
    if seat >= 0:
        lines.extend(_own_hidden(state, seat))
        lines.append(f"  {AGENTS[seat]}'s hand: {_cards(state.hands[seat])}")
    return "\n".join(lines)
