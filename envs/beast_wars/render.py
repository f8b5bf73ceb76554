"""Text rendering of a Beast Wars game: the 4 x 3 board (row 3, predacon's first row, at the
top), reserves, removed characters, the battle deck and the last battle in words.

Names are never cut, and every character shows the numbers printed on its card (red/blue/
gold/green): a board cell holds two lines (owner and full name; face and that face's numbers),
the draft pool and the reserves list both faces. During setup only the side to act is shown
(its draft pool, picks and placement), since the other side's stay hidden until play starts
(BW-4); from then on everything shown is public.
"""

from __future__ import annotations

from .rules import (
    AGENTS,
    ATTACKER,
    CAPTURE,
    CARD_BONUS,
    CARD_NAMES,
    CARD_TYPES,
    COLUMNS,
    DIRECTIONS,
    DRAW,
    FACES,
    FALL,
    MAX_FACTION,
    MUTATE,
    NEIGHBOURS,
    NO_PIECE,
    OVER,
    PHASE_NAMES,
    PLACE,
    PLAY,
    PUSH,
    REMOVED,
    RESERVE,
    ROWS,
    SELECT,
    BeastWarsState,
    cell_name,
)
from .story import numbers_text

TAGS = ("M", "P")
#: The narrowest cell: "robot 10/10/10/10" (a face and four two-digit numbers).
MIN_CELL_WIDTH = 17


def _cell(state: BeastWarsState, cell: int, shown: tuple[int, ...]) -> tuple[str, str]:
    """The two lines of a cell: owner tag and full name; face and its four numbers."""
    piece = int(state.board[cell])
    seat = int(state.owner[cell])
    if piece == NO_PIECE or seat not in shown:
        return ".", ""
    name = state.game.characters.name(piece)
    face = FACES[int(state.faces[piece])]
    return f"{TAGS[seat]} {name}", f"  {face} {numbers_text(state.cell_numbers(cell))}"


def _both_faces(state: BeastWarsState, piece: int) -> str:
    beast, robot = state.game.characters.numbers[piece].tolist()
    return f"beast {numbers_text(beast):<11}  robot {numbers_text(robot)}"


def _card(card: int) -> str:
    return CARD_NAMES[card]


def _number(card: int, total: int) -> str:
    bonus = CARD_BONUS[card % len(CARD_TYPES)]
    return f"{total - bonus}+{bonus} = {total}" if bonus else f"{total}"


def _last_battle(state: BeastWarsState) -> str | None:
    battle = state.last_battle
    if battle is None:
        return None
    characters = state.game.characters
    attacker, defender = (characters.name(p) for p in battle.pieces)
    sides = (AGENTS[battle.attacker_seat], AGENTS[1 - battle.attacker_seat])
    direction = NEIGHBOURS[battle.cells[0]].tolist().index(battle.cells[1])
    mutated = [
        f"{name} mutated"
        for name, card in zip((attacker, defender), battle.cards, strict=True)
        if card % len(CARD_TYPES) == MUTATE
    ]
    numbers = (
        f"{sides[0]} {attacker} drew {_card(battle.cards[0])}: "
        f"{_number(battle.cards[0], battle.numbers[0])}; {sides[1]} {defender} drew "
        f"{_card(battle.cards[1])}: {_number(battle.cards[1], battle.numbers[1])}"
    )
    if battle.winner < 0:
        result = "equal numbers: called off, nobody moves"
    else:
        winner, loser = (attacker, defender) if battle.winner == ATTACKER else (defender, attacker)
        loser_cell = battle.cells[1] if battle.winner == ATTACKER else battle.cells[0]
        fate = {
            PUSH: f"{loser} is pushed to {cell_name(battle.pushed_to)}",
            CAPTURE: f"{loser} is pushed into an occupied space and captured",
            FALL: f"{loser} is pushed off the board",
        }[battle.outcome]
        result = f"{winner} wins: {fate}; {winner} takes {cell_name(loser_cell)}"
    age = state.turn - battle.turn
    when = "last turn" if age == 0 else f"{age} turn{'s' if age > 1 else ''} ago"
    extra = f" ({', '.join(mutated)})" if mutated else ""
    return (
        f"  last battle ({when}): {attacker} at {cell_name(battle.cells[0])} attacked "
        f"{defender} at {cell_name(battle.cells[1])} ({DIRECTIONS[direction]}); {numbers}{extra}; "
        f"{result}"
    )


