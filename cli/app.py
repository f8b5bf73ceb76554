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

Each subcommand is a module of this package (``list``, ``play``, ``rules``, ``serve``,
``evaluate`` for ``eval``, ``replay``, ``bench``, ``train``, ``exploit``, ``export``,
``curves``) and its flags a dataclass in ``args`` (``TrainArgs`` and ``BenchArgs`` live with
the training config and the benchmarks); this module builds the parser and turns every error
into its exit code and line.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable, Sequence
from typing import TextIO

from cardarena.bench.args import BenchArgs
from cardarena.bench.args import add_arguments as add_bench_arguments
from cardarena.bench.engines import missing_module
from cardarena.envs.core import CardArenaError, install_hint
from cardarena.envs.core.untrusted import printable
from cardarena.training.schema import add_dataclass_arguments, summary
from cardarena.training.train_args import TrainArgs
from cardarena.training.train_args import add_arguments as add_train_arguments

from . import bench, curves, evaluate, exploit, export, play, replay, rules, serve, train
from . import list as listing
from .args import (
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


#: An inline literal of the docstrings the help is written from (``name``).
_LITERAL = re.compile(r"``([^`]+)``")


class PlainHelp(argparse.HelpFormatter):
    """The docstrings' ``literals`` shown as plain text at the terminal (the help is written
    from docstrings, whose markup a terminal does not render)."""

    def _format_text(self, text: str) -> str:
        return super()._format_text(_LITERAL.sub(r"\1", text))

    def _expand_help(self, action: argparse.Action) -> str:
        return _LITERAL.sub(r"\1", super()._expand_help(action))


def build_parser() -> argparse.ArgumentParser:
    """Every subcommand's flags, generated from its argument dataclass (a class's first
    docstring line is the subcommand's help, the whole docstring its description)."""
    parser = argparse.ArgumentParser(
        prog="cardarena", description=__doc__.split("\n\n")[0], formatter_class=PlainHelp
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    subcommands: list[tuple[str, type, Callable[..., int]]] = [
        ("list", ListArgs, listing.cmd_list),
        ("play", PlayArgs, play.cmd_play),
        ("rules", RulesArgs, rules.cmd_rules),
        ("serve", ServeArgs, serve.cmd_serve),
        ("eval", EvalArgs, evaluate.cmd_eval),
        ("replay", ReplayArgs, replay.cmd_replay),
        ("bench", BenchArgs, bench.cmd_bench),
        ("train", TrainArgs, train.cmd_train),
        ("exploit", ExploitArgs, exploit.cmd_exploit),
        ("export", ExportArgs, export.cmd_export),
        ("curves", CurvesArgs, curves.cmd_curves),
    ]
    for name, schema, run in subcommands:
        short, whole = summary(schema)
        if name == "train":
            short = "train a MaskablePPO agent (checkpoints, --resume, --selfplay league)"
        command = commands.add_parser(
            name, help=short, description=whole, formatter_class=PlainHelp
        )
        if name == "bench":
            add_bench_arguments(command)  # with its own notes (the env list)
        elif name == "train":
            add_train_arguments(command)  # with the DEFAULTS table and the epilog
        else:
            add_dataclass_arguments(command, schema)
        command.set_defaults(run=run)
    return parser


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
        return evaluate.eval_stopped(args)
    if command == "train":
        return "stopped; continue from the last checkpoint with the same command and --resume"
    if command == "export":
        return f"stopped; {printable(args.out)} may be missing or incomplete"
    if command == "exploit":
        return exploit.exploit_stopped(args)
    if command == "curves":
        return "stopped; no plot written"
    if command == "bench":
        return "stopped; no table printed"
    return "stopped"


def _missing_extra(error: ImportError) -> str | None:
    """One line naming the extra that brings the module ``error`` misses (None: not one of
    ours, so a bug)."""
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
