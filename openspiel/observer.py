"""The OpenSpiel observer of every cardarena game (``CardArenaObserver``): what each seat
sees, as tensors and strings, built from the env's own observation encoder.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from .adapter import Adapter, Record


def format_vector(values: np.ndarray) -> str:
    """Sparse text of a flat vector: ``index:value`` for every non-zero entry."""
    nonzero = np.flatnonzero(values)
    return ",".join(f"{i}:{_number(values[i])}" for i in nonzero.tolist())


def _number(value: Any) -> str:
    value = float(value)
    return str(int(value)) if value.is_integer() else f"{value:.6g}"


class CardArenaObserver:
    """An OpenSpiel ``PyObserver`` (``tensor``, ``dict``, ``set_from``, ``string_from``).

    ``private_info``: SINGLE_PLAYER is the seat's env observation and legal mask; NONE keeps
    the public pieces only (the env observation without the game's private pieces, per-seat
    rows still ordered from the viewer, no mask); ALL_PLAYERS is the env's ``state()`` vector
    (every hidden card) and the mask of the seat to act. ``public_info=False`` keeps the
    private pieces and the mask only (SINGLE_PLAYER). ``perfect_recall`` adds ``history``:
    one row per decision so far, the acting seat one-hot and, when the viewer may know it (its
    own decision; every decision for ALL_PLAYERS), the action one-hot; the strings then list
    every decision and the view after it, from the deal on.
    """

    def __init__(self, adapter: Adapter, iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        kind = iig_obs_type.private_info
        public = bool(iig_obs_type.public_info)
        self.adapter = adapter
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.kind = kind
        self.key = (int(kind), public, self.perfect_recall)
        pieces: list[tuple[str, int, tuple[int, ...]]] = []
        layout = adapter.layout
        if kind == pyspiel.PrivateInfoType.ALL_PLAYERS:
            if not public:
                raise ValueError("ALL_PLAYERS without public_info is not supported")
            self.source = "state"
            self.names = tuple(p.name for p in adapter.state_layout.pieces)
            pieces.append(("state", adapter.state_layout.size, (adapter.state_layout.size,)))
            with_mask = True
        elif kind == pyspiel.PrivateInfoType.SINGLE_PLAYER:
            self.source = "observation"
            self.names = tuple(
                p.name for p in layout.pieces if public or p.name in adapter.private_pieces
            )
            with_mask = True
        elif public:
            self.source = "observation"
            self.names = tuple(
                p.name for p in layout.pieces if p.name not in adapter.private_pieces
            )
            with_mask = False
        else:
            raise ValueError("an observer needs public_info or some private_info")
        self.whole = self.source == "state" or len(self.names) == len(layout.pieces)
        if self.source == "observation":
            if self.whole:
                pieces.append(("observation", layout.size, (layout.size,)))
            else:
                pieces.extend((n, layout.piece(n).size, layout.piece(n).dims) for n in self.names)
        if with_mask:
            pieces.append(("action_mask", adapter.num_actions, (adapter.num_actions,)))
        self.with_mask = with_mask
        if self.perfect_recall:
            width = adapter.num_players + adapter.num_actions
            pieces.append(("history", adapter.max_game_length * width,
                           (adapter.max_game_length, width)))  # fmt: skip
        size = sum(s for _, s, _ in pieces)
        self.tensor = np.zeros(size, np.float32)
        self.dict: dict[str, np.ndarray] = {}
        offset = 0
        for name, piece_size, shape in pieces:
            self.dict[name] = self.tensor[offset : offset + piece_size].reshape(shape)
            offset += piece_size

    # --- one view of one state at rest ------------------------------------------------------
    def _view(self, record: Record | None, player: int) -> dict[str, np.ndarray]:
        """The non-recall pieces of ``player``'s view of ``record``'s state, memoised."""
        key = ("view", self.key, player)
        if record is not None and key in record.memo:
            return record.memo[key]
        adapter = self.adapter
        state = None if record is None else record.state
        view: dict[str, np.ndarray] = {}
        if self.source == "state":
            view["state"] = (
                adapter.full_state(state) if state is not None
                else np.zeros(adapter.state_layout.size, np.float32)
            )  # fmt: skip
            seat = -1 if state is None else state.current_player()
            view["action_mask"] = adapter.mask(state, seat)
        else:
            observation = (
                adapter.observe(state, player) if state is not None
                else np.zeros(adapter.layout.size, np.float32)
            )  # fmt: skip
            if self.whole:
                view["observation"] = observation
            else:
                named = adapter.layout.view(observation)
                for name in self.names:
                    view[name] = named[name]
            if self.with_mask:
                view["action_mask"] = adapter.mask(state, player)
        if record is not None:
            record.memo[key] = view
        return view

    def _sees(self, actor: int, player: int) -> bool:
        if self.kind == pyspiel.PrivateInfoType.ALL_PLAYERS:
            return True
        return self.kind == pyspiel.PrivateInfoType.SINGLE_PLAYER and actor == player

    def _view_string(self, record: Record | None, player: int) -> str:
        key = ("text", self.key, player)
        if record is not None and key in record.memo:
            return record.memo[key]
        view = self._view(record, player)
        text = " ".join(f"{name}[{format_vector(np.ravel(v))}]" for name, v in view.items())
        if record is not None:
            record.memo[key] = text
        return text

    def _decision(self, actor: int, action: int, player: int) -> str:
        agent = self.adapter.agents[actor]
        return f"{agent}:{action}" if self._sees(actor, player) else f"{agent}:?"

    def _recall_string(self, record: Record | None, player: int) -> str:
        if record is None:
            return "deal"
        key = ("recall", self.key, player)
        if key in record.memo:
            return record.memo[key]
        if record.parent is None:
            text = f"deal | {self._view_string(record, player)}"
        else:
            step = self._decision(record.actor, record.action, player)
            text = (
                f"{self._recall_string(record.parent, player)}\n"
                f"{step} | {self._view_string(record, player)}"
            )
        record.memo[key] = text
        return text

    # --- PyObserver ---------------------------------------------------------------------------
    def set_from(self, state: Any, player: int) -> None:  # a CardArenaState
        engine = state.engine
        self.tensor.fill(0)
        for name, values in self._view(engine.record, player).items():
            self.dict[name][...] = np.reshape(values, self.dict[name].shape)
        if self.perfect_recall:
            history = self.dict["history"]
            num_players = self.adapter.num_players
            decisions = []
            record = engine.record
            while record is not None and record.parent is not None:
                decisions.append((record.actor, record.action))
                record = record.parent
            decisions.reverse()
            if engine.need is not None and engine.record is not None:
                decisions.append((engine.actor, engine.pending))
            for row, (actor, action) in enumerate(decisions):
                history[row, actor] = 1.0
                if self._sees(actor, player):
                    history[row, num_players + action] = 1.0

    def string_from(self, state: Any, player: int) -> str:
        engine = state.engine
        if not self.perfect_recall:
            return self._view_string(engine.record, player)
        text = self._recall_string(engine.record, player)
        if engine.need is not None and engine.record is not None:
            text += f"\n{self._decision(engine.actor, engine.pending, player)} | chance"
        return text


__all__ = ["CardArenaObserver", "format_vector"]
