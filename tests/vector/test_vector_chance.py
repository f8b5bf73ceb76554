"""The vector engines' own chance, checked on the vector engine itself (issue 40, point 1).

``test_exactness`` hands one state to both engines, so the deals and reshuffles the vector
engine makes by itself are compared with nothing there. Here, for every game and every class
of config the package accepts:

- **invariants**: random play on 256 rows over whole games (autoreset deals included); after
  every step the batch arrays themselves are read (every card in exactly one place, each seat
  owning exactly its deck, piles matching their counts, the sizes the rules give after a deal,
  a round's draw or a penalty draw, nothing lost or duplicated by a reshuffle), and
  ``check_loaded_state`` runs on ``state_of(i)`` of two rows per step, in turn;
- **distributions**: the vector deal on 16,000 rows against ``raw_env.reset(seed=s)`` for
  4,000 seeds, and one reshuffle per game that has them (one state loaded into 6,000 rows and
  into the scalar rules with 6,000 seeds), feature by feature (a seat's count of a kind, a
  card's place, a pile's top card, who acts) with ``vector_checks.distribution_differences``:
  a two-sample Pearson chi-square test per feature at ``ALPHA`` / features (Bonferroni).

False alarms: a correct engine fails one distribution test with probability at most
``ALPHA`` = 1e-4; the module's 34 such tests fail together with probability at most 0.34 %.
The seeds are fixed, so runs repeat exactly: the rate is the chance that a correct change of
an engine's order of draws turns a test red. The ``*_detects_*`` tests prove the power: one
card moved to another seat, or one seat rotated, in the vector sample fails the same test.
"""

from __future__ import annotations

import csv
import functools
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from vector_checks import distribution_differences

from cardarena.envs import make_raw
from cardarena.envs.beast_wars import rules as bw_rules
from cardarena.envs.beast_wars import vector as bw
from cardarena.envs.cardline import rules as cl_rules
from cardarena.envs.cardline import vector as cl
from cardarena.envs.core.kernels import random_legal_actions
from cardarena.envs.core.state_checks import check_loaded_state
from cardarena.envs.ironman_war import rules as im_rules
from cardarena.envs.ironman_war import vector as im
from cardarena.envs.promise_war import rules as pw_rules
from cardarena.envs.promise_war import vector as pw
from cardarena.envs.vector import Batch, BatchEnv, make_vec

ALPHA = 1e-4
DEAL_ROWS, DEAL_SEEDS = 16_000, 4_000
SHUFFLE_ROWS, SHUFFLE_SEEDS = 6_000, 6_000
PLAY_ROWS, PLAY_STEPS, STATE_CHECKS = 256, 400, 2

PW, IM, BW, CL = "promise_war_v0", "ironman_war_v0", "beast_wars_v0", "cardline_v0"


def _characters(maximals: int, predacons: int) -> list[dict[str, Any]]:
    """The shipped Beast Wars characters, cut to factions of the given sizes."""
    with open(bw_rules.CHARACTERS_FILE, newline="") as handle:
        rows = list(csv.DictReader(line for line in handle if not line.startswith("#")))
    kept = {"maximal": maximals, "predacon": predacons}
    table = []
    for row in rows:
        if kept[row["faction"]] > 0:
            kept[row["faction"]] -= 1
            table.append(
                {
                    key: value if key in ("faction", "name") else int(value)
                    for key, value in row.items()
                }
            )
    return table


def _timeline(cards: int) -> list[dict[str, Any]]:
    """A custom Cardline deck of ``cards`` events (one characteristic, two equal values), its
    rows not in value order (CL-1)."""
    years = [1215, -49, 1789, 80, -2560, 1969, 537, -753, 1789, 1066, -27, 800, 1492, -490]
    return [{"name": f"event {k}", "colour": "any", "year": years[k]} for k in range(cards)]


#: Every class of config each game accepts: player counts 2..max, shared and per-seat decks,
#: variants, team selection modes and sizes, custom decks and hand sizes, fixed and drawn
#: first players and characteristics. ``(id, config, reshuffles)``: whether random play on
#: ``PLAY_ROWS`` rows must reach reshuffles (the invariant test then insists on seeing some).
CONFIGS: dict[str, list[tuple[str, dict[str, Any], bool]]] = {
    PW: [
        *[(f"{n}p", {"num_players": n}, False) for n in range(2, 9)],
        ("shared-deck", {"num_players": 3, "max_power": 4, "decks": [0, 1, 1, 2, 3, 4, 4]}, False),
        (
            "per-seat-lists",
            {
                "num_players": 3,
                "max_power": 9,
                "decks": [[1, 2, 3, 4, 5, 6], [0, 0, 7, 7, 8, 9, 9, 9, 9], [5, 5]],
            },
            False,
        ),
        (
            "per-seat-dict",
            {
                "num_players": 4,
                "max_power": 6,
                "max_tricks": 5,
                "decks": {
                    "player_0": [6, 6, 6, 1, 2],
                    "player_1": [0, 1, 2, 3, 4, 5, 6],
                    "player_2": [3],
                    "player_3": [2, 2, 4, 4, 6, 6, 1, 1],
                },
            },
            False,
        ),
    ],
    IM: [
        ("advanced", {}, True),
        ("beginner", {"variant": "beginner"}, True),
        (
            "advanced-small-deck",
            {
                "deck": {"attack_1": 3, "attack_5": 1, "upgrade": 2, "energy_shield": 2},
                "max_rounds": 6,
            },
            True,
        ),
        (
            "advanced-20-cards",
            {
                "deck": {
                    "attack_1": 4,
                    "attack_2": 4,
                    "attack_3": 3,
                    "attack_4": 2,
                    "attack_5": 2,
                    "upgrade": 2,
                    "energy_shield": 2,
                    "final_attack": 1,
                }
            },
            True,
        ),
        (
            "beginner-small-deck",
            {
                "variant": "beginner",
                "max_rounds": 8,
                "deck": {"attack_1": 3, "attack_3": 3, "attack_5": 2, "upgrade": 4},
            },
            True,
        ),
    ],
    BW: [
        ("choose-6", {}, True),
        ("random-6", {"team_selection": "random"}, True),
        ("choose-3-predacon-first", {"team_size": 3, "first_player": "predacon"}, True),
        ("choose-12", {"team_size": 12, "max_turns": 60}, True),
        (
            "random-12-maximal-first",
            {"team_selection": "random", "team_size": 12, "first_player": "maximal"},
            True,
        ),
        (
            "random-4-of-4-and-9",
            {"team_selection": "random", "team_size": 4, "characters": _characters(4, 9)},
            True,
        ),
        ("choose-3-of-3-and-12", {"team_size": 3, "characters": _characters(3, 12)}, True),
    ],
    CL: [
        ("2p", {}, False),
        ("3p", {"num_players": 3}, False),
        ("5p", {"num_players": 5}, False),
        ("8p", {"num_players": 8}, False),
        ("4p-hand-1", {"num_players": 4, "hand_size": 1}, False),
        ("6p-hand-7", {"num_players": 6, "hand_size": 7}, False),
        (
            "fixed-characteristic-and-first",
            {"characteristic": "intelligence", "first_player": 1},
            False,
        ),
        ("custom-3p-hand-2", {"num_players": 3, "hand_size": 2, "deck": _timeline(11)}, True),
        ("custom-2p-hand-3", {"hand_size": 3, "deck": _timeline(14), "max_turns": 60}, True),
    ],
}
CASES = [(env, name, config) for env, rows in CONFIGS.items() for name, config, _ in rows]
PLAY_CASES = [
    (env, name, config, reshuffles)
    for env, rows in CONFIGS.items()
    for name, config, reshuffles in rows
]


