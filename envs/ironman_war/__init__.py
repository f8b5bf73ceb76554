"""Iron Man 2 Game of War (envs/rulebooks/ironman_war_v0.md): pure rules in ``rules.py``."""
