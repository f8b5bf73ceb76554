"""beast_wars_v0 through the PettingZoo API: the observation against a slow reference encoder,
hidden information during setup, the state vector, rendering, options and the BW-8 cap.
The generic checks (api_test, seeds, spaces, masks, copies, docs) come from the conformance
suite."""

from __future__ import annotations

import csv

import numpy as np
import pettingzoo
import pytest
from helpers import random_playout

from cardarena.envs import ENVS, beast_wars_v0, make
from cardarena.envs.beast_wars.rules import (
    CHARACTERS_FILE,
    NO_PIECE,
    REMOVED,
    RESERVE,
    make_game,
)
from cardarena.envs.core import TERMINATED, InvalidConfigError

COLOURS = ("red", "blue", "gold", "green")
TYPES = ("basic", "mutate", "secret_weapon", "energon")
SETUP_PHASES = (0, 1)  # select, place


def shipped_numbers() -> dict[tuple[str, str], np.ndarray]:
    """(faction, name) -> numbers[face, colour], read straight from the CSV file."""
    table = {}
    with CHARACTERS_FILE.open() as handle:
        rows = csv.DictReader(line for line in handle if not line.startswith("#"))
        for row in rows:
            table[row["faction"], row["name"]] = np.array(
                [
                    [int(row[f"{face}_{colour}"]) for colour in COLOURS]
                    for face in ("beast", "robot")
                ]
            )
    return table


NUMBERS = shipped_numbers()
AGENTS = ("maximal", "predacon")


def reference_observation(state, seat: int) -> dict[str, np.ndarray]:
    """What ``seat`` sees, built the slow, obvious way from the rules state and the CSV file
    (not from the encoder's tables): the optimised encoder must agree piece by piece."""
    names = state.game.characters.names
    setup = state.phase in SETUP_PHASES
    over = state.is_terminal()
    owner_rows = np.zeros((12, 3))
    character_rows = np.zeros((12, 12))
    face_rows = np.zeros((12, 2))
    number_rows = np.zeros((12, 4))
    for cell in range(12):
        piece = int(state.board[cell])
        if piece == NO_PIECE:
            owner_rows[cell, 0] = 1
            continue
        side, member = divmod(piece, 12)
        if setup and side != seat:
            owner_rows[cell, 0] = 1  # hidden: looks empty
            continue
        owner_rows[cell, 1 if side == seat else 2] = 1
        character_rows[cell, member] = 1
        face = int(state.faces[piece])
        face_rows[cell, face] = 1
        number_rows[cell] = NUMBERS[AGENTS[side], names[side][member]][face]
    reserve = np.zeros((2, 12))
    removed = np.zeros((2, 12))
    for row, side in enumerate((seat, 1 - seat)):
        if setup and side != seat:
            continue
        for member in range(12):
            where = state.location[side * 12 + member]
            reserve[row, member] = where == RESERVE
            removed[row, member] = where == REMOVED
    deck = np.zeros((4, 4))
    for card in state.deck_top(72):
        deck[divmod(card, 4)] += 1
    discards = np.full((4, 4), 3.0)
    discards[:, 0] = 9
    discards -= deck  # default 72-card deck: everything not in the deck has been discarded
    battle = {
        "battle_attacker": np.zeros(2),
        "battle_cells": np.zeros((2, 12)),
        "battle_characters": np.zeros((2, 12)),
        "battle_cards": np.zeros((2, 4, 4)),
        "battle_numbers": np.zeros(2),
        "battle_winner": np.zeros(2),
        "battle_outcome": np.zeros(4),
        "battle_age": np.zeros(1),
    }
    last = state.last_battle
    if last is not None:
        battle["battle_attacker"][0 if last.attacker_seat == seat else 1] = 1
        for role in (0, 1):
            battle["battle_cells"][role, last.cells[role]] = 1
            battle["battle_characters"][role, last.pieces[role] % 12] = 1
            colour, kind = divmod(last.cards[role], 4)
            battle["battle_cards"][role, colour, kind] = 1
            battle["battle_numbers"][role] = last.numbers[role]
        if last.winner in (0, 1):
            battle["battle_winner"][last.winner] = 1
        battle["battle_outcome"][last.outcome] = 1
        battle["battle_age"][0] = state.turn - last.turn
    phase = np.zeros(3)
    if not over:
        phase[state.phase] = 1
    return {
        "cell_owner": owner_rows,
        "cell_character": character_rows,
        "cell_face": face_rows,
        "cell_numbers": number_rows,
        "side": np.eye(2)[seat],
        "first_player": np.eye(2)[0 if state.first_player == seat else 1],
        "reserve": reserve,
        "removed": removed,
        "deck": deck,
        "discards": discards,
        **battle,
        "turn": np.array([state.turn]),
        "phase": phase,
    }


