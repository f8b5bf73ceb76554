"""The ``cardarena`` command: list the envs, play one at the terminal, evaluate agents in a
tournament, replay a recorded game, measure speed.

    cardarena list
    cardarena play ENV --vs AGENT [--seat SEAT] [--seed S] [--record FILE] [--config K=V ...]
    cardarena rules ENV [--short]
    cardarena serve [--host 127.0.0.1] [--port 8000] [--vs AGENT] [--allowed-host NAME]
        [--deck NAME=PATH] [--workers N] [--think-seconds S]
    cardarena eval ENV AGENT AGENT ... [--games N] [--jobs J] [--out DIR] [--seed S] [--vector]
    cardarena eval ENV AGENT ... --field SPEC [--games N] [--out DIR] [--seed S]
    cardarena replay FILE [--game K] [--step]
    cardarena bench [--seconds S] [--rounds R] [--env ENV ...] [--learn | --vector]
    cardarena train ENV [--steps N] [--opponent SPEC] [--selfplay] [--out DIR] [--seed S]
        [--resume] [--n-envs K] ...
    cardarena exploit ENV AGENT [--steps N] [--out DIR] [--seed S] [--start scratch|agent|both]
        [--warm-from SPEC] [--games G] [--eval-games G] [--evaluations N] [--num-envs N]
        [--rollout-steps N] [--minibatch-size N] [--num-players P] [--config K=V ...]

Agents are spec strings (``random``, ``heuristic``, ``oracle``, ``noisy:sigma=0.3`` ...);
``cardarena play ENV --vs nope`` lists the known ones.

No command line gives a traceback. Every flag is checked (``schema.Number``: its type and
range) and a bad one is argparse's usage error, exit code 2. Bad input found later (an unknown
env or spec, a config the env refuses, a file that cannot be read or is not what it should be,
a missing optional dependency) is one line on stderr, ``cardarena COMMAND: ...``, exit code 2.
Ctrl-C stops any command with a line saying what was left undone, exit code 130. Anything else
is a bug in cardarena: one line ``internal error ... please report it``, exit code 1, and with
``CARDARENA_DEBUG=1`` in the environment the exception propagates with its traceback instead.
Names read from files (record lineups and envs, checkpoint metadata) and the tables built from
them are printed with control characters escaped (``untrusted.printable``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from cardarena.agents import AGENT_SPECS, EnvSpec, make_agent, parse_spec, start_game
from cardarena.envs import ENVS, make
from cardarena.envs.core import CardArenaError, InvalidConfigError, check_seed, install_hint
from cardarena.envs.core.untrusted import parse_json, printable

from .cli_args import (
    GAME_INDEX,
    GAMES,
    JOBS,
    MAX_GAMES,
    MIN_STEP,
    PORT,
    SEED,
    THINK_SECONDS,
    WORKERS,
    CurvesArgs,
    EvalArgs,
    ExploitArgs,
    ExportArgs,
    ListArgs,
    PlayArgs,
    ReplayArgs,
    RulesArgs,
    ServeArgs,
)
from .schema import Number, add_dataclass_arguments, summary

#: The env variable that turns "internal error" into the traceback.
DEBUG_VARIABLE = "CARDARENA_DEBUG"
#: Which extra brings each optional module (for the one-line "pip install" hint).
EXTRAS = {
    "matplotlib": "plot",
    "torch": "train",
    "sb3_contrib": "train",
    "stable_baselines3": "train",
    "ray": "rllib",
    "pygame": "dev",
}


def _config(pairs: Sequence[str] | None) -> dict[str, Any]:
    """``["num_players=3", "variant=beginner", "decks=[1,2,3]"]`` -> a config dict: each
    value is read as JSON when it is JSON (within ``untrusted.parse_json``'s limits on digits,
    nesting and non-finite numbers), else kept as a string."""
    config: dict[str, Any] = {}
    for pair in pairs or []:
        key, equals, value = pair.partition("=")
        if not equals or not key:
            raise InvalidConfigError(f"--config takes KEY=VALUE pairs, got {_shown(pair)}")
        if key == "render_mode":
            raise InvalidConfigError("--config cannot set render_mode (the command chooses it)")
        if _is_json(value):
            config[key] = parse_json(value, f"--config {printable(key, 40)}")
        else:
            config[key] = value
    return config


def _is_json(text: str) -> bool:
    """Whether ``text`` is JSON syntax, without converting a number (4,300 digits) or
    recursing far (a nesting too deep counts as JSON, so ``parse_json`` names the limit)."""
    try:
        json.loads(text, parse_int=len, parse_float=len, parse_constant=len)
    except RecursionError:
        return True
    except ValueError:
        return False
    return True


def _shown(text: object, limit: int = 60) -> str:
    """``repr`` of a value from the command line or a file, escaped and cut short."""
    return printable(repr(text), limit)


def _block(text: object) -> str:
    """A multi-line table or render from a file's data, each line escaped."""
    return "\n".join(printable(line, 10_000) for line in str(text).split("\n"))


