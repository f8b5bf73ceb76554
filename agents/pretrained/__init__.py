"""The shipped trained agents: agent spec ``pretrained``.

One exported policy per game lives next to this file (``<env>.npz``, written by
``cardarena export`` from the checkpoint of the run in the README's ladder section). They play
with numpy alone (``NumpyPolicy``), so ``cardarena play ENV pretrained`` works without the
``train`` extra. ``pretrained:path=my_policy.npz`` plays another exported policy instead;
``pretrained:deterministic=false`` samples from the policy instead of taking its best action.

The shipped policies were trained for the two-player tables; an env config whose
observation or action space differs (e.g. more players) is refused with a clear error.
"""

from __future__ import annotations

from pathlib import Path

from cardarena.envs.core import InvalidConfigError

from ..base import EnvSpec
from ..numpy_policy import NumpyPolicy, NumpyPolicyAgent
from ..specs import register_agent

HERE = Path(__file__).resolve().parent

_LOADED: dict[tuple[str, int], NumpyPolicy] = {}


def shipped_policies() -> dict[str, Path]:
    """Env name -> the shipped policy file, for every game that has one."""
    return {path.stem: path for path in sorted(HERE.glob("*.npz"))}


def has_pretrained(env_name: str) -> bool:
    """Whether a trained policy ships for ``env_name`` (agent ``pretrained`` with no ``path``
    plays only those; a new game needs none to be played, evaluated and tested)."""
    return env_name in shipped_policies()


def load_policy(path: str | Path) -> NumpyPolicy:
    """``NumpyPolicy.load`` cached per file version (tournaments build agents per chunk)."""
    path = Path(path).resolve()
    key = (str(path), path.stat().st_mtime_ns if path.exists() else 0)
    policy = _LOADED.get(key)
    if policy is None:
        policy = _LOADED[key] = NumpyPolicy.load(path)
    return policy


class PretrainedAgent(NumpyPolicyAgent):
    """Plays an exported policy: the shipped one for the env (default) or ``path``."""

    spec = "pretrained"

    def __init__(
        self, seed: int | None = None, path: str | None = None, deterministic: bool = True
    ) -> None:
        super().__init__(None, seed, deterministic)
        self.path = Path(path) if path is not None else None
        if self.path is not None:
            load_policy(self.path)  # a bad file fails when the agent is built, not mid-game
        self._checked: tuple[Path, EnvSpec] | None = None

    def start_game(self, seat: str, env_spec: EnvSpec) -> None:
        super().start_game(seat, env_spec)
        path = self.path
        if path is None:
            shipped = shipped_policies()
            if env_spec.name not in shipped:
                raise InvalidConfigError(
                    f"no pretrained agent ships for {env_spec.name!r}; shipped: "
                    f"{', '.join(shipped) or 'none'} (or pass pretrained:path=FILE.npz)"
                )
            path = shipped[env_spec.name]
        policy = load_policy(path)
        if self._checked == (path, env_spec):  # checked already: building an env costs more
            self.policy = policy
            return
        raw = env_spec.make_raw()
        agent = raw.possible_agents[0]
        policy.check_env(
            raw.observation_space(agent)["observation"],
            int(raw.action_space(agent).n),
            env_spec.name,
        )
        self.policy = policy
        self._checked = (path, env_spec)


def _pretrained(
    seed: int | None = None, path: str | None = None, deterministic: bool = True
) -> PretrainedAgent:
    return PretrainedAgent(seed, path=path, deterministic=deterministic)


register_agent(
    "pretrained",
    _pretrained,
    "the shipped trained policy for the env (options path=FILE.npz, deterministic=false)",
)

__all__ = ["PretrainedAgent", "has_pretrained", "load_policy", "shipped_policies"]
