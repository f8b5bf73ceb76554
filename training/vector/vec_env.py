"""``LearnerBatch`` as an SB3 ``VecEnv`` (``LearnerVecEnv``: same-step autoreset,
``terminal_observation`` and ``episode`` infos) and as a Gymnasium ``VectorEnv``
(``LearnerGymVectorEnv``: next-step autoreset); ``training.vector.batch`` says what the
learner's batch is and does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from cardarena.envs.core import IllegalActionError, InvalidConfigError
from cardarena.envs.core.moved import deprecate

from .batch import LearnerBatch

MONITOR: type | None
try:
    from stable_baselines3.common.monitor import Monitor as MONITOR
    from stable_baselines3.common.vec_env import VecEnv
except ImportError:  # pragma: no cover - the 'train' extra is missing

    class VecEnv:  # type: ignore[no-redef]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            raise ImportError("LearnerVecEnv needs the 'train' extra (stable-baselines3)")

    MONITOR = None

#: ``LearnerVecEnv``'s actions between ``step_wait`` and the next ``step_async``.
_NO_ACTIONS = object()


class LearnerVecEnv(VecEnv):
    """SB3 ``VecEnv``: one learner in ``num_envs`` games of ``env_name`` (module docstring).

    ``LearnerVecEnv("promise_war_v0", 1024, seed=0, opponent="heuristic", num_players=3)``;
    ``seed`` fixes the deals, the learner's seats and the opponents' choices (``seed()``
    followed by ``reset()`` reseeds); config keys as for ``make``. Train with
    ``MaskablePPO("MlpPolicy", venv)``; ``set_opponent`` (or
    ``env_method("set_opponent", ...)``) swaps the opponents, e.g. for self-play.
    """

    render_mode = None

    def __init__(
        self,
        env_name: str,
        num_envs: int,
        seed: int | None = None,
        opponent: Any = None,
        **config: Any,
    ) -> None:
        self.core = LearnerBatch(env_name, num_envs, seed, opponent, True, config)
        self.env_name = env_name
        self.scaler = self.core.scaler
        super().__init__(
            self.core.num_envs, self.core.scaler.space, spaces.Discrete(self.core.num_actions)
        )
        self._pending_actions: Any = _NO_ACTIONS

    @property
    def learner_seats(self) -> np.ndarray:
        """Each game's learner seat (index into ``possible_agents``)."""
        return self.core.learner_seat.copy()

    def reset(self) -> np.ndarray:
        seed = self._seeds[0] if self._seeds and self._seeds[0] is not None else None
        self.core.reset(seed)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return self.core.observation

    def step_async(self, actions: Any) -> None:
        """Keep ``actions`` as given: ``step_wait`` checks them as the vector front does (a
        list element by element, so a bool in it is refused, not read as 1)."""
        self._pending_actions = actions

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        if self._pending_actions is _NO_ACTIONS:
            raise IllegalActionError("step_wait() called without step_async()")
        actions, self._pending_actions = self._pending_actions, _NO_ACTIONS
        core = self.core
        core.step(actions)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if core.done.any():
            elapsed = core.episode_time()
            for game, final in core.final_observations().items():
                infos[game] = {
                    "terminal_observation": final,
                    "episode": {
                        "r": float(core.final_return[game]),
                        "l": int(core.final_length[game]),
                        "t": elapsed,
                    },
                    "TimeLimit.truncated": bool(core.truncated[game]),
                }
        return core.observation, core.reward.copy(), core.done.copy(), infos

    def action_masks(self) -> np.ndarray:
        """bool ``[num_envs, A]``: the learner's legal actions in every game."""
        return self.core.mask.copy()

    def set_opponent(self, opponent: Any) -> None:
        """Swap the opponents (any form ``__init__`` takes)."""
        self.core.set_opponent(opponent)

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Seed the next ``reset`` (the whole batch from ``seed``; SB3's per-env list is
        ``seed + i`` by convention)."""
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1, np.uint32)[0])
        self._seeds = [seed + index for index in range(self.num_envs)]
        return self._seeds

    def close(self) -> None:
        self.core.engine.close()

    def _indices(self, indices: Any) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        if isinstance(indices, (int, np.integer)):
            return [int(indices)]
        return [int(i) for i in indices]

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        """One value per game: ``learner`` is that game's learner seat name; anything else an
        attribute of this batch (shared by every game)."""
        games = self._indices(indices)
        if attr_name == "learner":
            return [self.core.seat_names[int(self.core.learner_seat[g])] for g in games]
        value = getattr(self, attr_name)
        return [value for _ in games]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        """Set an attribute of the batch (every game shares it)."""
        if indices is not None and len(self._indices(indices)) != self.num_envs:
            raise NotImplementedError("the games of one batch share every attribute")
        setattr(self, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any
    ) -> list[Any]:
        """``action_masks`` per game (what ``MaskablePPO`` asks); any other method is the
        batch's, called once (``set_opponent`` applies to every game)."""
        games = self._indices(indices)
        if method_name == "action_masks":
            masks = self.action_masks()
            return [masks[g] for g in games]
        if len(games) != self.num_envs:
            raise NotImplementedError(
                f"{method_name!r} applies to the whole batch; call it without indices"
            )
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in games]

    def env_is_wrapped(
        self, wrapper_class: type[gymnasium.Wrapper], indices: Any = None
    ) -> list[bool]:
        """True for SB3's ``Monitor``: the infos carry its ``episode`` entries."""
        wrapped = MONITOR is not None and wrapper_class is MONITOR
        return [wrapped for _ in self._indices(indices)]

    def render(self, mode: str | None = None) -> None:
        return None

    def render_text(self, game: int) -> str:
        """Game ``game`` as the env's text table."""
        return self.core.engine.render(game)