def _env_name(name: str) -> str:
    if name not in ENVS:
        raise InvalidConfigError(f"unknown env {name!r}; available: {', '.join(sorted(ENVS))}")
    return name


# --- list ------------------------------------------------------------------------------------
def cmd_list(args: argparse.Namespace, out: TextIO) -> int:
    for name, module in sorted(ENVS.items()):
        metadata = module.raw_env.metadata
        players = f"{metadata['min_players']}-{metadata['max_players']}"
        if metadata["min_players"] == metadata["max_players"]:
            players = str(metadata["min_players"])
        title = next(line for line in (module.__doc__ or "").splitlines() if line.startswith("#"))
        print(f"{name:<16} {players:>4} players  {title.lstrip('# ').strip()}", file=out)
    return 0


# --- play ------------------------------------------------------------------------------------
#: What a person may type at the prompt besides a move.
HELP_WORDS = ("?", "help")
RULES_WORDS = ("??", "rules")


def menu_keys(count: int) -> list[str]:
    """Letters for a menu of ``count`` moves: a..z, then aa, ab ... Letters, so a key can
    never be read as a card's value or a position."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    keys = list(letters[:count])
    for first in letters:
        for second in letters:
            if len(keys) >= count:
                return keys
            keys.append(first + second)
    return keys


def _matching_moves(answer: str, keys: list[str], names: list[str]) -> list[int]:
    """The menu indices ``answer`` may mean, the first kind that fits any: a key; a move's
    whole name; the moves whose names end with it (``7`` for "play power 7"); the moves whose
    names hold it as whole words ("tigerhawk" for "place Tigerhawk in column 0")."""
    typed = " ".join(answer.lower().split())
    if not typed:
        return []
    if typed in keys:
        return [keys.index(typed)]
    lowered = [" ".join(name.lower().split()) for name in names]
    if typed in lowered:
        return [lowered.index(typed)]
    ends = [i for i, name in enumerate(lowered) if name.endswith(" " + typed)]
    if ends:
        return ends
    return [i for i, name in enumerate(lowered) if f" {typed} " in f" {name} "]


def ask_human(
    prompt_text: str,
    choices: list[str],
    read: Callable[[str], str],
    out: TextIO,
    env_name: str | None = None,
    redraw: Callable[[], None] | None = None,
) -> int:
    """The index into ``choices`` a person means (``_matching_moves``, when it fits exactly
    one); re-asks on anything else, naming the moves a typed word fits when it fits several.
    ``?`` or ``help`` prints the rules in short, ``??`` or ``rules`` the game's rules (with
    ``env_name``); ``redraw`` then shows the table and the menu again."""
    keys = menu_keys(len(choices))
    while True:
        try:
            answer = read(prompt_text).strip()
        except UnicodeDecodeError:  # bytes that are not text in the terminal's encoding
            answer = "(not text)"
        if env_name is not None and answer.lower() in (*HELP_WORDS, *RULES_WORDS):
            from cardarena.envs.rules_docs import short_rules, table_rules

            whole = answer.lower() in RULES_WORDS
            print(table_rules(env_name) if whole else short_rules(env_name), file=out)
            if not whole:
                print("(?? or rules: the game's rules)", file=out)
            if redraw is not None:
                redraw()
            continue
        matches = _matching_moves(answer, keys, choices)
        if len(matches) == 1:
            return matches[0]
        if matches:
            fits = "; ".join(f"{keys[i]}) {printable(choices[i])}" for i in matches[:6])
            more = f" and {len(matches) - 6} more" if len(matches) > 6 else ""
            print(
                f"  {_shown(answer, 40)} fits {len(matches)} moves ({fits}{more}): "
                "type the letter of one",
                file=out,
            )
            continue
        span = keys[0] if len(keys) == 1 else f"{keys[0]}-{keys[-1]}"
        print(
            f"  {_shown(answer, 40)} is not a move here: type a letter {span} or a move's name "
            "(? for the rules)",
            file=out,
        )


def cmd_play(args: argparse.Namespace, out: TextIO, read: Callable[[str], str] = input) -> int:
    from cardarena.agents.table import Table
    from cardarena.envs.rules_docs import how_to_win

    name = _env_name(args.env)
    config = _config(args.config)
    if args.seed is not None:
        _check_number("--seed", SEED, args.seed)
        check_seed(args.seed)
    table = Table(name, args.vs, seat=args.seat, seed=args.seed, config=config)
    human = table.human
    print(
        f"{name}: you are {human}; opponents: {printable(args.vs)}; seed {table.seed} "
        f"(the same deal again: --seed {table.seed})",
        file=out,
    )
    print(f"How to win: {how_to_win(name)}", file=out)
    print(
        "Type a move's letter or its name; ? for the rules in short, ?? for the game's rules.",
        file=out,
    )
    while not table.is_over():
        _tell(table.story(), out)
        legal = table.legal_actions()
        names = [label for _, label in legal]

        def show(names: list[str] = names) -> None:
            print("\n" + _block(table.text()), file=out)
            for key, text in zip(menu_keys(len(names)), names, strict=True):
                print(f"  {key:>3}) {printable(text)}", file=out)

        show()
        choice = ask_human(f"{human}, your move: ", names, read, out, env_name=name, redraw=show)
        table.act(legal[choice][0])
    _tell(table.story(), out)
    print("\n" + _block(table.text()), file=out)
    outcome = table.outcome()
    if outcome is not None:
        print(outcome.line, file=out)
    if args.record:
        from cardarena.evaluation.records import play_match, write_records

        seats = table.seats
        actions = list(table.actions)
        lineup: dict[str, Any] = {s: _Scripted(s, actions, seats) for s in seats}
        record = play_match(name, lineup, table.seed, config)
        record = _with_lineup(record, {s: ("human" if s == human else args.vs) for s in seats})
        write_records(args.record, [record])
        print(f"recorded to {printable(args.record)}", file=out)
    return 0


def _tell(lines: list[str], out: TextIO) -> None:
    """The public events since the person's last move, one line each."""
    for line in lines:
        print(f"  > {printable(line, 1000)}", file=out)


