"""Registers the test game for a subprocess, as tests/conftest.py does for the session."""

from fifth_game import NAME, high_card_v0

from cardarena.envs import ENVS, register_env

if NAME not in ENVS:
    register_env(NAME, high_card_v0)
