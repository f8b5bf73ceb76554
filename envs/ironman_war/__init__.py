"""Iron Man 2 Game of War (docs/rules/ironman_war_v0.md): pure rules in ``rules.py``."""
