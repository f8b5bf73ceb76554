"""Iron Man 2 Game of War (RULES.md section 1): pure rules in ``rules.py``."""
