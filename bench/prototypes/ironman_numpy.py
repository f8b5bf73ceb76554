"""Array-at-a-time numpy prototype of Iron Man 2 Game of War (issue 18, technology choice).

``NumpyIronManWar(n)`` advances ``n`` games of the advanced variant (default deck, 5 Victory
Cards, 50 rounds; other decks and caps work too) at once, with whole-array numpy operations
only: no Python loop over games. A step is a fixed pipeline of rule phases (apply the action
per decision kind, then at most a few rounds of end battle -> start battle -> reveal ->
settle), each phase working on the index array of the games that are in it.

It follows ``envs/ironman_war/rules.py`` (the reference) rule for rule, writes the reference
observation (``env.raw_env.encode``, 259 floats) and legal mask (17) of any seat, and does
Gymnasium next-step autoreset like ``cardarena.envs.vector.front``. It is a measuring device
for the numpy-vs-numba choice, not an engine: no ``state_of`` / ``set_state``, no beginner
variant. ``compare_ironman.py --check`` proves it against the reference.

Randomness: one ``np.random.Generator`` for the whole batch; a shuffle is an argsort of
uniform keys per row (a uniform permutation, like the reference's, in another order).
With ``record=True`` every shuffle's result is appended to ``shuffle_log`` so a checker can
feed the same deck orders to the reference rules.
"""

from __future__ import annotations

import numpy as np

NUM_KINDS, NUM_BATTLES, NUM_ACTIONS, OBS_SIZE = 8, 3, 17, 259
UPGRADE, SHIELD, FIRST_SPECIAL = 5, 6, 5
CONCEDE, SHIELD_BASE = 8, 9
COMMIT, PLAY, STANDOFF, TARGET, OVER = 0, 1, 2, 3, 4
NO_CARD, DRAW, HAND_DRAW = -1, 2, 7
DEFAULT_DECK = (10, 10, 10, 3, 2, 8, 8, 4)
VALUES = np.array([1, 2, 3, 4, 5, 0, 0, 6], np.int16)

KINDS8 = np.arange(NUM_KINDS, dtype=np.int8)
SEATS = np.arange(2)
EMPTY = np.zeros(0, np.int64)
NO_REVEALS = np.zeros((0, 2), np.int8)


def _totals(cards: np.ndarray) -> np.ndarray:
    """IM-5 totals of count rows ``[..., 8]``: attack values, doubled with an UPGRADE."""
    return (cards * VALUES).sum(-1) << (cards[..., UPGRADE] > 0)


