"""What a tournament's games add up to: pair statistics, ratings and their tables.

Results split into pairwise comparisons by rank (``MatchRecord.ranks``): in a multi-player
game every two seats held by different specs are one comparison (better rank wins, equal
ranks draw). ``PairStats`` counts these (for two seats: games); its ``win_rate`` counts a draw
as half a win, with a Wilson 95% interval (comparisons from one game are not independent, so
for more than two seats the interval is approximate). Ratings: ``bradley_terry`` on the same
counts, Elo scale, mean 0.

``summarize`` turns any records into a ``TournamentResult`` (those of ``run_tournament``, of
``run_vector_tournament`` or read from a file), which prints itself as Markdown or JSON and
draws its win rates as a heat map.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from cardarena.envs.core import install_hint

from .records import MatchRecord, package_version
from .stats import bradley_terry, wilson_interval


@dataclass(frozen=True)
class PairStats:
    """Results of ``a`` against ``b`` from ``a``'s side (``pairs[(a, b)]``)."""

    wins: int
    draws: int
    losses: int
    games: int
    win_rate: float  # (wins + draws / 2) / games
    low: float  # Wilson 95% interval of win_rate
    high: float

    @classmethod
    def from_counts(cls, wins: int, draws: int, losses: int) -> PairStats:
        games = wins + draws + losses
        score = wins + draws / 2
        low, high = wilson_interval(score, games)
        return cls(wins, draws, losses, games, score / games if games else math.nan, low, high)

    def flipped(self) -> PairStats:
        """The same results from the other side."""
        return PairStats.from_counts(self.losses, self.draws, self.wins)


