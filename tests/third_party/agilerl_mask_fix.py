"""AgileRL 2.58's IPPO cannot take action masks from its own vector env; this is the one-method
fix the AgileRL example test applies before running upstream's example unmodified.

``IPPO.extract_action_masks`` tests ``None in group_masks`` on a list of numpy arrays
(agilerl/algorithms/ippo.py, line 466 in 2.58.0 and at upstream commit 549d85e4), which
compares each array with ``None`` element by element and raises "The truth value of an array
with more than one element is ambiguous" for every env whose infos carry an ``action_mask``
(PettingZoo's masked games too). This copy asks ``m is None`` instead and is otherwise
upstream's method. ``test_agilerl_example.py`` also runs the example without it and expects
exactly that error, so the day AgileRL fixes it the test says to drop this file.
"""

from __future__ import annotations

import numpy as np
import torch
from agilerl.algorithms.ippo import IPPO
from agilerl.typing import coerce_action_mask


def extract_action_masks(self, infos):
    collected = {group: [] for group in self.observation_space}
    for agent_id, info in infos.items():
        if isinstance(info, dict):
            group = self.get_group_id(agent_id) if self.has_grouped_agents() else agent_id
            collected[group].append(coerce_action_mask(info.get("action_mask", None)))
    masks = {}
    for group in self.observation_space:
        group_masks = collected[group]
        if not group_masks or any(mask is None for mask in group_masks):
            assert all(mask is None for mask in group_masks), "masks for some agents only"
            masks[group] = None
        else:
            masks[group] = torch.Tensor(np.array(group_masks))
    return masks


IPPO.extract_action_masks = extract_action_masks