class LearnerGymVectorEnv(gymnasium.vector.VectorEnv):
    """Gymnasium ``VectorEnv`` with next-step autoreset: the same single-learner view as
    ``LearnerVecEnv`` (same arguments). ``infos["action_mask"]`` is the learner's mask (all
    False in a game that has just ended), ``infos["learner"]`` each game's learner seat; wrap
    it in ``gymnasium.wrappers.vector.RecordEpisodeStatistics`` for episode returns (it
    refuses an env that writes ``infos["episode"]`` itself)."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(
        self,
        env_name: str,
        num_envs: int,
        seed: int | None = None,
        opponent: Any = None,
        **config: Any,
    ) -> None:
        self.core = LearnerBatch(env_name, num_envs, seed, opponent, False, config)
        self.env_name = env_name
        self.num_envs = self.core.num_envs
        self.scaler = self.core.scaler
        self.single_observation_space = self.core.scaler.space
        self.single_action_space = spaces.Discrete(self.core.num_actions)
        self.observation_space = gymnasium.vector.utils.batch_space(
            self.single_observation_space, self.num_envs
        )
        self.action_space = gymnasium.vector.utils.batch_space(
            self.single_action_space, self.num_envs
        )

    @property
    def learner_seats(self) -> np.ndarray:
        return self.core.learner_seat.copy()

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        if options:
            raise InvalidConfigError(f"reset options are not supported here, got {options!r}")
        if seed is not None:
            super().reset(seed=seed)
        self.core.reset(seed)
        return self.core.observation, self._infos()

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        core = self.core
        core.step(actions)
        return (
            core.observation,
            core.reward.copy(),
            core.terminated.copy(),
            core.truncated.copy(),
            self._infos(),
        )

    def _infos(self) -> dict[str, Any]:
        core = self.core
        n = self.num_envs
        infos: dict[str, Any] = {
            "action_mask": core.mask.copy(),
            "_action_mask": np.ones(n, np.bool_),
            "learner": core.learner_seat.copy(),
            "_learner": np.ones(n, np.bool_),
        }
        return infos

    def action_masks(self) -> np.ndarray:
        return self.core.mask.copy()

    def set_opponent(self, opponent: Any) -> None:
        self.core.set_opponent(opponent)

    def close_extras(self, **kwargs: Any) -> None:
        self.core.engine.close()


if not TYPE_CHECKING:
    # The old names, from before "vector" replaced "batched" (cardarena.envs.core.moved).
    __getattr__ = deprecate(
        __name__,
        names={"BatchedGymVectorEnv": "LearnerGymVectorEnv", "BatchedVecEnv": "LearnerVecEnv"},
    )

__all__ = ["LearnerBatch", "LearnerGymVectorEnv", "LearnerVecEnv"]
