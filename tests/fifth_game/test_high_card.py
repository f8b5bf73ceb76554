"""The fifth game: its rules (HC-1..HC-5), its registration through the one registry path, and
proof that a game with no heuristic and no shipped agent is played, evaluated and recorded.

The generic checks (conformance suite, SB3 bridge) run on it because tests/conftest.py
registers it; this file holds only what is particular to it or to the registry.
"""

from __future__ import annotations

import ast
import sys
import types
from pathlib import Path

import numpy as np
import pettingzoo
import pytest
from helpers import env_names

from cardarena.agents import EnvSpec, make_agent
from cardarena.agents.heuristics import has_heuristic
from cardarena.agents.pretrained import has_pretrained
from cardarena.envs import (
    ENVS,
    check_env_module,
    make,
    on_register,
    pettingzoo_id,
    register_env,
    unregister_env,
)
from cardarena.envs.core import IllegalActionError, InvalidConfigError, env_metadata
from fifth_game import NAME, high_card_v0
from fifth_game.high_card.rules import make_game

REAL_GAMES = ("beast_wars_v0", "cardline_v0", "ironman_war_v0", "promise_war_v0")

needs_test_game = pytest.mark.skipif(
    ENVS.get(NAME) is not high_card_v0, reason="run without --test-game=off"
)


def deal(deck, **config):
    return make_game(num_cards=len(deck), **config).new_initial_state(
        np.random.default_rng(0), {"deck": list(deck)}
    )


def play(state, *ranks):
    """Play ranks (1-based) in turn order."""
    for rank in ranks:
        state.apply_action(rank - 1)


# --- rules ---------------------------------------------------------------------------------
def test_hc1_deal_alternates_from_the_top_and_the_rest_is_the_stock():
    state = deal([6, 1, 5, 2, 4, 3])
    assert np.flatnonzero(state.hands[0]).tolist() == [4, 5]  # ranks 5 and 6
    assert np.flatnonzero(state.hands[1]).tolist() == [0, 1]
    assert state.stock == [2, 3]  # top (rank 4) last: drawn first
    assert state.current_player() == 0


def test_hc2_hc3_the_higher_rank_wins_both_cards_and_hc4_both_draw():
    state = deal([6, 1, 5, 2, 4, 3])
    play(state, 5)
    assert state.current_player() == 1 and state.has_picked == [True, False]
    play(state, 2)
    assert state.won == [2, 0] and state.rounds_played == 1
    assert state.played[0, 4] == 1 and state.played[1, 1] == 1
    assert state.hands[0, 3] == 1 and state.hands[1, 2] == 1  # drew rank 4, then rank 3
    assert state.stock == [] and state.hand_sizes == [2, 2]


def test_hc5_more_cards_won_wins_and_an_equal_count_is_a_draw():
    state = deal([6, 1, 5, 2, 4, 3])
    play(state, 5, 2, 6, 1, 4, 3)
    assert state.is_terminal() and state.returns() == (1.0, -1.0) and state.scores() == (6, 0)
    even = deal([4, 1, 2, 3], hand_size=2)
    play(even, 4, 1, 2, 3)
    assert even.returns() == (0.0, 0.0) and even.scores() == (2, 2)


def test_hc4_a_last_odd_card_stays_in_the_stock():
    state = deal([1, 2, 3, 4, 5], hand_size=1)
    play(state, 1, 2)
    assert state.stock == [4] and state.hand_sizes == [1, 1]
    play(state, 3, 4)
    assert state.is_terminal() and state.stock == [4]


def test_illegal_moves_and_bad_configs_and_decks_are_refused():
    state = deal([6, 1, 5, 2, 4, 3])
    with pytest.raises(IllegalActionError, match=r"illegal action 0 \(play rank 1\) for player_0"):
        state.apply_action(0)
    with pytest.raises(InvalidConfigError, match=r"hand_size must be in 1\.\.3, got 4"):
        make_game(num_cards=6, hand_size=4)
    with pytest.raises(InvalidConfigError, match=r"num_cards must be in 2\.\.20"):
        make_game(num_cards=21)
    with pytest.raises(InvalidConfigError, match=r"every rank 1\.\.6 once"):
        deal([1, 1, 2, 3, 4, 5])


