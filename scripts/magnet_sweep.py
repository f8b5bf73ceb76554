"""Exact exploitability against training steps, plain PPO beside the magnet term: how the
vector trainer's ``--kl-coef`` / ``--magnet`` defaults were chosen (docs/magnet.md).

For each small configuration whose whole game tree fits (``cardarena.openspiel.exact``), each
setting is trained by self-play (``train_vector``, the function behind ``cardarena train
--backend vector --selfplay``) with a checkpoint every rollout; every checkpoint's NashConv is
then computed exactly, for the policy the network samples from (``deterministic=false``, its
probabilities read as it states them) and for its most likely action (the default agent).

    python scripts/magnet_sweep.py --out docs/magnet --rollouts 10 --seeds 0 1

writes ``sweep.json`` (every number), ``sweep.png`` and ``sweep.md`` (the table of
docs/magnet.md: per configuration and setting, the NashConv at the end and averaged over the
second half of training, mean over seeds). Runs that exist in ``--work`` are reused, so an
interrupted sweep continues; ``--table`` only renders what ``--out`` holds.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROLLOUT = 1024 * 32

#: The small configurations: (env, env config, OpenSpiel parameters), all two-player zero-sum.
CONFIGS: dict[str, tuple[str, dict[str, Any], str]] = {
    "promise_war 1 2 3": ("promise_war_v0", {"decks": [1, 2, 3], "max_power": 3},
                          "decks=1 2 3,max_power=3"),
    "promise_war 1 2 2 3": ("promise_war_v0", {"decks": [1, 2, 2, 3], "max_power": 3},
                            "decks=1 2 2 3,max_power=3"),
    "ironman one round": (
        "ironman_war_v0",
        {"deck": {"attack_1": 1, "attack_2": 1, "energy_shield": 1}, "victory_cards": 2,
         "max_rounds": 1},
        "deck=attack_1:1 attack_2:1 energy_shield:1,victory_cards=2,max_rounds=1",
    ),
}  # fmt: skip

#: The settings compared: name -> ``cardarena train`` flags as ``TrainArgs`` fields.
SETTINGS: dict[str, dict[str, Any]] = {
    "plain (ent 0.01)": {"ent_coef": 0.01},
    "entropy 0.05": {"ent_coef": 0.05},
    "uniform kl 0.1": {"ent_coef": 0.01, "kl_coef": 0.1, "magnet": "uniform"},
    "average kl 0.1": {"ent_coef": 0.01, "kl_coef": 0.1, "magnet": "average", "magnet_rate": 0.05},
    "average kl 0.2 ent 0.05": {"ent_coef": 0.05, "kl_coef": 0.2, "magnet": "average",
                                "magnet_rate": 0.05},
    "copy kl 0.1": {"ent_coef": 0.01, "kl_coef": 0.1, "magnet": "copy", "magnet_every": 3},
    "average kl 0.5": {"ent_coef": 0.01, "kl_coef": 0.5, "magnet": "average", "magnet_rate": 0.05},
    # The league's baselines (random, heuristic: half the games by default) pull the learner
    # toward answering them rather than itself; these leave them out.
    "plain, no baselines": {"ent_coef": 0.01, "baseline_share": 0.0},
    "average kl 0.2 ent 0.05, no baselines": {"ent_coef": 0.05, "kl_coef": 0.2,
                                              "magnet": "average", "magnet_rate": 0.05,
                                              "baseline_share": 0.0},
}  # fmt: skip


def train_run(env: str, config: dict, flags: dict, seed: int, rollouts: int, out: Path) -> Path:
    from cardarena.training.train_args import TrainArgs
    from cardarena.training.vector.run import train_vector

    if (out / "checkpoints" / f"step_{rollouts * ROLLOUT}" / "meta.json").is_file():
        return out
    args = TrainArgs(
        env=env, backend="vector", selfplay=True, steps=rollouts * ROLLOUT, seed=seed, out=out,
        checkpoint_every=ROLLOUT, snapshot_every=2 * ROLLOUT, eval_every=0, final_eval_games=0,
        league_eval_games=0, progress=False, torch_threads=1, precision="float32", **flags,
    ).resolved()  # fmt: skip
    train_vector(args, config=config)
    return out


def exact_curve(tree: Any, run: Path, rollouts: int) -> dict[str, list[float]]:
    from cardarena.openspiel.exact import agent_table, evaluate

    curve: dict[str, list[float]] = {"sampled": [], "greedy": []}
    for k in range(1, rollouts + 1):
        checkpoint = run / "checkpoints" / f"step_{k * ROLLOUT}"
        for name, spec in (("sampled", f"{checkpoint}:deterministic=false"),
                           ("greedy", str(checkpoint))):  # fmt: skip
            probabilities, _ = agent_table(tree, spec, 1, 0)
            curve[name].append(evaluate(tree, tree.tabular(probabilities))["nash_conv"])
    return curve


def plot(results: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    configs = list(results["curves"])
    figure, axes = plt.subplots(2, len(configs), figsize=(5 * len(configs), 7), squeeze=False)
    for column, name in enumerate(configs):
        for row, kind in enumerate(("sampled", "greedy")):
            axis = axes[row][column]
            for setting, seeds in results["curves"][name].items():
                curves = [seed_curve[kind] for seed_curve in seeds.values()]
                mean = [sum(values) / len(values) for values in zip(*curves, strict=True)]
                steps = [(k + 1) * ROLLOUT for k in range(len(mean))]
                axis.plot(steps, mean, marker="o", markersize=3, label=setting)
            axis.set_title(f"{name}: {kind} policy")
            axis.set_xlabel("training steps")
            axis.set_ylabel("exact NashConv (mean over seeds)")
            axis.set_ylim(bottom=0)
    axes[0][0].legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=90)


def table(results: dict[str, Any]) -> str:
    """The markdown table of docs/magnet.md from ``sweep.json``."""
    lines = [
        "| config | setting | sampled: end | sampled: 2nd half | greedy: end | seeds |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for name, settings in results["curves"].items():
        for setting, seeds in settings.items():
            curves = list(seeds.values())

            def mean(kind: str, part: slice, curves: list = curves) -> float:
                values = [sum(c[kind][part]) / len(c[kind][part]) for c in curves]
                return sum(values) / len(values)

            half = len(curves[0]["sampled"]) // 2
            lines.append(
                f"| {name} | {setting} | {mean('sampled', slice(-1, None)):.3f} | "
                f"{mean('sampled', slice(half, None)):.3f} | "
                f"{mean('greedy', slice(-1, None)):.3f} | {len(curves)} |"
            )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/magnet"))
    parser.add_argument("--work", type=Path, default=Path("runs/magnet_sweep"))
    parser.add_argument("--rollouts", type=int, default=10)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    parser.add_argument("--config", action="append", choices=list(CONFIGS))
    parser.add_argument("--setting", action="append", choices=list(SETTINGS))
    parser.add_argument("--table", action="store_true", help="only render --out's sweep.json")
    args = parser.parse_args(argv)
    if args.table:
        text = table(json.loads((args.out / "sweep.json").read_text()))
        (args.out / "sweep.md").write_text(text)
        print(text, end="")
        return 0
    from cardarena.openspiel import load_game
    from cardarena.openspiel.exact import build_tree, parse_params, typed

    store = args.out / "sweep.json"
    results: dict[str, Any] = json.loads(store.read_text()) if store.is_file() else {}
    results.update(rollout=ROLLOUT, rollouts=args.rollouts, settings=SETTINGS)
    results.setdefault("curves", {})
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.config or list(CONFIGS):
        env, config, params = CONFIGS[name]
        tree = build_tree(load_game(env, **typed(env, parse_params(params))))
        for setting in args.setting or list(SETTINGS):
            for seed in args.seeds:
                started = time.perf_counter()
                slug = "".join(c for c in f"{name}-{setting}-{seed}" if c not in "()")
                slug = slug.replace(" ", "_")
                run = train_run(env, config, SETTINGS[setting], seed, args.rollouts,
                                args.work / slug)  # fmt: skip
                curve = exact_curve(tree, run, args.rollouts)
                results["curves"].setdefault(name, {}).setdefault(setting, {})[str(seed)] = curve
                store.write_text(json.dumps(results, indent=1) + "\n")
                print(f"{name} | {setting} | seed {seed}: sampled {curve['sampled'][-1]:.3f} "
                      f"greedy {curve['greedy'][-1]:.3f} ({time.perf_counter() - started:.0f} s)",
                      flush=True)  # fmt: skip
    plot(results, args.out / "sweep.png")
    (args.out / "sweep.md").write_text(table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