class _Scripted:
    """Replays the actions of the game just played, so the record is made by the same code
    path as every other record (and checked by it)."""

    def __init__(self, seat: str, actions: list[int], seats: list[str]) -> None:
        self.seat, self.shared, self.spec = seat, actions, "scripted"

    def act(self, observation: dict[str, np.ndarray]) -> int:
        return self.shared.pop(0)


def _with_lineup(record: Any, lineup: dict[str, str]) -> Any:
    import dataclasses

    return dataclasses.replace(record, lineup=lineup)


# --- rules and serve -------------------------------------------------------------------------
def cmd_rules(args: argparse.Namespace, out: TextIO) -> int:
    from cardarena.envs.rules_docs import COMMON, rules_text, short_rules

    name = args.env if args.env == COMMON else _env_name(args.env)
    print(short_rules(name) if args.short else rules_text(name, with_common=True), file=out)
    return 0


def cmd_serve(args: argparse.Namespace, out: TextIO) -> int:
    """Every flag and the ``--vs`` spec are checked before the web stack is imported."""
    from cardarena.envs import make_raw

    _check_number("--port", PORT, args.port)
    _check_number("--max-games", MAX_GAMES, args.max_games)
    _check_number("--workers", WORKERS, args.workers)
    _check_number("--think-seconds", THINK_SECONDS, args.think_seconds)
    for name in sorted(ENVS):  # the spec must at least exist; fitting a config is per game
        seat = make_raw(name).possible_agents[0]
        try:
            start_game(make_agent(args.vs), seat, EnvSpec(name, {}))
        except InvalidConfigError:
            if parse_spec(args.vs)[0] not in AGENT_SPECS:
                raise
    try:
        from cardarena.web.server import run_server
    except ImportError as error:
        raise InvalidConfigError(
            f"cardarena serve needs the 'web' extra ({printable(error, 80)}): {install_hint('web')}"
        ) from None
    run_server(
        args.host,
        args.port,
        args.vs,
        args.max_games,
        float(args.idle_minutes) * 60,
        allowed=args.allowed_host or (),
        workers=args.workers,
        think_seconds=float(args.think_seconds),
        decks=args.deck or (),
    )
    return 0


