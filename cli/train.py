"""``cardarena train``: the flags of ``TrainArgs`` (``training.train_args``, the training
config), checked with the opponents' specs before torch is imported, then ``train()``."""

from __future__ import annotations

import argparse
from typing import TextIO

from cardarena.agents import AGENT_SPECS, EnvSpec, make_agent, parse_spec, start_game
from cardarena.envs import make

from .common import env_name


def cmd_train(args: argparse.Namespace, out: TextIO) -> int:
    """Every value and the opponents' specs are checked before torch is imported, so a bad
    flag is refused at once (and without the train extra)."""
    from cardarena.training.train_args import args_from_namespace

    env_name(args.env)
    train_args = args_from_namespace(args)
    resolved = train_args.resolved()
    spec = EnvSpec(
        resolved.env, {} if args.num_players is None else {"num_players": args.num_players}
    )
    seat = make(spec.name, **spec.config).possible_agents[0]
    for opponent in resolved.opponent or []:
        if parse_spec(opponent)[0] in AGENT_SPECS:  # a checkpoint path is loaded by train()
            start_game(make_agent(opponent), seat, spec)

    from cardarena.training.train import train

    train(train_args)
    return 0
