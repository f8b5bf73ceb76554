"""A fifth game that exists only for the tests: High Card (``high_card_v0``).

It is built exactly like the four real games (``high_card/rules.py``, ``high_card/env.py``,
``high_card/render.py``, the versioned ``high_card_v0.py``) and registered by
``tests/conftest.py`` through the same ``cardarena.envs.register_env`` call, so the
conformance suite and every other test that derives its envs from ``ENVS`` run it too. It has
no heuristic and no shipped agent: that proves both optional. docs/adding_a_game.md uses it as
its worked example.
"""

#: The env name it is registered under.
NAME = "high_card_v0"
