"""``cardarena rules``: the rules of an env as implemented (``envs/rulebooks/ENV.md``), whole or
in short."""

from __future__ import annotations

import argparse
from typing import TextIO

from .common import env_name


def cmd_rules(args: argparse.Namespace, out: TextIO) -> int:
    from cardarena.envs.rules_docs import COMMON, rules_text, short_rules

    name = args.env if args.env == COMMON else env_name(args.env)
    print(short_rules(name) if args.short else rules_text(name, with_common=True), file=out)
    return 0
