"""Recording a scalar heuristic's tie-breaks: the vector heuristic's action must be one of
the tied best actions the scalar one chose among (tests/vector and tests/agents)."""

from __future__ import annotations

from typing import Any

import numpy as np


def tie_recorder(module: Any) -> tuple[Any, list[set[int]]]:
    """A stand-in for ``module.choose`` (a scalar heuristic's tie-break) that appends each
    call's set of tied best actions to the list returned with it, then chooses as before."""
    choose = module.choose
    ties: list[set[int]] = []

    def capture(actions: Any, scores: Any, generator: Any, tolerance: float = 1e-9) -> int:
        values = np.asarray(scores, np.float64)
        best = np.flatnonzero(values >= values.max() - tolerance)
        ties.append({int(actions[k]) for k in best})
        return choose(actions, scores, generator, tolerance)

    return capture, ties
