# ruff: noqa
# fmt: off
# TorchRL's documented masked multi-agent example, run as its authors wrote it on a cardarena game.
#
# Source: TorchRL 0.14.1 (https://github.com/pytorch/rl), torchrl/envs/libs/pettingzoo.py, the
# "# AEC env" example of PettingZooWrapper's docstring (use_mask=True: "Must use it since one
# player plays at a time"), its ">>> " and "... " lines as code, the printed group map left
# out. Copyright Meta Platforms, Inc. and affiliates, MIT License.
# Everything below the line "# --- upstream ---" is upstream's text except one line, marked
# "# cardarena: change 1" (tests/third_party/test_torchrl_example.py undoes it and compares
# the result with the docstring of the torchrl installed):
#   1. the env line: `env=tictactoe_v3.env(),` became the game named by $EXAMPLE_ENV (default
#      promise_war_v0). Its import, `from pettingzoo.classic import tictactoe_v3`, is kept:
#      PettingZoo's classic games need its [classic] extra, which is installed alongside.
# --- upstream ---
from pettingzoo.classic import tictactoe_v3
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.envs.utils import MarlGroupMapType
env = PettingZooWrapper(
    env=__import__("cardarena.envs").envs.make(__import__("os").environ.get("EXAMPLE_ENV", "promise_war_v0")),  # cardarena: change 1
    use_mask=True, # Must use it since one player plays at a time
    group_map=None # # Use default for AEC (one group per player)
)
print(env.group_map)
env.rollout(10)
