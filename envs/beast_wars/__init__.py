"""Beast Wars Transformers Mutating Card Game: pure rules (``rules``), the PettingZoo env
(``env``) and text rendering (``render``); see ``beast_wars_v0``."""
