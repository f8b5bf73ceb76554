"""Text rendering of a Beast Wars game: the 4 x 3 board (row 3, predacon's first row, at the
top), reserves, removed characters, the battle deck and the last battle in words.

During setup only the side to act is shown (its picks and placement), since the other side's
stay hidden until play starts (BW-4); from then on everything shown is public.
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
    PLAY,
    PUSH,
    REMOVED,
    RESERVE,
    ROWS,
    BeastWarsState,
    cell_name,
)

TAGS = ("M", "P")
NAME_WIDTH = 10
#: tag, name, face (5) and numbers (up to 11 characters: 10/10/10/10), with spaces.
CELL_WIDTH = NAME_WIDTH + 20


def _cell(state: BeastWarsState, cell: int, shown: tuple[int, ...]) -> str:
    piece = int(state.board[cell])
    seat = int(state.owner[cell])
    if piece == NO_PIECE or seat not in shown:
        return f"{'.':<{CELL_WIDTH}}"
    name = state.game.characters.name(piece)[:NAME_WIDTH]
    face = FACES[int(state.faces[piece])]
    numbers = "/".join(map(str, state.cell_numbers(cell)))
    return f"{TAGS[seat]} {name:<{NAME_WIDTH}} {face:<5} {numbers:<{CELL_WIDTH - NAME_WIDTH - 9}}"


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
    lines = [
        f"Beast Wars: maximal (M) vs predacon (P), turn {state.turn} of {game.max_turns}, "
        f"{PHASE_NAMES[state.phase]}; {status}",
        f"  first player: {AGENTS[state.first_player]}; cells show owner, name, face and "
        "numbers red/blue/gold/green",
        "        " + "".join(f"{'col ' + str(c):<{CELL_WIDTH + 3}}" for c in range(COLUMNS)),
    ]
    for row in range(ROWS - 1, -1, -1):
        first = {0: "  maximal's first row", ROWS - 1: "  predacon's first row"}.get(row, "")
        cells = " | ".join(_cell(state, row * COLUMNS + c, shown) for c in range(COLUMNS))
        lines.append(f"  row {row} {cells}{first}")
    for seat in (0, 1):
        if seat not in shown:
            lines.append(f"  {AGENTS[seat]}: picks hidden until play starts")
            continue
        base = seat * MAX_FACTION
        place = state.location[base : base + MAX_FACTION]
        names = characters.names[seat]
        waiting = [names[i] for i in range(len(names)) if place[i] == RESERVE]
        gone = [names[i] for i in range(len(names)) if place[i] == REMOVED]
        label = "reserve" if state.phase >= PLAY else "picked, not placed"
        lines.append(
            f"  {AGENTS[seat]}: {label}: {', '.join(waiting) or '-'}; "
            f"removed: {', '.join(gone) or '-'}"
        )
    lines.append(
        f"  battle deck: {state.deck_size} cards left, {int(state.discards.sum())} discarded"
    )
    last = _last_battle(state)
    if last is not None:
        lines.append(last)
    return "\n".join(line.rstrip() for line in lines)