@pytest.mark.parametrize(
    "config",
    [{}, {"team_selection": "random", "team_size": 9}, {"team_size": 3, "max_turns": 40}],
)
def test_encoder_matches_the_reference_piece_by_piece_for_every_seat(config):
    env = beast_wars_v0.raw_env(**config)
    rng = np.random.default_rng(1)
    seen = {"setup": 0, "battles": 0, "mutated": 0, "outcomes": set()}
    for seed in range(25):
        env.reset(seed=seed)
        while True:
            state = env.game_state
            seen["setup"] += state.phase in SETUP_PHASES
            if state.last_battle is not None:
                seen["battles"] += 1
                seen["outcomes"].add(state.last_battle.outcome)
            seen["mutated"] += int(state.faces[:24].sum())
            for seat, agent in enumerate(env.possible_agents):
                view = env.layout.view(env.observe(agent)["observation"])
                expected = reference_observation(state, seat)
                assert view.keys() == expected.keys()
                for piece, values in expected.items():
                    assert np.array_equal(view[piece], values.reshape(view[piece].shape)), (
                        piece, seat, view[piece], values)  # fmt: skip
            if state.is_terminal():
                break
            env.step(int(rng.choice(np.flatnonzero(env.action_mask(env.agent_selection)))))
    # the games reach every part of the observation
    assert seen["battles"] > 100 and seen["mutated"] > 100
    assert seen["outcomes"] == {0, 1, 2, 3}
    assert seen["setup"] > 0 or config.get("team_selection") == "random"


def test_the_enemys_picks_and_placement_do_not_change_your_observation():
    """BW-4 / C-3: predacon sees nothing of maximal's draft and placement until play starts
    (and maximal nothing of predacon's); from then on both teams are public."""
    drafts = ([0, 1, 2, 3, 4, 5], [11, 10, 9, 8, 7, 6])
    envs = [beast_wars_v0.raw_env(first_player="maximal") for _ in drafts]
    for env in envs:
        env.reset(seed=0)
    before = envs[0].observe("predacon")["observation"]

    def predacon_views_agree():
        seen = [env.observe("predacon")["observation"] for env in envs]
        return np.array_equal(seen[0], seen[1])

    for index in range(6):  # maximal drafts differently in the two games
        for env, draft in zip(envs, drafts, strict=True):
            env.step(240 + draft[index])
            assert np.array_equal(env.observe("predacon")["observation"], before)
    view = envs[0].layout.view(envs[0].observe("maximal")["observation"])
    assert view["reserve"][0, :6].tolist() == [1] * 6 and view["reserve"][0, 6:].sum() == 0
    for member in (0, 2, 4, 6, 8, 10):  # predacon drafts the same in both
        for env in envs:
            env.step(240 + member)
        assert predacon_views_agree()
        view = envs[0].layout.view(envs[0].observe("maximal")["observation"])
        assert view["reserve"][1].sum() == 0  # maximal sees nothing of predacon's draft
    for index in range(3):  # maximal places its (different) first three
        for env, draft in zip(envs, drafts, strict=True):
            env.step(240 + draft[index])
        assert predacon_views_agree()
    for member in (0, 4):
        for env in envs:
            env.step(240 + member)
        assert predacon_views_agree()
        assert envs[0].game_state.phase == 1
    for env in envs:
        env.step(240 + 8)  # predacon's last placement: play starts, teams are public
    assert envs[0].game_state.phase == 2 and not predacon_views_agree()
    view = envs[1].layout.view(envs[1].observe("predacon")["observation"])
    assert view["reserve"][1, [6, 7, 8]].tolist() == [1, 1, 1]  # maximal's reserve
    assert view["cell_owner"][[0, 1, 2], 2].tolist() == [1, 1, 1]  # maximal's first row


