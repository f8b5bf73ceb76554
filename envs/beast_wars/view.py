"""The Beast Wars table for one seat: ``table_view`` (what that seat sees, JSON-able) and
``table_svg`` (the picture drawn from that view and the seat's legal actions only).

During setup (BW-4) the view holds the seat's own picks and placement and, of the other side,
only the public counts (how many picked, how many placed, so which first-row cells are taken);
from play on both teams, board and reserve, are public. The battle deck's order never shows.

The picture: the 4 x 3 board with row 3 (predacon's first row) on top, as the text render
draws it; a character is a card with its full name, face and the four numbers of that face in
their colours (the other face's numbers small below). Every legal action is one clickable
element (``class="act"``, ``data-action``): a move or an attack is an arrow button on the edge
between the two cells (an edge carries at most one legal action: into an empty cell a move,
onto an enemy an attack); a reinforcement is a "to r0c1" button beside the reserve character;
a draft pick or a placement is the character's card; pass is a button. Besides
``core.svg``'s card and button this module draws its own coloured action button
(``_action_button``) and number boxes (``_numbers``).
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from typing import Any

from ..core.svg import FELT, HIGHLIGHT, INK, TEXT, Svg, escape
from .rules import (
    AGENTS,
    ATTACK_BASE,
    ATTACKER,
    CARD_BONUS,
    CARD_NAMES,
    CARD_TYPES,
    COLOURS,
    COLUMNS,
    DRAW,
    FACES,
    FIRST_ROWS,
    MAX_FACTION,
    MUTATE,
    NEIGHBOURS,
    NUM_CELLS,
    OVER,
    PASS,
    PHASE_NAMES,
    PICK_BASE,
    PLACE,
    REINFORCE_BASE,
    REMOVED,
    RESERVE,
    ROWS,
    SELECT,
    BeastWarsState,
    cell_name,
)
from .story import numbers_text

# --- the view --------------------------------------------------------------------------------


def _character(state: BeastWarsState, piece: int) -> dict[str, Any]:
    numbers = state.game.characters.numbers[piece].tolist()
    return {
        "id": piece % MAX_FACTION,
        "name": state.game.characters.name(piece),
        "beast": numbers[0],
        "robot": numbers[1],
    }


def _result(state: BeastWarsState) -> dict[str, Any] | None:
    if state.phase != OVER:
        return None
    winner = None if state.winner == DRAW else AGENTS[state.winner]
    return {"winner": winner, "reason": state.end_reason(), "left": list(state.scores())}


def table_view(state: BeastWarsState, seat: int) -> dict[str, Any]:
    """What ``seat`` sees (JSON-able): phase, turn, whose turn, the board, both sides'
    counts and (where visible) reserves, the draft pool, the deck counts, the last battle."""
    setup = state.phase in (SELECT, PLACE)
    other = 1 - seat
    board = []
    for cell in range(NUM_CELLS):
        owner = int(state.owner[cell])
        entry: dict[str, Any] = {"cell": cell, "name": cell_name(cell), "piece": None}
        if owner >= 0 and setup and owner == other:
            entry["hidden"] = True  # a placed enemy character: its cell is known, not who
        elif owner >= 0:
            piece = int(state.board[cell])
            face = int(state.faces[piece])
            entry["piece"] = {
                **_character(state, piece),
                "owner": AGENTS[owner],
                "side": owner,
                "face": FACES[face],
                "numbers": state.game.characters.numbers[piece, face].tolist(),
            }
        board.append(entry)
    sides = []
    for side in (0, 1):
        base = side * MAX_FACTION
        size = state.game.characters.sizes[side]
        place = state.location[base : base + size].tolist()
        visible = not setup or side == seat
        sides.append(
            {
                "name": AGENTS[side],
                "you": side == seat,
                "picked": len(state.teams[side]),
                "placed": state.placed[side],
                "on_board": state.board_counts[side],
                "left": state.board_counts[side] + state.reserve_counts[side],
                "reserve": [_character(state, base + i) for i in range(size) if place[i] == RESERVE]
                if visible
                else None,
                "removed": [
                    _character(state, base + i) for i in range(size) if place[i] == REMOVED
                ],
            }
        )
    draft = []
    if state.phase == SELECT:
        base = seat * MAX_FACTION
        team = set(state.teams[seat])
        draft = [
            {**_character(state, base + i), "picked": i in team}
            for i in range(state.game.characters.sizes[seat])
        ]
    battle = state.last_battle
    last_battle = None
    if battle is not None:
        characters = state.game.characters
        last_battle = {
            "attacker": AGENTS[battle.attacker_seat],
            "defender": AGENTS[1 - battle.attacker_seat],
            "names": [characters.name(piece) for piece in battle.pieces],
            "cells": list(battle.cells),
            "cards": [CARD_NAMES[card] for card in battle.cards],
            "numbers": list(battle.numbers),
            "bonus": [CARD_BONUS[card % len(CARD_TYPES)] for card in battle.cards],
            "mutated": [card % len(CARD_TYPES) == MUTATE for card in battle.cards],
            "faces": [FACES[int(state.faces[piece])] for piece in battle.pieces],
            "winner": None
            if battle.winner < 0
            else AGENTS[
                battle.attacker_seat if battle.winner == ATTACKER else 1 - battle.attacker_seat
            ],
            "outcome": ("push", "capture", "fall", "called off")[battle.outcome],
            "pushed_to": battle.pushed_to,
            "age": state.turn - battle.turn,
        }
    to_act = state.current_player()
    return {
        "game": "beast_wars_v0",
        "seat": seat,
        "you": AGENTS[seat],
        "players": list(AGENTS),
        "phase": PHASE_NAMES[state.phase],
        "to_act": None if to_act < 0 else AGENTS[to_act],
        "your_turn": to_act == seat,
        "turn": state.turn,
        "max_turns": state.game.max_turns,
        "first_player": AGENTS[state.first_player],
        "team_size": state.game.team_size,
        "board": board,
        "sides": sides,
        "draft": draft,
        "deck": {"cards": state.deck_size, "discards": int(state.discards.sum())},
        "last_battle": last_battle,
        "finished": state.phase == OVER,
        "result": _result(state),
    }


# --- the picture -----------------------------------------------------------------------------

WIDTH = 900
CELL_W, CELL_H, GAP = 140, 104, 44
BOARD_X, BOARD_Y = 72, 84
PANEL_X = BOARD_X + COLUMNS * CELL_W + (COLUMNS - 1) * GAP + 26
PANEL_W = WIDTH - PANEL_X - 14
SIDE_FILL = ("#d6e4f5", "#f1d7d7")
SIDE_INK = ("#1d4f91", "#8e1f2f")
NUMBER_FILL = {"red": "#c0392b", "blue": "#2a62c9", "gold": "#b8860b", "green": "#2e8b57"}
MOVE_FILL, ATTACK_FILL = "#f7e3a1", "#e8826f"
ARROWS = ("\u25b2", "\u25b6", "\u25bc", "\u25c0")  # up, right, down, left on the page


def _cell_xy(cell: int) -> tuple[float, float]:
    row, col = divmod(cell, COLUMNS)
    return BOARD_X + col * (CELL_W + GAP), BOARD_Y + (ROWS - 1 - row) * (CELL_H + GAP)


def _open_act(svg: Svg, action: int, label: str) -> None:
    svg.add(
        f'<g class="act" data-action="{int(action)}" role="button" tabindex="0">'
        f"<title>{escape(label)}</title>"
    )


def _action_button(
    svg: Svg,
    x: float,
    y: float,
    w: float,
    h: float,
    action: int,
    label: str,
    title: str,
    fill: str = MOVE_FILL,
    size: int = 12,
) -> None:
    """A clickable box like ``Svg.button`` with its own fill (attacks are red) and size."""
    _open_act(svg, action, title)
    svg.rect(x, y, w, h, fill=fill, stroke=INK, rx=5)
    svg.text(x + w / 2, y + h / 2 + size / 2 - 1, label, size=size, fill=INK, anchor="middle")
    svg.add("</g>")


def _numbers(svg: Svg, x: float, y: float, numbers: Sequence[int], box: float = 24) -> None:
    """The four numbers of a face in coloured boxes, red, blue, gold, green."""
    for index, colour in enumerate(COLOURS):
        left = x + index * (box + 3)
        svg.rect(left, y, box, 18, fill=NUMBER_FILL[colour], rx=3)
        svg.text(
            left + box / 2, y + 14, int(numbers[index]), size=12, anchor="middle", weight="bold"
        )


def _name_size(name: str, width: float) -> int:
    """A font size at which the full name fits ``width`` (names are never cut)."""
    return max(8, min(14, int(width / (0.6 * max(len(name), 1)))))


def _piece(svg: Svg, x: float, y: float, piece: dict[str, Any]) -> None:
    side = piece["side"]
    svg.rect(
        x,
        y,
        CELL_W,
        CELL_H,
        fill=SIDE_FILL[side],
        stroke=SIDE_INK[side],
        rx=8,
        extra=' class="piece"',
    )
    name = piece["name"]
    svg.text(x + 8, y + 20, name, size=_name_size(name, CELL_W - 16), fill=INK, weight="bold")
    svg.text(x + 8, y + 37, f"{piece['owner']} · {piece['face']}", size=11, fill=SIDE_INK[side])
    _numbers(svg, x + 8, y + 46, piece["numbers"], box=28)
    other = "robot" if piece["face"] == "beast" else "beast"
    svg.text(x + 8, y + 84, f"{other} side: {numbers_text(piece[other])}", size=10, fill="#555")
    svg.text(x + CELL_W - 8, y + 98, f"id {piece['id']}", size=9, fill="#777", anchor="end")


def _board(svg: Svg, view: dict[str, Any]) -> None:
    for col in range(COLUMNS):
        x = BOARD_X + col * (CELL_W + GAP) + CELL_W / 2
        svg.text(x, BOARD_Y - 8, f"col {col}", size=12, anchor="middle")
    for row in range(ROWS):
        y = BOARD_Y + (ROWS - 1 - row) * (CELL_H + GAP) + CELL_H / 2
        svg.text(BOARD_X - 8, y - 4, f"row {row}", size=12, anchor="end")
        first = {0: 0, ROWS - 1: 1}.get(row)
        if first is not None:  # BW-1: row 0 is maximal's first row, row 3 predacon's
            svg.text(
                BOARD_X - 8,
                y + 12,
                f"{AGENTS[first]}'s",
                size=10,
                anchor="end",
                fill=SIDE_FILL[first],
            )
            svg.text(BOARD_X - 8, y + 24, "first row", size=10, anchor="end", fill=SIDE_FILL[first])
    for entry in view["board"]:
        x, y = _cell_xy(entry["cell"])
        if entry["piece"] is not None:
            _piece(svg, x, y, entry["piece"])
        elif entry.get("hidden"):
            svg.card(x, y, None, width=CELL_W, height=CELL_H)
            svg.text(x + CELL_W / 2, y + CELL_H / 2 + 5, "hidden", size=12, anchor="middle")
        else:
            svg.rect(x, y, CELL_W, CELL_H, fill="#2b7049", stroke="#4f9a6e", rx=8)
            svg.text(
                x + CELL_W / 2,
                y + CELL_H / 2 + 5,
                entry["name"],
                size=13,
                fill="#9fcdb0",
                anchor="middle",
            )


def _edge_button(svg: Svg, action: int, label: str) -> None:
    """A move or attack as an arrow on the edge between the two cells."""
    attack = action >= ATTACK_BASE
    cell, direction = divmod(action % ATTACK_BASE, 4)
    target = int(NEIGHBOURS[cell, direction])
    (x1, y1), (x2, y2) = _cell_xy(cell), _cell_xy(target)
    cx, cy = (x1 + x2) / 2 + CELL_W / 2, (y1 + y2) / 2 + CELL_H / 2
    fill = ATTACK_FILL if attack else MOVE_FILL
    arrow = ARROWS[direction]
    if direction in (0, 2):  # between two rows: a wide button in the row gap
        text = f"{arrow} {'attack' if attack else 'move'}"
        _action_button(svg, cx - 40, cy - 13, 80, 26, action, text, label, fill)
    else:  # between two columns: a narrow one in the column gap
        _open_act(svg, action, label)
        svg.rect(cx - 19, cy - 22, 38, 44, fill=fill, stroke=INK, rx=5)
        svg.text(cx, cy - 2, arrow, size=16, fill=INK, anchor="middle")
        svg.text(cx, cy + 15, "atk" if attack else "move", size=10, fill=INK, anchor="middle")
        svg.add("</g>")


def _character_row(
    svg: Svg,
    x: float,
    y: float,
    character: dict[str, Any],
    side: int,
    width: float,
    action: int | None = None,
    title: str = "",
    note: str = "",
    reserved: float = 0,
) -> float:
    """A reserve or draft character: full name, both faces' numbers (beast and robot on one
    line when ``width`` allows, else one line each); clickable with ``action``. Returns its
    height."""
    wide = width >= 200
    height = 44 if wide else 62
    if action is not None:
        _open_act(svg, action, title)
    stroke = HIGHLIGHT if action is not None else SIDE_INK[side]
    fill = "#b9b9b9" if note else SIDE_FILL[side]
    svg.rect(x, y, width, height, fill=fill, stroke=stroke, rx=6)
    name = character["name"]
    room = width - 12 - (6 * len(note) if note else 0) - reserved
    svg.text(x + 6, y + 15, name, size=_name_size(name, room), fill=INK, weight="bold")
    if note:
        svg.text(x + width - 6, y + 15, note, size=10, fill=INK, anchor="end")
    second = (x + 100, y + 22) if wide else (x, y + 41)
    for (left, top), face in (((x, y + 22), "beast"), (second, "robot")):
        svg.text(left + 6, top + 13, face[0].upper(), size=10, fill=INK)
        _numbers(svg, left + 16, top, character[face], box=17)
    if action is not None:
        svg.add("</g>")
    return height


def table_svg(view: dict[str, Any], actions: Sequence[tuple[int, str]]) -> str:
    """The table from ``view`` and the seat's legal ``(action, name)`` pairs (see the module
    docstring for where each kind of action is drawn)."""
    seat = view["seat"]
    names = dict(actions)
    drawn: set[int] = set()
    svg = Svg(WIDTH, 1, "Beast Wars")  # the height (and the felt's) is set at the end
    felt = len(svg.parts) - 1
    you = view["you"]
    if view["finished"]:
        result = view["result"]
        if result["winner"] is None:
            status = "game over: a draw"
        else:
            status = "you win" if result["winner"] == you else f"{result['winner']} wins"
            status = f"game over: {status}"
    elif view["your_turn"]:
        status = "your turn"
    else:
        status = f"{view['to_act']}'s turn"
    svg.text(16, 26, f"Beast Wars: you are {you}. {status}", size=18, weight="bold")
    svg.text(
        16,
        48,
        f"{view['phase']} phase, turn {view['turn']} of {view['max_turns']}, "
        f"{view['first_player']} plays first; battle deck {view['deck']['cards']} cards, "
        f"discard pile {view['deck']['discards']}; numbers red/blue/gold/green",
        size=12,
    )
    _board(svg, view)
    for action, label in actions:
        if action < REINFORCE_BASE:
            _edge_button(svg, action, label)
            drawn.add(action)
    board_bottom = BOARD_Y + ROWS * CELL_H + (ROWS - 1) * GAP
    y = _panel(svg, view, names, drawn, seat)
    y = max(y, _last_battle(svg, view, board_bottom + 16)) + 8
    leftover = [(a, label) for a, label in actions if a not in drawn]
    x = 16
    for action, label in leftover:  # pass, and anything without a place in the picture
        width = max(60, 8 * len(label) + 16)
        if x + width > WIDTH - 16:
            x, y = 16, y + 34
        _action_button(svg, x, y, width, 28, action, label, label, size=13)
        drawn.add(action)
        x += width + 8
    if leftover:
        y += 34
    svg.height = int(y + 10)
    svg.parts[felt] = (
        f'<rect x="0" y="0" width="{WIDTH}" height="{svg.height}" rx="12" fill="{FELT}" '
        'stroke="none"/>'
    )
    return str(svg)


def _panel(
    svg: Svg, view: dict[str, Any], names: dict[int, str], drawn: set[int], seat: int
) -> float:
    """The right-hand panel: the draft pool, or your reserve (with its actions), the
    other side's reserve and both sides' removed characters. Returns the bottom."""
    x, y = float(PANEL_X), float(BOARD_Y - 20)
    width = PANEL_W
    if view["phase"] == "select":
        mine = view["sides"][seat]
        svg.text(
            x,
            y + 4,
            f"Draft: pick {view['team_size']} ({mine['picked']} picked)",
            size=14,
            weight="bold",
        )
        y += 12
        half = (width - 6) / 2
        for index, character in enumerate(view["draft"]):
            action = PICK_BASE + character["id"]
            legal = action in names
            cx = x + (index % 2) * (half + 6)
            cy = y + (index // 2) * 68
            _character_row(
                svg,
                cx,
                cy,
                character,
                seat,
                half,
                action if legal else None,
                names.get(action, ""),
                "team" if character["picked"] else "",
            )
            if legal:
                drawn.add(action)
        y += ((len(view["draft"]) + 1) // 2) * 68 + 8
    for side_index in (seat, 1 - seat):
        side = view["sides"][side_index]
        owner = "your" if side_index == seat else f"{side['name']}'s"
        reserve = side["reserve"]
        if reserve is None:
            text = (
                f"{side['name']}: {side['picked']} picked, {side['placed']} placed "
                "(who is hidden until play starts)"
            )
            y = _lines(svg, x, y, text, width, size=12) + 8
            continue
        if view["phase"] == "select" and side_index == seat:
            continue
        title = "picks to place" if view["phase"] in ("select", "place") else "reserve"
        if side_index != seat:
            title = "reserve"
        svg.text(
            x,
            y + 14,
            f"{owner} {title} ({len(reserve)}); {side['left']} left",
            size=13,
            weight="bold",
            fill=SIDE_FILL[side_index],
        )
        y += 22
        placing = [a for a in names if PICK_BASE <= a < PASS]
        if side_index == seat and view["phase"] == "place" and placing:
            column = view["sides"][seat]["placed"]
            cell = FIRST_ROWS[seat][column]
            svg.text(
                x, y + 10, f"click one to place it at {cell_name(cell)} (column {column})", size=11
            )
            y += 18
        for character in reserve:
            pick = PICK_BASE + character["id"]
            if side_index == seat and pick in names:  # placement: the card is the action
                y += _character_row(svg, x, y, character, side_index, width, pick, names[pick]) + 6
                drawn.add(pick)
                continue
            if side_index != seat:  # the other side's reserve: one line each
                text = (
                    f"{character['name']}: beast {numbers_text(character['beast'])}, "
                    f"robot {numbers_text(character['robot'])}"
                )
                y = _lines(svg, x, y, text, width, size=11)
                continue
            targets = [
                (a, label)
                for a, label in names.items()
                if REINFORCE_BASE <= a < PICK_BASE
                and (a - REINFORCE_BASE) % MAX_FACTION == character["id"]
            ]
            inline, rest = targets[:3], targets[3:]  # more only if the enemy holds your row
            top = y
            y += _character_row(svg, x, y, character, side_index, width, reserved=50 * len(inline))
            for index, (action, label) in enumerate(inline):
                cell = (action - REINFORCE_BASE) // MAX_FACTION
                bx = x + width - 4 - (len(inline) - index) * 50
                _action_button(
                    svg, bx, top + 3, 46, 17, action, f"to {cell_name(cell)}", label, size=10
                )
                drawn.add(action)
            for index, (action, label) in enumerate(rest):
                cell = (action - REINFORCE_BASE) // MAX_FACTION
                if index % 5 == 0:
                    y += 2 if index else 4
                bx = x + (index % 5) * 56
                _action_button(svg, bx, y, 52, 18, action, f"to {cell_name(cell)}", label, size=10)
                drawn.add(action)
                if index % 5 == 4 or index == len(rest) - 1:
                    y += 20
            y += 4
        removed = side["removed"]
        if removed:
            text = "removed: " + ", ".join(c["name"] for c in removed)
            y = _lines(svg, x, y, text, width, size=11) + 4
        y += 6
    return y


def _lines(
    svg: Svg, x: float, y: float, text: str, width: float, size: int = 12, **style: Any
) -> float:
    """``text`` wrapped to ``width`` pixels below ``y``; returns the new bottom."""
    for line in textwrap.wrap(text, max(10, int(width / (0.56 * size)))):
        y += size + 4
        svg.text(x, y, line, size=size, **style)
    return y


def _last_battle(svg: Svg, view: dict[str, Any], y: float) -> float:
    battle = view["last_battle"]
    if battle is None:
        return y
    when = "last turn" if battle["age"] == 0 else f"{battle['age']} turns ago"
    cells = [cell_name(c) for c in battle["cells"]]
    y = _lines(
        svg,
        16,
        y - 4,
        f"Last battle ({when}): {battle['attacker']}'s {battle['names'][0]} "
        f"({cells[0]}) attacked {battle['defender']}'s {battle['names'][1]} ({cells[1]})",
        PANEL_X - 30,
        size=13,
        weight="bold",
    )
    y += 8
    for index in (0, 1):
        colour, kind = battle["cards"][index].split(":")
        x = 16 + index * 280
        total, bonus = battle["numbers"][index], battle["bonus"][index]
        svg.card(x, y, [str(total), colour, kind.replace("_", " ")], width=88, height=84)
        side = battle["attacker"] if index == 0 else battle["defender"]
        role = "attacker" if index == 0 else "defender"
        svg.text(x + 96, y + 22, battle["names"][index], size=13, weight="bold")
        svg.text(x + 96, y + 40, f"{side}, {role}", size=11)
        value = f"{colour} {total - bonus}" + (f" + {bonus} = {total}" if bonus else "")
        svg.text(x + 96, y + 58, value, size=12)
        if battle["mutated"][index]:
            svg.text(x + 96, y + 76, f"mutated to {battle['faces'][index]}", size=11)
    if battle["winner"] is None:
        result = "equal numbers: called off"
    else:
        loser = battle["names"][1] if battle["winner"] == battle["attacker"] else battle["names"][0]
        fate = {
            "push": f"{loser} pushed to {cell_name(battle['pushed_to'])}",
            "capture": f"{loser} captured",
            "fall": f"{loser} fell off the board",
        }[battle["outcome"]]
        result = f"{battle['winner']} wins: {fate}"
    return _lines(svg, 16, y + 86, result, PANEL_X - 30, size=13, fill=TEXT)


__all__ = ["table_svg", "table_view"]
