"""Beast Wars Transformers Mutating Card Game: pure rules (``rules``), the PettingZoo env
(``env``), text rendering (``render``), the event lines a player reads (``story``) and the
table a seat sees, as a dict and as SVG (``view``); see ``beast_wars_v0`` and
``envs/rulebooks/beast_wars_v0.md``."""