def test_resampling_during_the_draft_redraws_the_enemy_team_only():
    env = beast_wars_v0.raw_env(first_player="maximal")
    env.reset(seed=0)
    for member in (0, 1, 2, 3, 4, 5, 6, 7, 8):  # maximal's 6, then 3 of predacon's
        env.step(240 + member)
    state = env.game_state
    rng = np.random.default_rng(0)
    teams = set()
    for _ in range(20):
        twin = state.resample_from_infostate(1, rng)  # predacon cannot see maximal's team
        assert twin.teams[1] == state.teams[1] and len(twin.teams[0]) == 6
        teams.add(tuple(sorted(twin.teams[0])))
        assert env.game_state is state
    assert len(teams) > 10
    twin = state.resample_from_infostate(0, rng)  # maximal: predacon's 3 picks so far
    assert twin.teams[0] == state.teams[0] and len(twin.teams[1]) == 3


def test_the_state_vector_shows_hidden_picks_and_the_next_two_cards():
    env = beast_wars_v0.raw_env(team_size=3, first_player="maximal")
    deck = ["gold:mutate", "green:energon", "red:basic"]
    env.reset(seed=0, options={"battle_deck": deck})
    env.step(240 + 4)
    view = env.state_layout.view(env.state())
    assert view["reserve"][0, 4] == 1  # maximal's hidden pick is in the state
    top = view["deck_top"]
    assert top[0, 2, 1] == 1 and top[1, 3, 3] == 1 and top.sum() == 2
    assert view["to_act"].tolist() == [1, 0] and view["phase"].tolist() == [1, 0, 0]
    predacon = env.layout.view(env.observe("predacon")["observation"])
    assert predacon["reserve"].sum() == 0 and predacon["deck"].sum() == 3


WORKED = {"teams": {"maximal": ["Rhinox", "Optimus Primal", "Cheetor"],
                    "predacon": ["Megatron", "Inferno", "Waspinator"]},
          "first_player": "maximal"}  # fmt: skip


def test_render_shows_the_board_and_the_worked_example_battle():
    env = beast_wars_v0.raw_env(render_mode="ansi", team_size=3)
    env.reset(seed=0, options={**WORKED, "battle_deck": ["blue:basic", "gold:secret_weapon"]})
    text = env.render()
    assert "maximal to move" in text and "M Optimus Primal" in text  # full names (issue 20)
    assert "beast 5/10/7/3" in text
    lines = text.splitlines()
    rows = [line for line in lines if line.lstrip().startswith("row")]
    assert rows[0].lstrip().startswith("row 3") and "P Inferno" in rows[0]  # row 3 on top
    assert rows[3].lstrip().startswith("row 0") and "M Optimus" in rows[3]
    env.step(1 * 4 + 0)
    env.step(10 * 4 + 2)
    env.step(48 + 4 * 4 + 0)
    text = env.render()
    assert "maximal Optimus Primal drew blue:basic: 10" in text
    assert "predacon Inferno drew gold:secret_weapon: 7+2 = 9" in text
    assert "Optimus Primal wins: Inferno is pushed to r3c1; Optimus Primal takes r2c1" in text
    assert "predacon to move" in text


@pytest.mark.parametrize(
    ("deck", "actions", "wording"),
    [
        (["red:mutate", "blue:energon"], [4, 42, 64], "equal numbers: called off"),
        (["green:basic", "red:basic"], [0, 42, 8, 30, 52], "is pushed off the board"),
        (["green:basic", "green:basic"], [0, 42, 8, 30, 71], "pushed into an occupied space"),
    ],
)
def test_render_words_every_battle_outcome(deck, actions, wording):
    env = beast_wars_v0.raw_env(render_mode="ansi", team_size=3)
    env.reset(seed=0, options={**WORKED, "battle_deck": deck})
    for action in actions:
        env.step(action)
    assert wording in env.render()


