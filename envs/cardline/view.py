"""The Cardline table as one seat sees it (``table_view``) and drawn as SVG (``table_svg``).

``table_view`` holds only what that seat may know (CL-3): the line with its values, every
hand by name (values hidden; a card shown earlier keeps the value everyone saw, as a player
may remember it), the name on top of the draw pile, the box's cards (as a set: its order is
hidden), counts, whose turn, the round and each seat's last placement. The draw pile below
its top card and the cards out of the game never appear. ``table_svg`` draws the view and
the legal actions only: the line left to right with every gap holding one lettered marker
per hand card (a click places that card there), the hand as cards with the same letters.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..core.game import NO_PLAYER
from ..core.svg import HIGHLIGHT, INK, Svg, escape
from .rules import CardlineState
from .story import show_value

WIDTH = 900
MARGIN = 16
LINE_CARD_W, LINE_CARD_H = 74, 78
GAP_W = 26
PILE_CARD_H = 92
#: Height of the band with the title, the status, the draw pile and the box.
TOP_H = 122
MARKER_W, MARKER_H, MARKER_STEP = 24, 16, 18
HAND_CARD_W, HAND_CARD_H = 96, 96
#: Characters of a 10 px name per pixel of card width, and of a 12 px player line per row.
CHARS_PER_PX = 1 / 5.4
PLAYER_LINE_CHARS = 112
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
MUTED, MARKER = "#c9d8cf", "#f7e3a1"


def plural(count: int, noun: str) -> str:
    """``1 card``, ``2 cards``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _known(state: CardlineState, card: int) -> float | None:
    return float(state.values[card]) if state.revealed[card] else None


def table_view(state: CardlineState, seat: int) -> dict[str, Any]:
    """What ``seat`` sees, JSON-able; equal for ``state`` and any
    ``state.resample_from_infostate(seat, rng)`` (the leak test)."""
    game = state.game
    names, agents = game.names, game.agent_names
    players = []
    for other, hand in enumerate(state.hands):
        card = state.last_card[other]
        last = None
        if card >= 0:
            last = {
                "card": names[card],
                "value": float(state.values[card]),
                "correct": bool(state.last_right[other]),
            }
        players.append(
            {
                "name": agents[other],
                "hand": [{"name": names[c], "known_value": _known(state, c)} for c in hand],
                "hand_size": len(hand),
                "eliminated": bool(state.eliminated[other]),
                "finished": other in state.finishers,
                "starts_rounds": other == state.first_player,
                "cards_placed_right": int(state.correct[other]),
                "last_placement": last,
            }
        )
    over = state.is_terminal() or state.is_truncated()
    result = None
    if over:
        winners = [s for s, r in enumerate(state.returns()) if r > 0]
        result = {
            "winners": winners,
            "shared": len(winners) > 1,
            "truncated": bool(state.is_truncated()),
        }
    last_mover = state.last_mover
    return {
        "game": "cardline_v0",
        "seat": seat,
        "players": players,
        "deck": game.deck_label,
        "characteristic": game.characteristics[state.characteristic],
        "hand_size": game.hand_size,
        "num_gaps": game.num_gaps,
        "round": state.rounds,
        "turns_played": state.turns,
        "max_turns": game.max_turns,
        "to_act": state.current_player(),
        "line": [{"name": names[c], "value": float(state.values[c])} for c in state.line],
        "hand": [
            {"slot": slot, "name": names[c], "known_value": _known(state, c)}
            for slot, c in enumerate(state.hands[seat])
        ],
        "draw_pile": {
            "size": len(state.pile),
            "top": names[state.pile[-1]] if state.pile else None,
        },
        "box": {
            "size": len(state.box),
            "cards": [
                {"name": names[c], "known_value": _known(state, c)} for c in sorted(state.box)
            ],
        },
        "last_mover": last_mover,
        "finished": bool(over),
        "result": result,
    }


