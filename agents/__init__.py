"""Who plays: random baselines, heuristics and trained policies, all behind the ``Agent``
protocol (v2: ``act`` plus a ``start_game(seat, env_spec)`` hook, an own seeded generator and
a spec string). ``make_agent(spec)`` builds one per seat.

``MaskablePolicyAgent`` needs the ``train`` extra only when a model is given to it.
``cardarena.agents.vector`` holds the vector forms (many games' rows per call); its old name
``cardarena.agents.batched`` still imports, with a ``DeprecationWarning``.
"""

from typing import TYPE_CHECKING

from cardarena.envs.core.moved import deprecate

from .base import (
    Agent,
    BaseAgent,
    EnvSpec,
    Observation,
    SearchAgent,
    choose,
    env_spec_of,
    legal_actions,
    sample_infostate,
    start_game,
)

# Importing the habits registers the spec habit (the zoo of simple plans).
from .habits import HabitAgent

# Importing the heuristics registers the specs heuristic, oracle, noisy and memory.
from .heuristics import HeuristicAgent

# Importing it registers the spec ismcts (information-set Monte-Carlo tree search).
from .ismcts import ISMCTSAgent
from .numpy_policy import NumpyPolicy, NumpyPolicyAgent
from .policy_agent import MaskablePolicyAgent

# Importing it registers the spec pretrained (the shipped trained policies).
from .pretrained import PretrainedAgent
from .random_agent import RandomAgent
from .rows_parallel import search_jobs
from .specs import (
    AGENT_SPECS,
    PATH_KINDS,
    make_agent,
    parse_spec,
    per_seat,
    register_agent,
    register_path_kind,
    register_vector_form,
)

if not TYPE_CHECKING:
    # The old word for the vector forms, "batched" (cardarena.envs.core.moved).
    __getattr__ = deprecate(__name__, modules={f"{__name__}.batched": f"{__name__}.vector"})

__all__ = [
    "AGENT_SPECS",
    "PATH_KINDS",
    "Agent",
    "BaseAgent",
    "EnvSpec",
    "HabitAgent",
    "HeuristicAgent",
    "ISMCTSAgent",
    "MaskablePolicyAgent",
    "NumpyPolicy",
    "NumpyPolicyAgent",
    "Observation",
    "PretrainedAgent",
    "RandomAgent",
    "SearchAgent",
    "choose",
    "env_spec_of",
    "legal_actions",
    "make_agent",
    "parse_spec",
    "per_seat",
    "register_agent",
    "register_path_kind",
    "register_vector_form",
    "sample_infostate",
    "search_jobs",
    "start_game",
]
