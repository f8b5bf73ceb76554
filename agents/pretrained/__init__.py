"""The shipped trained agents: agent spec ``pretrained``.

Exported policies live next to this file, one per game and table size: ``<env>.npz`` plays
the env's default table (its default number of players, two in every game so far) and
``<env>_<N>p.npz`` (``promise_war_v0_3p.npz``) plays ``num_players=N``. A policy sees a fixed
observation size, which grows with the players, so one network cannot serve every table;
``pretrained`` picks the file by the table size of the env it is started in, and refuses a
size none ships for, naming the sizes that do. The files are written by ``cardarena export``
from the checkpoint of the run in the training page's ladder (docs/site/training.md). They
play with numpy alone (``NumpyPolicy``), so ``cardarena play ENV pretrained`` works without
the ``train`` extra.
``pretrained:path=my_policy.npz`` plays another exported policy instead;
A file says how its agent plays (``samples`` in its meta, ``cardarena train --sample``): by
sampling from the policy, or by taking its most likely action. ``pretrained:deterministic=true``
(or ``false``) overrides it.

Every other config key must fit the policy too (a different Iron Man variant or Cardline
deck changes the observation space or its bounds): such a table is refused with an error
naming the shipped file, the config it was trained for and what differs.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from cardarena.envs.core import InvalidConfigError
from cardarena.envs.core.validation import check_bool

from ..base import EnvSpec
from ..numpy_policy import NumpyPolicy, NumpyPolicyAgent
from ..specs import register_agent, register_path_kind

#: The folder the shipped policies are read from (a module attribute, so tests can point it
#: at files of their own).
HERE = Path(__file__).resolve().parent

#: ``<env>_<N>p``: the stem of a policy for ``num_players=N``.
_SIZED = re.compile(r"(?P<env>.+)_(?P<players>[0-9]+)p")

_LOADED: dict[tuple[str, int], NumpyPolicy] = {}
_DEFAULT_PLAYERS: dict[str, int] = {}


def shipped_policies() -> dict[str, Path]:
    """Env name -> the shipped policy file for its default table, for every game that has
    one (``shipped_sizes`` lists the other table sizes)."""
    return {
        path.stem: path for path in sorted(HERE.glob("*.npz")) if not _SIZED.fullmatch(path.stem)
    }


def default_players(env_name: str) -> int:
    """How many players ``env_name``'s default config seats (cached: building an env costs)."""
    players = _DEFAULT_PLAYERS.get(env_name)
    if players is None:
        from cardarena.envs import make_raw

        players = _DEFAULT_PLAYERS[env_name] = len(make_raw(env_name).possible_agents)
    return players


def shipped_sizes(env_name: str) -> dict[int, Path]:
    """Number of players -> the shipped policy file for that table of ``env_name``, sorted by
    size: ``<env>.npz`` for the default table, ``<env>_<N>p.npz`` for ``num_players=N`` (an
    explicit file for the default size wins over ``<env>.npz``)."""
    sizes: dict[int, Path] = {}
    default = HERE / f"{env_name}.npz"
    if default.is_file():
        sizes[default_players(env_name)] = default
    for path in HERE.glob("*_*p.npz"):
        match = _SIZED.fullmatch(path.stem)
        if match is not None and match["env"] == env_name:
            sizes[int(match["players"])] = path
    return dict(sorted(sizes.items()))


def has_pretrained(env_name: str, num_players: int | None = None) -> bool:
    """Whether a trained policy ships for ``env_name``'s default table, or with
    ``num_players`` for that table size (agent ``pretrained`` with no ``path`` plays only
    those; a new game needs none to be played, evaluated and tested)."""
    if num_players is None:
        return env_name in shipped_policies()
    return num_players in shipped_sizes(env_name)


def table_size(env_spec: EnvSpec) -> int:
    """The number of players of ``env_spec``'s table: its ``num_players``, else the env's
    default."""
    players = env_spec.config.get("num_players")
    return default_players(env_spec.name) if players is None else players


def shipped_policy_path(env_spec: EnvSpec) -> Path:
    """The shipped file for ``env_spec``'s game and table size; ``InvalidConfigError`` naming
    the shipped games, or the game's shipped sizes, when there is none."""
    shipped = shipped_policies()
    sizes = shipped_sizes(env_spec.name)
    if not sizes:
        raise InvalidConfigError(
            f"no pretrained agent ships for {env_spec.name!r}; shipped: "
            f"{', '.join(shipped) or 'none'} (or pass pretrained:path=FILE.npz)"
        )
    players = table_size(env_spec)
    path = sizes.get(players) if isinstance(players, int) else None
    if path is None:
        raise InvalidConfigError(
            f"no pretrained agent ships for {env_spec.name!r} with {players!r} players; "
            f"shipped sizes: {', '.join(map(str, sizes))} (or pass pretrained:path=FILE.npz)"
        )
    return path