def config_of(env_name: str, name: str) -> dict[str, Any]:
    return next(config for key, config, _ in CONFIGS[env_name] if key == name)


def _ids(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def expect(bad: np.ndarray, message: str, values: Callable[[int], Any] | None = None) -> None:
    """Fail naming the first row of the bool array ``bad`` (one entry per row) that is set."""
    bad = np.asarray(bad)
    if bad.ndim > 1:
        bad = bad.reshape(len(bad), -1).any(1)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        detail = f": {values(row)}" if values is not None else ""
        raise AssertionError(f"row {row} ({int(bad.sum())} rows): {message}{detail}")


def count_in(cards: np.ndarray, valid: np.ndarray, width: int) -> np.ndarray:
    """Per leading index, how many of ``cards[..., k]`` with ``valid[..., k]`` are each of
    ``0..width-1``: ``[..., width]``."""
    lead = cards.shape[:-1]
    base = np.arange(int(np.prod(lead))).reshape(*lead, 1) * width
    flat = (base + cards.astype(np.int64))[valid]
    return np.bincount(flat, minlength=base.size * width).reshape(*lead, width)


def one_hot(values: np.ndarray, width: int) -> np.ndarray:
    """``[..., width]`` indicators of ``values`` (-1, "none", gives a row of zeros)."""
    return (values[..., None] == np.arange(width)).astype(np.int64)


# --- Promise War ----------------------------------------------------------------------------------
def pw_tables(rules: Any) -> dict[str, np.ndarray]:
    game = rules.game
    n, powers = game.num_players, rules.powers
    S, C = rules.S, rules.C
    rows = len(S)
    codes = rules.pot_down.astype(np.int64)
    in_pot = np.arange(codes.shape[1]) < S[:, pw.DOWN_LEN, None]
    down = count_in((codes >> 8) * powers + (codes & 255), in_pot, n * powers)
    down = down.reshape(rows, n, powers)
    deck_sizes = S[:, pw.DSIZE : pw.DSIZE + n]
    piles = rules.piles
    return {
        "hands": C[:, :n],
        "deck": C[:, n : 2 * n],
        "victory": C[:, 2 * n : 3 * n],
        "revealed": C[:, 3 * n : 4 * n],
        "discarded": C[:, 4 * n],
        "face_up": C[:, 4 * n + 1],
        "buried": C[:, 4 * n + 2 :].reshape(rows, n, n + 1, powers),
        "down": down,
        "picks": S[:, pw.PICK : pw.PICK + n],
        "hand_sizes": S[:, pw.HSIZE : pw.HSIZE + n],
        "deck_sizes": deck_sizes,
        "victory_sizes": S[:, pw.VSIZE : pw.VSIZE + n],
        "pile_counts": count_in(piles, np.arange(piles.shape[2]) < deck_sizes[..., None], powers),
        "S": S,
    }


def pw_check(rules: Any, before: dict[str, Any], actions: np.ndarray, dealt: np.ndarray) -> int:
    """PW-1/2/5 on the arrays: each seat owns exactly its deck; piles match their counts; every
    trick starts with full hands (3, or the whole pile); a deal gives 3 and leaves the rest."""
    game = rules.game
    n, powers = game.num_players, rules.powers
    t = pw_tables(rules)
    S = t["S"]
    composition = np.array([np.bincount(deck, minlength=powers) for deck in game.decks])
    owned = (
        t["hands"]
        + t["deck"]
        + one_hot(t["picks"], powers)
        + t["revealed"]
        + t["down"]
        + t["buried"].sum(2)
    )
    expect(
        owned != composition,
        "a seat's cards (hand, pile, pick, shown, face down) are not its deck (PW-1)",
        lambda i: (owned[i].tolist(), composition.tolist()),
    )
    table = (
        t["hands"].sum(1)
        + t["deck"].sum(1)
        + one_hot(t["picks"], powers).sum(1)
        + t["victory"].sum(1)
        + t["discarded"]
        + t["face_up"]
        + t["down"].sum(1)
    )
    expect(table != composition.sum(0), "the cards on the table are not the decks' cards")
    held = t["victory"].sum(1) + t["discarded"] + t["face_up"]
    shown = t["revealed"].sum(1) + t["buried"].sum((1, 2))
    expect(held != shown, "victory + discard + pot face up are not the cards shown or buried")
    expect(
        t["pile_counts"] != t["deck"],
        "a draw pile's cards are not its counts",
        lambda i: (t["pile_counts"][i].tolist(), t["deck"][i].tolist()),
    )
    expect(t["hand_sizes"] != t["hands"].sum(2), "hand_sizes are not the hands' counts")
    expect(t["victory_sizes"] != t["victory"].sum(2), "victory_sizes are not the counts")
    expect(t["hand_sizes"] > pw_rules.HAND_SIZE, "a hand holds more than 3 cards")
    expect((t["hands"] < 0) | (t["deck"] < 0), "a negative count")
    live = (S[:, pw.TERMINAL] == 0) & (S[:, pw.TRUNCATED] == 0) & (S[:, pw.PICK_INDEX] == 0)
    full = (t["hand_sizes"] == pw_rules.HAND_SIZE) | (t["deck_sizes"] == 0)
    trick = live & (S[:, pw.PHASE] == pw_rules.TRICK)
    expect(
        trick[:, None] & ~full,
        "a trick starts with a short hand and cards in the pile (PW-5)",
        lambda i: (t["hand_sizes"][i].tolist(), t["deck_sizes"][i].tolist()),
    )
    contenders = np.zeros((len(S), n), bool)
    r, k = np.nonzero(np.arange(n) < S[:, pw.NCONT, None])
    contenders[r, S[r, pw.CONT + k]] = True
    tiebreak = live & (S[:, pw.PHASE] == pw_rules.TIEBREAK)
    expect(tiebreak[:, None] & contenders & ~full, "a tied player did not draw up to 3 (PW-4)")
    lengths = np.array([len(deck) for deck in game.decks])
    hand = np.minimum(pw_rules.HAND_SIZE, lengths)
    expect(
        dealt[:, None] & (t["hand_sizes"] != hand),
        "a deal's hands are not 3 (PW-2)",
        lambda i: t["hand_sizes"][i].tolist(),
    )
    expect(dealt[:, None] & (t["deck_sizes"] != lengths - hand), "a deal's piles are not the rest")
    played = t["victory"].sum((1, 2)) + t["revealed"].sum((1, 2)) + S[:, pw.TRICKS]
    expect(dealt & (played != 0), "a new game has cards won or shown, or tricks played")
    expect(dealt & (rules.current_player != 0), "player_0 does not pick first in a new game")
    return 0


def pw_deal_features(rules: Any) -> np.ndarray:
    n, S = rules.game.num_players, rules.S
    rows = np.arange(len(S))[:, None]
    sizes = S[:, pw.DSIZE : pw.DSIZE + n]
    top = rules.piles[rows, np.arange(n), np.maximum(sizes - 1, 0)].astype(np.int64)
    top[sizes == 0] = -1
    hands = rules.C[:, :n].reshape(len(S), -1)
    player = rules.current_player[:, None]
    return np.concatenate([hands, top, S[:, pw.HSIZE : pw.HSIZE + n], sizes, player], axis=1)


def pw_state_features(state: Any) -> np.ndarray:
    tops = [pile[-1] if pile else -1 for pile in state.draw_piles]
    return np.concatenate(
        [state.hands.ravel(), tops, state.hand_sizes, state.deck_sizes, [state.current_player()]]
    )


def pw_names(game: Any) -> list[str]:
    n, powers = game.num_players, game.max_power + 1
    return (
        [f"hands[{s}][power {p}]" for s in range(n) for p in range(powers)]
        + [f"pile top of seat {s}" for s in range(n)]
        + [f"hand_sizes[{s}]" for s in range(n)]
        + [f"deck_sizes[{s}]" for s in range(n)]
        + ["current_player"]
    )


# --- Iron Man -------------------------------------------------------------------------------------
def im_tables(rules: Any) -> dict[str, np.ndarray]:
    S = rules.S.astype(np.int64)
    rows, K, B = len(S), im.K, im.B

    def table(start: int, width: int = K) -> np.ndarray:
        return S[:, start : start + 2 * width].reshape(rows, 2, width)

    face_down = table(im.FACE_DOWN, B).astype(bool)
    committed = (one_hot(table(im.COMMITTED, B), K) * face_down[..., None]).sum(2)
    pending = S[:, im.PENDING : im.PENDING + 2]
    picked = one_hot(pending, K) * S[:, im.HAS_PENDING : im.HAS_PENDING + 2, None]
    sizes = S[:, im.DSIZE : im.DSIZE + 2]
    piles = rules.piles.astype(np.int64)
    return {
        "hands": table(im.HANDS),
        "deck": table(im.DECKC),
        "discards": table(im.DISC),
        "table": table(im.TABLE),
        "battle": table(im.BC),
        "committed": committed,
        "picked": picked,
        "hand_sizes": S[:, im.HSIZE : im.HSIZE + 2],
        "deck_sizes": sizes,
        "pile_counts": count_in(piles, np.arange(piles.shape[2]) < sizes[..., None], K),
        "S": S,
    }


def im_snapshot(rules: Any) -> dict[str, np.ndarray]:
    t = im_tables(rules)
    return {
        "round": t["S"][:, im.ROUND].copy(),
        "hand_sizes": t["hand_sizes"].copy(),
        "deck_sizes": t["deck_sizes"].copy(),
    }


def im_check(rules: Any, before: dict[str, Any], actions: np.ndarray, dealt: np.ndarray) -> int:
    """IM-1/IM-2 on the arrays: each seat owns exactly its deck wherever its cards are; piles
    match their counts; a round start draws 7 (or all that is left), and a deck drawn empty
    takes the shuffled discards at once; a deal shuffles whole decks. Returns reshuffles."""
    game = rules.game
    t = im_tables(rules)
    S = t["S"]
    composition = np.array(game.deck)
    owned = sum(
        t[name] for name in ("hands", "deck", "discards", "table", "battle", "committed", "picked")
    )
    expect(
        owned != composition,
        "a seat's cards (hand, deck, discards, table, battle, face "
        "down, pick) are not its deck (IM-1)",
        lambda i: owned[i].tolist(),
    )
    negative = [t[name] < 0 for name in ("hands", "deck", "discards", "table", "battle")]
    expect(np.stack(negative, 1), "a negative count")
    expect(
        t["pile_counts"] != t["deck"],
        "a deck's cards are not its counts",
        lambda i: (t["pile_counts"][i].tolist(), t["deck"][i].tolist()),
    )
    expect(t["hand_sizes"] != t["hands"].sum(2), "hand_sizes are not the hands' counts")
    total = int(composition.sum())
    discard_sizes = t["discards"].sum(2)
    new_round = ~dealt & (S[:, im.ROUND] != before["round"])
    mover = before["mover"]
    played = (actions < im_rules.CONCEDE)[:, None] & (mover[:, None] == np.arange(2))
    kept = before["hand_sizes"] - played
    drawn = np.minimum(im_rules.HAND_DRAW, total - kept)
    expect(
        new_round[:, None] & (t["hand_sizes"] != kept + drawn),
        "a round start did not draw 7 or every card left (IM-2)",
        lambda i: (kept[i].tolist(), t["hand_sizes"][i].tolist()),
    )
    emptied = drawn >= before["deck_sizes"]  # the draw took the deck's last card
    left = np.where(emptied, 0, total - kept - before["deck_sizes"])
    expect(
        new_round[:, None] & (discard_sizes != left),
        "a deck drawn empty did not take every discard, shuffled, at once (IM-2)",
        lambda i: (before["deck_sizes"][i].tolist(), t["discards"][i].tolist()),
    )
    expect(dealt[:, None] & (discard_sizes != 0), "a new game has discards")
    hand = min(im_rules.HAND_DRAW, total)
    expect(dealt[:, None] & (t["hand_sizes"] != hand), "a deal's first hands are not 7 (IM-2)")
    expect(dealt[:, None] & (t["deck_sizes"] != total - hand), "a deal's decks are not the rest")
    expect(dealt & (S[:, im.ROUND] != 1), "a new game is not in round 1")
    expect(dealt & (rules.current_player != 0), "iron_man does not commit first in a new game")
    return int((new_round[:, None] & emptied & (total - kept > before["deck_sizes"])).sum())


def im_deal_features(rules: Any) -> np.ndarray:
    t = im_tables(rules)
    S, sizes = t["S"], t["deck_sizes"]
    rows = np.arange(len(S))[:, None]
    top = rules.piles[rows, np.arange(2), np.maximum(sizes - 1, 0)].astype(np.int64)
    top[sizes == 0] = -1
    return np.concatenate(
        [
            t["hands"].reshape(len(S), -1),
            t["deck"].reshape(len(S), -1),
            top,
            t["hand_sizes"],
            sizes,
            rules.current_player[:, None],
            S[:, im.DECISION, None],
        ],
        axis=1,
    )


def im_state_features(state: Any) -> np.ndarray:
    tops = [pile[-1] if pile else -1 for pile in state._piles]
    return np.concatenate(
        [
            state.hands.ravel(),
            state.deck_counts.ravel(),
            tops,
            state.hand_sizes,
            state.deck_sizes,
            [state.current_player(), state.decision],
        ]
    )


def im_names(game: Any) -> list[str]:
    kinds = im_rules.KINDS
    return (
        [f"hands[{s}][{k}]" for s in range(2) for k in kinds]
        + [f"deck_counts[{s}][{k}]" for s in range(2) for k in kinds]
        + [
            "deck top of seat 0",
            "deck top of seat 1",
            "hand_sizes[0]",
            "hand_sizes[1]",
            "deck_sizes[0]",
            "deck_sizes[1]",
            "current_player",
            "decision",
        ]
    )


def im_shuffle_features(state: Any) -> np.ndarray:
    return np.concatenate([im_state_features(state), state.discards.ravel()])


def im_shuffle_names(game: Any) -> list[str]:
    kinds = im_rules.KINDS
    return im_names(game) + [f"discards[{s}][{k}]" for s in range(2) for k in kinds]


# --- Beast Wars -----------------------------------------------------------------------------------
_BW_COMPOSITION = np.bincount(bw_rules.DEFAULT_DECK, minlength=bw_rules.NUM_CARD_KINDS)


def bw_snapshot(rules: Any) -> dict[str, np.ndarray]:
    st = rules.state
    kinds = bw_rules.NUM_CARD_KINDS
    return {"discards": st[:, bw.CARDS + kinds : bw.CARDS + 2 * kinds].sum(1).astype(np.int64)}


def bw_check(rules: Any, before: dict[str, Any], actions: np.ndarray, dealt: np.ndarray) -> int:
    """BW-3/BW-4 on the arrays: deck plus discards are the 72 battle cards and the deck's
    cards its counts; each character in one place (board, owner and location agree, teams
    distinct, counts right); turns alternate from the first player; a deal holds the whole
    deck and, with random teams, full teams with three in each first row. Returns reshuffles."""
    game = rules.game
    kinds, faction, cells = bw_rules.NUM_CARD_KINDS, bw_rules.MAX_FACTION, bw_rules.NUM_CELLS
    st = rules.state.astype(np.int64)
    rows = len(st)
    deck_counts = st[:, bw.CARDS : bw.CARDS + kinds]
    discards = st[:, bw.CARDS + kinds : bw.CARDS + 2 * kinds]
    expect(
        deck_counts + discards != _BW_COMPOSITION,
        "deck + discards are not the 72 battle cards (BW-3)",
        lambda i: (deck_counts[i].tolist(), discards[i].tolist()),
    )
    expect((deck_counts < 0) | (discards < 0), "a negative card count")
    deck = st[:, bw.DECK : bw.DECK + bw_rules.DECK_SIZE]
    counted = count_in(deck, np.arange(deck.shape[1]) < st[:, bw.DECK_LEN, None], kinds)
    expect(counted != deck_counts, "the deck's cards are not its counts")
    owner = st[:, bw.OWNER : bw.OWNER + cells]
    board = st[:, bw.BOARD : bw.BOARD + cells]
    location = st[:, bw.LOCATION : bw.LOCATION + bw_rules.NUM_PIECES]
    occupied = board != bw_rules.NO_PIECE
    expect(owner != np.where(occupied, board // faction, -1), "a cell's owner is not its piece's")
    padded = np.concatenate([location, np.full((rows, 1), -99)], axis=1)
    at = np.take_along_axis(padded, board, axis=1)
    expect(occupied & (at != np.arange(cells)), "a piece on the board has another location")
    on_board = location >= 0
    held = np.take_along_axis(board, np.where(on_board, location, 0), axis=1)
    expect(on_board & (held != np.arange(bw_rules.NUM_PIECES)), "a location's cell holds another")
    lengths = st[:, bw.TEAM_LEN : bw.TEAM_LEN + 2]
    teams = st[:, bw.TEAMS : bw.TEAMS + 2 * faction].reshape(rows, 2, faction)
    members = count_in(teams, np.arange(faction) < lengths[..., None], faction)
    expect(members > 1, "a team holds a character twice")
    expect(lengths > game.team_size, "a team is bigger than team_size")
    places = location.reshape(rows, 2, faction)
    absent = np.arange(faction) >= np.array(game.characters.sizes)[:, None]
    expect(absent & (places != bw_rules.ABSENT), "a character not in the file is in play")
    expect((members == 1) & (places < bw_rules.REMOVED), "a team member is nowhere")
    expect(~absent & (members == 0) & (places != bw_rules.NOT_IN_TEAM), "a non-member is in play")
    board_counts = st[:, bw.BOARD_COUNTS : bw.BOARD_COUNTS + 2]
    reserve_counts = st[:, bw.RESERVE_COUNTS : bw.RESERVE_COUNTS + 2]
    expect(board_counts != (owner[:, :, None] == np.arange(2)).sum(1), "board_counts are wrong")
    expect(reserve_counts != (places == bw_rules.RESERVE).sum(2), "reserve_counts are wrong")
    phase, to_act, first = st[:, bw.PHASE], st[:, bw.TO_ACT], st[:, bw.FIRST]
    playing = phase == bw_rules.PLAY
    expect(
        playing & (to_act != first ^ (st[:, bw.TURN] & 1)),
        "turns do not alternate from the first player (BW-4/BW-5)",
    )
    if game.first_player is not None:
        expect(first != game.first_player, "the configured first player does not start")
    expect(dealt & (st[:, bw.DECK_LEN] != bw_rules.DECK_SIZE), "a deal's deck is not all 72")
    expect(dealt & ((st[:, bw.TURN] != 0) | (st[:, bw.HAS_BATTLE] != 0)), "a new game has play")
    faces = st[:, bw.FACES : bw.FACES + bw_rules.NUM_PIECES]
    expect(dealt[:, None] & (faces != bw_rules.BEAST), "a new game has a robot side up")
    if game.team_selection == "random":
        expect(dealt[:, None] & (lengths != game.team_size), "random teams are not full (BW-4)")
        expect(dealt & ~playing, "random teams do not start play at once (BW-4)")
        rows_owner = owner[:, np.array(bw_rules.FIRST_ROWS)]  # [N, seat, column]
        expect(
            dealt[:, None, None] & (rows_owner != np.arange(2)[:, None]),
            "random placement left a first-row cell empty or to the other side (BW-4)",
        )
        expect(dealt[:, None] & (reserve_counts != game.team_size - 3), "a reserve is wrong")
    else:
        whole = np.array(game.characters.sizes) == game.team_size
        setup = bw_rules.PLACE if whole.all() else bw_rules.SELECT
        opener = 1 if whole[0] and not whole[1] else 0  # a whole faction picks nothing
        expect(
            dealt & ((phase != setup) | (to_act != opener)),
            "team selection does not open with the first faction that picks (BW-4)",
        )
        expect(dealt[:, None] & whole & (lengths != game.team_size), "a whole faction unpicked")
    return int((~dealt & (discards.sum(1) < before["discards"])).sum())


def bw_prepare(venv: BatchEnv) -> Batch:
    """Start every row from a deal whose deck holds 0..4 cards (the rest discarded), so the
    first battles of the run reshuffle; autoreset deals full decks afterwards."""
    raw = make_raw(BW, **venv.config)
    batch = None
    for row in range(venv.num_envs):
        raw.reset(seed=10_000 + row)
        state = raw.game_state.clone()
        keep = row % 5
        state._deck = state._deck[len(state._deck) - keep :]
        state.card_counts[0] = np.bincount(state._deck, minlength=bw_rules.NUM_CARD_KINDS)
        state.card_counts[1] = _BW_COMPOSITION - state.card_counts[0]
        batch = venv.set_state(row, state)
    assert batch is not None
    return batch


def bw_deal_features(rules: Any) -> np.ndarray:
    st = rules.state.astype(np.int64)
    rows, faction = len(st), bw_rules.MAX_FACTION
    size = st[:, bw.DECK_LEN]
    top = st[np.arange(rows), bw.DECK + size - 1]
    second = st[np.arange(rows), bw.DECK + size - 2]
    lengths = st[:, bw.TEAM_LEN : bw.TEAM_LEN + 2]
    teams = st[:, bw.TEAMS : bw.TEAMS + 2 * faction].reshape(rows, 2, faction)
    teams = np.where(np.arange(faction) < lengths[..., None], teams, -1).reshape(rows, -1)
    location = st[:, bw.LOCATION : bw.LOCATION + bw_rules.NUM_PIECES]
    head = st[:, [bw.FIRST, bw.TO_ACT, bw.PHASE]]
    head[:, 1] = (head[:, 1] - head[:, 0]) % 2  # the seat to act relative to the first
    return np.concatenate([head, top[:, None], second[:, None], location, teams], axis=1)


def bw_state_features(state: Any) -> np.ndarray:
    faction = bw_rules.MAX_FACTION
    teams = [team + [-1] * (faction - len(team)) for team in state.teams]
    head = [
        state.first_player,
        (state.to_act - state.first_player) % 2,
        state.phase,
        state._deck[-1],
        state._deck[-2],
    ]
    return np.concatenate([head, state.location, *teams])


def bw_names(game: Any) -> list[str]:
    faction = bw_rules.MAX_FACTION
    return (
        ["first_player", "to_act - first_player", "phase", "deck top", "deck second"]
        + [f"location[{piece}]" for piece in range(bw_rules.NUM_PIECES)]
        + [f"teams[{s}][{k}]" for s in range(2) for k in range(faction)]
    )


def bw_shuffle_features(state: Any) -> np.ndarray:
    battle = state.last_battle
    return np.concatenate(
        [
            [
                *battle.cards,
                *battle.numbers,
                battle.winner,
                battle.outcome,
                state._deck[-1],
                state._deck[-2],
            ],
            state.card_counts[0],
            state.faces[: bw_rules.NUM_PIECES],
        ]
    )


def bw_shuffle_names(game: Any) -> list[str]:
    return (
        [
            "attacker's card",
            "defender's card",
            "attacker's number",
            "defender's number",
            "battle winner",
            "battle outcome",
            "deck top",
            "deck second",
        ]
        + [f"deck_counts[{k}]" for k in range(bw_rules.NUM_CARD_KINDS)]
        + [f"faces[{piece}]" for piece in range(bw_rules.NUM_PIECES)]
    )


# --- Cardline -------------------------------------------------------------------------------------
def cl_snapshot(rules: Any) -> dict[str, np.ndarray]:
    return {
        "hand_len": rules.seat[:, :, cl.HAND_LEN].astype(np.int64),
        "box_len": rules.scal[:, cl.BOX_LEN].astype(np.int64),
        "pile_len": rules.scal[:, cl.PILE_LEN].astype(np.int64),
        "rounds": rules.scal[:, cl.ROUNDS].astype(np.int64),
    }


def cl_check(rules: Any, before: dict[str, Any], actions: np.ndarray, dealt: np.ndarray) -> int:
    """CL-2/CL-4/CL-5/CL-6 on the arrays: every card in exactly one of hands, line, pile, box
    and out, ``where`` saying which; hands sorted and at most ``hand_size``; a wrong card is
    replaced from the pile (refilled from the box when empty); the turn order is the rotation
    from the first player; a deal gives ``hand_size`` each and one line card. Returns refills."""
    game = rules.game
    n, h, deck = game.num_players, game.hand_size, game.deck_size
    scal, seat = rules.scal.astype(np.int64), rules.seat.astype(np.int64)
    hands, piles = rules.hands.astype(np.int64), rules.piles.astype(np.int64)
    rows = len(scal)
    hand_len = seat[:, :, cl.HAND_LEN]
    places = [(hands[:, s], hand_len[:, s], cl_rules.IN_HAND + s) for s in range(n)]
    places += [
        (piles[:, row], scal[:, length], code)
        for row, length, code in (
            (cl.LINE, cl.LINE_LEN, cl_rules.IN_LINE),
            (cl.PILE, cl.PILE_LEN, cl_rules.IN_PILE),
            (cl.BOX, cl.BOX_LEN, cl_rules.IN_BOX),
            (cl.OUT, cl.OUT_LEN, cl_rules.OUT_OF_GAME),
        )
    ]
    cards = np.concatenate([held for held, _, _ in places], axis=1)
    valid = np.concatenate(
        [np.arange(held.shape[1]) < length[:, None] for held, length, _ in places], axis=1
    )
    codes = np.concatenate([np.full(held.shape[1], code) for held, _, code in places])
    count = count_in(cards, valid, deck)
    where = np.full((rows, deck), -1, np.int64)
    r, k = np.nonzero(valid)
    where[r, cards[r, k]] = codes[k]
    expect(
        count != 1,
        "a card is in no place or in two (CL-2/CL-6)",
        lambda i: np.flatnonzero(count[i] != 1).tolist(),
    )
    expect(where != rules.cards[:, cl.WHERE, :deck], "where does not say where a card is")
    expect(hand_len > h, "a hand holds more than hand_size cards")
    pairs = np.arange(1, h) < hand_len[..., None]
    expect(pairs & (hands[:, :, 1:] <= hands[:, :, :-1]), "a hand is not sorted by card id")
    live = (scal[:, cl.TERMINAL] == 0) & (scal[:, cl.TRUNCATED] == 0)
    order = seat[:, :, cl.ORDER]
    at = np.take_along_axis(order, np.minimum(scal[:, cl.TURN_INDEX, None], n - 1), axis=1)[:, 0]
    expect(live & (scal[:, cl.TO_ACT] != at), "the seat to act is not the round's next (CL-5)")
    rotation = (scal[:, cl.FIRST, None] + np.arange(n)) % n
    staying = np.take_along_axis(seat[:, :, cl.ELIM], rotation, axis=1) == 0
    packed = np.take_along_axis(rotation, np.argsort(~staying, axis=1, kind="stable"), axis=1)
    expect(live & (scal[:, cl.ORDER_LEN] != staying.sum(1)), "a round misses a seat (CL-5)")
    expect(
        live[:, None] & (np.arange(n) < staying.sum(1)[:, None]) & (order != packed),
        "a round's turn order is not the rotation from the first player (CL-5)",
        lambda i: (order[i].tolist(), int(scal[i, cl.FIRST])),
    )
    mover = before["mover"]
    same_round = ~dealt & (scal[:, cl.ROUNDS] == before["rounds"]) & (scal[:, cl.TERMINAL] == 0)
    moved = np.arange(rows)[same_round]
    right = seat[moved, mover[moved], cl.LAST_RIGHT]
    change = hand_len[moved, mover[moved]] - before["hand_len"][moved, mover[moved]]
    bad = np.zeros(rows, bool)
    bad[moved] = change != -right
    expect(
        bad,
        "a placement did not leave the hand one smaller (right) or as big (wrong, "
        "a card drawn, from the refilled pile if empty) (CL-4/CL-6)",
    )
    expect(dealt[:, None] & (hand_len != h), "a deal's hands are not hand_size (CL-2)")
    expect(dealt & (scal[:, cl.LINE_LEN] != 1), "a deal does not start the line with one card")
    expect(dealt & (scal[:, cl.PILE_LEN] != deck - n * h - 1), "a deal's pile is not the rest")
    expect(
        dealt & (scal[:, cl.BOX_LEN] + scal[:, cl.OUT_LEN] + scal[:, cl.TURNS] != 0),
        "a new game has cards in the box or out, or turns played",
    )
    expect(dealt & (rules.cards[:, cl.REVEALED, :deck].sum(1) != 1), "a deal shows a hand card")
    expect(dealt & (scal[:, cl.TO_ACT] != scal[:, cl.FIRST]), "the first player does not start")
    if game.characteristic is not None:
        fixed = game.characteristics.index(game.characteristic)
        expect(scal[:, cl.CHAR] != fixed, "the configured characteristic is not played")
    if game.first_player is not None:
        expect(scal[:, cl.FIRST] != game.first_player, "the configured first player is not first")
    refilled = scal[:, cl.BOX_LEN] < before["box_len"]
    refilled |= scal[:, cl.PILE_LEN] > before["pile_len"]
    return int((~dealt & refilled).sum())


def cl_deal_features(rules: Any) -> np.ndarray:
    deck = rules.game.deck_size
    scal = rules.scal.astype(np.int64)
    size = scal[:, cl.PILE_LEN]
    top = rules.piles[np.arange(len(scal)), cl.PILE, np.maximum(size - 1, 0)].astype(np.int64)
    top[size == 0] = -1
    head = scal[:, [cl.CHAR, cl.FIRST, cl.TO_ACT]]
    head[:, 2] = (head[:, 2] - head[:, 1]) % rules.game.num_players
    return np.concatenate([head, top[:, None], rules.cards[:, cl.WHERE, :deck]], axis=1)


def cl_state_features(state: Any) -> np.ndarray:
    top = state.pile[-1] if state.pile else -1
    n = state.num_players
    head = [state.characteristic, state.first_player, (state.to_act - state.first_player) % n, top]
    return np.concatenate([head, state.where])


def cl_names(game: Any) -> list[str]:
    return ["characteristic", "first_player", "to_act - first_player", "pile top"] + [
        f"where[{card}] ({name})" for card, name in enumerate(game.names)
    ]


# --- the per-game tables --------------------------------------------------------------------------
CHECKS = {PW: pw_check, IM: im_check, BW: bw_check, CL: cl_check}
SNAPSHOTS: dict[str, Callable[[Any], dict[str, np.ndarray]]] = {
    PW: lambda rules: {},
    IM: im_snapshot,
    BW: bw_snapshot,
    CL: cl_snapshot,
}
DEAL_FEATURES = {
    PW: (pw_deal_features, pw_state_features, pw_names),
    IM: (im_deal_features, im_state_features, im_names),
    BW: (bw_deal_features, bw_state_features, bw_names),
    CL: (cl_deal_features, cl_state_features, cl_names),
}
PREPARE: dict[str, Callable[[BatchEnv], Batch]] = {BW: bw_prepare}


# --- (a) invariants over whole random games -------------------------------------------------------
def play_checked(env_name: str, config: dict[str, Any], seed: int = 0) -> dict[str, int]:
    """``PLAY_STEPS`` random steps on ``PLAY_ROWS`` rows, every step checked (module docstring)."""
    venv = BatchEnv(env_name, PLAY_ROWS, seed, **config)
    rules = venv.rules
    check, snapshot = CHECKS[env_name], SNAPSHOTS[env_name]
    batch = venv.reset()
    nobody = np.full(PLAY_ROWS, -1, np.int64)
    check(rules, snapshot(rules) | {"mover": nobody}, nobody, np.ones(PLAY_ROWS, bool))
    if env_name in PREPARE:
        batch = PREPARE[env_name](venv)
    rng = np.random.default_rng(seed)
    counts = {"deals": PLAY_ROWS, "games_ended": 0, "reshuffles": 0, "states_checked": 0}
    for step in range(PLAY_STEPS):
        dealt = batch.done.copy()
        actions = random_legal_actions(np.ascontiguousarray(batch.action_mask), rng)
        before = snapshot(rules) | {"mover": batch.current_player.copy()}
        batch = venv.step(actions)
        counts["reshuffles"] += check(rules, before, actions, dealt)
        counts["deals"] += int(dealt.sum())
        counts["games_ended"] += int(batch.done.sum())
        for k in range(STATE_CHECKS):
            row = (step * STATE_CHECKS + k) % PLAY_ROWS
            check_loaded_state(venv.state_of(row))
            counts["states_checked"] += 1
    return counts


@pytest.mark.parametrize(("env_name", "name", "config", "reshuffles"), PLAY_CASES, ids=_ids)
def test_invariants_hold_after_every_vector_deal_and_reshuffle(
    env_name: str, name: str, config: dict[str, Any], reshuffles: bool
) -> None:
    """Every deal and reshuffle the vector engine makes by itself keeps every card in one
    place, each seat's deck whole and the sizes the rules give, on the arrays themselves."""
    counts = play_checked(env_name, config)
    assert counts["deals"] > PLAY_ROWS, counts  # autoreset deals were checked too
    assert counts["games_ended"] > 0, counts
    if reshuffles:
        assert counts["reshuffles"] > 0, counts


# --- (b) distributions ----------------------------------------------------------------------------
@functools.cache
def deal_samples(env_name: str, name: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """The deal's features on ``DEAL_ROWS`` vector rows and for ``DEAL_SEEDS`` scalar seeds."""
    config = config_of(env_name, name)
    vector_features, state_features, names = DEAL_FEATURES[env_name]
    venv = make_vec(env_name, DEAL_ROWS, seed=7, **config)
    vector = vector_features(venv.rules)
    raw = make_raw(env_name, **config)
    scalar = []
    for seed in range(DEAL_SEEDS):
        raw.reset(seed=seed)
        scalar.append(state_features(raw.game_state))
    return vector, np.array(scalar, np.int64), names(raw.game)


@pytest.mark.parametrize(("env_name", "name", "config"), CASES, ids=_ids)
def test_vector_deals_have_the_scalar_deals_distribution(
    env_name: str, name: str, config: dict[str, Any]
) -> None:
    """Each feature of a deal (who holds how many of each kind or which card, each pile's
    top card, the first player, who acts) is distributed as in ``raw_env.reset(seed=s)``;
    chi-square per feature, false-alarm rate at most ``ALPHA`` (module docstring)."""
    vector, scalar, names = deal_samples(env_name, name)
    assert distribution_differences(vector, scalar, names, ALPHA) == []


def _moved(features: np.ndarray, names: list[str], source: str, target: str) -> np.ndarray:
    """``features`` with one unit of feature ``source`` moved to ``target`` where it has one."""
    moved = features.copy()
    a, b = names.index(source), names.index(target)
    has = moved[:, a] > 0
    moved[has, a] -= 1
    moved[has, b] += 1
    return moved


def test_the_deal_test_detects_one_card_or_one_seat_moved() -> None:
    """The power behind the deal tests: the same samples, with one card moved to another seat
    (or the first seat rotated) in the vector one, fail the test each game's deal passes."""
    vector, scalar, names = deal_samples(PW, "per-seat-lists")
    moved = _moved(vector, names, "hands[0][power 6]", "hands[1][power 6]")
    assert distribution_differences(moved, scalar, names, ALPHA)
    vector, scalar, names = deal_samples(IM, "advanced")
    moved = _moved(vector, names, "hands[0][final_attack]", "hands[1][final_attack]")
    assert distribution_differences(moved, scalar, names, ALPHA)
    vector, scalar, names = deal_samples(CL, "2p")
    moved = vector.copy()
    column = names.index(f"where[0] ({make_raw(CL).game.names[0]})")
    moved[moved[:, column] == cl_rules.IN_HAND, column] = cl_rules.IN_HAND + 1
    assert distribution_differences(moved, scalar, names, ALPHA)
    for env_name, name, seats in ((BW, "random-6", 2), (CL, "8p", 8)):
        vector, scalar, names = deal_samples(env_name, name)
        moved = vector.copy()
        column = names.index("to_act - first_player")
        moved[:, column] = (moved[:, column] + 1) % seats  # the first seat to act rotated
        assert distribution_differences(moved, scalar, names, ALPHA)


# --- (b) reshuffles -------------------------------------------------------------------------------
def _generator_name(state: Any) -> str:
    return "rng" if isinstance(getattr(state, "rng", None), np.random.Generator) else "_rng"


def find_reshuffle(env_name: str, config: dict[str, Any], least: int) -> tuple[Any, int]:
    """A state reached by random scalar play, and an action whose step reshuffles at least
    ``least`` cards (the rules' ``reshuffled`` event), for the reshuffle distribution test."""
    raw = make_raw(env_name, **config)
    rng = np.random.default_rng(0)
    for seed in range(200):
        raw.reset(seed=seed)
        state = raw.game_state.clone()
        while state.current_player() >= 0:
            action = int(rng.choice(np.flatnonzero(state.legal_action_mask())))
            twin = state.clone()
            twin.record_events()
            twin.apply_action(action)
            shuffled = [e for e in twin.events or [] if e.kind == "reshuffled"]
            if shuffled and shuffled[0].fields["cards"] >= least:
                return state, action
            state.apply_action(action)
    raise AssertionError(f"no reshuffle of {least} cards in 200 games of {env_name} {config}")


def bw_reshuffle_scenario() -> tuple[Any, int]:
    """A Beast Wars position with an attack to make and every battle card in the discard pile
    (as after 36 battles), so the attack's first draw reshuffles all 72."""
    raw = make_raw(BW, team_selection="random")
    rng = np.random.default_rng(0)
    raw.reset(seed=3)
    state = raw.game_state.clone()
    attacks = slice(bw._ATTACK_BASE, bw._ATTACK_END)
    while not state.legal_action_mask()[attacks].any():
        state.apply_action(int(rng.choice(np.flatnonzero(state.legal_action_mask()))))
    state._deck = []
    state.card_counts[0] = 0
    state.card_counts[1] = _BW_COMPOSITION
    check_loaded_state(state)
    return state, bw._ATTACK_BASE + int(np.flatnonzero(state.legal_action_mask()[attacks])[0])


SCENARIOS: dict[str, tuple[dict[str, Any], Callable[[], tuple[Any, int]], Any, Any]] = {
    IM: (  # a round's draw takes the deck's last cards, then some of 10+ reshuffled discards
        config_of(IM, "advanced-20-cards"),
        lambda: find_reshuffle(IM, config_of(IM, "advanced-20-cards"), least=10),
        im_shuffle_features,
        im_shuffle_names,
    ),
    BW: (
        {"team_selection": "random"},
        bw_reshuffle_scenario,
        bw_shuffle_features,
        bw_shuffle_names,
    ),
    CL: (
        config_of(CL, "custom-3p-hand-2"),
        lambda: find_reshuffle(CL, config_of(CL, "custom-3p-hand-2"), least=4),
        lambda state: cl_state_features(state)[3:],
        lambda game: cl_names(game)[3:],
    ),
}


@functools.cache
def reshuffle_samples(env_name: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """One state just before a reshuffle, stepped on ``SHUFFLE_ROWS`` vector rows (each with
    its own generator; the invariants checked on the arrays) and in the scalar rules with
    ``SHUFFLE_SEEDS`` generators."""
    config, scenario, features, names = SCENARIOS[env_name]
    state, action = scenario()
    venv = make_vec(env_name, SHUFFLE_ROWS, seed=11, **config)
    rules = venv.rules
    for row in range(SHUFFLE_ROWS):
        rules.set_state(row, state)
    before = SNAPSHOTS[env_name](rules) | {"mover": rules.current_player.copy()}
    actions = np.full(SHUFFLE_ROWS, action, np.int64)
    rules.step_games(actions, np.ones(SHUFFLE_ROWS, bool))
    nobody = np.zeros(SHUFFLE_ROWS, bool)
    assert CHECKS[env_name](rules, before, actions, nobody) >= SHUFFLE_ROWS  # each row did
    vector = np.array([features(rules.state_of(row)) for row in range(SHUFFLE_ROWS)])
    scalar = []
    for seed in range(SHUFFLE_SEEDS):
        twin = state.clone()
        setattr(twin, _generator_name(twin), np.random.default_rng(seed))
        twin.apply_action(action)
        scalar.append(features(twin))
    return vector, np.array(scalar, np.int64), names(state.game)


@pytest.mark.parametrize("env_name", sorted(SCENARIOS))
def test_vector_reshuffles_have_the_scalar_reshuffles_distribution(env_name: str) -> None:
    """A reshuffle's outcome (the cards drawn from the new pile, its top cards, where every
    card ends up) is distributed as the scalar rules' from the same state; chi-square per
    feature, false-alarm rate at most ``ALPHA``. Promise War never reshuffles (PW-5)."""
    vector, scalar, names = reshuffle_samples(env_name)
    assert distribution_differences(vector, scalar, names, ALPHA) == []


def test_the_reshuffle_test_detects_one_card_moved() -> None:
    """The power behind the reshuffle tests: the top of Beast Wars' new deck one kind off
    where it is red basic, or a Cardline card drawn that the scalar rules leave in the pile,
    fails the test."""
    vector, scalar, names = reshuffle_samples(BW)
    moved = vector.copy()
    top = names.index("deck top")
    moved[moved[:, top] == 0, top] = 1
    assert distribution_differences(moved, scalar, names, ALPHA)
    vector, scalar, names = reshuffle_samples(CL)
    moved = vector.copy()
    column = int(np.argmax((moved[:, 1:] == cl_rules.IN_PILE).mean(0))) + 1
    moved[moved[:, column] == cl_rules.IN_PILE, column] = cl_rules.IN_HAND
    assert distribution_differences(moved, scalar, names, ALPHA)
