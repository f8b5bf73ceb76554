"""``GameWrapper``: what ``env()`` applies, PettingZoo classic style, as one flat layer.

PettingZoo's classic envs stack three wrappers (TerminateIllegal, AssertOutOfBounds,
OrderEnforcing); each resolves the bookkeeping through ``__getattr__`` one hop per layer, and
each checks the action again, which cost more per step than our games themselves. This one
layer keeps their behaviour:

- order enforcing (it *is* an ``OrderEnforcingWrapper``): bookkeeping before ``reset()`` raises
  ``AttributeError``, ``step``/``observe``/``state``/``render``/``agent_iter`` before
  ``reset()`` raise, ``step`` after everyone left warns;
- malformed actions (not an integer in range, None for an agent to act, an action for an agent
  whose game is over) raise ``IllegalActionError`` naming the value, also under ``python -O``;
- an illegal action ends the game with ``-1`` for the offender and 0 for everyone else, like
  ``TerminateIllegalWrapper``, except that the game is *terminated* only (not also truncated)
  and every agent's info says ``outcome="illegal_action"`` and names the ``offender``.
  PettingZoo's per-move warning is printed unless ``warn_on_illegal`` is False.

The action is checked once, by ``legal_index`` (the check the rules and the raw env use),
and then played unchecked. The wrapper drives the raw env through its public hooks only
(``dead_step``, ``legal_mask``, ``apply_legal``, ``end_by_illegal_action``).
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import OrderEnforcingWrapper

from .actions import coerce_action
from .aec import GameAECEnv, ObsDict
from .errors import IllegalActionError
from .game import legal_index

ILLEGAL_ACTION_REWARD = -1.0

_BOOKKEEPING = (
    "agents",
    "agent_selection",
    "rewards",
    "terminations",
    "truncations",
    "infos",
    "_cumulative_rewards",
)


def _read_after_reset(name: str) -> property:
    def read(self: Any) -> Any:
        if not self._has_reset:
            raise AttributeError(name)  # Python then calls __getattr__, which explains
        return getattr(self._raw, name)

    return property(read, doc=f"The raw env's ``{name}`` (after reset).")


class GameWrapper(OrderEnforcingWrapper[str, ObsDict, int]):
    """The standard ``env()`` wrapper of every cardarena game (see the module docstring)."""

    def __init__(self, env: GameAECEnv, illegal_reward: float = ILLEGAL_ACTION_REWARD) -> None:
        super().__init__(env)
        self._raw = env
        self.illegal_reward = float(illegal_reward)
        #: Print PettingZoo's "Illegal move made" warning on an illegal action.
        self.warn_on_illegal = True

    def step(self, action: Any) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        raw = self._raw
        self._has_updated = True
        if not raw.agents:
            EnvLogger.warn_step_after_terminated_truncated()
            return
        if raw.dead_step(action):
            return
        agent = raw.agent_selection
        if action is None:
            raise IllegalActionError(
                f"{agent} is to act: action None is only for agents whose game is over"
            )
        index = coerce_action(action, raw.num_actions, agent)  # malformed: raise, as raw does
        try:
            index = legal_index(raw.game_state, index, raw.legal_mask())
        except IllegalActionError:
            if self.warn_on_illegal:
                EnvLogger.warn_on_illegal_move()
            raw.end_by_illegal_action(agent, index, self.illegal_reward)
            return
        raw.apply_legal(index)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The raw env's ``last()`` (no attribute hops through the wrapper)."""
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self._raw.last(observe)

    def observe(self, agent: str) -> ObsDict:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self._raw.observe(agent)

    def action_mask(self, agent: str) -> Any:
        """The raw env's int8 mask for ``agent`` (no observation is encoded)."""
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self._raw.action_mask(agent)

    def __str__(self) -> str:
        return str(self._raw)


for _name in _BOOKKEEPING:
    setattr(GameWrapper, _name, _read_after_reset(_name))


def wrap(raw: GameAECEnv) -> GameWrapper:
    """``raw`` with the standard wrapper: an illegal action ends the game, -1 to the
    offender; a malformed one raises ``IllegalActionError``."""
    return GameWrapper(raw)