def load_policy(path: str | Path) -> NumpyPolicy:
    """``NumpyPolicy.load`` cached per file version (tournaments build agents per chunk)."""
    path = Path(path).resolve()
    key = (str(path), path.stat().st_mtime_ns if path.exists() else 0)
    policy = _LOADED.get(key)
    if policy is None:
        policy = _LOADED[key] = NumpyPolicy.load(path)
    return policy


class PretrainedAgent(NumpyPolicyAgent):
    """Plays an exported policy: the shipped one for the env and table size (default) or
    ``path``."""

    spec = "pretrained"

    def __init__(
        self, seed: int | None = None, path: str | None = None, deterministic: bool | None = None
    ) -> None:
        super().__init__(None, seed, deterministic)
        self.path = Path(path) if path is not None else None
        if self.path is not None:
            load_policy(self.path)  # a bad file fails when the agent is built, not mid-game
        self._checked: tuple[Path | None, EnvSpec, Path] | None = None

    def policy_for(self, env_spec: EnvSpec) -> NumpyPolicy:
        """The policy this agent plays ``env_spec``'s games with (``path``, or the shipped
        file for the table size), checked against the env: what ``start_game`` plays and what
        the vector form (``cardarena.agents.vector``) computes with, so both pick the same
        file. ``InvalidConfigError`` says why a table cannot be played."""
        if self._checked is not None and self._checked[:2] == (self.path, env_spec):
            return load_policy(self._checked[2])  # checked already: building an env costs more
        path = self.path if self.path is not None else shipped_policy_path(env_spec)
        policy = load_policy(path)
        raw = env_spec.make_raw()
        seat = raw.possible_agents[0]
        try:
            policy.check_env(
                raw.observation_space(seat)["observation"],
                int(raw.action_space(seat).n),
                env_spec.name,
            )
        except InvalidConfigError as error:
            if self.path is not None:
                raise
            raise _unfit(env_spec, path, policy, len(raw.possible_agents), error) from None
        self._checked = (self.path, env_spec, path)
        return policy

    def start_game(self, seat: str, env_spec: EnvSpec) -> None:
        super().start_game(seat, env_spec)
        self.policy = self.policy_for(env_spec)


def _unfit(
    env_spec: EnvSpec, path: Path, policy: NumpyPolicy, players: int, error: InvalidConfigError
) -> InvalidConfigError:
    """Why a shipped policy cannot play ``env_spec``'s table: when the table's config (besides
    its size, which chose the file) differs from the one the policy was trained with, that
    difference, named; otherwise ``error`` as it is (the env changed since the export)."""
    trained = policy.meta.get("config")
    trained = dict(trained) if isinstance(trained, dict) else {}
    asked = dict(env_spec.config)
    for config in (trained, asked):
        config.pop("num_players", None)
    if trained == asked:
        return error
    differs = sorted(
        key for key in {*trained, *asked} if trained.get(key, _UNSET) != asked.get(key, _UNSET)
    )
    return InvalidConfigError(
        f"the pretrained agent shipped for {env_spec.name} with {players} players ({path.name}) "
        f"was trained with config {_shown_config(trained)} and cannot play config "
        f"{_shown_config(asked)}, which changes what it observes (keys that differ: "
        f"{', '.join(differs)}; train one for that config and pass pretrained:path=FILE.npz)"
    )


_UNSET = object()


def _shown_config(config: dict[str, Any]) -> str:
    """A config dict for a message: ``{}`` reads as the default."""
    return "{} (the default)" if not config else repr(config)


def _pretrained(
    seed: int | None = None, path: str | None = None, deterministic: bool | None = None
) -> PretrainedAgent:
    if deterministic is not None:
        deterministic = check_bool(deterministic, "pretrained option deterministic")
    return PretrainedAgent(seed, path=path, deterministic=deterministic)


def _exported(
    path: str, seed: int | None = None, deterministic: bool | None = None
) -> NumpyPolicyAgent:
    if deterministic is not None:
        deterministic = check_bool(deterministic, f"{path}: option deterministic")
    return NumpyPolicyAgent(load_policy(path), seed, deterministic)


register_path_kind(
    "exported",
    lambda name: name.endswith(".npz") and Path(name).is_file(),
    _exported,
    "a policy exported by cardarena export (FILE.npz, option deterministic=true|false: "
    "greedy or sampled, by default as the file says)",
    kinds=(NumpyPolicyAgent,),
)
register_agent(
    "pretrained",
    _pretrained,
    "the shipped trained policy for the env and table size (options path=FILE.npz, "
    "deterministic=true|false: greedy or sampled, by default as the file says)",
    kinds=(PretrainedAgent,),
)

__all__ = [
    "PretrainedAgent",
    "default_players",
    "has_pretrained",
    "load_policy",
    "shipped_policies",
    "shipped_policy_path",
    "shipped_sizes",
]
