"""The web table as a person uses it: the system Chromium, driven headless by Playwright, plays
a whole game of each env by clicking the cards, boxes and cells of the SVG table, then checks
the result line; a screenshot of each table must show a picture (not one flat colour).

With ``CARDARENA_SCREENSHOTS=1`` the screenshots are written to ``docs/screenshots/<env>.png``
(the README shows them). The browser is Debian's ``chromium`` (``.ci/run`` installs it);
Playwright never downloads one. Without ``/usr/bin/chromium`` these tests skip, unless
``CARDARENA_REQUIRE_BROWSER`` is set, when they fail.
"""

from __future__ import annotations

import io
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from browser_helpers import launched_browser
from web_helpers import FOUR

from cardarena.envs import ENVS
from cardarena.envs.core.aec import GameAECEnv

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
#: The move after which the table is photographed (mid-game: cards in hand, highlights;
#: Beast Wars after the draft and the placing, with characters on the board).
PHOTO_MOVE = {"beast_wars_v0": 14}

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with launched_browser() as launched:
        yield launched


def picture_check(png: bytes) -> tuple[int, float]:
    """(distinct colours, share of the commonest colour) of a PNG screenshot."""
    try:
        from PIL import Image
    except ImportError:  # matplotlib brings Pillow; without either, read it with matplotlib
        import matplotlib.image

        pixels = (matplotlib.image.imread(io.BytesIO(png), format="png") * 255).astype(np.uint8)
    else:
        pixels = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
    rgb = pixels[..., :3].reshape(-1, 3).astype(np.uint32)
    packed = (rgb[:, 0] << 16) | (rgb[:, 1] << 8) | rgb[:, 2]
    _, counts = np.unique(packed, return_counts=True)
    return len(counts), float(counts.max() / counts.sum())


def draws_its_own_table(env: str) -> bool:
    return ENVS[env].raw_env.table_svg is not GameAECEnv.table_svg


@pytest.mark.parametrize("env", FOUR)
def test_a_whole_game_by_clicking_the_table(browser, live_server, env, tmp_path):
    page = browser.new_page(viewport={"width": 1280, "height": 900})  # type: ignore[attr-defined]
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    try:
        page.goto(f"{live_server.url}/?env={env}")
        page.wait_for_selector("body[data-ready='1']")
        page.fill("#seed", "7")
        page.click("#start")
        page.wait_for_selector("body[data-step='1']")
        rng = np.random.default_rng(3)
        svg_clicks = button_clicks = 0
        photo = None
        for move in range(400):
            if page.get_attribute("body", "data-over") == "1":
                break
            step = page.get_attribute("body", "data-step")
            targets = page.query_selector_all("#table .act")
            if targets:
                targets[int(rng.integers(len(targets)))].click()
                svg_clicks += 1
            else:
                buttons = page.query_selector_all("#actions button.action")
                assert buttons, page.inner_text("#status")
                buttons[int(rng.integers(len(buttons)))].click()
                button_clicks += 1
            page.wait_for_function(
                "s => document.body.dataset.step !== s && document.body.dataset.busy === '0'",
                arg=step,
            )
            assert "error" not in (page.get_attribute("#status", "class") or ""), page.inner_text(
                "#status"
            )
            if move + 1 == PHOTO_MOVE.get(env, 3):
                photo = page.screenshot(full_page=True)
        else:
            raise AssertionError(f"{env}: no end in 400 moves")
        result = page.inner_text("#result")
        assert page.is_visible("#result") and result.startswith(("you ", "a draw", "the game"))
        assert page.query_selector_all("#log li"), "the event log stayed empty"
        if draws_its_own_table(env):
            assert button_clicks == 0, f"{env}: {button_clicks} moves had no place in the SVG"
        final = page.screenshot(full_page=True)
        for shot in (photo or final, final):
            colours, commonest = picture_check(shot)
            assert colours >= 16 and commonest < 0.9, (env, colours, commonest)
        folder = SCREENSHOTS if os.environ.get("CARDARENA_SCREENSHOTS") == "1" else tmp_path
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{env}.png").write_bytes(photo or final)
        (tmp_path / f"{env}-final.png").write_bytes(final)
        assert not errors, errors
    finally:
        page.close()


