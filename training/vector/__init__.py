"""The vector backend (``cardarena train ENV --backend vector``): PPO written for the vector
engine, thousands of games per step.

- ``batch``: ``LearnerBatch``, the learner's view of a vector engine (the learner in every
  game, its opponents played inside it); ``vec_env`` shows it as an SB3 ``VecEnv`` and a
  Gymnasium ``VectorEnv``;
- ``config``, ``network``, ``magnet``: the learner's settings, its network and masked
  distribution, the magnet term's reference policy;
- ``ppo``: the network, the masked distribution, the rollout, GAE, the losses and the magnet
  (``VectorPPO``, a ``training.learner.Learner``), read top to bottom;
- ``run``: the run (``VectorRun`` on the shared loop of ``training.run``, ``train_vector``).

``ppo``, ``network``, ``magnet`` and ``run`` need torch (the ``train`` extra); ``batch``
and ``config`` need only numpy (``vec_env``: gymnasium, and SB3 for ``LearnerVecEnv``).
"""
