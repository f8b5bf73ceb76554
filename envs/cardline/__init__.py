"""Cardline, Marvel edition by default (docs/rules/cardline_v0.md): pure rules in ``rules.py``."""
