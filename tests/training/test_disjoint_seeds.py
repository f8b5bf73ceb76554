"""Choice and measurement on disjoint games (issue 40, point 4). ``cardarena exploit`` picks its
headline start by the starts' final training evaluations and then reports the start's
measurement (the ladder's "best of two starts" is this choice; its tournaments and tables pick
nothing): the games of the two must never meet. A tiny run records, through seams, every
evaluation seed and every game generator the vector engine is seeded with, phase by phase
(training deals, the choosing evaluations, the measurement), and the sets must not intersect;
the plan's own account of the choosing seeds must contain what the trainer really used, and
the measurement seed must stay out of it even where its stream's first draw falls inside.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("torch")

from cardarena.envs.core import kernels
from cardarena.envs.vector import front
from cardarena.evaluation import evaluate_vector
from cardarena.evaluation.records import derive_seed
from cardarena.training import exploit
from cardarena.training.run import evaluation_seed
from cardarena.training.vector import run as train_vector

LADDER = Path(__file__).resolve().parents[2] / "docs" / "ladder"
TINY = {"num_envs": 16, "rollout_steps": 32, "minibatch_size": 128, "eval_games": 20,
        "final_eval_games": 20}  # fmt: skip


class Phases:
    """What each phase of a run was seeded with: evaluation seeds and game generators."""

    def __init__(self) -> None:
        self.now = "training"
        self.seeds: dict[str, list[int]] = defaultdict(list)
        self.generators: dict[str, set[int]] = defaultdict(set)

    def evaluation(self, phase: str, evaluate: Any) -> Any:
        def recorded(spec: Any, agent: Any, opponent: Any, games: int, seed: int, *a: Any) -> Any:
            self.seeds[phase].append(seed)
            self.now, before = phase, self.now
            try:
                return evaluate(spec, agent, opponent, games, seed, *a)
            finally:
                self.now = before

        return recorded

    def deals(self, slot_seeds: Any) -> Any:
        def recorded(seed: int, slots: np.ndarray) -> np.ndarray:
            states = slot_seeds(seed, slots)
            self.generators[self.now].update(int(s) for s in states)
            return states

        return recorded


@pytest.fixture
def phases(monkeypatch: pytest.MonkeyPatch) -> Phases:
    """The seams: the trainer's evaluations choose, ``evaluate_vector.evaluate_on_vector`` as
    exploit imports it measures, and ``slot_seeds`` (every game's generator: the vector front seeds
    the engine's and the learner's batch's games alike) says which games each phase dealt."""
    found = Phases()
    original = evaluate_vector.evaluate_on_vector
    monkeypatch.setattr(train_vector, "evaluate_on_vector", found.evaluation("choosing", original))
    monkeypatch.setattr(
        evaluate_vector, "evaluate_on_vector", found.evaluation("measuring", original)
    )
    monkeypatch.setattr(front, "slot_seeds", found.deals(front.slot_seeds))
    return found


def test_the_headline_start_is_chosen_and_reported_on_disjoint_games(phases, tmp_path):
    plan = exploit.plan_exploit(
        "promise_war_v0", "pretrained", out=tmp_path / "run", steps=1024, games=60,
        train=TINY, progress=False, evaluations=2,
    )  # fmt: skip
    assert plan.starts == ("scratch", "agent")  # two starts: a real choice
    report = exploit.run_exploit(plan, stream=open(tmp_path / "log", "w"))  # noqa: SIM115
    choosing, measuring = set(phases.seeds["choosing"]), set(phases.seeds["measuring"])
    assert choosing and measuring == {plan.measure_seed} == {report["measure_seed"]}
    assert not choosing & measuring
    # the plan's account of the choosing seeds holds every one the trainer used
    assert choosing <= set(plan.choosing_seeds) and plan.measure_seed not in plan.choosing_seeds
    # and the choice read exactly those evaluations: each start's final row is one of them
    for run in report["runs"].values():
        final = run["training_eval"][-1]
        assert (
            final["final"]
            and plan.seed + exploit.TRAINING_EVALUATION_OFFSET + final["step"] in choosing
        )
    assert report["exploitability"]["start"] == exploit.headline_start(report["runs"], "pretrained")
    # game by game: no measured game was dealt to choose or to train
    dealt = phases.generators
    assert dealt["choosing"] and dealt["measuring"] and dealt["training"]
    assert not dealt["measuring"] & dealt["choosing"]
    assert not dealt["measuring"] & dealt["training"]


def test_the_measurement_seed_leaves_the_choosing_seeds_where_its_first_draw_falls_in():
    """At seed 0 the stream's first draw is 2,316,491,638: a budget past it puts that draw
    among the choosing seeds, and the plan must take the stream's next draw outside them (the
    plan alone, nothing trained)."""
    first = derive_seed(exploit.MEASURE_TAG, 0)
    plan = exploit.plan_exploit("promise_war_v0", "heuristic", steps=first, train=TINY,
                                out=Path("unused"), progress=False)  # fmt: skip
    assert first in plan.choosing_seeds
    assert plan.measure_seed not in plan.choosing_seeds
    later = (derive_seed(exploit.MEASURE_TAG, 0, draw) for draw in range(1, 100))
    assert plan.measure_seed == next(s for s in later if s not in plan.choosing_seeds)


@settings(max_examples=200, deadline=None)
@given(seeds=st.lists(st.integers(0, 2**64), min_size=2, max_size=2, unique=True))
def test_no_two_seeds_deal_any_slot_the_same_game(seeds):
    """The engine's per-slot generators (``slot_seeds``): slot ``k`` of one seed never starts
    as slot ``k`` of another, slot 0 included (it once did under every seed), nor as any
    other slot of either."""
    slots = np.arange(64)
    one, other = (kernels.slot_seeds(seed, slots) for seed in seeds)
    assert len(set(one.tolist()) | set(other.tolist())) == 2 * slots.size


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), last_step=st.integers(0, 2**34))
def test_the_choosing_seeds_are_every_evaluation_seed_up_to_the_last_step(seed, last_step):
    """The trainer's own evaluation seeds (``training.run.evaluation_seed``), from step 0 to
    ``last_step`` both included and nothing more: one fewer would let the measurement land on
    the last choosing game, one more would move a measurement seed for no reason."""
    choosing = exploit.choosing_seeds(seed, last_step)
    assert choosing[0] == evaluation_seed(seed, 0)
    assert choosing[-1] == evaluation_seed(seed, last_step)
    assert len(choosing) == last_step + 1


