"""Text rendering of a Cardline table: the line with its values, every hand by name only (values
stay hidden, CL-3; a card shown before keeps the value everyone saw), the top of the draw pile,
whose turn it is and the last placement. The header counts the turn being played (the cap is the
most turns a game may take), so it never lags a turn behind."""

from __future__ import annotations

from ..core.game import NO_PLAYER
from .rules import CardlineState
from .story import show_value as _value


def render_table(state: CardlineState) -> str:
    game = state.game
    names, agents = game.names, game.agent_names
    characteristic = game.characteristics[state.characteristic]
    if state.is_terminal():
        winners = [agents[seat] for seat, r in enumerate(state.returns()) if r > 0]
        shared = " (shared win)" if len(winners) > 1 else ""
        status = f"game over: {', '.join(winners)} win{'s' if len(winners) == 1 else ''}{shared}"
    elif state.is_truncated():
        status = f"truncated at the cap of {game.max_turns} turns"
    else:
        status = f"to act: {agents[state.current_player()]}"
    over = state.is_terminal() or state.is_truncated()
    turn = f"{state.turns} turns played" if over else f"turn {state.turns + 1}"
    lines = [
        f"Cardline ({game.deck_label}), comparing {characteristic}: round {state.rounds}, "
        f"{turn} (cap {game.max_turns}); {status}",
        "  line: " + "  ".join(f"[{names[c]} {_value(state.values[c])}]" for c in state.line),
    ]
    top = names[state.pile_top] if state.pile else "-"
    lines.append(f"  draw pile: {len(state.pile)} (top: {top}); box: {len(state.box)}")
    for seat, agent in enumerate(agents):
        marks = []
        if state.eliminated[seat]:
            marks.append("eliminated")
        if seat in state.finishers:
            marks.append("finished this round")
        if seat == state.first_player:
            marks.append("starts each round")
        hand = ", ".join(_hand_card(state, c) for c in state.hands[seat]) or "-"
        lines.append(f"  {agent}: {hand}" + (f" [{'; '.join(marks)}]" if marks else ""))
    last = _last_placement(state)
    if last:
        lines.append(last)
    return "\n".join(lines)


def _hand_card(state: CardlineState, card: int) -> str:
    """A card's name; and the value everyone saw if it was placed before (CL-3)."""
    name = state.game.names[card]
    if state.revealed[card]:
        return f"{name} (shown before: {_value(state.values[card])})"
    return name


def _last_placement(state: CardlineState) -> str | None:
    """The most recent placement: the seat that played just before the one to act."""
    seat = state.last_mover
    if seat == NO_PLAYER:
        return None
    card = state.last_card[seat]
    value = _value(state.values[card])
    verdict = "right, it stays" if state.last_right[seat] else "wrong, to the box (penalty draw)"
    agent = state.game.agent_names[seat]
    return f"  last placement: {agent} placed {state.game.names[card]} ({value}): {verdict}"