def _draft(state: BeastWarsState, seat: int) -> list[str]:
    """The draft pool of the side picking: every character of its faction, both faces'
    numbers, the ones already in its team marked."""
    names = state.game.characters.names[seat]
    team = set(state.teams[seat])
    pad = max(len(name) for name in names)
    lines = [
        f"  {AGENTS[seat]} draft: pick {state.game.team_size} "
        f"({len(team)} picked); numbers red/blue/gold/green"
    ]
    for member, name in enumerate(names):
        mark = "  (in your team)" if member in team else ""
        lines.append(f"    {name:<{pad}}  {_both_faces(state, seat * MAX_FACTION + member)}{mark}")
    return lines


def render_table(state: BeastWarsState) -> str:
    game = state.game
    characters = game.characters
    actor = state.current_player()
    if state.phase == OVER:
        left = state.scores()
        counts = f"characters left: maximal {left[0]}, predacon {left[1]}"
        if state.winner == DRAW:
            status = f"game over: draw at the cap of {game.max_turns} turns ({counts})"
        else:
            status = f"game over: {AGENTS[state.winner]} wins ({counts})"
    else:
        status = f"{AGENTS[actor]} to {'move' if state.phase == PLAY else PHASE_NAMES[state.phase]}"
    shown = (0, 1) if state.phase >= PLAY else (actor,)
    width = max(MIN_CELL_WIDTH, 2 + max(len(n) for names in characters.names for n in names))
    lines = [
        f"Beast Wars: maximal (M) vs predacon (P), turn {state.turn} of {game.max_turns}, "
        f"{PHASE_NAMES[state.phase]}; {status}",
        f"  first player: {AGENTS[state.first_player]}; cells show owner, full name, face and "
        "numbers red/blue/gold/green",
        "        " + "".join(f"{'col ' + str(c):<{width + 3}}" for c in range(COLUMNS)),
    ]
    for row in range(ROWS - 1, -1, -1):
        first = {0: "  maximal's first row", ROWS - 1: "  predacon's first row"}.get(row, "")
        cells = [_cell(state, row * COLUMNS + c, shown) for c in range(COLUMNS)]
        top = " | ".join(f"{cell[0]:<{width}}" for cell in cells)
        bottom = " | ".join(f"{cell[1]:<{width}}" for cell in cells)
        lines.append(f"  row {row} {top}{first}")
        lines.append(f"        {bottom}")
    if state.phase == SELECT:
        lines.extend(_draft(state, actor))
    for seat in (0, 1):
        if seat not in shown:
            lines.append(f"  {AGENTS[seat]}: picks hidden until play starts")
            continue
        base = seat * MAX_FACTION
        place = state.location[base : base + MAX_FACTION]
        names = characters.names[seat]
        waiting = [i for i in range(len(names)) if place[i] == RESERVE]
        gone = [names[i] for i in range(len(names)) if place[i] == REMOVED]
        label = "reserve" if state.phase >= PLAY else "picked, not placed"
        if state.phase == PLACE and seat == actor:
            label += f" (placing column {state.placed[seat]} next)"
        if state.phase == SELECT:  # the draft pool above shows the numbers
            team = ", ".join(names[i] for i in waiting) or "-"
            lines.append(f"  {AGENTS[seat]}: team so far: {team}")
            continue
        pad = max((len(names[i]) for i in waiting), default=0)
        lines.append(f"  {AGENTS[seat]}: {label}: {'-' if not waiting else ''}")
        lines.extend(f"    {names[i]:<{pad}}  {_both_faces(state, base + i)}" for i in waiting)
        if state.phase >= PLAY:
            lines.append(f"  {AGENTS[seat]}: removed: {', '.join(gone) or '-'}")
    lines.append(
        f"  battle deck: {state.deck_size} cards left, {int(state.discards.sum())} discarded"
    )
    last = _last_battle(state)
    if last is not None:
        lines.append(last)
    return "\n".join(line.rstrip() for line in lines)