@settings(max_examples=300, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), last_step=st.integers(0, 2**34))
def test_the_measurement_stream_never_meets_the_choosing_seeds(seed, last_step):
    """Whatever the seed and budget; and where the first draw is already outside, it is the
    one taken, so no kept figure moved."""
    choosing = exploit.choosing_seeds(seed, last_step)
    measured = exploit.measurement_seed(seed, choosing)
    assert measured not in choosing
    first = derive_seed(exploit.MEASURE_TAG, seed)
    assert first in choosing or measured == first


@pytest.mark.parametrize(
    "path", sorted(LADDER.glob("*/*/*/exploit.json")), ids=lambda p: str(p.relative_to(LADDER))
)
def test_every_kept_ladder_figure_was_measured_off_its_choosing_games(path):
    """docs/ladder's best responses: each measurement seed is outside the seeds its own
    training evaluations used (read from the kept learning curves), and is what the plan
    derives today, so the separation changed no kept figure."""
    report = json.loads(path.read_text())
    seed = report["seed"]
    steps = [row["step"] for run in report["runs"].values() for row in run["training_eval"]]
    used = {seed + exploit.TRAINING_EVALUATION_OFFSET + step for step in steps}
    assert report["measure_seed"] not in used
    choosing = exploit.choosing_seeds(seed, max(steps))
    assert exploit.measurement_seed(seed, choosing) == report["measure_seed"]
