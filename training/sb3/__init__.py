"""The SB3 backend (``cardarena train ENV``, ``--backend sb3``): sb3-contrib's MaskablePPO on
the single-agent bridge.

- ``model``: the model as plain data (built from JSON settings, its state moved in and out as
  arrays, ``SB3Learner`` for the checkpoint code), so no checkpoint ever needs unpickling;
- ``run``: the run (``SB3Run`` on the shared loop of ``training.run``, ``train_sb3``).

Nothing here imports SB3 or torch until a model is built (the ``train`` extra).
"""
