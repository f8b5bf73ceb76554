"""The rules as shipped: ``envs/rulebooks/<env>.md``, package data of ``cardarena.envs``.

Each game's file is the complete rules as implemented, with their ids (PW-1 ...), the
decisions where the rulebooks are silent and the invented data flagged; ``common.md`` holds the
rules every game shares (C-1 ...). The format is fixed so the commands can quote it:

    # Title (`env_v0`)
    **How to win:** one sentence (the env's ``how_to_win``)
    ## In short       what ``?`` at the ``cardarena play`` prompt prints
    ## Rules ...

``cardarena rules ENV`` prints ``rules_text``; a game without a file (a fifth game registered
without one) gets its env docstring instead, saying so.
"""

from __future__ import annotations

import re
from importlib import resources

from .core import InvalidConfigError

#: The rules every game shares, printed after a game's own (``cardarena rules ENV``).
COMMON = "common"
HOW_TO_WIN = re.compile(r"^\*\*How to win:\*\*\s*(.+)$", re.MULTILINE)


def rules_file(name: str) -> str | None:
    """The markdown of ``envs/rulebooks/<name>.md``, or None when the package ships none."""
    if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
        return None
    path = resources.files("cardarena.envs") / "rulebooks" / f"{name}.md"
    try:
        return path.read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return None


def _known(name: str) -> None:
    from . import ENVS

    if name not in ENVS and name != COMMON:
        raise InvalidConfigError(
            f"unknown env {name!r}; available: {', '.join(sorted(ENVS))} (or {COMMON!r})"
        )


def rules_text(name: str, with_common: bool = False) -> str:
    """The rules of env ``name`` as markdown (``common`` for the shared rules); with
    ``with_common`` the shared rules follow the game's. A registered game without a rules
    file gets its module docstring, which says where its rules are."""
    _known(name)
    text = rules_file(name)
    if text is None:
        from . import ENVS

        doc = (ENVS[name].__doc__ or "").strip()
        text = f"(no rules file is shipped for {name}; its env docstring follows)\n\n{doc}\n"
    if with_common and name != COMMON:
        text = text.rstrip("\n") + "\n\n---\n\n" + (rules_file(COMMON) or "")
    return text


def section(text: str, title: str) -> str:
    """The body of the ``## title`` section of a markdown text ("" when it has none)."""
    match = re.search(rf"^## {re.escape(title)}\s*$(.*?)(?=^## |\Z)", text, re.M | re.S)
    return match.group(1).strip() if match else ""


def short_rules(name: str) -> str:
    """The "In short" section of env ``name``'s rules (what ``?`` at the prompt prints)."""
    text = rules_text(name)
    short = section(text, "In short")
    return short or text.strip()


def table_rules(name: str) -> str:
    """The rules a person at the table reads (``??`` at the ``cardarena play`` prompt): the
    title, how to win and the game's own rules, without the shared rules cited for developers,
    the decisions, the invented data and the agents' view (``cardarena rules ENV`` has all)."""
    text = rules_text(name)
    rules = section(text, "Rules").split("Common rules that matter at this table")[0]
    if not rules:
        return text.strip()
    head = text.split("\n## ", 1)[0].strip()
    rules = re.sub(r"\s*\(envs/rulebooks/\s*common\.md\)", "", rules).strip()
    return (
        f"{head}\n\n## Rules\n{rules}\n\n(the whole text, with the decisions taken where the "
        f"rulebooks are silent and the invented data: cardarena rules {name})"
    )


def how_to_win(name: str) -> str:
    """The rules file's "How to win" sentence, or the env's ``how_to_win``."""
    _known(name)
    match = HOW_TO_WIN.search(rules_file(name) or "")
    if match:
        return match.group(1).strip()
    from . import ENVS

    return str(ENVS[name].raw_env.how_to_win)


__all__ = [
    "COMMON",
    "how_to_win",
    "rules_file",
    "rules_text",
    "section",
    "short_rules",
    "table_rules",
]
