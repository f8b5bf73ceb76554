"""Reset-option helpers shared by every game (C-6, envs/rulebooks/common.md)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from cardarena.envs.core.errors import InvalidConfigError
from cardarena.envs.core.options import check_reset_options, per_player

AGENTS = ("player_0", "player_1", "player_2")


# --- per_player --------------------------------------------------------------------------------


def test_list_tuple_and_dict_give_the_same_seat_ordered_list():
    by_seat = per_player([["a"], ["b"], []], "options['hands']", AGENTS)
    by_tuple = per_player((["a"], ["b"], []), "options['hands']", AGENTS)
    by_name = per_player(
        {"player_2": [], "player_0": ["a"], "player_1": ["b"]}, "options['hands']", AGENTS
    )
    assert by_seat == by_tuple == by_name == [["a"], ["b"], []]
    assert isinstance(by_tuple, list)


def test_wrong_length_gives_both_numbers_and_the_agents():
    with pytest.raises(
        InvalidConfigError,
        match=r"options\['hands'\] must have one entry per player \(3: 'player_0', 'player_1', "
        r"'player_2'\), got 2: \[1, 2\]",
    ):
        per_player([1, 2], "options['hands']", AGENTS)


def test_dict_missing_agents_names_them():
    with pytest.raises(
        InvalidConfigError,
        match=r"options\['hands'\] must cover every player: missing 'player_1', 'player_2'",
    ):
        per_player({"player_0": []}, "options['hands']", AGENTS)


def test_dict_with_unknown_agent_names_it_and_lists_agents():
    given = {"player_0": 1, "plyer_1": 2, "player_2": 3}
    with pytest.raises(
        InvalidConfigError,
        match=r"options\['teams'\] has unknown agent\(s\) 'plyer_1'; agents: 'player_0', "
        r"'player_1', 'player_2'",
    ):
        per_player(given, "options['teams']", AGENTS)


@pytest.mark.parametrize("value", ["abc", None, 3, {1, 2, 3}, np.array([1, 2, 3])])
def test_other_types_are_refused(value):
    with pytest.raises(
        InvalidConfigError,
        match=rf"hands must be a list with one entry per player in seat order .* or a dict "
        rf"agent -> entry, got .* \({type(value).__name__}\)",
    ):
        per_player(value, "hands", AGENTS)


# --- check_reset_options -----------------------------------------------------------------------


def test_none_means_no_options():
    assert check_reset_options(None, ["hands"]) == {}


def test_known_keys_are_returned_unchanged_without_warning():
    hands = [["a"], ["b"]]
    options = {"hands": hands, "first_player": 0}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        checked = check_reset_options(options, ["hands", "first_player", "draw_pile"])
    assert checked == options and checked["hands"] is hands


def test_unknown_key_warns_naming_it_and_the_allowed_keys_and_is_dropped():
    options = {"options": 1, "hands": [], "colour": "red"}
    with pytest.warns(
        UserWarning,
        match=r"unknown reset option\(s\) 'options', 'colour'; allowed: 'hands', 'first_player'",
    ) as record:
        checked = check_reset_options(options, ["hands", "first_player"])
    assert checked == {"hands": []}
    assert options == {"options": 1, "hands": [], "colour": "red"}, "input must not be mutated"
    assert record[0].filename == __file__, "the warning points at the caller, not at cardarena"


def test_warning_with_no_allowed_keys():
    with pytest.warns(UserWarning, match=r"'options'; allowed: none"):
        assert check_reset_options({"options": 1}, ()) == {}


@pytest.mark.parametrize("options", [[("hands", 1)], "hands", 3])
def test_non_dict_options_raise(options):
    with pytest.raises(
        InvalidConfigError,
        match=rf"reset options must be a dict, got .* \({type(options).__name__}\); "
        r"allowed keys: 'hands'",
    ):
        check_reset_options(options, ["hands"])


def test_warning_skips_cardarena_frames_to_point_at_the_users_reset_call():
    game_module = {"__name__": "cardarena.envs.fake.rules", "check": check_reset_options}
    exec("def reset(options):\n    return check(options, ['hands'])\n", game_module)
    with pytest.warns(UserWarning, match="'typo'") as record:
        game_module["reset"]({"typo": 1})
    assert record[0].filename == __file__
