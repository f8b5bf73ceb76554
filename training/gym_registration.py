"""Every cardarena env as a single-agent Gymnasium env (the SB3 bridge, ``SingleAgentEnv``).

Importing ``cardarena.training`` registers ``cardarena/<game>-single-v<N>`` for every env in
``cardarena.envs.ENVS``, so::

    env = gymnasium.make("cardarena/promise_war-single-v0", opponent="heuristic",
                         env_config={"num_players": 3}, illegal="resample")

takes ``SingleAgentEnv``'s keyword arguments (``opponent``, ``learner``, ``env_config``,
``warn_on_illegal``, ``illegal``). ``env.unwrapped.action_masks()`` gives the learner's mask.

A client that may not import cardarena names the module in the id, Gymnasium's ``module:id``
form: ``gymnasium.make("cardarena.training:cardarena/promise_war-single-v0")``. Gymnasium 1.0
removed the ``gymnasium.envs`` plugin entry points that once made even that unnecessary, so
there is none to declare. Registering imports neither torch nor SB3 (a test checks).
"""

from __future__ import annotations

import gymnasium

from cardarena.envs import ENVS

ENTRY_POINT = "cardarena.training.single_agent:SingleAgentEnv"


def gym_id(name: str) -> str:
    """Gymnasium id of env ``name``: ``promise_war_v0`` -> ``cardarena/promise_war-single-v0``."""
    game, _, version = name.rpartition("_v")
    return f"cardarena/{game}-single-v{version}"


def register_gym_envs() -> list[str]:
    """Register every env (once; a second call changes nothing); returns the ids."""
    ids = []
    for name in ENVS:
        env_id = gym_id(name)
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point=ENTRY_POINT, kwargs={"aec_env": name})
        ids.append(env_id)
    return ids


GYM_IDS = register_gym_envs()