# --- eval ------------------------------------------------------------------------------------
def cmd_eval(args: argparse.Namespace, out: TextIO) -> int:
    from cardarena.evaluation.tournament import run_tournament

    name = _env_name(args.env)
    config = _config(args.config)
    _check_number("--games", GAMES, args.games)
    _check_number("--jobs", JOBS, args.jobs)
    _check_number("--seed", SEED, args.seed)
    check_seed(args.seed)
    env_spec = EnvSpec(name, config)
    seat = make(name, **config).possible_agents[0]
    for spec in args.agents:  # fail fast (unknown spec, wrong env), before any process starts
        start_game(make_agent(spec), seat, env_spec)
    if args.field is not None:  # checked before --out is made
        _check_field(args, env_spec, seat)
    out_dir = Path(args.out) if args.out else None
    if out_dir is not None and out_dir.exists() and not out_dir.is_dir():
        raise InvalidConfigError(f"--out must be a folder, but {_shown(str(out_dir))} is a file")
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
    print(_block(result.to_markdown()), file=out)
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
        args.eval_written = written  # for the Ctrl-C line (_eval_stopped)
        try:
            result.save_heatmap(out_dir / "win_rates.png")
            written.append("win_rates.png")
        except ImportError as missing:
            print(f"(no heat map: {printable(missing)})", file=out)
        print(f"wrote {', '.join(printable(out_dir / f) for f in written)}", file=out)
    return 0


def _check_field(args: argparse.Namespace, env_spec: EnvSpec, seat: str) -> None:
    """``eval --field``: the field plays this env, the agents are distinct, every one has a
    batched form, and no tournament flag is given that the field would ignore."""
    from cardarena.agents.batched import batched_agent

    if args.jobs != 1:
        raise InvalidConfigError(f"--field plays in one process; drop --jobs {args.jobs}")
    start_game(make_agent(args.field), seat, env_spec)
    repeated = sorted({spec for spec in args.agents if args.agents.count(spec) > 1})
    if repeated:
        raise InvalidConfigError(f"--field: agent specs must be distinct; repeated: {repeated}")
    missing = [
        spec
        for spec in dict.fromkeys([*args.agents, args.field])
        if batched_agent(make_agent(spec, seed=0), env_spec) is None
    ]
    if missing:
        raise InvalidConfigError(
            f"--field needs agents with a batched form (random, heuristic, pretrained, .npz "
            f"exports, checkpoints); {', '.join(map(_shown, missing))} has none"
        )


