"""The habit zoo: simple plans a person might follow at the table, one fixed rule each.

They are yardsticks, not opponents to train against: a reference agent that loses to a habit
has a hole a person would find in a few games. ``habit:plan=NAME`` plays plan ``NAME`` of the
env's game (``HABITS[env][NAME]``; ``plans(env)`` lists them, and each plan's class docstring
says what it does). Every habit sees only its observation and the env's public config, picks
only legal actions, and draws only from its own generator.

Importing this package registers the ``habit`` spec with ``make_agent``.
"""

from __future__ import annotations

from collections.abc import Callable

from cardarena.envs.core import InvalidConfigError

from ..base import Agent, EnvSpec
from ..heuristics import StrategyAgent
from ..heuristics.common import Strategy
from ..specs import register_agent
from .beast_wars import HABITS as BEAST_WARS
from .cardline import HABITS as CARDLINE
from .ironman_war import HABITS as IRONMAN_WAR
from .promise_war import HABITS as PROMISE_WAR

#: Env name -> plan name -> the habit (a ``Strategy`` built from the env spec).
HABITS: dict[str, dict[str, Callable[[EnvSpec], Strategy]]] = {
    "beast_wars_v0": BEAST_WARS,
    "cardline_v0": CARDLINE,
    "ironman_war_v0": IRONMAN_WAR,
    "promise_war_v0": PROMISE_WAR,
}


def plans(env_name: str) -> list[str]:
    """The plans of ``env_name``'s zoo, in the order they are listed (none: an empty list)."""
    return list(HABITS.get(env_name, {}))


def describe(env_name: str, plan: str) -> str:
    """The first line of a plan's docstring: what it does, for tables and ``--help``."""
    doc = HABITS[env_name][plan].__doc__ or ""
    return " ".join(doc.split("\n\n")[0].split())


class HabitAgent(StrategyAgent):
    """Plays plan ``plan`` of the env's zoo."""

    def __init__(self, seed: int | None = None, plan: str = "") -> None:
        super().__init__(seed)
        if not isinstance(plan, str) or not any(plan in table for table in HABITS.values()):
            known = "; ".join(f"{env}: {', '.join(names)}" for env, names in HABITS.items())
            what = "needs plan=NAME" if plan == "" else f"has no plan {plan!r}"
            raise InvalidConfigError(f"agent 'habit' {what} (plans: {known})")
        self.plan = plan
        self.spec = f"habit:plan={plan}"

    def builder(self, env_spec: EnvSpec) -> Callable[[EnvSpec], Strategy]:
        table = HABITS.get(env_spec.name)
        if table is None:
            raise InvalidConfigError(
                f"agent {self.spec!r}: no habits for env {env_spec.name!r}; the zoo has "
                f"{', '.join(sorted(HABITS))}"
            )
        if self.plan not in table:
            raise InvalidConfigError(
                f"agent {self.spec!r}: {env_spec.name} has no plan {self.plan!r}; its plans: "
                f"{', '.join(table)}"
            )
        return table[self.plan]


def _habit(seed: int | None = None, plan: str = "") -> Agent:
    return HabitAgent(seed, plan)


register_agent(
    "habit",
    _habit,
    "a simple fixed plan a person might follow (option plan=NAME; the plans per game are in "
    "cardarena.agents.habits)",
    kinds=(HabitAgent,),
)

__all__ = ["HABITS", "HabitAgent", "describe", "plans"]