# --- drawing ---------------------------------------------------------------------------------
def _wrap(name: str, width: int) -> list[str]:
    """A name in lines of at most ``width`` characters, broken at spaces where possible (never
    cut: a long word is split over lines)."""
    lines: list[str] = []
    for word in name.split():
        while len(word) > width:
            lines.append(word[:width])
            word = word[width:]
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return lines or [""]


def _face(svg: Svg, x: float, y: float, w: float, h: float, top: str, name: str,
          top_size: int = 20, highlight: bool = False, note: str = "") -> None:  # fmt: skip
    """A face-up card: ``top`` large (the value, or ``?``), then the full name wrapped."""
    svg.card(x, y, [], width=w, height=h, highlight=highlight)
    size = top_size if len(top) <= 6 else max(11, top_size * 6 // len(top))
    svg.text(x + w / 2, y + 24, top, size=size, fill=INK, anchor="middle", weight="bold")
    lines = _wrap(name, int((w - 6) * CHARS_PER_PX))
    step = 12 if len(lines) <= 3 else max(8, (h - 38) // len(lines))
    for index, line in enumerate(lines):
        svg.text(x + w / 2, y + 42 + index * step, line, size=10, fill=INK, anchor="middle")
    if note:
        svg.text(x + w / 2, y + h - 6, note, size=9, fill="#555555", anchor="middle")


def _status(view: dict[str, Any]) -> str:
    seat, agents = view["seat"], [p["name"] for p in view["players"]]
    if view["finished"]:
        result = view["result"]
        if result["truncated"]:
            return f"stopped at the cap of {view['max_turns']} turns: nobody wins"
        winners = result["winners"]
        if seat in winners:
            return "game over: you win" + (" (a shared win)" if len(winners) > 1 else "")
        return (
            "game over: "
            + ", ".join(agents[w] for w in winners)
            + " win"
            + ("s" if len(winners) == 1 else "")
        )
    to_act = view["to_act"]
    who = "your turn" if to_act == seat else f"{agents[to_act]} to play"
    return (
        f"round {view['round']}, turn {view['turns_played'] + 1} (cap {view['max_turns']}): {who}"
    )


def _player_line(view: dict[str, Any], index: int) -> str:
    player = view["players"][index]
    who = "you" if index == view["seat"] else player["name"]
    marks = []
    if player["eliminated"]:
        marks.append("eliminated")
    if player["finished"]:
        marks.append("finished this round")
    if player["starts_rounds"]:
        marks.append("starts each round")
    cards = ", ".join(card["name"] for card in player["hand"]) or "no cards"
    line = f"{who}: {player['hand_size']} in hand ({cards})"
    last = player["last_placement"]
    if last:
        verdict = "right" if last["correct"] else "wrong"
        line += f"; last: {last['card']} {show_value(last['value'])} {verdict}"
    return line + (f" [{', '.join(marks)}]" if marks else "")


def table_svg(view: dict[str, Any], actions: Sequence[tuple[int, str]]) -> str:
    """The table from ``view`` and the legal ``(action, name)`` pairs: every action is a
    lettered marker in its gap of the line (letter = the hand card, slot order), and any
    action the picture has no place for (none in a valid view) gets a button below."""
    num_gaps, line = view["num_gaps"], view["line"]
    hand = view["hand"]
    markers: dict[int, list[tuple[int, int, str]]] = {}
    leftover: list[tuple[int, str]] = []
    for action, name in actions:
        slot, gap = divmod(int(action), num_gaps)
        if slot < len(hand) and gap <= len(line):
            markers.setdefault(gap, []).append((slot, int(action), name))
        else:
            leftover.append((int(action), name))
    rows_of_markers = max((len(m) for m in markers.values()), default=0)
    row_h = max(LINE_CARD_H, rows_of_markers * MARKER_STEP + 4)
    per_row = max(1, (WIDTH - 2 * MARGIN - GAP_W) // (LINE_CARD_W + GAP_W))
    line_rows = max(1, -(-len(line) // per_row))
    hand_per_row = (WIDTH - 2 * MARGIN + 10) // (HAND_CARD_W + 10)
    hand_rows = max(1, -(-len(hand) // hand_per_row))
    players = view["players"]

    players_y = TOP_H
    player_lines = [_wrap(_player_line(view, i), PLAYER_LINE_CHARS) for i in range(len(players))]
    line_y = players_y + 16 * sum(map(len, player_lines)) + 8 * len(players) + 30
    hand_y = line_y + line_rows * (row_h + 14) + 24
    buttons_y = hand_y + hand_rows * (HAND_CARD_H + 10) + 12
    height = buttons_y + 40 * (-(-len(leftover) // 4)) + 8
    svg = Svg(WIDTH, height, f"Cardline: {view['deck']}, comparing {view['characteristic']}")
    _draw_top(svg, view, bool(actions))
    y = players_y + 14
    for index, player in enumerate(players):
        fill = MUTED if player["eliminated"] else "#f4f4f4"
        if index == view["to_act"] and not view["finished"]:
            fill = HIGHLIGHT
        for row, text in enumerate(player_lines[index]):
            svg.text(MARGIN + (16 if row else 0), y, text, size=12, fill=fill,
                     weight="bold" if index == view["seat"] else "normal")  # fmt: skip
            y += 16
        y += 8

    svg.text(MARGIN, line_y - 8, f"the line: {plural(len(line), 'card')}, lowest "
             f"{view['characteristic']} on the left", size=12)  # fmt: skip
    _draw_line(svg, view, markers, line_y, row_h, per_row)

    svg.text(MARGIN, hand_y - 8, "your hand (values stay hidden until placed)", size=12)
    for slot, card in enumerate(hand):
        row, column = divmod(slot, hand_per_row)
        x, y = MARGIN + column * (HAND_CARD_W + 10), hand_y + row * (HAND_CARD_H + 10)
        known = card["known_value"]
        note = f"shown before: {show_value(known)}" if known is not None else ""
        _face(svg, x, y, HAND_CARD_W, HAND_CARD_H, "?", card["name"], highlight=bool(actions),
              note=note)  # fmt: skip
        svg.rect(x + 4, y + 4, MARKER_W, MARKER_H, fill=MARKER, stroke=INK, rx=4)
        svg.text(x + 4 + MARKER_W / 2, y + MARKER_H, LETTERS[slot % 26], size=11, fill=INK,
                 anchor="middle", weight="bold")  # fmt: skip
    if not hand:
        svg.text(MARGIN, hand_y + 16, "no cards", size=12, fill=MUTED)

    for index, (action, name) in enumerate(leftover):
        x = MARGIN + (index % 4) * 216
        svg.button(x, buttons_y + 40 * (index // 4), 208, 32, action, name)
    return str(svg)


def _draw_top(svg: Svg, view: dict[str, Any], asked: bool) -> None:
    """Title, status, the last placement, and the draw pile and box at the right."""
    svg.text(MARGIN, 26, f"Cardline ({view['deck']}): comparing {view['characteristic']}",
             size=18, weight="bold")  # fmt: skip
    svg.text(MARGIN, 50, _status(view), size=15, fill=HIGHLIGHT if asked else "#f4f4f4",
             weight="bold")  # fmt: skip
    mover = view["last_mover"]
    if mover != NO_PLAYER and view["players"][mover]["last_placement"]:
        last = view["players"][mover]["last_placement"]
        who = "you" if mover == view["seat"] else view["players"][mover]["name"]
        verdict = "right, it stays" if last["correct"] else "wrong, to the box"
        svg.text(MARGIN, 74, f"last placement: {who} placed {last['card']} "
                 f"({show_value(last['value'])}): {verdict}", size=12,
                 fill="#bfe8c9" if last["correct"] else "#f3b7b2")  # fmt: skip
    if asked:
        svg.text(MARGIN, 96, "click a lettered box in a gap of the line to place that hand "
                 "card there (hover for its name)", size=12)  # fmt: skip
    pile_x = WIDTH - MARGIN - 2 * LINE_CARD_W - 10
    pile = view["draw_pile"]
    svg.text(pile_x, 16, f"draw pile: {pile['size']}", size=11)
    if pile["top"] is None:
        _empty_place(svg, pile_x, "draw pile:", "empty")
    else:
        _face(svg, pile_x, 22, LINE_CARD_W, PILE_CARD_H, "?", pile["top"],
              note="name side up")  # fmt: skip
    box_x = pile_x + LINE_CARD_W + 10
    box = view["box"]
    svg.text(box_x, 16, f"box: {box['size']}", size=11)
    if box["size"]:
        svg.card(box_x, 22, None, width=LINE_CARD_W, height=PILE_CARD_H)
    else:
        _empty_place(svg, box_x, "box:", "empty")


def _empty_place(svg: Svg, x: float, first: str, second: str) -> None:
    """A dashed outline with a label inside, so an empty pile reads as a place on the table
    rather than a drawing glitch."""
    svg.rect(x, 22, LINE_CARD_W, PILE_CARD_H, fill="none", stroke=MUTED,
             extra=' stroke-dasharray="5 4" class="empty"')  # fmt: skip
    middle = x + LINE_CARD_W / 2
    svg.text(middle, 22 + PILE_CARD_H / 2 - 2, first, size=11, fill=MUTED, anchor="middle")
    svg.text(middle, 22 + PILE_CARD_H / 2 + 13, second, size=11, fill=MUTED, anchor="middle")


def _draw_line(svg: Svg, view: dict[str, Any], markers: dict[int, list[tuple[int, int, str]]],
               top: float, row_h: float, per_row: int) -> None:  # fmt: skip
    """Cards left to right, wrapped into rows; gap ``g`` (left of card ``g``) starts each
    slot of a row and the last gap ends the last row. Each gap holds its markers."""
    line = view["line"]
    last = None
    mover = view["last_mover"]
    if mover != NO_PLAYER:
        placement = view["players"][mover]["last_placement"]
        if placement and placement["correct"]:
            last = placement["card"]
    for gap in range(len(line) + 1):
        row, column = divmod(gap, per_row)
        if gap == len(line) and column == 0 and gap:
            row, column = row - 1, per_row  # the closing gap stays on the last row
        x = MARGIN + column * (LINE_CARD_W + GAP_W)
        y = top + row * (row_h + 14)
        _draw_gap(svg, x, y, row_h, markers.get(gap, []))
        if gap < len(line):
            card = line[gap]
            cy = y + (row_h - LINE_CARD_H) / 2
            _face(svg, x + GAP_W, cy, LINE_CARD_W, LINE_CARD_H, show_value(card["value"]),
                  card["name"], highlight=card["name"] == last)  # fmt: skip


def _draw_gap(svg: Svg, x: float, y: float, h: float,
              markers: Sequence[tuple[int, int, str]]) -> None:  # fmt: skip
    """A gap's markers stacked in hand-slot order, centred on the row."""
    stack = len(markers) * MARKER_STEP - (MARKER_STEP - MARKER_H)
    start = y + (h - stack) / 2
    for index, (slot, action, name) in enumerate(sorted(markers)):
        _marker(svg, x + (GAP_W - MARKER_W) / 2, start + index * MARKER_STEP, action,
                LETTERS[slot % 26], name)  # fmt: skip


def _marker(svg: Svg, x: float, y: float, action: int, letter: str, title: str) -> None:
    """A small clickable box holding one letter, its tooltip the action's full name
    (``Svg.button`` would use the letter as the tooltip)."""
    svg.add(
        f'<g class="act" data-action="{int(action)}" role="button" tabindex="0">'
        f"<title>{escape(title)}</title>"
    )
    svg.rect(x, y, MARKER_W, MARKER_H, fill=MARKER, stroke=INK, rx=4)
    svg.text(x + MARKER_W / 2, y + MARKER_H - 4, letter, size=11, fill=INK, anchor="middle",
             weight="bold")  # fmt: skip
    svg.add("</g>")


__all__ = ["table_svg", "table_view"]