def _eval_field(
    args: argparse.Namespace, env_spec: EnvSpec, out_dir: Path | None, out: TextIO
) -> int:
    """Each agent alone against ``--field`` (``evaluate_vector``), one line per agent; all on
    the same deals (one seed), so the agents are compared on the same games."""
    from cardarena.evaluation.evaluate_vector import FieldResult, evaluate_batched

    players = len(env_spec.make_raw().possible_agents)
    results = []
    for spec in args.agents:
        result = evaluate_batched(env_spec, spec, args.field, args.games, seed=args.seed)
        entry = FieldResult(spec, args.field, players, args.seed, env_spec.config, result)
        results.append(entry)
        print(printable(entry.line(), 10_000), file=out)
    if out_dir is not None:
        path = out_dir / "field.json"
        entries = [{"env": env_spec.name, **entry.to_dict()} for entry in results]
        path.write_text(json.dumps(entries, indent=2) + "\n")
        print(f"wrote {printable(path)}", file=out)
    return 0


# --- replay ----------------------------------------------------------------------------------
def cmd_replay(args: argparse.Namespace, out: TextIO, read: Callable[[str], str] = input) -> int:
    from cardarena.evaluation.records import read_records
    from cardarena.evaluation.replay import initial_text, replay

    _check_number("--game", GAME_INDEX, args.game)
    shown = _shown(str(args.file))
    try:
        records = read_records(args.file)
    except (CardArenaError, OSError):
        raise
    except (ValueError, RecursionError) as error:  # not UTF-8, a 5,000-digit number ...
        raise InvalidConfigError(
            f"{shown} is not a file of match records ({type(error).__name__}: "
            f"{printable(error, 120)})"
        ) from None
    if not records:
        raise InvalidConfigError(f"{shown} holds no games")
    if not 0 <= args.game < len(records):
        raise InvalidConfigError(
            f"--game must be in 0..{len(records) - 1} ({shown} holds {len(records)} games), "
            f"got {args.game}"
        )
    record = records[args.game]
    check_version = not args.any_version
    lineup = ", ".join(
        f"{printable(seat, 40)}: {printable(spec, 120)}" for seat, spec in record.lineup.items()
    )
    print(
        f"{printable(record.env, 60)} (cardarena {printable(record.version, 40)}), "
        f"seed {record.seed}; {lineup}",
        file=out,
    )
    print(f"\nthe deal:\n{_block(initial_text(record, check_version=check_version))}", file=out)
    pausing = args.step
    for number, step in enumerate(replay(record, check_version=check_version), start=1):
        print(
            f"\nstep {number}: {printable(step.agent, 40)} {printable(step.description)}\n"
            f"{_block(step.text)}",
            file=out,
        )
        if pausing:
            try:
                read("(enter for the next step) ")
            except EOFError:  # input ran out: show the rest without pausing
                pausing = False
    print(
        f"\noutcome: {printable(record.outcome, 40)}; returns {printable(record.returns)}",
        file=out,
    )
    return 0


# --- bench -----------------------------------------------------------------------------------
def cmd_bench(args: argparse.Namespace, out: TextIO) -> int:
    from .bench import run

    run(args)
    return 0


