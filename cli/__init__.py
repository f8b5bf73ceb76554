"""The ``cardarena`` command line: one module per subcommand, each subcommand's flags generated
from a documented dataclass (``args``; ``training.schema`` makes the flags), and ``main``, the
entry point of the ``cardarena`` script, which turns every error into one line and an exit
code. ``python -m cardarena.cli`` runs it too.
"""

from __future__ import annotations

from .app import build_parser, main

__all__ = ["build_parser", "main"]
