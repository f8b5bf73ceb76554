"""A person at a terminal: the prompt that turns what they type into one of the legal moves,
beside the table loop it drives (``table.py``; ``cardarena play`` runs the two together).

Each move gets a letter (``menu_keys``); a person may type the letter, the move's name or a
word that picks out one move (``ask_human``). ``?`` prints the rules in short, ``??`` the
game's rules. Anything typed is shown back with its control characters escaped.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TextIO

from cardarena.envs.core.untrusted import printable

#: What a person may type at the prompt besides a move.
HELP_WORDS = ("?", "help")
RULES_WORDS = ("??", "rules")


def menu_keys(count: int) -> list[str]:
    """Letters for a menu of ``count`` moves: a..z, then aa, ab ... Letters, so a key can
    never be read as a card's value or a position."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    keys = list(letters[:count])
    for first in letters:
        for second in letters:
            if len(keys) >= count:
                return keys
            keys.append(first + second)
    return keys


def _matching_moves(answer: str, keys: list[str], names: list[str]) -> list[int]:
    """The menu indices ``answer`` may mean, the first kind that fits any: a key; a move's
    whole name; the moves whose names end with it (``7`` for "play power 7"); the moves whose
    names hold it as whole words ("tigerhawk" for "place Tigerhawk in column 0")."""
    typed = " ".join(answer.lower().split())
    if not typed:
        return []
    if typed in keys:
        return [keys.index(typed)]
    lowered = [" ".join(name.lower().split()) for name in names]
    if typed in lowered:
        return [lowered.index(typed)]
    ends = [i for i, name in enumerate(lowered) if name.endswith(" " + typed)]
    if ends:
        return ends
    return [i for i, name in enumerate(lowered) if f" {typed} " in f" {name} "]


def ask_human(
    prompt_text: str,
    choices: list[str],
    read: Callable[[str], str],
    out: TextIO,
    env_name: str | None = None,
    redraw: Callable[[], None] | None = None,
) -> int:
    """The index into ``choices`` a person means (``_matching_moves``, when it fits exactly
    one); re-asks on anything else, naming the moves a typed word fits when it fits several.
    ``?`` or ``help`` prints the rules in short, ``??`` or ``rules`` the game's rules (with
    ``env_name``); ``redraw`` then shows the table and the menu again."""
    keys = menu_keys(len(choices))
    while True:
        try:
            answer = read(prompt_text).strip()
        except UnicodeDecodeError:  # bytes that are not text in the terminal's encoding
            answer = "(not text)"
        if env_name is not None and answer.lower() in (*HELP_WORDS, *RULES_WORDS):
            from cardarena.envs.rules_docs import short_rules, table_rules

            whole = answer.lower() in RULES_WORDS
            print(table_rules(env_name) if whole else short_rules(env_name), file=out)
            if not whole:
                print("(?? or rules: the game's rules)", file=out)
            if redraw is not None:
                redraw()
            continue
        matches = _matching_moves(answer, keys, choices)
        if len(matches) == 1:
            return matches[0]
        typed = printable(repr(answer), 40)
        if matches:
            fits = "; ".join(f"{keys[i]}) {printable(choices[i])}" for i in matches[:6])
            more = f" and {len(matches) - 6} more" if len(matches) > 6 else ""
            print(
                f"  {typed} fits {len(matches)} moves ({fits}{more}): type the letter of one",
                file=out,
            )
            continue
        span = keys[0] if len(keys) == 1 else f"{keys[0]}-{keys[-1]}"
        print(
            f"  {typed} is not a move here: type a letter {span} or a move's name "
            "(? for the rules)",
            file=out,
        )


__all__ = ["HELP_WORDS", "RULES_WORDS", "ask_human", "menu_keys"]
