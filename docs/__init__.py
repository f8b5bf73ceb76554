"""The documents cardarena ships: the rules of each game as implemented (``rules/<env>.md``).

``cardarena rules ENV`` prints one; ``cardarena.envs.rules_doc`` reads them. Installed, this
folder is ``cardarena.docs`` and holds only the rules (the rest of ``docs/`` is for the repo).
"""