class NumpyIronManWar:
    """``num_envs`` games advanced together; arrays are ``[N, ...]`` (seat axis second)."""

    def __init__(
        self,
        num_envs: int,
        seed: int = 0,
        deck: tuple[int, ...] = DEFAULT_DECK,
        victory_cards: int = 5,
        max_rounds: int = 50,
        record: bool = False,
    ) -> None:
        n = self.num_envs = int(num_envs)
        self.rng = np.random.default_rng(seed)
        self.deck = np.array(deck, np.int16)
        self.deck_size = int(self.deck.sum())
        self.victory_cards, self.max_rounds = victory_cards, max_rounds
        self.record = record
        #: (games, deck orders [M, deck_size], top card last) of every shuffle, in order.
        self.shuffle_log: list[tuple[np.ndarray, np.ndarray]] = []
        self.rows = np.arange(n)
        self.rows2 = 2 * self.rows
        z = np.zeros
        # Per-seat state lives in three blocks [N, 2, ...] so that one np.take per block gives
        # an observer's rows (own seat first); the rules use the named views below.
        self.cards = z((n, 2, 5, NUM_KINDS), np.int16)  # hand, deck, battle, table, discards
        self.hands, self.deck_counts, self.battle_cards, self.table, self.discards = (
            self.cards[:, :, i] for i in range(5)
        )
        self.kinds = np.full((n, 2, 11), NO_CARD, np.int8)  # card kinds, NO_CARD = none
        self.committed = self.kinds[:, :, 0:3]
        self.flipped = self.kinds[:, :, 3:6]
        self.previous_flipped = self.kinds[:, :, 6:9]
        self.last_reveal = self.kinds[:, :, 9]
        self.pending = self.kinds[:, :, 10]
        self.small = z((n, 2, 8), np.int16)
        self.face_down = self.small[:, :, 0:3]
        self.has_pending = self.small[:, :, 3]
        self.battles_won = self.small[:, :, 4]
        self.deck_sizes = self.small[:, :, 5]
        self.pawns = self.small[:, :, 6]
        self.hand_sizes = self.small[:, :, 7]
        # deck order: the top card at index deck_sizes - 1 (like the reference's list.pop())
        self.piles = z((n, 2, self.deck_size), np.int8)
        self.piles2, self.hands2, self.hand_sizes2, self.deck_sizes2 = (
            _pairs_view(a) for a in (self.piles, self.hands, self.hand_sizes, self.deck_sizes)
        )
        self.deck_counts2, self.discards2 = (
            _pairs_view(self.deck_counts),
            _pairs_view(self.discards),
        )
        self.results = np.full((n, NUM_BATTLES), NO_CARD, np.int8)
        self.previous_results = np.full((n, NUM_BATTLES), NO_CARD, np.int8)
        self.round = np.ones(n, np.int16)
        self.battle = z(n, np.int64)
        self.commit_slot = z(n, np.int64)
        self.decision = z(n, np.int64)
        self.current_player = z(n, np.int64)
        self.last_mover = z(n, np.int64)
        self.terminated = z(n, np.bool_)
        self.truncated = z(n, np.bool_)
        self.rewards = z((n, 2), np.float32)
        self.obs = z((n, OBS_SIZE), np.float32)
        self.mask = z((n, NUM_ACTIONS), np.bool_)

    # --- the front: reset, step, observe ------------------------------------------------------
    def reset(self) -> None:
        self.reset_games(self.rows)
        self.last_mover[:] = self.current_player
        self.legal_masks(self.mask)
        self.observations(self.viewers(), self.obs)

    def step(self, actions: np.ndarray) -> None:
        """Next-step autoreset as the vector front: finished games are dealt anew (their
        action ignored), the others play ``actions``; then masks and observation rows."""
        done = self.terminated | self.truncated
        playing = np.flatnonzero(~done)
        self.last_mover[playing] = self.current_player[playing]
        self.rewards[playing] = 0.0
        if done.any():
            over = np.flatnonzero(done)
            self.reset_games(over)
            self.last_mover[over] = self.current_player[over]
        self.step_games(actions, playing)
        self.legal_masks(self.mask)
        self.observations(self.viewers(), self.obs)

    def viewers(self) -> np.ndarray:
        """Whose observation a batch row is: the player to act, else (game over) the last
        mover, as the vector front."""
        player = self.current_player
        return np.where(player >= 0, player, self.last_mover)

    # --- dealing ---------------------------------------------------------------------------
    # A deal works on (game, seat) pairs: row 2 * game + seat of the [2N, ...] views.
    def _shuffle_in(self, p: np.ndarray, counts: np.ndarray) -> None:
        """Deck of pairs ``p`` := a random order of ``counts`` [M, 8]."""
        size = counts.sum(-1)
        ends = np.cumsum(counts, -1)
        positions = np.arange(self.deck_size, dtype=np.int16)
        kinds = (positions[None, :, None] >= ends[:, None, :]).sum(-1, dtype=np.int8)
        keys = self.rng.random((p.size, self.deck_size))
        keys[positions[None, :] >= size[:, None]] = 2.0
        pile = np.take_along_axis(kinds, np.argsort(keys, axis=1), axis=1)
        self.piles2[p] = pile
        self.deck_sizes2[p] = size
        self.deck_counts2[p] += counts
        if self.record:
            self.shuffle_log.append((p // 2, pile.copy()))

    def _draw(self, g: np.ndarray) -> None:
        """IM-2 with D-1: both seats draw 7, reshuffling the discards when the deck runs out
        (at most once per draw: the discard pile is empty right after a reshuffle)."""
        steps = np.arange(HAND_DRAW)
        p = (2 * g[:, None] + SEATS).ravel()
        need = np.full(p.size, HAND_DRAW, np.int16)
        for attempt in (0, 1):
            size = self.deck_sizes2[p]
            take = np.minimum(need, size)
            index = np.maximum(size[:, None] - 1 - steps[None, :], 0)
            cards = self.piles2[p[:, None], index]
            drawn = ((cards[:, :, None] == KINDS8) & (steps < take[:, None])[:, :, None]).sum(
                1, dtype=np.int16
            )
            self.hands2[p] += drawn
            self.hand_sizes2[p] += take
            self.deck_counts2[p] -= drawn
            self.deck_sizes2[p] = size - take
            if attempt == 1:
                return
            need = need - take
            discards = self.discards2[p]
            refill = (size == take) & (discards.sum(-1) > 0)
            if not refill.any():
                return
            refilled = p[refill]
            self._shuffle_in(refilled, discards[refill])
            self.discards2[refilled] = 0
            more = refill & (need > 0)
            p, need = p[more], need[more]

    def reset_games(self, g: np.ndarray) -> None:
        """IM-1: new games in slots ``g`` (int index array)."""
        for array, value in (
            (self.hands, 0),
            (self.deck_counts, 0),
            (self.discards, 0),
            (self.table, 0),
            (self.battle_cards, 0),
            (self.previous_flipped, NO_CARD),
            (self.pending, NO_CARD),
            (self.has_pending, False),
            (self.previous_results, NO_CARD),
            (self.pawns, 1),
            (self.hand_sizes, 0),
            (self.round, 1),
            (self.terminated, False),
            (self.truncated, False),
            (self.rewards, 0.0),
        ):
            array[g] = value
        self._shuffle_in((2 * g[:, None] + SEATS).ravel(), np.tile(self.deck, (2 * g.size, 1)))
        start = self._new_round(g)
        self._advance(EMPTY, EMPTY, start, EMPTY, NO_REVEALS, EMPTY)

    def _new_round(self, g: np.ndarray) -> np.ndarray:
        """IM-2 / IM-3: draw, clear the round, ask the first seat with cards to commit;
        returns the games where nobody holds a card (they start battle 1 at once)."""
        self._draw(g)
        self.committed[g] = NO_CARD
        self.face_down[g] = False
        self.flipped[g] = NO_CARD
        self.results[g] = NO_CARD
        self.battles_won[g] = 0
        self.last_reveal[g] = NO_CARD
        self.battle[g] = 0
        self.commit_slot[g] = 0
        self.decision[g] = COMMIT
        held = self.hand_sizes[g] > 0
        self.current_player[g] = np.where(held[:, 0], 0, 1)
        return g[~held.any(-1)]

    # --- one decision ----------------------------------------------------------------------
    def step_games(self, actions: np.ndarray, g: np.ndarray) -> None:
        """Play ``actions[g]`` (legal) in games ``g``, then run the automatic rule phases."""
        a = actions[g]
        decision = self.decision[g]
        seat = self.current_player[g]
        ends, end_results, starts, reveals, reveal_cards, settles = [], [], [], [], [], []

        m = decision == COMMIT
        if m.any():
            r, s, k = g[m], seat[m], a[m]
            self.hands[r, s, k] -= 1
            self.hand_sizes[r, s] -= 1
            slot = self.commit_slot[r]
            self.committed[r, s, slot] = k
            self.face_down[r, s, slot] = True
            more = (slot < NUM_BATTLES - 1) & (self.hand_sizes[r, s] > 0)
            self.commit_slot[r[more]] += 1
            r, s = r[~more], s[~more]
            second = (s == 0) & (self.hand_sizes[r, 1] > 0)
            self.current_player[r[second]] = 1
            self.commit_slot[r[second]] = 0
            starts.append(r[~second])  # battle is 0 during the commit

        m = decision == PLAY
        if m.any():
            r, s, k = g[m], seat[m], a[m]
            concede = k == CONCEDE
            ends.append(r[concede])
            end_results.append(1 - s[concede])
            r, s, k = r[~concede], s[~concede], k[~concede]
            self.hands[r, s, k] -= 1
            self.hand_sizes[r, s] -= 1
            self.battle_cards[r, s, k] += 1
            aim = (k == SHIELD) & self.battle_cards[r, 1 - s].any(-1)
            self.decision[r[aim]] = TARGET
            settles.append(r[~aim])

        m = decision == STANDOFF
        if m.any():
            r, s, k = g[m], seat[m], a[m]
            self.hands[r, s, k] -= 1
            self.hand_sizes[r, s] -= 1
            self.pending[r, s] = k
            self.has_pending[r, s] = True
            # D-9: the players were fixed at the start; seat 1 then still holds its cards
            wait = (s == 0) & (self.hand_sizes[r, 1] > 0)
            self.current_player[r[wait]] = 1
            r = r[~wait]
            cards = self.pending[r]
            self.pending[r] = NO_CARD
            self.has_pending[r] = False
            self._enter(r, cards)
            reveals.append(r)
            reveal_cards.append(cards)

        m = decision == TARGET
        if m.any():
            r, s, k = g[m], seat[m], a[m] - SHIELD_BASE
            self.battle_cards[r, 1 - s, k] -= 1
            self.discards[r, 1 - s, k] += 1
            settles.append(r)

        def cat(parts: list[np.ndarray]) -> np.ndarray:
            return np.concatenate(parts) if parts else EMPTY

        self._advance(
            cat(ends),
            cat(end_results),
            cat(starts),
            cat(reveals),
            np.concatenate(reveal_cards) if reveal_cards else NO_REVEALS,
            cat(settles),
        )

    def _enter(self, r: np.ndarray, cards: np.ndarray) -> None:
        """Revealed cards ``[M, 2]`` (``NO_CARD`` = none) join the battle."""
        for seat in (0, 1):
            has = cards[:, seat] >= 0
            self.battle_cards[r[has], seat, cards[has, seat]] += 1

    def _advance(
        self,
        ends: np.ndarray,
        end_results: np.ndarray,
        starts: np.ndarray,
        reveals: np.ndarray,
        reveal_cards: np.ndarray,
        settles: np.ndarray,
    ) -> None:
        """The automatic phases until every game waits for a decision (or is over). Each
        pass moves a game at least one battle on, so there are at most 4 passes per step."""
        while ends.size or starts.size or reveals.size or settles.size:
            if ends.size:
                starts = np.concatenate((starts, self._end_battle(ends, end_results)))
            if starts.size:
                cards = self._start_battle(starts)
                reveals = np.concatenate((reveals, starts))
                reveal_cards = np.concatenate((reveal_cards, cards))
                starts = EMPTY
            if reveals.size:
                settles = np.concatenate((settles, self._reveal(reveals, reveal_cards)))
                reveals, reveal_cards = EMPTY, reveal_cards[:0]
            if settles.size:
                ends, end_results = self._settle(settles)
                settles = EMPTY
            else:
                ends = EMPTY

    # --- rule phases -----------------------------------------------------------------------
    def _start_battle(self, r: np.ndarray) -> np.ndarray:
        """IM-4: flip both committed cards of battle ``battle[r]``; returns them [M, 2]."""
        rr, b = r[:, None], self.battle[r][:, None]
        cards = self.committed[rr, SEATS, b]
        self.face_down[rr, SEATS, b] = False
        self.flipped[rr, SEATS, b] = cards
        self._enter(r, cards)
        return cards

    def _reveal(self, r: np.ndarray, cards: np.ndarray) -> np.ndarray:
        """D-6: two specials cancel; else a revealed shield with a target asks its owner.
        Returns the games to settle."""
        self.last_reveal[r] = cards
        cancel = (cards >= FIRST_SPECIAL).all(-1)
        rc, cc = r[cancel], cards[cancel].astype(np.int64)
        for seat in (0, 1):
            self.battle_cards[rc, seat, cc[:, seat]] -= 1
            self.discards[rc, seat, cc[:, seat]] += 1
        keep = ~cancel
        r, cards = r[keep], cards[keep]
        opponent_cards = self.battle_cards[r].any(-1)[:, ::-1]  # [M, 2]: the other seat has one
        shield = (cards == SHIELD) & opponent_cards
        aim = shield.any(-1)
        ra = r[aim]
        self.decision[ra] = TARGET
        self.current_player[ra] = np.where(shield[aim, 0], 0, 1)
        return np.concatenate((rc, r[~aim]))

    def _settle(self, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """IM-5/6/7: ask the loser, start a standoff play, or return battles that end
        (games, results)."""
        cards = self.battle_cards[r]
        totals = _totals(cards)
        counts = cards.sum(-1)
        held = self.hand_sizes[r] > 0
        t0, t1, c0, c1 = totals[:, 0], totals[:, 1], counts[:, 0], counts[:, 1]
        uneven = (t0 != t1) | (c0 != c1)
        leader = np.where((t0 > t1) | ((t0 == t1) & (c0 > c1)), 0, 1)
        loser_holds = held[np.arange(r.size), 1 - leader]
        ask = uneven & loser_holds
        self.decision[r[ask]] = PLAY
        self.current_player[r[ask]] = 1 - leader[ask]
        standoff = ~uneven & held.any(-1)
        self.decision[r[standoff]] = STANDOFF
        self.current_player[r[standoff]] = np.where(held[standoff, 0], 0, 1)
        ending = ~(ask | standoff)
        return r[ending], np.where(uneven, leader, DRAW)[ending]

    def _end_battle(self, r: np.ndarray, result: np.ndarray) -> np.ndarray:
        """IM-10: the winner's cards stay on the table, the rest are discarded; then the next
        battle or the round end. Returns the games whose next battle starts now."""
        cards = self.battle_cards[r]
        won = (result[:, None] == SEATS)[:, :, None]
        self.table[r] += np.where(won, cards, 0)
        self.discards[r] += np.where(won, 0, cards)
        self.battle_cards[r] = 0
        self.results[r, self.battle[r]] = result
        decided = result != DRAW
        self.battles_won[r[decided], result[decided]] += 1
        last = self.battle[r] == NUM_BATTLES - 1
        nxt = r[~last]
        self.battle[nxt] += 1
        return np.concatenate((nxt, self._end_round(r[last])))

    def _end_round(self, r: np.ndarray) -> np.ndarray:
        """IM-11 / IM-12 / D-13: clear the table, move a pawn, end, truncate or go on."""
        if r.size == 0:
            return EMPTY
        self.discards[r] += self.table[r]
        self.table[r] = 0
        self.previous_results[r] = self.results[r]
        self.previous_flipped[r] = self.flipped[r]
        won = self.battles_won[r]
        w0, w1 = won[:, 0], won[:, 1]
        mover = np.where((w0 > w1) & (w0 >= 2), 0, np.where((w1 > w0) & (w1 >= 2), 1, -1))
        moves = mover >= 0
        rm, sm = r[moves], mover[moves]
        pawns = np.minimum(
            self.victory_cards, self.pawns[rm, sm] + np.where(won[moves, sm] == 3, 2, 1)
        )
        self.pawns[rm, sm] = pawns
        wins = pawns >= self.victory_cards
        rw, sw = rm[wins], sm[wins]
        self.terminated[rw] = True
        self.rewards[rw, sw] = 1.0
        self.rewards[rw, 1 - sw] = -1.0
        finished = np.zeros(r.size, np.bool_)
        finished[np.flatnonzero(moves)[wins]] = True
        capped = ~finished & (self.round[r] >= self.max_rounds)
        self.truncated[r[capped]] = True
        stop = r[finished | capped]
        self.decision[stop] = OVER
        self.current_player[stop] = -1
        go = r[~(finished | capped)]
        self.round[go] += 1
        return self._new_round(go) if go.size else EMPTY

    # --- what the agents see ---------------------------------------------------------------
    def _pairs(self, seats: np.ndarray) -> np.ndarray:
        """Row indices [N, 2] into a block reshaped to [2N, ...]: the seat's, the other's."""
        return self.rows2[:, None] + np.take(SEAT_ORDER, seats, axis=0)

    def legal_masks(self, out: np.ndarray) -> None:
        """The reference ``legal_action_mask()`` of each game's player to act."""
        n = self.num_envs
        pairs = self._pairs(np.maximum(self.current_player, 0))
        cards = np.take(self.cards.reshape(2 * n, 5, NUM_KINDS), pairs, axis=0)
        decision = self.decision
        out[:, :NUM_KINDS] = (cards[:, 0, 0] > 0) & (decision < TARGET)[:, None]
        out[:, CONCEDE] = decision == PLAY
        out[:, SHIELD_BASE:] = (cards[:, 1, 2] > 0) & (decision == TARGET)[:, None]

    def observations(self, seats: np.ndarray, out: np.ndarray) -> None:
        """Seat ``seats[i]``'s reference observation (``raw_env.encode``) of game ``i``."""
        n = self.num_envs
        pairs = self._pairs(seats)
        cards = np.take(self.cards.reshape(2 * n, 5, NUM_KINDS), pairs, axis=0)  # [N, 2, 5, 8]
        cards = cards.astype(np.float32)
        out[:, 0:16] = cards[:, 0, 0:2].reshape(n, 16)  # hand, own deck
        _columns(out, 16, (3, 2, NUM_KINDS))[...] = cards[:, :, 2:5].transpose(0, 2, 1, 3)
        kinds = np.take(self.kinds.reshape(2 * n, 11), pairs, axis=0)  # [N, 2, 11]
        seen = np.concatenate(
            (kinds[:, 0, 0:3], kinds[:, :, 3:6].reshape(n, 6), kinds[:, :, 6:9].reshape(n, 6)), 1
        )
        seen = np.concatenate((seen, kinds[:, :, 9]), 1)
        _columns(out, 64, (17, NUM_KINDS))[...] = np.take(ONE_HOT, seen, axis=0)  # NO_CARD: 0
        results = np.concatenate((self.results, self.previous_results), 1) + 1
        code = results + 4 * seats[:, None]
        _columns(out, 200, (6, 3))[...] = np.take(RESULT_ROWS, code, axis=0)
        small = np.take(self.small.reshape(2 * n, 8), pairs, axis=0)  # [N, 2, 8]
        out[:, 218:224] = small[:, :, 0:3].reshape(n, 6)
        out[:, 224:226] = small[:, :, 3]
        battle = cards[:, :, 2]
        out[:, 226:228] = (battle @ VALUES32) * (1.0 + (battle[:, :, UPGRADE] > 0))
        sums = cards @ ONES32  # [N, 2, 5]
        out[:, 228:230] = sums[:, :, 2]
        out[:, 230:232] = small[:, :, 4]
        out[:, 232:234] = small[:, :, 7]
        out[:, 234:236] = small[:, :, 5]
        out[:, 236:238] = sums[:, :, 4]
        out[:, 238:240] = small[:, :, 6]
        out[:, 240] = self.round
        pending = kinds[:, 0, 10].astype(np.int64) + 1
        code = pending * 45 + self.battle * 15 + self.decision * 3 + self.commit_slot
        out[:, 241:259] = np.take(TAIL_ROWS, code, axis=0)


def _pairs_view(array: np.ndarray) -> np.ndarray:
    """``array`` [N, 2, ...] as a view [2N, ...] (raises rather than copy)."""
    view = array.view()
    view.shape = (2 * array.shape[0], *array.shape[2:])
    return view


def _columns(out: np.ndarray, first: int, shape: tuple[int, ...]) -> np.ndarray:
    """A view of ``out[:, first:...]`` shaped ``[N, *shape]`` (raises if it cannot be one)."""
    view = out[:, first : first + int(np.prod(shape))].view()
    view.shape = (out.shape[0], *shape)
    return view


def _tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Lookup rows of the one-hot pieces: a kind (row -1 = NO_CARD, zeros); a battle result
    code 4 * observer + result + 1 (won by you, by the opponent, draw; undecided zeros); and
    the tail code 45 * (own pending + 1) + 15 * battle + 3 * decision + commit slot."""
    one_hot = np.vstack((np.eye(NUM_KINDS, dtype=np.float32), np.zeros((1, 8), np.float32)))
    results = np.zeros((8, 3), np.float32)
    for observer in (0, 1):
        for result in (0, 1, DRAW):
            column = 2 if result == DRAW else int(result != observer)
            results[4 * observer + result + 1, column] = 1.0
    tail = np.zeros((9 * 45, 18), np.float32)
    for pending in range(-1, NUM_KINDS):
        for battle in range(NUM_BATTLES):
            for decision in range(OVER + 1):
                for slot in range(NUM_BATTLES):
                    row = tail[(pending + 1) * 45 + battle * 15 + decision * 3 + slot]
                    if pending >= 0:
                        row[pending] = 1.0
                    row[8 + battle] = 1.0
                    if decision != OVER:
                        row[11 + decision] = 1.0
                    if decision == COMMIT:
                        row[15 + slot] = 1.0
    return one_hot, results, tail


ONE_HOT, RESULT_ROWS, TAIL_ROWS = _tables()
SEAT_ORDER = np.array([[0, 1], [1, 0]])
VALUES32 = VALUES.astype(np.float32)
ONES32 = np.ones(NUM_KINDS, np.float32)
