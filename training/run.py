"""The run loop every PPO backend shares: one run folder, one schedule, one way to end.

``cardarena train`` (``training.train``) hands a run to its backend's ``Run``: SB3's
(``training.sb3.run``) or the vector engine's (``training.vector.run``). Everything that is
not how the learner learns lives here once:

- opening the folder: a new run refuses a folder that holds one; ``--resume`` reads ``latest``
  and refuses changed league flags (and whatever else the backend lists);
- the league (``--selfplay``): the baselines plus the snapshots the checkpoint kept, with the
  loss rates measured up to that checkpoint;
- the schedule, run right after every update (``after_update``), where the step counter and
  the network agree, in this order: a snapshot joins the league, an exploiter round
  (``--exploiter-every``, where the backend trains exploiters), an evaluation, a checkpoint;
- checkpoints (``checkpoints/step_<N>``, ``latest``, ``league/step_<N>.json``), evaluations
  (``eval.jsonl``, on seeds training never uses) and the final checkpoint and evaluation.

A backend gives its ``learner`` (a ``training.learner.Learner``), its observation ``scaler``,
``learn()`` (drive the learner to ``args.steps``, calling ``after_update`` after every update),
``rng_state()``, ``evaluation_agent()`` and ``play()``.

Output folder (``--out``, default ``runs/<env>``)::

    out/
      args.json               the run's flags (a resume must repeat the ones that shape it)
      checkpoints/step_<N>/   a checkpoint every ``checkpoint_every`` steps (and the final one)
      latest/                 the newest checkpoint (``--resume`` continues from here)
      snapshots/step_<N>/     self-play snapshots (``--selfplay``), frozen league opponents
      logs/run_<start>/       progress.csv (and TensorBoard events with SB3 if installed)
      eval.jsonl              one JSON line per periodic evaluation (and the final one)
      league.json             with ``--selfplay``: the league's last measured loss rates
      league/step_<N>.json    the loss rates a resume from checkpoint ``N`` starts with

Every checkpoint is written atomically (``save_checkpoint``), so a run killed at any moment
resumes from its last checkpoint; each run (and each resume) logs into its own ``logs/run_*``
folder, and ``eval.jsonl`` is only appended to, so nothing written before a kill is lost.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from cardarena.agents import EnvSpec
from cardarena.envs.core import InvalidConfigError, install_hint
from cardarena.evaluation.evaluate import available_baselines, evaluation_row, print_final

from .checkpoint import Checkpoint, is_checkpoint, load_checkpoint, save_checkpoint
from .jsonl import append_jsonl
from .league import LeaguePool, measure_league, restore_loss_rates, save_loss_rates
from .learner import Learner
from .resume import (
    check_same_league,
    check_same_settings,
    read_step,
    resume_latest,
    resume_point,
)
from .train_args import TrainArgs

#: ``league/step_<N>.json``: the loss rates a resume from checkpoint ``N`` starts with.
LEAGUE_HISTORY = "league"

#: An evaluation at step ``s`` plays on the seed ``seed + EVALUATION_SEED_OFFSET + s``: games
#: training never deals. ``cardarena exploit`` chooses its headline start on exactly these
#: (``training.exploit.seeds.choosing_seeds``) and measures it on others.
EVALUATION_SEED_OFFSET = 1_000_000


def evaluation_seed(seed: int, step: int) -> int:
    """The seed of the evaluation games a run seeded ``seed`` plays at ``step``."""
    return seed + EVALUATION_SEED_OFFSET + step


def league_at(step: int) -> str:
    """The loss rates a resume from checkpoint ``step`` restores, inside the run folder."""
    return f"{LEAGUE_HISTORY}/step_{step}.json"


def missing_train_extra(missing: ImportError) -> SystemExit:
    """The exit for a training run without the ``train`` extra, naming the missing module
    (both backends: SB3's MaskablePPO, torch for ``--backend vector``)."""
    return SystemExit(
        f"training needs the 'train' extra ({missing.name} is missing): {install_hint('train')}"
    )


class Run:
    """One training run: its folder, its league, its schedule (see the module docstring)."""

    #: The name ``print_final`` reports (``--backend``).
    backend = ""
    #: Whether this backend trains exploiters (``--exploiter-every``).
    trains_exploiters = False
    #: Set by the backend once it has built them.
    learner: Learner
    scaler: Any

    def __init__(
        self,
        args: TrainArgs,
        out: Path,
        spec: EnvSpec,
        resume_checks: Sequence[tuple[Sequence[str], str]] = (),
        evaluate_against: Sequence[str] = (),
    ) -> None:
        self.args, self.out, self.spec = args, out, spec
        self.checkpoint = self._open(resume_checks)
        self.baselines = available_baselines(spec)
        extra = [name for name in evaluate_against if name not in self.baselines]
        #: What every evaluation plays against: the baselines this env has, then the extras.
        self.evaluated = [*self.baselines, *dict.fromkeys(extra)]
        self.opponents = list(args.opponent or (self.baselines if args.selfplay else ["random"]))
        self.pool = self._league() if args.selfplay else None
        self.start_step = self.checkpoint.step if self.checkpoint is not None else 0
        self.started = time.perf_counter()
        self._last_print = 0.0
        self.next: dict[str, int | None] = {}

    # --- the folder and the league -------------------------------------------------------
    def _open(self, checks: Sequence[tuple[Sequence[str], str]]) -> Checkpoint | None:
        args, out = self.args, self.out
        if args.resume:
            check_same_league(out, args)
        latest = resume_latest(out) if args.resume else resume_point(out)
        checkpoint = load_checkpoint(latest, self.spec) if args.resume else None
        if not args.resume and read_step(latest) is not None:
            raise InvalidConfigError(f"{out} already holds a run; pass --resume or another --out")
        if checkpoint is not None:
            for keys, what in checks:
                check_same_settings(out, args, keys, what)
        return checkpoint

    def _league(self) -> LeaguePool:
        args, checkpoint = self.args, self.checkpoint
        snapshots = [] if checkpoint is None else checkpoint.opponents
        pool = LeaguePool(
            self.opponents,
            [s for s in snapshots if s not in self.opponents],
            args.league_mode,
            max_snapshots=args.max_snapshots,
            baseline_share=args.baseline_share,
        )
        if checkpoint is not None:
            step = checkpoint.step
            # A run folder written before the history was kept has only league.json.
            history = league_at(step) if (self.out / league_at(step)).is_file() else None
            if history is None:
                restore_loss_rates(self.out, pool, step)
            else:
                restore_loss_rates(self.out, pool, step, history)
        return pool

    # --- what the backend gives ----------------------------------------------------------
    def learn(self) -> None:
        """Drive the learner to ``args.steps``, calling ``after_update`` after every update."""
        raise NotImplementedError

    def rng_state(self) -> dict[str, Any]:
        """Every generator the run draws from, as a checkpoint keeps them."""
        raise NotImplementedError

    def evaluation_agent(self) -> Any:
        """The learner's current greedy policy, as ``play`` takes it."""
        raise NotImplementedError

    def play(self, agent: Any, opponent: str, games: int, seed: int) -> Any:
        """``games`` games of ``agent`` against the spec ``opponent`` (a ``MatchResult``)."""
        raise NotImplementedError

    def after_checkpoint(self) -> None:
        """Called right after a scheduled checkpoint (the vector engine deals anew there)."""

    def evaluated_row(self, row: dict[str, Any]) -> None:
        """Called with every periodic evaluation's row (SB3 logs it)."""

    def close(self) -> None:
        """Called once the run has ended."""

    # --- checkpoints ---------------------------------------------------------------------
    def save(self, step: int) -> Path:
        """``checkpoints/step_<step>`` and ``latest`` (and the league's rates at ``step``)."""
        if self.pool is not None:
            save_loss_rates(self.out, self.pool, step, league_at(step))
        specs = self.pool.entries if self.pool is not None else self.opponents
        rng = self.rng_state()
        path = self.save_to(self.out / "checkpoints" / f"step_{step}", step, rng, specs)
        self.save_to(self.out / "latest", step, rng, specs)
        return path

    #: Whether the run's agent samples from its policy (``--sample``; the vector backend).
    samples = False

    def save_to(
        self,
        path: Path,
        step: int,
        rng: Mapping[str, Any] | None = None,
        opponents: Sequence[str] = (),
    ) -> Path:
        """The learner as it is, a checkpoint at ``path`` that plays as the run's agent
        does (sampled with ``--sample``)."""
        return save_checkpoint(
            path, self.learner, self.spec, self.scaler, step, rng, opponents,
            samples=self.samples,
        )  # fmt: skip

    def snapshot(self, step: int) -> None:
        """The learner as it is joins the league (a snapshot left by a killed run stays)."""
        assert self.pool is not None
        path = self.out / "snapshots" / f"step_{step}"
        if not is_checkpoint(path):
            self.save_to(path, step)
        self.pool.add_snapshot(path)

    def exploiter(self, step: int) -> None:
        """An exploiter round (``--exploiter-every``), where ``trains_exploiters`` is set."""
        raise NotImplementedError(f"--backend {self.backend} trains no exploiters")

    # --- evaluation ----------------------------------------------------------------------
    def evaluate(self, step: int, games: int, final: bool = False) -> dict[str, Any]:
        """One ``eval.jsonl`` row: the learner against every evaluated opponent on games
        training never sees; with a league, its loss rates (and ratings with
        ``--rate-games``)."""
        args, pool = self.args, self.pool
        agent = self.evaluation_agent()
        seed = evaluation_seed(args.seed, step)

        def play(opponent: str, games: int) -> Any:
            return self.play(agent, opponent, games, seed)

        row = evaluation_row(args.env, step, final, self.evaluated, games, play)
        if pool is not None and not final:
            row["league_loss_rates"] = measure_league(pool, row, play, args.league_eval_games)
            save_loss_rates(self.out, pool, step)
            if args.rate_games > 0 and len(pool.entries) >= 2:
                from cardarena.evaluation.tournament import run_tournament

                ratings = run_tournament(
                    args.env,
                    pool.entries,
                    args.rate_games,
                    config=dict(self.spec.config),
                    seed=args.seed,
                ).ratings
                row["league_ratings"] = {spec: list(r) for spec, r in ratings.items()}
        append_jsonl(self.out / "eval.jsonl", [row])
        return row

    # --- the loop ------------------------------------------------------------------------
    def _schedule(self) -> None:
        args, step = self.args, self.start_step
        league = self.pool is not None
        self.next = {
            name: (step // every + 1) * every if every else None
            for name, every in (
                ("snapshot", args.snapshot_every if league else 0),
                ("exploiter", args.exploiter_every if league and self.trains_exploiters else 0),
                ("eval", args.eval_every),
                ("checkpoint", args.checkpoint_steps),
            )
        }

    def _due(self, name: str, step: int, every: int) -> bool:
        due = self.next[name] is not None and step >= self.next[name]  # type: ignore[operator]
        if due:
            self.next[name] = (step // every + 1) * every
        return due

    def after_update(self, step: int) -> None:
        """The schedule, right after every update: snapshot, exploiter, evaluation,
        checkpoint, each when its interval has passed."""
        args = self.args
        if self._due("snapshot", step, args.snapshot_every):
            self.snapshot(step)
        if self._due("exploiter", step, args.exploiter_every):
            self.exploiter(step)
        if self._due("eval", step, args.eval_every):
            self.evaluated_row(self.evaluate(step, args.eval_games))
        if self._due("checkpoint", step, args.checkpoint_steps):
            self.save(step)
            self.after_checkpoint()

    def progress(self, step: int, extra: str = "") -> None:
        """With ``--progress``, at most once a second: the step and the rate on stderr."""
        if not self.args.progress or time.perf_counter() - self._last_print <= 1.0:
            return
        self._last_print = time.perf_counter()
        rate = (step - self.start_step) / max(self._last_print - self.started, 1e-9)
        print(
            f"\r{self.args.env}: step {step}/{self.args.steps} ({rate:.0f}/s){extra}",
            end="",
            file=sys.stderr,
        )

    def train(self) -> Path:
        """Learn to ``args.steps`` on the schedule, then the final checkpoint (never
        rewriting a saved step) and the final evaluation; the final checkpoint's path."""
        args = self.args
        self._schedule()
        self.started = time.perf_counter()
        self.learn()
        if args.progress:
            print(file=sys.stderr)
        seconds = time.perf_counter() - self.started
        step = self.learner.num_timesteps
        final = self.out / "checkpoints" / f"step_{step}"
        if read_step(final) != step:
            final = self.save(step)
        row = self.evaluate(step, args.final_eval_games, final=True)
        print_final(args.env, row, step - self.start_step, seconds, final, self.backend)
        self.close()
        return final


__all__ = [
    "LEAGUE_HISTORY",
    "Run",
    "league_at",
    "missing_train_extra",
]
