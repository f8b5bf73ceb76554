"""The self-play league: a pool of the learner's frozen snapshots plus fixed baseline agents.

``LeaguePool`` is an ``OpponentSampler`` (see ``single_agent.py``): the bridge calls
``sample(rng)`` at every reset with its own seeded generator and gets an agent spec string
(a baseline such as ``"random"`` or the absolute path of a snapshot checkpoint folder, which
``make_agent`` loads as a ``CheckpointAgent``). The bridge draws the learner's seat itself.

Sampling modes:

- ``"latest"``: the newest snapshot with probability ``latest_share`` (default 0.8), otherwise
  an entry drawn uniformly from the rest of the pool; the baselines alone while there is no
  snapshot.
- ``"uniform"``: every entry (baselines and snapshots) equally likely.
- ``"prioritised"``: weight ``(loss_rate + 0.05) ** exponent`` where ``loss_rate`` is the
  learner's loss rate against the entry measured at the last evaluation
  (``record_result``); an entry never measured gets weight 1 (the maximum), so new snapshots
  are tried first.

``baseline_share`` (optional) fixes the probability of drawing a baseline, whatever the
mode: the baselines share it equally (``"prioritised"``: by their weights) and the mode
divides the rest among the snapshots (the baselines alone while there is none). Without it a
league in ``"latest"`` mode drifts into beating only its own recent selves and forgets the
fixed opponents (measured on Iron Man: 61% against the heuristic after 200k steps, 6-30% from
600k on); ``cardarena train`` keeps half the games against the baselines by default. Even
with that share, ``"latest"`` fell to 15-39% there, while ``"prioritised"`` held 47-64%.

The same pool serves the RLlib backend (``rllib.loop.league_pool``, ``uniform`` mode).
``save_loss_rates``/``restore_loss_rates`` keep the measured loss rates in ``league.json``
beside a run's checkpoints, so a resumed ``prioritised`` league samples as before the stop.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cardarena.agents.checkpoint_reader import is_checkpoint
from cardarena.envs.core import InvalidConfigError
from cardarena.envs.core.untrusted import read_json

#: The ``mode=`` options of ``LeaguePool``.
SAMPLING_MODES = ("latest", "uniform", "prioritised")


class LeaguePool:
    """Baselines plus snapshots; an ``OpponentSampler`` for ``SingleAgentEnv``."""

    def __init__(
        self,
        baselines: Sequence[str] = ("random", "heuristic"),
        snapshots: Iterable[str | Path] = (),
        mode: str = "latest",
        latest_share: float = 0.8,
        exponent: float = 1.0,
        max_snapshots: int | None = None,
        baseline_share: float | None = None,
    ) -> None:
        if mode not in SAMPLING_MODES:
            raise InvalidConfigError(f"league mode must be one of {SAMPLING_MODES}, got {mode!r}")
        if not 0.0 <= latest_share <= 1.0:
            raise InvalidConfigError(f"latest_share must be in [0, 1], got {latest_share!r}")
        if baseline_share is not None and not 0.0 <= baseline_share <= 1.0:
            raise InvalidConfigError(f"baseline_share must be in [0, 1], got {baseline_share!r}")
        if baseline_share is not None and baseline_share > 0 and not baselines:
            raise InvalidConfigError(f"baseline_share {baseline_share} needs a baseline")
        self.baseline_share = baseline_share
        self.baselines = [str(b) for b in baselines]
        self.snapshots: list[str] = []
        self.mode = mode
        self.latest_share = latest_share
        self.exponent = exponent
        self.max_snapshots = max_snapshots
        #: Learner's loss rate against each entry, from the last evaluation.
        self.loss_rates: dict[str, float] = {}
        for snapshot in snapshots:
            self.add_snapshot(snapshot)
        if not self.entries:
            raise InvalidConfigError("a league pool needs at least one baseline or snapshot")

    @property
    def entries(self) -> list[str]:
        return [*self.baselines, *self.snapshots]

    def add_snapshot(self, path: str | Path) -> str:
        """Add a frozen snapshot (a checkpoint folder); the oldest leave past ``max_snapshots``."""
        spec = str(Path(path).resolve())
        if spec not in self.snapshots:
            self.snapshots.append(spec)
        if self.max_snapshots is not None:
            while len(self.snapshots) > self.max_snapshots:
                self.loss_rates.pop(self.snapshots.pop(0), None)
        return spec

    def record_result(self, entry: str, loss_rate: float) -> None:
        """The learner's measured loss rate against ``entry`` (for ``"prioritised"``)."""
        self.loss_rates[str(entry)] = float(loss_rate)

    def weights(self) -> np.ndarray:
        """Sampling probabilities over ``entries`` (in that order)."""
        share = self.baseline_share
        if share is None or not self.snapshots or not self.baselines:
            return self._mode_weights(self.entries)
        snapshots = self._mode_weights(self.snapshots)
        if self.mode == "prioritised":  # the baselines the learner loses to come first too
            baselines = share * self._mode_weights(self.baselines)
        else:
            baselines = np.full(len(self.baselines), share / len(self.baselines))
        return np.concatenate([baselines, (1.0 - share) * snapshots])

    def _mode_weights(self, entries: list[str]) -> np.ndarray:
        if not entries:
            return np.zeros(0)
        has_snapshot = bool(self.snapshots) and entries[-1] == self.snapshots[-1]
        if self.mode == "uniform" or (self.mode == "latest" and not has_snapshot):
            weights = np.ones(len(entries))
        elif self.mode == "latest":
            weights = np.zeros(len(entries))
            weights[-1] = self.latest_share
            rest = len(entries) - 1
            if rest:
                weights[:-1] = (1.0 - self.latest_share) / rest
            else:
                weights[-1] = 1.0
        else:
            weights = np.array(
                [
                    (self.loss_rates[e] + 0.05) ** self.exponent if e in self.loss_rates else 1.0
                    for e in entries
                ]
            )
        return weights / weights.sum()

    def sample(self, rng: np.random.Generator) -> str:
        entries = self.entries
        return entries[int(rng.choice(len(entries), p=self.weights()))]

    def __repr__(self) -> str:
        return (
            f"LeaguePool(mode={self.mode!r}, baseline_share={self.baseline_share}, "
            f"baselines={self.baselines}, "
            f"snapshots={len(self.snapshots)})"
        )