def test_rules_and_replay_tabs(browser, live_server):
    from cardarena.evaluation.records import play_match

    record = play_match("promise_war_v0", {"player_0": "heuristic", "player_1": "random"}, 4)
    page = browser.new_page()  # type: ignore[attr-defined]
    try:
        page.goto(live_server.url)
        page.wait_for_selector("body[data-ready='1']")
        page.select_option("#env", "promise_war_v0")
        page.click("#tab-rules")
        page.select_option("#rules-env", "promise_war_v0")
        page.wait_for_function("document.querySelector('#rules-text h2') !== null")
        assert "PW-" in page.inner_text("#rules-text")
        page.click("#tab-replay")
        page.fill("#record", record.to_json())
        page.click("#load-replay")
        page.wait_for_selector("#replay-view:not([hidden])")
        assert f"of {record.steps}" in page.inner_text("#replay-position")
        page.click("#replay-forward")
        assert page.inner_text("#replay-position").startswith("step 1 ")
        assert page.inner_text("#replay-move").startswith("player_0: ")
        page.click("#replay-last")
        assert page.inner_text("#replay-position") == f"step {record.steps} of {record.steps}"
        page.click("#replay-back")
        assert page.inner_text("#replay-text")
    finally:
        page.close()


def test_the_replay_viewer_fetches_pages_as_it_steps(browser, live_server, tmp_path):
    """A game longer than a page: the viewer shows the first page, fetches the next one when
    the person steps past it (or jumps), and shows the right move and table at each step."""
    from cardarena.envs import make_raw
    from cardarena.evaluation.records import play_match

    config = {"victory_cards": 1_000_000, "max_rounds": 60}
    record = play_match(
        "ironman_war_v0", {"iron_man": "random", "war_machine": "random"}, 5, config
    )
    total = record.steps
    assert total > 800, total
    env = make_raw("ironman_war_v0", **config, render_mode="ansi")
    env.reset(seed=record.seed)
    expected: dict[int, tuple[str, str]] = {}  # step -> (move line, table text)
    for step, action in enumerate(record.actions, start=1):
        move = f"{env.agent_selection}: {env.game_state.action_to_string(action)}"
        env.step(action)
        if step in (199, 200, 201, 399, 400, 655, total):
            expected[step] = (move, re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", env.render()))
    asked: list[int] = []

    def on_request(request: object) -> None:
        if request.url.endswith("/api/replays"):  # type: ignore[attr-defined]
            asked.append(json.loads(request.post_data)["from"])  # type: ignore[attr-defined]

    page = browser.new_page(viewport={"width": 1280, "height": 900})  # type: ignore[attr-defined]
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("request", on_request)
    page.set_default_timeout(15_000)  # a page of frames takes well under a second here

    def at(step: int) -> None:
        page.wait_for_selector(f"body[data-replay-step='{step}'][data-replay-loading='0']")
        assert page.inner_text("#replay-position") == f"step {step} of {total}"
        move, text = expected[step]
        assert page.inner_text("#replay-move") == move
        assert page.inner_text("#replay-text").strip() == text.strip()

    try:
        page.goto(live_server.url)
        page.wait_for_selector("body[data-ready='1']")
        page.click("#tab-replay")
        page.fill("#record", record.to_json())
        page.click("#load-replay")
        page.wait_for_selector("body[data-replay-step='0']")
        assert asked == [0] and page.inner_text("#replay-position") == f"step 0 of {total}"
        page.fill("#replay-goto", "199")
        page.press("#replay-goto", "Enter")
        at(199)
        page.click("#replay-forward")  # past the first page: frames 200.. come from the server
        at(200)
        assert 200 in asked
        page.click("#replay-forward")
        at(201)
        page.fill("#replay-goto", "655")  # a jump to a page nobody asked for yet
        page.press("#replay-goto", "Enter")
        at(655)
        assert 600 in asked
        page.fill("#replay-goto", "400")
        page.press("#replay-goto", "Enter")
        at(400)
        page.click("#replay-back")  # back across a page boundary
        at(399)
        page.click("#replay-last")
        at(total)
        assert total // 200 * 200 in asked
        shot = page.screenshot(full_page=True)
        colours, commonest = picture_check(shot)
        assert colours >= 16 and commonest < 0.95, (colours, commonest)
        folder = SCREENSHOTS if os.environ.get("CARDARENA_SCREENSHOTS") == "1" else tmp_path
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "replay.png").write_bytes(shot)
        assert not errors, errors
    finally:
        page.close()
