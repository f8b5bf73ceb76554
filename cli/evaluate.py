"""``cardarena eval``: a round-robin tournament of agents with ratings (``--vector`` on the
vector engine), or with ``--field`` each agent alone against one field on the same deals."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TextIO

from cardarena.agents import EnvSpec, make_agent, start_game
from cardarena.envs import make
from cardarena.envs.core import InvalidConfigError, check_seed
from cardarena.envs.core.untrusted import printable

from .args import GAMES, JOBS, SEED
from .common import block, check_number, env_name, parse_config, shown


def cmd_eval(args: argparse.Namespace, out: TextIO) -> int:
    from cardarena.evaluation.tournament import run_tournament

    name = env_name(args.env)
    config = parse_config(args.config)
    check_number("--games", GAMES, args.games)
    check_number("--jobs", JOBS, args.jobs)
    check_number("--seed", SEED, args.seed)
    check_seed(args.seed)
    env_spec = EnvSpec(name, config)
    seat = make(name, **config).possible_agents[0]
    for spec in args.agents:  # fail fast (unknown spec, wrong env), before any process starts
        start_game(make_agent(spec), seat, env_spec)
    if args.field is not None:  # checked before --out is made
        _check_field(args, env_spec, seat)
    out_dir = Path(args.out) if args.out else None
    if out_dir is not None and out_dir.exists() and not out_dir.is_dir():
        raise InvalidConfigError(f"--out must be a folder, but {shown(str(out_dir))} is a file")
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
    if args.field is not None:
        return _eval_field(args, env_spec, out_dir, out)
    if args.vector:
        from cardarena.evaluation.tournament_vector import run_vector_tournament

        result = run_vector_tournament(
            name,
            args.agents,
            args.games,
            config=config,
            seed=args.seed,
            progress=not args.quiet,
            jobs=args.jobs,
        )
    else:
        result = run_tournament(
            name,
            args.agents,
            args.games,
            config=config,
            seed=args.seed,
            jobs=args.jobs,
            progress=not args.quiet,
            records_path=(out_dir / "games.jsonl") if out_dir else None,
        )
    print(block(result.to_markdown()), file=out)
    if len(make(name, **config).possible_agents) > 2:
        print(
            "\nWith more than two players each game gives one comparison per pair of seats held "
            "by different agents; n counts those comparisons and the intervals treat them as "
            "independent, so read them as approximate.",
            file=out,
        )
    if out_dir is not None:
        (out_dir / "results.json").write_text(result.to_json())
        written = ["results.json"] if args.vector else ["results.json", "games.jsonl"]
        args.eval_written = written  # for the Ctrl-C line (eval_stopped)
        try:
            result.save_heatmap(out_dir / "win_rates.png")
            written.append("win_rates.png")
        except ImportError as missing:
            print(f"(no heat map: {printable(missing)})", file=out)
        print(f"wrote {', '.join(printable(out_dir / f) for f in written)}", file=out)
    return 0


def _check_field(args: argparse.Namespace, env_spec: EnvSpec, seat: str) -> None:
    """``eval --field``: the field plays this env, the agents are distinct, every one has a
    vector form, and no tournament flag is given that the field would ignore."""
    from cardarena.agents.vector import vector_agent

    if args.jobs != 1:
        raise InvalidConfigError(f"--field plays in one process; drop --jobs {args.jobs}")
    start_game(make_agent(args.field), seat, env_spec)
    repeated = sorted({spec for spec in args.agents if args.agents.count(spec) > 1})
    if repeated:
        raise InvalidConfigError(f"--field: agent specs must be distinct; repeated: {repeated}")
    missing = [
        spec
        for spec in dict.fromkeys([*args.agents, args.field])
        if vector_agent(make_agent(spec, seed=0), env_spec) is None
    ]
    if missing:
        raise InvalidConfigError(
            f"--field needs agents with a vector form (random, heuristic, pretrained, .npz "
            f"exports, checkpoints); {', '.join(map(shown, missing))} has none"
        )


def _eval_field(
    args: argparse.Namespace, env_spec: EnvSpec, out_dir: Path | None, out: TextIO
) -> int:
    """Each agent alone against ``--field`` (``evaluate_vector``), one line per agent; all on
    the same deals (one seed), so the agents are compared on the same games."""
    from cardarena.evaluation.evaluate_vector import FieldResult, evaluate_on_vector

    players = len(env_spec.make_raw().possible_agents)
    results = []
    for spec in args.agents:
        result = evaluate_on_vector(env_spec, spec, args.field, args.games, seed=args.seed)
        entry = FieldResult(spec, args.field, players, args.seed, env_spec.config, result)
        results.append(entry)
        print(printable(entry.line(), 10_000), file=out)
    if out_dir is not None:
        path = out_dir / "field.json"
        entries = [{"env": env_spec.name, **entry.to_dict()} for entry in results]
        path.write_text(json.dumps(entries, indent=2) + "\n")
        print(f"wrote {printable(path)}", file=out)
    return 0


def eval_stopped(args: argparse.Namespace) -> str:
    """``eval``'s Ctrl-C line, naming only files there are: the finished games' file while
    the games are played (plain ``eval --out`` alone writes one, as they finish), then the
    files ``cmd_eval`` has written (``args.eval_written``) while the heat map is drawn."""
    out = getattr(args, "out", None)
    if not out or getattr(args, "field", None) is not None:
        return "stopped; no results"
    written = getattr(args, "eval_written", None)
    if written:
        names = ", ".join(printable(Path(out) / name) for name in written)
        return f"stopped; wrote {names}" + ("" if "win_rates.png" in written else ", no heat map")
    games = Path(out) / "games.jsonl"
    if not getattr(args, "vector", False) and games.is_file():
        return f"stopped; no results written ({printable(games)} holds the games finished so far)"
    return "stopped; no results written"
