"""The rules ship with the package (issue 20): ``envs/rulebooks/<env>.md`` for every game, complete
with the ids the code cites, read by ``cardarena rules`` and by ``?`` at the prompt; nothing a
user reads points at a file they do not have."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from cardarena.agents.terminal import ask_human
from cardarena.cli import main
from cardarena.envs import ENVS
from cardarena.envs.rules_docs import (
    COMMON,
    how_to_win,
    rules_file,
    rules_text,
    section,
    short_rules,
)

ROOT = Path(__file__).resolve().parents[2]
GAMES = {"ironman_war_v0": "IM", "promise_war_v0": "PW", "beast_wars_v0": "BW", "cardline_v0": "CL"}
SECTIONS = ("In short", "Rules", "Decisions where the rulebooks are silent", "Invented data")
#: Where users read text from us: the package, its notebooks and docs, the README.
USER_FACING = ["envs", "agents", "training", "evaluation", "cli", "bench", "web", "docs",
               "notebooks", "README.md"]  # fmt: skip


def _reader(answers: list[str]):
    """A prompt reader that types ``answers`` in order."""
    feed = iter(answers)
    return lambda prompt: next(feed)


@pytest.mark.parametrize("env", sorted(GAMES))
def test_each_game_ships_its_rules_in_the_fixed_format(env):
    text = rules_file(env)
    assert text is not None, f"envs/rulebooks/{env}.md is missing"
    assert text.startswith("# ") and f"(`{env}`)" in text.splitlines()[0]
    assert how_to_win(env) == ENVS[env].raw_env.how_to_win, "one sentence, said the same twice"
    for title in SECTIONS:
        assert section(text, title), f"{env}: section {title!r} is missing or empty"
    assert len(section(text, "In short").splitlines()) <= 15
    assert "[decided]" in section(text, "Decisions where the rulebooks are silent")


@pytest.mark.parametrize("env", sorted(GAMES))
def test_every_rule_id_the_code_cites_is_in_the_rules_and_the_ids_run_unbroken(env):
    prefix = GAMES[env]
    game = env.removesuffix("_v0")
    cited: set[int] = set()
    for path in [*(ROOT / "envs" / game).glob("*.py"), ROOT / "envs" / f"{env}.py"]:
        cited |= {int(n) for n in re.findall(rf"\b{prefix}-(\d+)", path.read_text())}
    documented = {int(n) for n in re.findall(rf"\*\*{prefix}-(\d+)", rules_file(env) or "")}
    assert cited and cited <= documented, f"cited but not documented: {sorted(cited - documented)}"
    assert documented == set(range(1, max(documented) + 1)), sorted(documented)


def test_the_common_rules_are_shipped_and_complete():
    text = rules_file(COMMON) or ""
    assert {int(n) for n in re.findall(r"\*\*C-(\d+)", text)} == set(range(1, 9))


def test_nothing_users_read_cites_a_rules_file_they_do_not_have():
    offenders = []
    for entry in USER_FACING:
        path = ROOT / entry
        files = [path] if path.is_file() else [p for p in path.rglob("*") if p.is_file()]
        for file in files:
            if file.suffix in {".py", ".md", ".ipynb", ".html", ".js"} and (
                "RULES.md" in file.read_text(errors="replace")
            ):
                offenders.append(str(file.relative_to(ROOT)))
    assert not offenders, offenders


def test_cardarena_rules_prints_the_game_then_the_common_rules(capsys):
    assert main(["rules", "cardline_v0"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(rules_text("cardline_v0").splitlines()[0])
    assert "**C-4" in out and "**CL-1" in out
    assert main(["rules", "cardline_v0", "--short"]) == 0
    assert capsys.readouterr().out.strip() == short_rules("cardline_v0")
    assert main(["rules", "chess_v6"]) == 2
    assert "unknown env 'chess_v6'" in capsys.readouterr().err


def test_a_game_without_a_rules_file_gets_its_docstring():
    from fifth_game import high_card_v0

    from cardarena.envs import register_env

    register_env("high_card_v0", high_card_v0)  # the session's, or again (a no-op)
    text = rules_text("high_card_v0")
    assert "no rules file is shipped for high_card_v0" in text
    assert how_to_win("high_card_v0") == high_card_v0.raw_env.how_to_win
    out = io.StringIO()
    assert ask_human("> ", ["x"], _reader(["?", "a"]), out, "high_card_v0") == 0
    assert "no rules file" in out.getvalue()
