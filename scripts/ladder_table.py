"""The ladder's tables from ``scripts/ladder.sh``'s folder: per game, each agent's win rate
against each other agent (round robin, Wilson 95% intervals) and its approximate
exploitability (a best response's win rate against it: every agent at one common budget,
the agents with a vector form also at a long one, each with its budget), and, when a self-play
run's generations were measured, their exploitability over the run (``generations.png`` per
game, and with ``--figure PATH`` one figure of every game's generations); and the reference
agents against every habit of the zoo (``habits/``), each row's weakest pairing marked.

    python scripts/ladder_table.py runs/ladder > ladder.md
    python scripts/ladder_table.py runs/ladder --figure docs/exploitability_generations.png
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def _rate(wins: int, games: int, low: float, high: float) -> str:
    """``wins / games`` as a percentage with its interval."""
    return f"{100 * wins / games:.1f}% ({100 * low:.1f}-{100 * high:.1f})" if games else "-"


def _wilson(wins: int, games: int) -> tuple[float, float]:
    from cardarena.evaluation.stats import wilson_interval

    return wilson_interval(wins, games)


def round_robin(folder: Path) -> tuple[list[str], dict[tuple[str, str], str]]:
    """The specs in order and ``cell[(row, column)]``: row's win rate against column."""
    results = json.loads((folder / "results.json").read_text())
    cells: dict[tuple[str, str], str] = {}
    for pair in results["pairs"]:  # wins / games each way: a draw is no one's win
        a, b, games = pair["agent"], pair["opponent"], pair["games"]
        cells[(a, b)] = _rate(pair["wins"], games, *_wilson(pair["wins"], games))
        cells[(b, a)] = _rate(pair["losses"], games, *_wilson(pair["losses"], games))
    return list(results["specs"]), cells


def exploitability(path: Path) -> dict[str, Any] | None:
    if not path.is_file():
        return None
    report = json.loads(path.read_text())
    found = report["exploitability"]
    return {
        "text": f"{100 * found['win_rate']:.1f}% ({100 * found['low']:.1f}-"
        f"{100 * found['high']:.1f})",
        "steps": report["steps"],
        "start": found["start"],
        "warm_from": report.get("warm_from"),
        "games": report["games"],
        "self_play": report["self_play"]["win_rate"],
        "win_rate": found["win_rate"],
        "low": found["low"],
        "high": found["high"],
    }


def _file_name(spec: str) -> str:
    """The folder ``scripts/ladder.sh`` keeps an agent's best response in."""
    return spec.replace(":", "_").replace("=", "_")


def game_table(folder: Path) -> list[str]:
    """One game's table: the round robin, then each agent's best response at the common
    budget (``common/``, every agent) and at the long one (``exploit/``, vector agents)."""
    lines = [f"### {folder.name}", ""]
    robin = folder / "round_robin"
    if (robin / "results.json").is_file():
        specs, cells = round_robin(robin)
        results = json.loads((robin / "results.json").read_text())
    else:  # the best responses alone, agents named by their folders
        specs, cells, results = _measured(folder), {}, None
        if not specs:
            return [*lines, "(nothing measured yet)", ""]
    columns = specs if results else []
    header = ["agent", *[f"vs {s}" for s in columns], "BR wins, common budget",
              "BR wins, long budget", "long budget"]  # fmt: skip
    lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    commons = []
    for spec in specs:
        common = exploitability(folder / "common" / _file_name(spec) / "exploit.json")
        found = exploitability(folder / "exploit" / _file_name(spec) / "exploit.json")
        row = [f"`{spec}`", *[cells.get((spec, other), "-") for other in columns]]
        row += [common["text"] if common else "-"]
        row += [found["text"], _budget(found)] if found else ["-", "-"]
        lines.append("| " + " | ".join(row) + " |")
        commons += [_budget(common)] if common else []
    pairs = results["pairs"] if results else []
    robin_text = (
        f"Round robin: {pairs[0]['games'] if pairs else 0} games per pairing, seed "
        f"{results['seed']}, seats alternating."
        if results
        else "No round robin here."
    )
    games = _games(folder)
    long_text = (
        f"long budget measured on {games} fresh games each."
        if games
        else "no long-budget best response here."
    )
    lines += [
        "",
        f"{robin_text} Best responses: PPO on the vector engine "
        f"(`cardarena exploit`), common budget {' / '.join(dict.fromkeys(commons)) or '-'}; "
        + long_text,
        "",
    ]
    return lines


