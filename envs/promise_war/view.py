"""What one seat sees at a Promise War table, as a JSON-able dict, and its SVG picture.

``table_view`` reads only what ``seat`` may know: public counts, the pot's face-up cards and
its face-down *count*, the last reveal, and the seat's own hand, pick and deck composition.
``table_svg`` draws from that dict alone (never from the state), so the picture cannot show
more than the view; the leak test compares views of a state and of its
``resample_from_infostate`` twin.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..core.svg import CARD_HEIGHT, CARD_WIDTH, HIGHLIGHT, Svg
from .rules import PHASE_NAMES, TIEBREAK, PromiseWarState
from .story import plural

WIDTH = 900
SEAT_W, SEAT_H = 206, 126
SEATS_PER_ROW = 4
MINI_W, MINI_H = 34, 48
MAX_POT_FACES = 11


def _listed(counts: np.ndarray) -> list[int]:
    return np.repeat(np.arange(len(counts)), counts).tolist()


def table_view(state: PromiseWarState, seat: int) -> dict[str, Any]:
    """The table from ``seat``: named fields, nothing ``seat`` cannot see."""
    over = bool(state.terminal or state.truncated)
    actor = state.current_player()
    live_contest = [] if over else list(state.contenders)
    names = list(state.game.agent_names)
    seats = [
        {
            "name": names[other],
            "hand_size": state.hand_sizes[other],
            "deck_size": state.deck_sizes[other],
            "won": state.victory_sizes[other],
            "sitting_out": bool(state.sitting_out[other]),
            "in_contest": other in live_contest,
            "has_picked": bool(state.has_picked[other]),
            "face_down_in_pot": state.pot_face_down_by_player[other],
            "last_revealed": None
            if state.last_revealed[other] < 0
            else int(state.last_revealed[other]),
        }
        for other in range(state.num_players)
    ]
    pick = state.picks[seat]
    view: dict[str, Any] = {
        "game": "promise_war_v0",
        "seat": seat,
        "players": names,
        "max_power": state.game.max_power,
        "trick": state.tricks_played + (0 if over else 1),
        "tricks_played": state.tricks_played,
        "max_tricks": state.game.max_tricks,
        "phase": PHASE_NAMES[state.phase],
        "contenders": live_contest,
        "to_act": None if actor < 0 else actor,
        "hand": _listed(state.hands[seat]),
        "own_pick": None if pick < 0 else int(pick),
        "own_deck": _listed(state.deck_counts[seat]),
        "seats": seats,
        "pot": {"face_up": _listed(state.pot_face_up), "face_down": len(state.pot_face_down)},
        "finished": over,
        "truncated": bool(state.truncated),
        "scores": list(state.victory_sizes),
        "returns": [float(r) for r in state.returns()] if over else None,
    }
    return view


# --- the picture ------------------------------------------------------------------------------
def _joined(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _who(view: dict[str, Any], seat: int) -> str:
    return "you" if seat == view["seat"] else view["players"][seat]


def _header(view: dict[str, Any]) -> str:
    tricks = plural(view["tricks_played"], "trick")
    if view["truncated"]:
        return f"Promise War: stopped at the cap of {tricks} with no winner"
    if view["finished"]:
        top = max(view["scores"])
        best = _joined([_who(view, s) for s, n in enumerate(view["scores"]) if n == top])
        returns = view["returns"] or []
        mine = returns[view["seat"]] if returns else 0.0
        result = "you won" if mine > 0 else ("you lost" if mine < 0 else "you tied for first")
        return f"Promise War: game over after {tricks}, {result} (most cards: {best}, {top})"
    stage = f"trick {view['trick']}"
    if view["phase"] == PHASE_NAMES[TIEBREAK]:
        stage += ", tiebreak between " + _joined([_who(view, s) for s in view["contenders"]])
    actor = view["to_act"]
    turn = "your turn" if actor == view["seat"] else f"{_who(view, actor)} to pick"
    return f"Promise War: {stage}; {turn}"


def _status(view: dict[str, Any], seat: int) -> str:
    info = view["seats"][seat]
    if info["sitting_out"]:
        return "sitting out"
    if view["finished"]:
        return ""
    if info["in_contest"]:
        if info["has_picked"]:
            return "picked"
        return "to pick now" if view["to_act"] == seat else "to pick"
    return "not in the tiebreak" if view["phase"] == PHASE_NAMES[TIEBREAK] else ""


def _seat_box(svg: Svg, view: dict[str, Any], seat: int, x: float, y: float) -> None:
    info = view["seats"][seat]
    turn = view["to_act"] == seat
    svg.rect(x, y, SEAT_W, SEAT_H, fill="#174a2e", stroke=HIGHLIGHT if turn else "#0d2e1c", rx=8)
    svg.text(x + 10, y + 20, f"{info['name']}{' (you)' if seat == view['seat'] else ''}",
             size=14, weight="bold")  # fmt: skip
    svg.text(x + 10, y + 38,
             f"hand {info['hand_size']} · deck {info['deck_size']} · won {info['won']}",
             size=12)  # fmt: skip
    status = _status(view, seat)
    if info["face_down_in_pot"]:
        status = (status + "; " if status else "") + f"{info['face_down_in_pot']} down in pot"
    svg.text(x + 10, y + 54, status, size=11, fill=HIGHLIGHT if turn else "#cfe3d6")
    cy = y + 64
    for index in range(info["hand_size"]):
        svg.card(x + 10 + index * 30, cy, None, width=MINI_W - 8, height=MINI_H)
    if info["has_picked"]:
        svg.card(x + 104, cy, None, width=MINI_W, height=MINI_H, highlight=True)
        svg.text(x + 104 + MINI_W / 2, cy + MINI_H + 10, "picked", size=9, anchor="middle")
    if info["last_revealed"] is not None:
        lx = x + SEAT_W - MINI_W - 12
        svg.card(lx, cy, [info["last_revealed"]], width=MINI_W, height=MINI_H)
        svg.text(lx + MINI_W / 2, cy + MINI_H + 10, "last shown", size=9, anchor="middle")


def table_svg(view: dict[str, Any], actions: Sequence[tuple[int, str]]) -> str:
    """The table: the other seats in rows on top (seat order from the one after you), the pot
    in the middle (face-up cards by power, face-down backs with their count), your hand at the
    bottom, each card you may play clickable (``data-action`` = its power)."""
    n = len(view["players"])
    me = view["seat"]
    others = [(me + k) % n for k in range(1, n)]
    rows = (len(others) + SEATS_PER_ROW - 1) // SEATS_PER_ROW
    top = 48
    pot_y = top + rows * (SEAT_H + 12) + 26
    own_y = pot_y + CARD_HEIGHT + 58
    buttons_needed = _unplaced(view, actions)
    height = own_y + CARD_HEIGHT + 44 + (44 if buttons_needed else 0)
    svg = Svg(WIDTH, height, "Promise War")
    svg.text(16, 30, _header(view), size=17, weight="bold")
    for index, seat in enumerate(others):
        row, col = divmod(index, SEATS_PER_ROW)
        in_row = min(SEATS_PER_ROW, len(others) - row * SEATS_PER_ROW)
        gap = (WIDTH - in_row * SEAT_W) / (in_row + 1)
        _seat_box(svg, view, seat, gap + col * (SEAT_W + gap), top + row * (SEAT_H + 12))
    _pot(svg, view, pot_y)
    _own_area(svg, view, actions, own_y)
    if buttons_needed:
        bx = 16
        for action, name in buttons_needed:
            svg.button(bx, height - 40, 120, 30, action, name)
            bx += 128
    return str(svg)


def _pot(svg: Svg, view: dict[str, Any], y: float) -> None:
    pot = view["pot"]
    svg.rect(12, y - 22, WIDTH - 24, CARD_HEIGHT + 44, fill="#24704a", stroke="#0d2e1c", rx=10)
    stage = "tiebreak pot" if view["phase"] == PHASE_NAMES[TIEBREAK] else "pot"
    total = len(pot["face_up"]) + pot["face_down"]
    svg.text(24, y - 4, f"{stage}: {plural(total, 'card')} "
             f"({len(pot['face_up'])} face up, {pot['face_down']} face down)", size=13)  # fmt: skip
    if not total:
        svg.text(WIDTH / 2, y + CARD_HEIGHT / 2 + 8, "the pot is empty", size=13, anchor="middle",
                 fill="#cfe3d6")  # fmt: skip
    counts: dict[int, int] = {}
    for power in pot["face_up"]:
        counts[power] = counts.get(power, 0) + 1
    x = 24
    for shown, (power, count) in enumerate(sorted(counts.items())):
        if shown == MAX_POT_FACES:
            rest = sum(c for p, c in sorted(counts.items())[MAX_POT_FACES:])
            svg.text(x, y + CARD_HEIGHT / 2 + 6, f"+{rest} more", size=13)
            break
        svg.card(x, y + 6, [power, "power"], width=CARD_WIDTH - 4, height=CARD_HEIGHT - 6)
        if count > 1:
            svg.text(x + CARD_WIDTH / 2 - 2, y + CARD_HEIGHT + 14, f"x{count}", size=13,
                     anchor="middle", weight="bold")  # fmt: skip
        x += CARD_WIDTH + 4
    if pot["face_down"]:
        bx = WIDTH - 24 - CARD_WIDTH - 10
        for offset in range(min(pot["face_down"], 3)):
            svg.card(bx + offset * 5 - 10, y + 6 + offset * 3, None, width=CARD_WIDTH - 4,
                     height=CARD_HEIGHT - 10)  # fmt: skip
        svg.text(bx + CARD_WIDTH / 2 - 4, y + CARD_HEIGHT + 14, f"{pot['face_down']} face down",
                 size=12, anchor="middle")  # fmt: skip


def _own_area(svg: Svg, view: dict[str, Any], actions: Sequence[tuple[int, str]], y: float) -> None:
    me = view["seat"]
    info = view["seats"][me]
    legal = dict(actions)
    turn = view["to_act"] == me
    svg.rect(12, y - 30, WIDTH - 24, CARD_HEIGHT + 64, fill="#174a2e",
             stroke=HIGHLIGHT if turn else "#0d2e1c", rx=10)  # fmt: skip
    if turn:
        how = "face up" if view["phase"] == PHASE_NAMES[TIEBREAK] else "face down"
        prompt = f"your turn: click a card to play it {how}"
    else:
        prompt = _status(view, me) or ("game over" if view["finished"] else "waiting")
    svg.text(24, y - 10, f"you ({info['name']}): deck {info['deck_size']} · won {info['won']}"
             f" · {prompt}", size=14, weight="bold")  # fmt: skip
    x = 24
    for power in view["hand"]:
        action = power if power in legal else None
        svg.card(x, y, [power, "power"], action=action, label=legal.get(power, ""))
        x += CARD_WIDTH + 10
    if not view["hand"]:
        svg.text(x, y + CARD_HEIGHT / 2, "no cards in hand", size=13, fill="#cfe3d6")
        x += 140
    if view["own_pick"] is not None:
        x += 30
        how = "to play face up" if view["phase"] == PHASE_NAMES[TIEBREAK] else "face down"
        svg.card(x, y, [view["own_pick"], "your pick"], highlight=True)
        svg.text(x + CARD_WIDTH + 8, y + 40, f"you picked {view['own_pick']} {how}", size=13)
        x += CARD_WIDTH + 200
    last = info["last_revealed"]
    if last is not None:
        lx = WIDTH - 24 - CARD_WIDTH - 8
        svg.card(lx, y, [last, "last"], width=CARD_WIDTH, height=CARD_HEIGHT)
        svg.text(lx - 8, y + 50, "you last revealed", size=12, anchor="end")


def _unplaced(view: dict[str, Any], actions: Sequence[tuple[int, str]]) -> list[tuple[int, str]]:
    """Legal actions with no card in the drawn hand (none in a consistent view): buttons."""
    return [(a, name) for a, name in actions if a not in view["hand"]]


__all__ = ["table_svg", "table_view"]
