"""The documentation site (``docs/site``, ``make docs``): it builds with warnings as errors,
none of its internal links is broken, each game's page shows the spaces of the live env, the
CLI reference lists every command and flag of the parser, and each game's page opens in the
browser with its title and its picture of the table.

The site is built once per test module, as ``make docs`` builds it (a fresh Sphinx process,
``-E -W``), into a temporary folder. Sphinx, myst-nb and furo (with Beautiful Soup, which furo
needs) are in the ``docs`` extra, part of the dev install: a missing one fails the import of
this module, it is never skipped.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import bs4
import pytest
import sphinx  # noqa: F401  (the docs extra: fail here, not in the build's subprocess)
from browser_helpers import launched_browser

from cardarena.cli import build_parser
from cardarena.envs import ENVS, make_raw

REPO = Path(__file__).resolve().parents[2]
SITE = REPO / "docs" / "site"
#: The games the site documents: those ``cardarena.envs`` registers on import (the test
#: session's fifth game, registered by tests/conftest.py, is not one; its page is checked
#: without a build in ``test_a_game_registered_later_gets_a_page_too``).
SHIPPED = sorted(name for name, module in ENVS.items() if module.__name__.startswith("cardarena."))


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


check_site_links = _load(REPO / "scripts" / "check_site_links.py", "check_site_links")
cardarena_pages = _load(SITE / "_ext" / "cardarena_pages.py", "cardarena_pages")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site built as ``make docs`` builds it; its output folder."""
    out = tmp_path_factory.mktemp("site")
    command = [
        *(sys.executable, "-m", "sphinx", "-E", "-W", "--keep-going", "-q", "-b", "html"),
        *("-d", str(out / ".doctrees"), str(SITE), str(out / "html")),
    ]
    built = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=REPO)
    assert built.returncode == 0, f"sphinx -W failed:\n{built.stdout}\n{built.stderr}"
    assert "WARNING" not in built.stderr, built.stderr
    return out / "html"


def _page(site: Path, path: str) -> bs4.BeautifulSoup:
    return bs4.BeautifulSoup((site / path).read_text(encoding="utf-8"), "html.parser")


def _title(name: str) -> str:
    title, _ = cardarena_pages.split_title(inspect.cleandoc(ENVS[name].__doc__ or ""), name)
    return title


def test_the_site_builds_with_every_page(site):
    pages = {p.relative_to(site).as_posix() for p in site.rglob("*.html")}
    expected = {
        "index.html",
        "api.html",
        "generated/cli.html",
        *(f"generated/games/{name}.html" for name in SHIPPED),
        *(f"generated/rules/{name}.html" for name in [*SHIPPED, "common"]),
        *(f"generated/tutorials/{nb.stem}.html" for nb in (REPO / "notebooks").glob("*.ipynb")),
        *(f"{page}.html" for page in ("vector", "training", "exploitability", "security")),
        *(f"{page}.html" for page in ("web_api", "openspiel", "adding_a_game", "contributing")),
    }
    assert expected <= pages, sorted(expected - pages)
    # exactly one page per game: none missing, none left over from a game no longer registered
    games = {p.stem for p in (site / "generated" / "games").glob("*.html")}
    assert games == set(SHIPPED)


def test_no_internal_link_is_broken(site):
    broken, checked = check_site_links.check_site(site)
    assert not broken, "\n".join(map(str, broken))
    assert checked > 500  # every page's navigation, so the checker did read the pages


def test_the_link_checker_finds_a_planted_broken_link(tmp_path):
    (tmp_path / "index.html").write_text(
        '<a href="page.html#here">ok</a> <a href="page.html#gone">anchor</a>'
        ' <a href="missing.html">file</a> <img src="_images/none.png">'
        ' <a href="https://example.org/x.html">external</a> <a href="#top" id="top">self</a>'
    )
    (tmp_path / "page.html").write_text('<section id="here">...</section>')
    broken, checked = check_site_links.check_site(tmp_path)
    assert checked == 5
    assert sorted(b.link for b in broken) == ["_images/none.png", "missing.html", "page.html#gone"]
    assert check_site_links.main([str(tmp_path)]) == 1


def _specs(page: bs4.BeautifulSoup) -> dict[str, str]:
    section = page.find("section", id="specs")
    assert section is not None, "no Specs section"
    rows = {}
    for row in section.find("table").find("tbody").find_all("tr"):
        key, value = (cell.get_text(" ", strip=True) for cell in row.find_all("td"))
        rows[key] = value
    return rows