def test_render_during_setup_shows_only_the_side_to_act():
    env = beast_wars_v0.raw_env(render_mode="ansi", first_player="predacon")
    env.reset(seed=0)
    for member in range(6):
        env.step(240 + member)
    text = env.render()
    assert "predacon to select" in text and "maximal: picks hidden until play starts" in text
    assert "Optimus Primal" not in text


def test_the_cap_terminates_with_the_bw8_outcome_not_a_truncation():
    env = beast_wars_v0.env(team_size=3, max_turns=4)
    env.reset(seed=0, options={**WORKED, "battle_deck": ["red:basic"] * 2})
    for action in (4, 38, 0, 46):  # four moves: 3 against 3
        env.step(action)
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.rewards == {"maximal": 0.0, "predacon": 0.0}
    info = env.infos["maximal"]
    assert info["outcome"] == TERMINATED and info["scores"].tolist() == [3, 3]
    assert info["winners"].tolist() == [0, 0]


def test_random_games_through_the_wrapper_end_with_opposite_rewards():
    env = beast_wars_v0.env()
    rng = np.random.default_rng(0)
    for seed in range(10):
        env.reset(seed=seed)
        final = random_playout(env, rng)
        assert sum(final.values()) == 0 and set(final) == set(AGENTS)


def test_bad_reset_options_raise_and_leave_the_running_game_intact():
    env = beast_wars_v0.raw_env(team_size=3)
    env.reset(seed=1)
    env.step(240)
    before = env.observe("maximal")["observation"].copy()
    for options in (
        {"battle_deck": ["red:basic", "red:joker"]},
        {"teams": {"maximal": [0, 1, 2]}},
        {"teams": [[0, 1, 2], [0, 1, 13]]},
        {"first_player": 0},
    ):
        with pytest.raises(InvalidConfigError, match="options"):
            env.reset(seed=2, options=options)
    assert np.array_equal(env.observe("maximal")["observation"], before)
    assert env.agent_selection == "maximal"


def test_own_characters_file_and_its_errors_through_the_env(tmp_path):
    path = tmp_path / "mini.csv"
    lines = ["faction,name," + ",".join(f"{f}_{c}" for f in ("beast", "robot") for c in COLOURS)]
    lines += [f"maximal,M{i},1,2,3,4,5,6,7,{i}" for i in range(3)]
    lines += [f"predacon,P{i},1,2,3,4,5,6,7,{20 + i}" for i in range(4)]
    path.write_text("\n".join(lines) + "\n")
    env = beast_wars_v0.env(characters=str(path), team_size=3)
    env.reset(seed=0)
    box = env.observation_space("maximal")["observation"]
    raw = env.unwrapped
    assert box.high[raw.layout["cell_numbers"]].max() == 23  # the file's largest number
    assert raw.game.characters.sizes == (3, 4)
    random_playout(env, np.random.default_rng(0))
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join([*lines[:2], "maximal,M9,1,2,three,4,5,6,7,8", *lines[2:]]) + "\n")
    with pytest.raises(InvalidConfigError, match=r"row 2 \(line 3\), column 'beast_gold': 'three'"):
        beast_wars_v0.env(characters=str(bad))
    with pytest.raises(InvalidConfigError, match="team_size=4 is more than the 3 maximal"):
        beast_wars_v0.env(characters=str(path), team_size=4)


def test_registry_and_pettingzoo_make():
    assert ENVS["beast_wars_v0"] is beast_wars_v0
    env = pettingzoo.make("aec", "cardarena/beast_wars-v0", team_selection="random")
    env.reset(seed=0)
    assert env.possible_agents == ["maximal", "predacon"]
    assert make("beast_wars_v0").unwrapped.metadata["name"] == "beast_wars_v0"
    assert beast_wars_v0.raw_env().action_space("maximal").n == 253
    assert make_game().num_actions == 253