def measure_league(
    pool: LeaguePool, row: dict, play: Callable[[str, int], Any], games: int
) -> dict[str, float]:
    """The learner's loss rate against every snapshot (``play(snapshot, games)``, a
    ``MatchResult``) and, from the evaluation ``row``, against every baseline, recorded in
    ``pool`` for ``prioritised`` sampling; returns the snapshots' rates."""
    rates = {}
    for snapshot in pool.snapshots:
        result = play(snapshot, games)
        rates[snapshot] = result.losses / max(result.games, 1)
        pool.record_result(snapshot, rates[snapshot])
    for name in pool.baselines:
        if f"loss_rate_{name}" in row:
            pool.record_result(name, row[f"loss_rate_{name}"])
    return rates


#: Beside the checkpoints of a self-play run: the league's last measured loss rates.
LEAGUE_FILE = "league.json"


def save_loss_rates(out: Path, pool: LeaguePool, step: int, name: str = LEAGUE_FILE) -> None:
    """Keep the league's measured loss rates beside the checkpoints (written atomically), so a
    resumed ``prioritised`` league samples as before the stop instead of from equal weights.
    Snapshots are named by their path relative to ``out``, so the run can move; ``name`` is
    the file's path inside ``out``."""
    rates = {
        (os.path.relpath(entry, out) if is_checkpoint(entry) else entry): rate
        for entry, rate in pool.loss_rates.items()
    }
    snapshots = [entry for entry in pool.loss_rates if is_checkpoint(entry)]
    data = {
        "step": step,
        "loss_rates": rates,
        "snapshots": [os.path.relpath(entry, out) for entry in snapshots],
    }
    target = out / name
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f"{target.name}.partial")
    temporary.write_text(json.dumps(data, indent=1))
    temporary.replace(target)


def restore_loss_rates(
    out: Path, pool: LeaguePool, step: int | None = None, name: str = LEAGUE_FILE
) -> None:
    """Loss rates saved by ``save_loss_rates`` for the entries still in ``pool`` (a missing
    or unreadable file leaves the pool as it is: the rates are measured again at the next
    evaluation; rates measured after ``step``, the checkpoint resumed from, are not used)."""
    try:
        data = read_json(out / name, "league state")
        saved, measured = dict(data["loss_rates"]), int(data["step"])
        snapshots = set(data.get("snapshots", []))
    except (InvalidConfigError, KeyError, TypeError, ValueError):
        return
    if step is not None and measured > step:  # measured after the checkpoint resumed from
        return
    entries = {os.path.normpath(entry): entry for entry in pool.entries}
    for name, rate in saved.items():
        entry = os.path.normpath(out / name) if name in snapshots else name
        if entry in entries and isinstance(rate, int | float) and not isinstance(rate, bool):
            pool.record_result(entries[entry], float(rate))


__all__ = [
    "LEAGUE_FILE",
    "SAMPLING_MODES",
    "LeaguePool",
    "measure_league",
    "restore_loss_rates",
    "save_loss_rates",
]
