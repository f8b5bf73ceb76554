"""The vector backend (``cardarena train ENV --backend vector``): PPO written for the vector
engine, thousands of games per step.

- ``batch``: ``LearnerBatch``, the learner's view of a vector engine (the learner in every
  game, its opponents played inside it), and its SB3 and Gymnasium adapters;
- ``ppo``: the network, the masked distribution, the rollout, GAE, the losses and the magnet
  (``VectorPPO``, a ``training.learner.Learner``), read top to bottom;
- ``run``: the run (``VectorRun`` on the shared loop of ``training.run``, ``train_vector``).

``ppo`` and ``run`` need torch (the ``train`` extra); ``batch`` needs only numpy.
"""