def habits_table(folder: Path) -> list[str]:
    """The reference agents (every spec that is not a habit) against each habit: win rate with
    its interval, the weakest pairing in bold (the zoo asks a lower bound above 50%)."""
    path = folder / "habits" / "results.json"
    if not path.is_file():
        return []
    specs, cells = round_robin(path.parent)
    results = json.loads(path.read_text())
    habits = [s for s in specs if s.startswith("habit:")]
    agents = [s for s in specs if not s.startswith("habit:")]
    lows: dict[tuple[str, str], float] = {}
    for pair in results["pairs"]:
        a, b, games = pair["agent"], pair["opponent"], pair["games"]
        lows[(a, b)] = _wilson(pair["wins"], games)[0]
        lows[(b, a)] = _wilson(pair["losses"], games)[0]
    header = ["agent", *[f"vs `{h.removeprefix('habit:plan=')}`" for h in habits]]
    lines = [f"#### {folder.name}: against the habits", "",
             "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]  # fmt: skip
    for agent in agents:
        weakest = min(habits, key=lambda h: lows.get((agent, h), 1.0))
        row = [f"`{agent}`"]
        for habit in habits:
            cell = cells.get((agent, habit), "-")
            row.append(f"**{cell}**" if habit == weakest else cell)
        lines.append("| " + " | ".join(row) + " |")
    games = results["pairs"][0]["games"] if results["pairs"] else 0
    return [*lines, "", f"{games} games per pairing, seed {results['seed']}, seats alternating.",
            ""]  # fmt: skip


def _measured(folder: Path) -> list[str]:
    """The agents with a best response under ``folder``, weakest kind first (as the ladder
    lists them), their specs read from the reports."""
    specs = {
        json.loads(path.read_text())["agent"]
        for kind in ("common", "exploit")
        for path in folder.glob(f"{kind}/*/exploit.json")
    }
    order = ("random", "heuristic", "ismcts", "pretrained")
    return sorted(specs, key=lambda spec: (
        next((i for i, kind in enumerate(order) if spec.startswith(kind)), len(order)),
        len(spec), spec))  # fmt: skip


def _budget(found: dict[str, Any]) -> str:
    """The best response's budget, start and measurement games, as one cell."""
    start = f"from {found['warm_from']}" if found["start"] == "warm" else found["start"]
    return f"{found['steps']:,} ({start}), {found['games']:,} games"


def _games(folder: Path) -> str:
    counts = {
        exploitability(path)["games"]  # type: ignore[index]
        for path in folder.glob("exploit/*/exploit.json")
    }
    return "/".join(f"{c:,}" for c in sorted(counts))


def generations(folder: Path) -> list[str]:
    """The generations' exploitability, in step order, and their plot."""
    found = []
    for path in folder.glob("generations/step_*/exploit.json"):
        step = int(path.parent.name.removeprefix("step_"))
        found.append((step, exploitability(path)))
    if not found:
        return []
    found.sort(key=lambda item: item[0])
    lines = [f"Self-play generations of {folder.name} (best response from scratch):", ""]
    lines += ["| checkpoint step | best response wins | its self-play | BR steps |"]
    lines += ["|---|---|---|---|"]
    lines += [f"| {step:,} | {f['text']} | {100 * f['self_play']:.1f}% | {_budget(f)} |"
              for step, f in found if f]  # fmt: skip
    _plot(folder, found)
    return [*lines, "", f"![generations]({folder.name}/generations.png)", ""]


def _plot(folder: Path, found: list[tuple[int, Any]]) -> None:
    try:
        from matplotlib.figure import Figure
    except ImportError:
        return
    steps = [step for step, _ in found]
    rates = [f["win_rate"] for _, f in found]
    errors = [[r - f["low"] for r, (_, f) in zip(rates, found, strict=True)],
              [f["high"] - r for r, (_, f) in zip(rates, found, strict=True)]]  # fmt: skip
    figure = Figure(figsize=(6, 4))
    axes = figure.subplots()
    axes.errorbar(steps, rates, yerr=errors, marker="o", capsize=3)
    axes.axhline(0.5, color="0.5", linestyle="--", label="fair share")
    axes.set_xlabel("self-play checkpoint (learner steps)")
    axes.set_ylabel("best response's win rate against it")
    axes.set_title(f"{folder.name}: exploitability over self-play")
    axes.set_ylim(0, 1)
    axes.legend()
    figure.tight_layout()
    figure.savefig(folder / "generations.png", dpi=100)


def generations_figure(root: Path, out: Path) -> None:
    """Every game's generations in one figure: the best response's win rate against each
    self-play checkpoint, with 95% intervals, over the run's steps, and dotted the
    checkpoint's own self-play rate on the same games (what a best response must beat)."""
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7.5, 4.2), layout="constrained")
    axes = figure.subplots()
    budget = None
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        found = sorted(
            (int(path.parent.name.removeprefix("step_")), exploitability(path))
            for path in folder.glob("generations/step_*/exploit.json")
        )
        if not found:
            continue
        steps = [step / 1e6 for step, _ in found]
        rates = [f["win_rate"] for _, f in found]
        below = [f["win_rate"] - f["low"] for _, f in found]
        above = [f["high"] - f["win_rate"] for _, f in found]
        budget = found[0][1]["steps"]
        line = axes.errorbar(steps, rates, yerr=[below, above], marker="o", capsize=3,
                             label=folder.name)  # fmt: skip
        axes.plot(steps, [f["self_play"] for _, f in found], linestyle=":", linewidth=1,
                  color=line[0].get_color())  # fmt: skip
    axes.axhline(0.5, color="0.5", linestyle="--", linewidth=0.8, label="fair share")
    axes.plot([], [], linestyle=":", color="0.3", label="the checkpoint against itself")
    axes.set_xlabel("self-play checkpoint (millions of learner steps)")
    axes.set_ylabel("best response's win rate against it")
    if budget is None:
        raise SystemExit(f"no generations measured under {root}")
    axes.set_title(f"Exploitability over self-play (best response: {budget:,} steps from scratch)")
    axes.set_ylim(0, 1)
    axes.legend(fontsize=8)
    out.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(out, dpi=110)


def main(argv: list[str]) -> int:
    figure = None
    if len(argv) == 3 and argv[1] == "--figure":
        figure, argv = Path(argv[2]), argv[:1]
    if len(argv) != 1 or not Path(argv[0]).is_dir():
        print("usage: python scripts/ladder_table.py LADDER_FOLDER [--figure PNG]", file=sys.stderr)
        return 2
    root = Path(argv[0])
    for folder in sorted(p for p in root.iterdir() if p.is_dir()):
        print("\n".join(game_table(folder) + habits_table(folder) + generations(folder)))
    if figure is not None:
        generations_figure(root, figure)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