# --- train -----------------------------------------------------------------------------------
def cmd_train(args: argparse.Namespace, out: TextIO) -> int:
    """Every value and the opponents' specs are checked before torch is imported, so a bad
    flag is refused at once (and without the train extra)."""
    from .train_args import args_from_namespace

    _env_name(args.env)
    train_args = args_from_namespace(args)
    resolved = train_args.resolved()
    spec = EnvSpec(
        resolved.env, {} if args.num_players is None else {"num_players": args.num_players}
    )
    seat = make(spec.name, **spec.config).possible_agents[0]
    for opponent in resolved.opponent or []:
        if parse_spec(opponent)[0] in AGENT_SPECS:  # a checkpoint path is loaded by train()
            start_game(make_agent(opponent), seat, spec)

    from .train import train

    train(train_args)
    return 0


# --- exploit ---------------------------------------------------------------------------------
def cmd_exploit(args: argparse.Namespace, out: TextIO) -> int:
    """Every value, the agent and the folder are checked (``plan_exploit``, for a
    ``Namespace`` built in Python too) before the first training starts."""
    from .exploit import plan_exploit, run_exploit

    plan = plan_exploit(
        args.env,
        args.agent,
        steps=args.steps,
        out=args.out,
        seed=args.seed,
        start=args.start,
        games=args.games,
        num_players=args.num_players,
        config=_config(args.config),
        progress=args.progress,
        warm_from=args.warm_from,
        evaluations=args.evaluations,
        train=_exploit_train(args),
        jobs=args.jobs,
        resume=args.resume,
    )
    run_exploit(plan, out)
    return 0


def _exploit_train(args: argparse.Namespace) -> dict[str, Any]:
    """The training geometry ``cardarena exploit`` passes on (None: the trainer's own)."""
    train: dict[str, Any] = {"eval_games": args.eval_games, "final_eval_games": args.eval_games}
    for name in ("num_envs", "rollout_steps", "minibatch_size"):
        if getattr(args, name) is not None:
            train[name] = getattr(args, name)
    return train


# --- export and curves ------------------------------------------------------------------------
def cmd_export(args: argparse.Namespace, out: TextIO) -> int:
    from .export import best_checkpoint, export_checkpoint

    _check_number("--min-step", MIN_STEP, args.min_step)
    checkpoint = (
        best_checkpoint(args.checkpoint, args.best, args.min_step) if args.best else args.checkpoint
    )
    if args.best:
        print(
            f"best against {args.best} in training evaluations: {printable(checkpoint)}",
            file=out,
        )
    policy = export_checkpoint(checkpoint, args.out, value=args.value)
    size = Path(args.out).stat().st_size
    where = printable(args.out)
    what = "policy and value networks" if policy.has_value else "policy"
    print(
        f"{where}: {printable(policy.meta.get('env'), 60)} {what} from step "
        f"{printable(policy.meta.get('step'), 40)} ({size / 1024:.0f} KB); "
        f"play it as pretrained:path={where}",
        file=out,
    )
    return 0


def cmd_curves(args: argparse.Namespace, out: TextIO) -> int:
    from .curves import plot_learning_curves

    path = plot_learning_curves(args.runs, args.out)
    print(f"wrote {printable(path)}", file=out)
    return 0


