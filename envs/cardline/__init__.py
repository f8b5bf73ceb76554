"""Cardline, Marvel edition by default (envs/rulebooks/cardline_v0.md); pure rules: ``rules.py``."""
