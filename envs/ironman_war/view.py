"""What one seat sees at an Iron Man 2 Game of War table, and the picture of it.

``table_view(state, seat)`` is a JSON-able dict of named fields holding only what ``seat``
may know: every public pile and count, the round's battles with their face-up cards and
results, the current battle's cards and totals, and ``seat``'s own hand, own face-down commits
and own face-down standoff pick. The opponent's hidden cards appear only as counts and
"a card lies face down here" flags, so ``table_view`` of a ``resample_from_infostate`` twin is
the same dict (the leak test).

``table_svg(view, actions)`` draws that dict (nothing else): the pawns, the three battles side
by side (the opponent's cards above, yours below, backs for face-down cards), your hand as
clickable cards, the opponent's cards of the current battle clickable as ENERGY SHIELD
targets, and a concede button when conceding is legal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.svg import CARD_HEIGHT, CARD_WIDTH, HIGHLIGHT, Svg
from .render import header_battle
from .rules import (
    AGENTS,
    CARD_VALUES,
    COMMIT,
    CONCEDE,
    DECISION_NAMES,
    DRAW,
    KINDS,
    NO_CARD,
    NUM_BATTLES,
    SHIELD_BASE,
    UNDECIDED,
    IronManWarState,
)
from .story import card_name

#: What the player reads for each decision.
PROMPTS = {
    "commit": "put a card face down for battle {battle}",
    "play_or_concede": "you are losing battle {battle}: play a card face up or concede",
    "standoff_play": "standoff in battle {battle}: pick a card to play face down",
    "shield_target": "your Energy Shield: pick the opposing card in battle {battle} it discards",
}


def _counts(row: Any) -> dict[str, int]:
    """A pile as ``{kind: count}`` (kinds with no card left out)."""
    return {KINDS[kind]: int(n) for kind, n in enumerate(row.tolist()) if n}


def _kind(kind: int) -> str | None:
    return None if kind == NO_CARD else KINDS[int(kind)]


def _result(result: int) -> str:
    if result == UNDECIDED:
        return "undecided"
    return "draw" if result == DRAW else AGENTS[result]


def table_view(state: IronManWarState, seat: int) -> dict[str, Any]:
    """Everything ``seat`` sees now, as named JSON-able fields (seat order for per-seat lists:
    index 0 iron_man, 1 war_machine; ``you`` says which is the viewer)."""
    game = state.game
    over = state.is_terminal() or state.is_truncated()
    decision = DECISION_NAMES[state.decision]
    to_act = state.current_player()
    battles = []
    for battle in range(NUM_BATTLES):
        current = not over and battle == state.battle and state.decision != COMMIT
        battles.append(
            {
                "number": battle + 1,
                "flipped": [_kind(state.flipped[s, battle]) for s in range(2)],
                "face_down": [bool(state.face_down[s, battle]) for s in range(2)],
                "your_face_down": _kind(state.committed[seat, battle])
                if state.face_down[seat, battle]
                else None,
                "result": _result(state.battle_results[battle]),
                "current": current,
            }
        )
    battle_number = state.commit_slot + 1 if state.decision == COMMIT else state.battle + 1
    prompt = ""
    if to_act == seat and decision in PROMPTS:
        prompt = PROMPTS[decision].format(battle=battle_number)
    return {
        "game": "ironman_war_v0",
        "variant": game.variant,
        "players": list(AGENTS),
        "you": seat,
        "round": state.round,
        "max_rounds": game.max_rounds,
        "victory_cards": game.victory_cards,
        "pawns": list(state.pawns),
        "phase": decision,
        "battle": battle_number,
        "battles_per_round": NUM_BATTLES,
        "header": f"round {state.round}, {header_battle(state)}",
        "to_act": AGENTS[to_act] if to_act >= 0 else None,
        "your_turn": to_act == seat,
        "prompt": prompt,
        "hand": _counts(state.hands[seat]),
        "your_deck": _counts(state.deck_counts[seat]),
        "your_face_down": {
            str(b + 1): KINDS[state.committed[seat, b]]
            for b in range(NUM_BATTLES)
            if state.face_down[seat, b]
        },
        "your_pick": _kind(state.pending_play[seat]) if state.has_pending[seat] else None,
        "picked": [bool(p) for p in state.has_pending],
        "hand_sizes": list(state.hand_sizes),
        "deck_sizes": list(state.deck_sizes),
        "discard_sizes": state.discard_sizes,
        "discards": [_counts(state.discards[s]) for s in range(2)],
        "kept": [_counts(state.table[s]) for s in range(2)],
        "battles": battles,
        "in_battle": [_counts(state.battle_cards[s]) for s in range(2)],
        "totals": list(state.battle_totals),
        "card_counts": list(state.battle_card_counts),
        "battles_won": list(state.battles_won),
        "last_round": {
            "results": [_result(r) for r in state.previous_results],
            "flipped": [[_kind(k) for k in state.previous_flipped[s]] for s in range(2)],
        },
        "finished": bool(over),
        "winner": AGENTS[state.winner] if state.winner >= 0 else None,
        "truncated": bool(state.is_truncated()),
    }


# --- the picture ---------------------------------------------------------------------------
WIDTH = 900
COLUMN = 292
PER_ROW = 4
GAP = 6
ROW = CARD_HEIGHT + 20


def card_face(kind: str) -> list[str]:
    """A card's face: its printed number (``x2`` for UPGRADE), then its name."""
    index = KINDS.index(kind)
    if kind == "upgrade":
        return ["x2", "UPGRADE"]
    if kind == "energy_shield":
        return ["0", "ENERGY", "SHIELD"]
    if kind == "final_attack":
        return [str(CARD_VALUES[index]), "FINAL", "ATTACK"]
    return [str(CARD_VALUES[index]), "ATTACK"]


