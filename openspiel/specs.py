"""What OpenSpiel needs to know about each env beyond its rules: the game parameters (pyspiel
parameters are int, float, bool or str, so list-valued config gets a string form) and the few
bounds a ``pyspiel.GameInfo`` declares. Nothing here decides anything about a game: the rules
module is the one reference, reached through the env's ``build_game``.

String forms of list-valued config (the empty string means the env's default):

- ``promise_war`` ``decks``: ``"1 1 2 2"`` is one deck for every player (powers, any order:
  a deck is shuffled); ``"1 2 3/2 2 3"`` is one deck per player, in seat order.
- ``ironman_war`` ``deck``: ``"attack_1:3 attack_5:1 upgrade:2"`` (kind:count; kinds left out
  have no cards), as the env's ``deck`` mapping.
- ``cardline`` ``deck``: a path to a ``.csv`` / ``.json`` deck file, or inline cards
  ``"A:1 B:2 C:3.5"`` (name:value, names without spaces: one characteristic named ``value``,
  colour ``none``).

Items are separated by spaces, not commas: OpenSpiel writes a game as
``name(key=value,key=value)`` (``str(game)``, serialization), so a value may hold no comma,
``=`` or parenthesis.
- ``beast_wars`` ``characters``: a path to a characters file.
- ``first_player`` (beast_wars, cardline), ``characteristic`` (cardline): ``""`` for random (the
  env's None); cardline's ``max_turns``: ``0`` for the env's default cap.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from cardarena.envs.beast_wars import rules as beast_wars_rules
from cardarena.envs.cardline import rules as cardline_rules
from cardarena.envs.core.errors import InvalidConfigError
from cardarena.envs.ironman_war import rules as ironman_war_rules
from cardarena.envs.promise_war import rules as promise_war_rules

Params = Mapping[str, Any]


@dataclass(frozen=True)
class GameSpec:
    """One env seen from OpenSpiel: its registered ``short_name``, the env's registry name,
    the parameters with their defaults, how parameters become the env's config, the
    observation pieces private to the observing seat, and the ``GameInfo`` bounds of a
    configured rules ``Game``."""

    short_name: str
    long_name: str
    env_name: str
    defaults: Mapping[str, Any]
    to_config: Callable[[Params], dict[str, Any]]
    private_pieces: tuple[str, ...]
    max_chance_outcomes: Callable[[Any], int]
    max_game_length: Callable[[Any], int]
    min_players: int
    max_players: int


def _empty_none(value: str) -> str | None:
    return value or None


def _ints(text: str, key: str) -> list[int]:
    try:
        return [int(part) for part in text.split()]
    except ValueError as error:
        raise InvalidConfigError(f"{key}={text!r}: write integers separated by spaces") from error


def promise_war_config(params: Params) -> dict[str, Any]:
    decks: Any = None
    text = params["decks"].strip()
    if "/" in text:
        decks = [_ints(part, "decks") for part in text.split("/")]
    elif text:
        decks = _ints(text, "decks")
    return {
        "num_players": params["num_players"],
        "decks": decks,
        "max_power": params["max_power"],
        "max_tricks": params["max_tricks"],
        "normalize_observation": params["normalize_observation"],
    }


def ironman_war_config(params: Params) -> dict[str, Any]:
    deck: dict[str, int] | None = None
    text = params["deck"].strip()
    if text:
        deck = {}
        for part in text.split():
            kind, _, count = part.partition(":")
            try:
                deck[kind] = int(count)
            except ValueError as error:
                raise InvalidConfigError(
                    f"deck={text!r}: write kind:count pairs separated by spaces"
                ) from error
    return {
        "variant": params["variant"],
        "deck": deck,
        "victory_cards": params["victory_cards"],
        "max_rounds": params["max_rounds"],
        "normalize_observation": params["normalize_observation"],
    }


def beast_wars_config(params: Params) -> dict[str, Any]:
    return {
        "team_size": params["team_size"],
        "team_selection": params["team_selection"],
        "characters": _empty_none(params["characters"]),
        "first_player": _empty_none(params["first_player"]),
        "max_turns": params["max_turns"],
        "normalize_observation": params["normalize_observation"],
    }


def cardline_deck(text: str) -> Any:
    """``""`` -> the built-in deck, a path as it is, ``"A:1 B:2"`` -> a list of card dicts."""
    text = text.strip()
    if not text:
        return None
    if text.endswith((".csv", ".json")):
        return text
    cards = []
    for part in text.split():
        name, _, value = part.partition(":")
        try:
            cards.append({"name": name, "colour": "none", "value": float(value)})
        except ValueError as error:
            raise InvalidConfigError(
                f"deck={text!r}: write name:value pairs separated by spaces"
            ) from error
    return cards


def cardline_config(params: Params) -> dict[str, Any]:
    first: Any = params["first_player"].strip() or None
    if first is not None and first.isdigit():
        first = int(first)
    return {
        "num_players": params["num_players"],
        "hand_size": params["hand_size"],
        "characteristic": _empty_none(params["characteristic"]),
        "deck": cardline_deck(params["deck"]),
        "first_player": first,
        "max_turns": params["max_turns"] or None,
        "normalize_observation": params["normalize_observation"],
    }


def _ironman_length(game: Any) -> int:
    # Per round and seat: 3 commits; every other decision plays a hand card (at most the
    # whole deck), names a shield target (at most one per card played) or concedes a battle.
    return game.max_rounds * (2 * (3 + 2 * game.deck_size) + 3)


SPECS: dict[str, GameSpec] = {
    spec.env_name: spec
    for spec in (
        GameSpec(
            short_name="cardarena_promise_war",
            long_name="cardarena War! for Promise TCG decks (promise_war_v0)",
            env_name="promise_war_v0",
            defaults={
                "num_players": 2,
                "decks": "",
                "max_power": promise_war_rules.DEFAULT_MAX_POWER,
                "max_tricks": 500,
                "normalize_observation": False,
            },
            to_config=promise_war_config,
            private_pieces=("hand", "own_pick", "own_deck"),
            # Shuffles place powers 0..max_power; every decision plays a card for good.
            max_chance_outcomes=lambda game: game.max_power + 1,
            max_game_length=lambda game: game.total_cards,
            min_players=promise_war_rules.MIN_PLAYERS,
            max_players=promise_war_rules.MAX_PLAYERS,
        ),
        GameSpec(
            short_name="cardarena_ironman_war",
            long_name="cardarena Iron Man 2 Game of War (ironman_war_v0)",
            env_name="ironman_war_v0",
            defaults={
                "variant": "advanced",
                "deck": "",
                "victory_cards": 5,
                "max_rounds": 50,
                "normalize_observation": False,
            },
            to_config=ironman_war_config,
            private_pieces=("hand", "own_deck", "own_committed", "own_pending"),
            max_chance_outcomes=lambda game: ironman_war_rules.NUM_KINDS,
            max_game_length=_ironman_length,
            min_players=2,
            max_players=2,
        ),
        GameSpec(
            short_name="cardarena_beast_wars",
            long_name="cardarena Beast Wars Mutating Card Game (beast_wars_v0)",
            env_name="beast_wars_v0",
            defaults={
                "team_size": 6,
                "team_selection": "choose",
                "characters": "",
                "first_player": "",
                "max_turns": 200,
                "normalize_observation": False,
            },
            to_config=beast_wars_config,
            private_pieces=(),
            # First player (2), battle cards (16 kinds), random teams (12 characters a side).
            max_chance_outcomes=lambda game: max(
                len(beast_wars_rules.COLOURS) * len(beast_wars_rules.CARD_TYPES),
                beast_wars_rules.MAX_FACTION,
            ),
            # One decision a turn, plus team picks and the three first-row placements a side.
            max_game_length=lambda game: (
                game.max_turns + 2 * (game.team_size + beast_wars_rules.COLUMNS)
            ),
            min_players=2,
            max_players=2,
        ),
        GameSpec(
            short_name="cardarena_cardline",
            long_name="cardarena Cardline (cardline_v0)",
            env_name="cardline_v0",
            defaults={
                "num_players": 2,
                "hand_size": cardline_rules.DEFAULT_HAND_SIZE,
                "characteristic": "",
                "deck": "",
                "first_player": "",
                "max_turns": 0,
                "normalize_observation": False,
            },
            to_config=cardline_config,
            private_pieces=(),
            # Card ids, the first player, the characteristic.
            max_chance_outcomes=lambda game: max(
                game.deck_size, game.num_players, len(game.characteristics)
            ),
            max_game_length=lambda game: game.max_turns,
            min_players=cardline_rules.MIN_PLAYERS,
            max_players=cardline_rules.MAX_PLAYERS,
        ),
    )
}