def test_rules_import_only_numpy_the_stdlib_and_pure_core():
    """Like every game's rules (tests/packaging checks the real four)."""
    source = Path(__file__).with_name("high_card") / "rules.py"
    pure = {f"cardarena.envs.core.{m}" for m in ("errors", "game", "options", "validation")}
    for node in ast.walk(ast.parse(source.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            root = node.module.split(".")[0]
            assert node.module in pure or root in sys.stdlib_module_names, node.module
        elif isinstance(node, ast.Import):
            assert all(a.name == "numpy" or a.name in sys.stdlib_module_names for a in node.names)


# --- one registry path ---------------------------------------------------------------------
@needs_test_game
def test_the_test_game_is_registered_like_the_real_four():
    assert ENVS[NAME] is high_card_v0 and NAME in env_names()
    assert set(REAL_GAMES) <= set(ENVS)
    env = pettingzoo.make("aec", pettingzoo_id(NAME))
    assert env.unwrapped.metadata["name"] == NAME
    register_env(NAME, high_card_v0)  # the same module again changes nothing
    assert ENVS[NAME] is high_card_v0


def _copy_of_the_test_game(name: str) -> types.ModuleType:
    """A new module holding a renamed High Card (not importable: never made through
    PettingZoo)."""

    class renamed_env(high_card_v0.raw_env):
        metadata = env_metadata(name, 2, 2)
        example_configs = ({},)

    module = types.ModuleType(f"throwaway_{name}", high_card_v0.__doc__)
    module.raw_env = renamed_env  # type: ignore[attr-defined]
    module.env = high_card_v0.env  # type: ignore[attr-defined]
    return module


def test_register_and_unregister_reach_every_registry_and_listener():
    name = "throwaway_copy_v0"
    module = _copy_of_the_test_game(name)
    seen: list[str] = []
    stop = on_register(lambda registered, _: seen.append(registered))
    assert set(seen) == set(ENVS)  # told about every env already there
    register_env(name, module)
    try:
        assert ENVS[name] is module and seen[-1] == name
        assert pettingzoo.aec_registry[pettingzoo_id(name)].entry_point == f"{module.__name__}:env"
        with pytest.raises(InvalidConfigError, match="already registered"):
            register_env(name, _copy_of_the_test_game(name))
    finally:
        stop()
        assert unregister_env(name) is module
    assert name not in ENVS and pettingzoo_id(name) not in pettingzoo.aec_registry
    with pytest.raises(InvalidConfigError, match="unknown env 'throwaway_copy_v0'"):
        unregister_env(name)


def test_a_module_missing_a_piece_is_refused_naming_what_is_missing():
    module = _copy_of_the_test_game("other_copy_v0")
    with pytest.raises(InvalidConfigError, match=r"metadata\['name'\] is 'other_copy_v0'"):
        check_env_module("wrong_name_v0", module)
    with pytest.raises(InvalidConfigError, match="not of the form <game>_v<N>"):
        check_env_module("HighCard", module)

    class no_examples(high_card_v0.raw_env):
        metadata = env_metadata("other_copy_v0", 2, 2)
        example_configs = ()

    broken = types.ModuleType("broken", "no title line")
    broken.raw_env = no_examples  # type: ignore[attr-defined]
    with pytest.raises(InvalidConfigError) as refused:
        register_env("other_copy_v0", broken)
    message = str(refused.value)
    assert "no env()" in message and "example_configs" in message and "# Title" in message
    assert "other_copy_v0" not in ENVS


# --- no heuristic, no shipped agent: both optional -----------------------------------------
def test_heuristic_and_pretrained_say_they_do_not_play_the_test_game():
    assert not has_heuristic(NAME) and not has_pretrained(NAME)
    assert all(has_heuristic(name) and has_pretrained(name) for name in REAL_GAMES)
    with pytest.raises(InvalidConfigError, match=rf"no strategy for env '{NAME}'.*promise_war_v0"):
        make_agent("heuristic", seed=0).start_game("player_0", EnvSpec(NAME))
    with pytest.raises(InvalidConfigError, match=rf"no pretrained agent ships for '{NAME}'"):
        make_agent("pretrained", seed=0).start_game("player_0", EnvSpec(NAME))


@needs_test_game
def test_env_names_leave_out_what_a_game_does_not_have():
    assert NAME in env_names()
    assert NAME not in env_names(heuristic=True) and NAME not in env_names(pretrained=True)
    assert set(env_names(heuristic=True)) >= set(REAL_GAMES)


@needs_test_game
def test_the_test_game_is_evaluated_recorded_and_replayed_without_a_heuristic():
    from cardarena.evaluation import evaluate, play_match, replay

    result = evaluate(lambda: make(NAME), make_agent("random", seed=0), "random", games=40)
    assert result.games == 40 and result.wins + result.draws + result.losses == 40
    assert result.truncated == 0
    record = play_match(NAME, {"player_0": "random", "player_1": "random"}, seed=3)
    assert len(list(replay(record))) > 0


@needs_test_game
def test_a_subprocess_sees_the_builtin_games_only():
    assert NAME not in env_names(builtin=True) and env_names(builtin=True) == sorted(REAL_GAMES)


@needs_test_game
def test_the_test_game_trains_on_the_vector_engine_without_a_heuristic(tmp_path):
    """``train --backend vector`` needs nothing of a game but its registry line and vector
    rules: it is evaluated against random alone and says the heuristic is missing."""
    pytest.importorskip("torch")
    import json

    from cardarena.training.train import train
    from cardarena.training.train_args import TrainArgs

    args = TrainArgs(
        env=NAME, backend="vector", out=tmp_path, steps=256, num_envs=8, rollout_steps=8,
        minibatch_size=32, net_arch=[8], selfplay=True, snapshot_every=64, eval_every=128,
        eval_games=8, final_eval_games=8, checkpoint_every=128, progress=False,
    )  # fmt: skip
    final = train(args)
    assert make_agent(str(final)) is not None
    rows = [json.loads(line) for line in (tmp_path / "eval.jsonl").read_text().splitlines()]
    assert [row["baselines"] for row in rows] == [["random"]] * len(rows) and len(rows) == 3
    assert rows[-1]["not_evaluated"] == {"heuristic": f"{NAME} has no heuristic"}