@pytest.mark.parametrize("name", SHIPPED)
def test_each_game_page_shows_the_live_env(site, name):
    page = _page(site, f"generated/games/{name}.html")
    assert name in page.find("h1").get_text() and _title(name) in page.find("h1").get_text()
    env = make_raw(name)
    try:
        agent = env.possible_agents[0]
        observation = env.observation_space(agent)
        expected = {
            "Env name": name,
            "Agents": repr(list(env.possible_agents)),
            "Players": f"{env.metadata['min_players']} to {env.metadata['max_players']}",
            "Action space": str(env.action_space(agent)),
            "Observation shape": str(observation["observation"].shape),
            "Observation dtype": str(observation["observation"].dtype),
            "Action mask shape": str(observation["action_mask"].shape),
            "State shape": str(env.state_space.shape),
        }
    finally:
        env.close()
    specs = _specs(page)
    assert {key: specs.get(key) for key in expected} == expected
    # the docstring's layouts and its version history, the rules page and the picture
    headings = [h.get_text(" ", strip=True) for h in page.find_all(["h2", "h3"])]
    for heading in ("Observation Space", "Action Space", "Version history"):
        assert any(h.startswith(heading) for h in headings), (heading, headings)
    history = cardarena_pages.pop_section(ENVS[name].__doc__ or "", "Version History")[1]
    shown = " ".join(page.find("section", id="version-history").get_text(" ").split())
    assert history and " ".join(history.split()[1:9]) in shown  # (its words, past the "- ")
    assert page.find("a", href=f"../rules/{name}.html") is not None
    rules = _page(site, f"generated/rules/{name}.html")
    assert name in rules.find("h1").get_text()
    assert rules.find("section", id="rules") is not None
    pictures = [img for img in page.find_all("img") if name in img.get("src", "")]
    assert len(pictures) == 1
    assert (site / "generated" / "games" / pictures[0]["src"]).resolve().is_file()


def test_a_game_registered_later_gets_a_page_too(tmp_path):
    """The fifth test game (registered for the session only, no rules file, no screenshot)
    gets a page from the same generator, with its live spaces."""
    name = "high_card_v0"
    module = ENVS.get(name)
    if module is None:
        pytest.skip("the fifth test game is not registered (--test-game off)")
    text = cardarena_pages.game_page(name, module, REPO / "docs", SITE / "generated" / "x.md")
    env = make_raw(name)
    try:
        assert f"| Action space | `{env.action_space(env.possible_agents[0])}` |" in text
    finally:
        env.close()
    assert "No rules file ships for `high_card_v0`" in text
    assert "screenshots" not in text
    assert "## Version history" in text


def _sections(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def _shown_in(section: bs4.Tag) -> set[str]:
    """The words of every inline code of ``section`` (``-s, --steps N`` gives three)."""
    shown: set[str] = set()
    for code in section.find_all("code"):
        shown.update(code.get_text(" ").replace(",", " ").split())
    return shown


def test_the_cli_reference_lists_every_command_and_every_flag(site):
    page = _page(site, "generated/cli.html")
    commands = _sections(build_parser())
    assert "train" in commands
    for name, parser in commands.items():
        section = page.find("section", id=f"cli-{name}")
        assert section is not None, f"no section for cardarena {name}"
        assert section.find("h2").get_text(" ", strip=True).startswith(f"cardarena {name}")
        assert section.find("pre").get_text().startswith(f"usage: cardarena {name}")
        actions = [a for a in parser._actions if a.help != argparse.SUPPRESS]
        flags = [flag for action in actions for flag in action.option_strings]
        shown = _shown_in(section)
        assert [flag for flag in flags if flag not in shown] == [], name
        if name == "train":
            assert len(flags) > 40


@pytest.mark.browser
def test_each_game_page_in_the_browser(site, tmp_path):
    with launched_browser() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 900})  # type: ignore[attr-defined]
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        for name in SHIPPED:
            page.goto((site / "generated" / "games" / f"{name}.html").as_uri())
            page.wait_for_load_state("load")
            assert name in page.title() and _title(name) in page.title()
            assert page.inner_text("h1").startswith(_title(name))
            sizes = page.eval_on_selector_all(
                f"article img[src*='{name}']",
                "images => images.map(i => [i.complete, i.naturalWidth, i.naturalHeight])",
            )
            pictures = 1 if (REPO / "docs" / "screenshots" / f"{name}.png").is_file() else 0
            assert len(sizes) == pictures
            assert all(complete and width > 0 and height > 0 for complete, width, height in sizes)
            assert page.is_visible("section#specs table")
            if name == SHIPPED[0]:
                shot = tmp_path / f"{name}.png"
                page.screenshot(path=str(shot), full_page=False)
                assert shot.stat().st_size > 10_000
        assert errors == []