def build_parser() -> argparse.ArgumentParser:
    """Every subcommand's flags, generated from its argument dataclass (a class's first
    docstring line is the subcommand's help, the whole docstring its description)."""
    from .bench import BenchArgs
    from .bench import add_arguments as add_bench_arguments
    from .train_args import TrainArgs
    from .train_args import add_arguments as add_train_arguments

    parser = argparse.ArgumentParser(prog="cardarena", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    subcommands: list[tuple[str, type, Callable[..., int]]] = [
        ("list", ListArgs, cmd_list),
        ("play", PlayArgs, cmd_play),
        ("rules", RulesArgs, cmd_rules),
        ("serve", ServeArgs, cmd_serve),
        ("eval", EvalArgs, cmd_eval),
        ("replay", ReplayArgs, cmd_replay),
        ("bench", BenchArgs, cmd_bench),
        ("train", TrainArgs, cmd_train),
        ("exploit", ExploitArgs, cmd_exploit),
        ("export", ExportArgs, cmd_export),
        ("curves", CurvesArgs, cmd_curves),
    ]
    for name, schema, run in subcommands:
        short, whole = summary(schema)
        if name == "train":
            short = "train a MaskablePPO agent (checkpoints, --resume, --selfplay league)"
        command = commands.add_parser(name, help=short, description=whole)
        if name == "bench":
            add_bench_arguments(command)  # with its own notes (the env list)
        elif name == "train":
            add_train_arguments(command)  # with the DEFAULTS table and the epilog
        else:
            add_dataclass_arguments(command, schema)
        command.set_defaults(run=run)
    return parser


def _check_number(flag: str, rule: Number, value: Any) -> None:
    """The flag's own check again, for a ``Namespace`` built in Python."""
    problem = rule.problem(value)
    if problem:
        raise InvalidConfigError(f"{flag} {problem}")


def _stopped(args: argparse.Namespace) -> str:
    """What Ctrl-C (or input running out) left undone, per command."""
    command = args.command
    if command == "serve":
        return "stopped; the server is down and its games are gone"
    if command == "play":
        return "stopped; the game was not finished" + (
            " and was not recorded" if getattr(args, "record", None) else ""
        )
    if command == "eval":
        return _eval_stopped(args)
    if command == "train":
        return "stopped; continue from the last checkpoint with the same command and --resume"
    if command == "export":
        return f"stopped; {printable(args.out)} may be missing or incomplete"
    if command == "exploit":
        from .exploit import default_out

        where = args.out if args.out is not None else default_out(args.env, args.agent)
        return (
            f"stopped; no {printable(Path(where) / 'exploit.json')} written (the training "
            f"runs in {printable(where)} keep their checkpoints: continue with the same "
            "command and --resume)"
        )
    if command == "curves":
        return "stopped; no plot written"
    if command == "bench":
        return "stopped; no table printed"
    return "stopped"


def _eval_stopped(args: argparse.Namespace) -> str:
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


def _missing_extra(error: ImportError) -> str | None:
    """One line naming the extra that brings the module ``error`` misses (None: not one of
    ours, so a bug)."""
    from .bench import missing_module

    module = (missing_module(error) or "").split(".")[0]
    extra = EXTRAS.get(module)
    if extra is None:
        return None
    return f"needs {module}, from the '{extra}' extra: {install_hint(extra)}"


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Run one command; the exit code (0 ok, 2 bad input, 130 stopped, 1 internal error)."""
    args = build_parser().parse_args(argv)
    stream = out or sys.stdout

    def say(message: object) -> None:
        print(f"cardarena {args.command}: {printable(message, 4000)}", file=sys.stderr)

    try:
        return int(args.run(args, stream))
    except KeyboardInterrupt:
        print(file=sys.stderr)
        say(_stopped(args))
        return 130
    except EOFError:  # only play reads input it cannot do without
        print(file=sys.stderr)
        say(f"{_stopped(args)} (no more input)")
        return 130
    except BrokenPipeError:  # `cardarena list | head`: the reader left, nothing is wrong
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (silence the exit-time flush)
        return 0
    except CardArenaError as error:
        say(error)
        return 2
    except OSError as error:  # a missing records file, an --out that cannot be made ...
        say(error)
        return 2
    except SystemExit as stop:  # a "needs the 'train' extra" exit from the library
        if isinstance(stop.code, str):
            say(stop.code)
            return 2
        raise
    except Exception as error:
        hint = _missing_extra(error) if isinstance(error, ImportError) else None
        if hint is not None:
            say(hint)
            return 2
        if os.environ.get(DEBUG_VARIABLE):
            raise
        say(
            f"internal error ({type(error).__name__}: {error}); please report it with the "
            f"command line (set {DEBUG_VARIABLE}=1 for the traceback)"
        )
        return 1


if __name__ == "__main__":
    sys.exit(main())