@dataclass
class TournamentResult:
    """Everything a tournament produced; ``pairs`` holds both ``(a, b)`` and ``(b, a)``."""

    env: str
    specs: list[str]
    games: list[MatchRecord]
    pairs: dict[tuple[str, str], PairStats]
    ratings: dict[str, tuple[float, float]]
    config: dict[str, Any] = field(default_factory=dict)
    seed: int = 0

    def ranking(self) -> list[str]:
        """Specs by rating, best first (ties keep the spec order)."""
        return sorted(self.specs, key=lambda spec: -self.ratings[spec][0])

    def to_markdown(self) -> str:
        """Ratings table, then every pair's W/D/L with win rate and 95% interval."""
        config = f" {json.dumps(self.config, sort_keys=True)}" if self.config else ""
        lines = [
            f"## {self.env}{config}: {len(self.specs)} agents, {len(self.games)} games, "
            f"seed {self.seed}",
            "",
            "| rank | agent | rating (Elo) | ± s.e. |",
            "|---:|---|---:|---:|",
        ]
        for place, spec in enumerate(self.ranking(), start=1):
            rating, error = self.ratings[spec]
            lines.append(f"| {place} | `{spec}` | {rating:+.0f} | {error:.0f} |")
        lines += [
            "",
            "| agent | opponent | W | D | L | n | win rate | 95% interval |",
            "|---|---|---:|---:|---:|---:|---:|---|",
        ]
        for a, b in self._unordered_pairs():
            stats = self.pairs[(a, b)]
            lines.append(
                f"| `{a}` | `{b}` | {stats.wins} | {stats.draws} | {stats.losses} | "
                f"{stats.games} | {stats.win_rate:.1%} | {stats.low:.1%} to {stats.high:.1%} |"
            )
        lines += [
            "",
            "Win rate counts a draw as half a win; ratings are Bradley-Terry maximum likelihood "
            "on the Elo scale (mean 0).",
        ]
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict[str, Any]:
        """The summary as plain data (records are left out: write them as JSON lines)."""
        return {
            "env": self.env,
            "version": package_version(),
            "config": self.config,
            "seed": self.seed,
            "specs": list(self.specs),
            "games": len(self.games),
            "ratings": {
                spec: {"rating": rating, "se": error}
                for spec, (rating, error) in self.ratings.items()
            },
            "pairs": [
                {"agent": a, "opponent": b, **_stats_dict(self.pairs[(a, b)])}
                for a, b in self._unordered_pairs()
            ],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    def win_rate_matrix(self) -> list[list[float]]:
        """``matrix[i][j]``: win rate of ``specs[i]`` against ``specs[j]`` (NaN if unplayed)."""
        return [
            [self.pairs[(a, b)].win_rate if (a, b) in self.pairs else math.nan for b in self.specs]
            for a in self.specs
        ]

    def save_heatmap(self, path: str | os.PathLike[str]) -> None:
        """A PNG heat map of ``win_rate_matrix`` (row against column); needs matplotlib, the
        ``plot`` extra (``install_hint("plot")``)."""
        try:
            # The object-oriented API only: no pyplot, no global backend switched.
            from matplotlib.figure import Figure
        except ImportError as error:
            raise ImportError(
                f"save_heatmap needs matplotlib, from the 'plot' extra: {install_hint('plot')}"
            ) from error
        import numpy as np

        matrix = np.array(self.win_rate_matrix(), dtype=float)
        k = len(self.specs)
        size = max(4.0, 1.1 * k + 2.0)
        figure = Figure(figsize=(size + 1.0, size))
        axes = figure.subplots()
        axes.set_facecolor("0.9")  # the diagonal (and unplayed pairs) in grey
        image = axes.imshow(
            np.ma.masked_invalid(matrix), cmap="RdYlGn", vmin=0.0, vmax=1.0, aspect="equal"
        )
        axes.set_xticks(range(k), labels=self.specs, rotation=45, ha="right")
        axes.set_yticks(range(k), labels=self.specs)
        axes.set_xlabel("opponent")
        axes.set_ylabel("agent")
        axes.set_title(f"{self.env}: win rate of row against column")
        for i in range(k):
            for j in range(k):
                if not math.isnan(matrix[i, j]):
                    axes.text(j, i, f"{matrix[i, j]:.0%}", ha="center", va="center", fontsize=9)
        figure.colorbar(image, ax=axes, label="win rate (draw = ½)")
        figure.tight_layout()
        figure.savefig(os.fspath(path), format="png", dpi=100)

    def _unordered_pairs(self) -> Iterator[tuple[str, str]]:
        for i, a in enumerate(self.specs):
            for b in self.specs[i + 1 :]:
                if (a, b) in self.pairs:
                    yield a, b


def _stats_dict(stats: PairStats) -> dict[str, Any]:
    return {
        "wins": stats.wins,
        "draws": stats.draws,
        "losses": stats.losses,
        "games": stats.games,
        "win_rate": stats.win_rate,
        "low": stats.low,
        "high": stats.high,
    }


def pairwise_counts(
    records: Sequence[MatchRecord],
) -> dict[tuple[str, str], tuple[int, int, int]]:
    """``{(a, b): (wins, draws, losses)}`` of spec ``a`` against ``b`` by rank, ``a`` < ``b``
    in order of first appearance; seats held by the same spec are not compared."""
    counts: dict[tuple[str, str], list[int]] = {}
    order: dict[str, int] = {}
    for record in records:
        for spec in record.lineup.values():
            order.setdefault(spec, len(order))
        seats = list(record.lineup)
        for i, seat_a in enumerate(seats):
            for seat_b in seats[i + 1 :]:
                a, b = record.lineup[seat_a], record.lineup[seat_b]
                if a == b:
                    continue
                rank_a, rank_b = record.ranks[seat_a], record.ranks[seat_b]
                if order[a] > order[b]:
                    a, b, rank_a, rank_b = b, a, rank_b, rank_a
                tally = counts.setdefault((a, b), [0, 0, 0])
                tally[0 if rank_a < rank_b else 1 if rank_a == rank_b else 2] += 1
    return {pair: (w, d, lo) for pair, (w, d, lo) in counts.items()}


def summarize(
    env: str,
    specs: Sequence[str],
    records: list[MatchRecord],
    config: Mapping[str, Any] | None = None,
    seed: int = 0,
) -> TournamentResult:
    """Pair statistics and ratings from ``records`` (any games, e.g. read from a file)."""
    counts = pairwise_counts(records)
    pairs: dict[tuple[str, str], PairStats] = {}
    scores: dict[tuple[str, str], tuple[float, float]] = {}
    for (a, b), (wins, draws, losses) in counts.items():
        stats = PairStats.from_counts(wins, draws, losses)
        pairs[(a, b)] = stats
        pairs[(b, a)] = stats.flipped()
        scores[(a, b)] = (wins + draws / 2, losses + draws / 2)
    ratings = bradley_terry(scores) if scores else {}
    for spec in specs:
        ratings.setdefault(spec, (math.nan, math.nan))
    return TournamentResult(
        env=env,
        specs=list(specs),
        games=records,
        pairs=pairs,
        ratings={spec: ratings[spec] for spec in specs},
        config=dict(config or {}),
        seed=seed,
    )


__all__ = [
    "PairStats",
    "TournamentResult",
    "pairwise_counts",
    "summarize",
]
