"""Every vector engine against its reference rules, transition by transition.

For every env that declares a vector engine and every one of its ``example_configs``, at least
30,000 transitions of random play (hundreds of whole games per config, autoreset deals
included; 10,000 for the test game) are checked by ``vector_checks.check_against_reference``.
``CARDARENA_VECTOR_TRANSITIONS`` sets another count: 1000000 for a long check after changing
an engine, a small one for a quick local run. The check: the observation and mask rows equal
what a raw env continued from ``state_of(i)`` gives, and the reference rules advance that
state to exactly ``state_of(i)`` after the vector step.
"""

from __future__ import annotations

import os

import pytest
from vector_checks import check_against_reference, vector_cases

from cardarena.envs import ENVS

TRANSITIONS = int(os.environ.get("CARDARENA_VECTOR_TRANSITIONS", "30000"))
#: The test game (no chance after the deal, a few hundred states) proves the generic path with
#: fewer: it is here to show a registered game gets the check, not to be proved at length.
TEST_GAME_TRANSITIONS = min(TRANSITIONS, 10_000)


def batch_size(transitions: int) -> int:
    """64 games at the default count; fewer for a quick run, so that each game still plays to
    its end and deals again (3,000 transitions over 64 eight-player games end none)."""
    return min(64, max(8, transitions // 400))


@pytest.mark.parametrize(("env_name", "index", "config"), vector_cases(), ids=lambda v: str(v)[:40])
def test_vector_rules_equal_the_reference(env_name, index, config):
    builtin = ENVS[env_name].__name__.startswith("cardarena.envs.")
    transitions = TRANSITIONS if builtin else TEST_GAME_TRANSITIONS
    num_envs = batch_size(transitions)
    counts = check_against_reference(env_name, config, transitions, num_envs, seed=index)
    assert counts["transitions"] >= transitions
    assert counts["games_ended"] > 0, counts  # the ends (returns, final rows) were checked
    assert counts["deals"] > num_envs, counts  # autoreset deals were played on and checked