def _rows(count: int) -> int:
    return max(1, (count + PER_ROW - 1) // PER_ROW)


def _battle_side(view: dict[str, Any], battle: dict[str, Any], seat: int) -> list[tuple]:
    """The cards one side shows in a battle: (kind or None for a back, count)."""
    if battle["current"]:
        cards = [(kind, n) for kind, n in view["in_battle"][seat].items()]
        if cards:
            return cards
    if battle["face_down"][seat]:
        return [(battle["your_face_down"] if seat == view["you"] else None, 1)]
    flipped = battle["flipped"][seat]
    if flipped is not None and not battle["current"]:
        return [(flipped, 1)]
    return []


HAND_PHASES = ("commit", "play_or_concede", "standoff_play")


def _natural(view: dict[str, Any], action: int) -> bool:
    """Whether the picture has a place for ``action``: a hand card, an opposing card of the
    current battle (ENERGY SHIELD target) or the concede button; others get a plain button."""
    if action == CONCEDE:
        return True
    if action >= SHIELD_BASE:
        other = 1 - view["you"]
        current = any(battle["current"] for battle in view["battles"])
        return current and KINDS[action - SHIELD_BASE] in view["in_battle"][other]
    return view["phase"] in HAND_PHASES and KINDS[action] in view["hand"]


def table_svg(view: dict[str, Any], actions: Sequence[tuple[int, str]]) -> str:
    """The table drawn from ``view`` alone; every one of ``actions`` is a clickable element."""
    you = view["you"]
    other = 1 - you
    names = view["players"]
    legal = dict(actions)
    rest = [(action, name) for action, name in actions if not _natural(view, action)]
    sides = [[_battle_side(view, battle, seat) for seat in range(2)] for battle in view["battles"]]
    top_rows = max(_rows(len(side[other])) for side in sides)
    bottom_rows = max(_rows(len(side[you])) for side in sides)
    battles_top = 110
    other_top = battles_top + 40
    your_top = other_top + top_rows * ROW + 24
    hand_top = your_top + bottom_rows * ROW + 40
    rest_top = hand_top + ROW + 10
    last_top = rest_top + (44 if rest else 0)
    show_last = not view["finished"] and view["last_round"]["results"][0] != "undecided"
    height = last_top + (76 if show_last else 0) + 10
    svg = Svg(WIDTH, height, f"Iron Man 2 Game of War: {view['header']}")

    # header, status, each player's counts
    title = f"Iron Man 2 Game of War ({view['variant']}) - {view['header']}"
    svg.text(16, 28, title, size=18, weight="bold")
    if view["finished"]:
        if view["winner"] is None:
            status = f"game over: no winner after {view['max_rounds']} rounds"
        elif view["winner"] == names[you]:
            status = "game over: you win"
        else:
            status = f"game over: {view['winner']} wins"
    elif view["your_turn"]:
        status = f"your turn: {view['prompt']}"
    else:
        status = f"{view['to_act']} to act"
    svg.text(16, 50, status, size=14, fill=HIGHLIGHT if view["your_turn"] else "#f4f4f4")
    for row, seat in enumerate((other, you)):
        label = f"you ({names[seat]})" if seat == you else names[seat]
        svg.text(
            16,
            72 + row * 20,
            f"{label}: pawn on Victory Card {view['pawns'][seat]} of {view['victory_cards']}; "
            f"hand {view['hand_sizes'][seat]}, deck {view['deck_sizes'][seat]}, discard "
            f"{view['discard_sizes'][seat]}; battles won this round {view['battles_won'][seat]}",
            size=12,
        )

    # the three battles, side by side: the opponent's cards above, yours below
    shield_phase = view["phase"] == "shield_target" and view["your_turn"]
    for index, battle in enumerate(view["battles"]):
        x0 = 16 + index * COLUMN
        highlight = battle["current"] or (
            view["phase"] == "commit"
            and not view["finished"]
            and battle["number"] == view["battle"]
        )
        svg.rect(
            x0 - 4,
            battles_top - 4,
            COLUMN - 8,
            hand_top - battles_top - 20,
            fill="#24704a" if highlight else "#1a5233",
            stroke=HIGHLIGHT if highlight else "none",
        )
        result = battle["result"]
        if result == "undecided":
            shown = "in progress" if battle["current"] else "to come"
        elif result == "draw":
            shown = "draw"
        else:
            shown = "you win" if result == names[you] else f"{result} wins"
        svg.text(
            x0 + 4, battles_top + 14, f"battle {battle['number']}: {shown}", size=13, weight="bold"
        )
        for seat, top in ((other, other_top), (you, your_top)):
            cards = sides[index][seat]
            side = "you" if seat == you else names[seat]
            if battle["current"]:
                count = view["card_counts"][seat]
                side += f": total {view['totals'][seat]}, {count} card{'' if count == 1 else 's'}"
            elif result != "undecided":
                side += " flipped"
            svg.text(x0 + 4, top - 6, side, size=11)
            if not cards:
                svg.rect(x0 + 4, top, CARD_WIDTH, CARD_HEIGHT, fill="none", stroke="#8fbf9f")
                svg.text(
                    x0 + 4 + CARD_WIDTH / 2,
                    top + CARD_HEIGHT / 2 + 4,
                    "no card",
                    size=10,
                    anchor="middle",
                )
            for slot, (kind, count) in enumerate(cards):
                x = x0 + 4 + (slot % PER_ROW) * (CARD_WIDTH + GAP)
                y = top + (slot // PER_ROW) * ROW
                action = None
                if shield_phase and seat == other and kind is not None and battle["current"]:
                    target = SHIELD_BASE + KINDS.index(kind)
                    action = target if target in legal else None
                if action is not None:
                    label = legal[action]
                elif kind is None:
                    label = f"{names[seat]}'s face-down card"
                else:
                    label = card_name(kind)
                svg.card(
                    x, y, None if kind is None else card_face(kind), action=action, label=label
                )
                notes = [f"x{count}"] if count > 1 else []
                if seat == you and battle["face_down"][you]:
                    notes.append("yours, face down")
                if notes:
                    svg.text(
                        x + CARD_WIDTH / 2,
                        y + CARD_HEIGHT + 12,
                        ", ".join(notes),
                        size=10,
                        anchor="middle",
                    )

    # your hand, clickable when a card from it is asked for
    asks_hand = view["your_turn"] and view["phase"] in HAND_PHASES
    svg.text(
        16,
        hand_top - 6,
        "your hand" + (": click a card" if asks_hand else ""),
        size=13,
        weight="bold",
    )
    for slot, (kind, count) in enumerate(view["hand"].items()):
        x = 16 + slot * (CARD_WIDTH + 10)
        action = KINDS.index(kind)
        clickable = asks_hand and action in legal
        svg.card(
            x,
            hand_top,
            card_face(kind),
            action=action if clickable else None,
            label=legal.get(action, card_name(kind)),
        )
        svg.text(
            x + CARD_WIDTH / 2, hand_top + CARD_HEIGHT + 14, f"x{count}", size=11, anchor="middle"
        )
    if not view["hand"]:
        svg.text(16, hand_top + 30, "(empty)", size=12)
    if CONCEDE in legal:
        x = 16 + 8 * (CARD_WIDTH + 10) + 10
        svg.button(x, hand_top + 8, 170, 34, CONCEDE, f"concede battle {view['battle']}")
        svg.text(x, hand_top + 62, "or click a card in your hand", size=11)
        svg.text(x, hand_top + 76, "to play it face up", size=11)

    # actions the picture has no place for (none in normal play), then last round's battles
    for number, (action, name) in enumerate(rest):
        svg.button(16 + number * 176, rest_top, 168, 32, action, name)
    if show_last:
        svg.text(16, last_top + 14, "last round (flipped cards):", size=12, weight="bold")
        flips = view["last_round"]["flipped"]
        for b, result in enumerate(view["last_round"]["results"]):
            if result == "draw":
                shown = "draw"
            else:
                shown = "you won" if result == names[you] else f"{result} won"
            svg.text(
                16,
                last_top + 30 + b * 15,
                f"battle {b + 1}: {shown} - your {card_name(flips[you][b])} vs "
                f"{names[other]}'s {card_name(flips[other][b])}",
                size=11,
            )
    return str(svg)


__all__ = ["PROMPTS", "card_face", "table_svg", "table_view"]
