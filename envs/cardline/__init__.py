"""Cardline, Marvel edition by default (RULES.md section 4): pure rules in ``rules.py``."""
