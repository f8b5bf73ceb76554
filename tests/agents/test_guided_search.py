"""``ismcts`` guided by a network (``policy=``): PUCT over the network's prior, rollouts that
the network plays, the other seats searching or playing as the network, and its options
refused with the fix named (test_ismcts.py checks its information-set guarantee)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from test_ismcts import _position

from cardarena.agents import make_agent, start_game
from cardarena.agents.base import EnvSpec
from cardarena.agents.ismcts import _Node, _puct, _sample, canonical_infostate
from cardarena.envs import make_raw
from cardarena.envs.core import InvalidConfigError
from cardarena.evaluation.records import play_match


def test_puct_is_the_mean_return_plus_the_prior_over_the_visits():
    node = _Node(2)
    node.prior = [0.1, 0.0, 0.6, 0.3]
    assert _puct(node, [0, 2, 3], 0, c=1.5) == 2  # nothing visited: the prior decides
    assert _puct(node, [0, 3], 0, c=1.5) == 3  # among the legal ones only
    for action, visits, total in ((2, 3, -2.4), (3, 1, 0.5)):
        child = node.children[action] = _Node(2)
        child.visits, child.totals = visits, [total, -total]
    # 4 visits: scale = 1.5 * 2 = 3. Scores: 0 -> 3 * 0.1 = 0.3 (unvisited);
    # 2 -> -0.8 + 3 * 0.6 / 4 = -0.35; 3 -> 0.5 + 3 * 0.3 / 2 = 0.95.
    assert _puct(node, [0, 2, 3], 0, c=1.5) == 3
    # Seat 1 reads its own return: 2 -> 0.8 + 0.45 = 1.25 beats 3 -> -0.5 + 0.45 = -0.05.
    assert _puct(node, [0, 2, 3], 1, c=1.5) == 2
    assert _puct(node, [0, 2, 3], 0, c=0.0) == 3  # no exploration: the best mean (0 < 0.5)
    assert _puct(node, [0, 2], 0, c=0.0) == 0  # an unvisited 0 beats a mean of -0.8


def test_sampling_by_inverse_cdf_takes_each_action_for_its_share_of_u():
    probabilities = np.array([0.25, 0.0, 0.5, 0.25])
    mask = probabilities > 0
    shares = {0: (0.0, 0.2499), 2: (0.25, 0.7499), 3: (0.75, 0.9999)}
    for action, (low, high) in shares.items():
        for u in np.linspace(low, high, 7):
            assert _sample(probabilities, mask, float(u)) == action
    rounded = np.array([0.25, 0.0, 0.5, 0.2499999])  # sums below 1: a u past it
    assert _sample(rounded, mask, 0.99999999) == 3


class OneHot:
    """A stand-in network: all probability on the lowest legal action."""

    calls = 0

    def probabilities(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        OneHot.calls += 1
        out = np.zeros(mask.size)
        out[int(np.flatnonzero(mask)[0])] = 1.0
        return out


def lowest_legal_returns(state: Any) -> list[float]:
    state = state.clone()
    while not (state.is_terminal() or state.is_truncated()):
        state.apply_legal_action(int(np.flatnonzero(state.legal_action_mask())[0]))
    return list(state.returns())


@pytest.mark.parametrize("rollout", ["policy", "random"])
def test_the_first_descent_follows_the_prior_and_the_rollout_the_network(rollout):
    env = _position("cardline_v0", 2, seed=4)  # two players, default deal: nothing hidden
    seat = env.possible_agents.index(env.agent_selection)
    agent = make_agent(f"ismcts:iterations=1,policy=pretrained,rollout={rollout}", seed=0)
    start_game(agent, env.agent_selection, EnvSpec("cardline_v0"))
    agent.network = OneHot()
    base = canonical_infostate(env.game_state, seat)
    root = agent._search(base, seat)
    first = int(np.flatnonzero(base.legal_action_mask())[0])
    assert list(root.children) == [first]
    want = lowest_legal_returns(base)
    if rollout == "policy":
        assert root.children[first].totals == want
    else:
        assert any(agent._search(base, seat).children[first].totals != want for _ in range(5)), (
            "random rollouts played the network's game every time"
        )


@pytest.mark.parametrize(
    "env_name", ["promise_war_v0", "ironman_war_v0", "cardline_v0", "beast_wars_v0"]
)
def test_a_guided_agent_plays_a_whole_game(env_name):
    seats = make_raw(env_name).possible_agents
    guided = "ismcts:iterations=2,policy=pretrained"
    record = play_match(env_name, dict(zip(seats, (guided, "random"), strict=True)), seed=1)
    assert sorted(record.returns) == sorted(seats)


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ("ismcts:policy=pretrained,nodes=actions", "a policy needs nodes=observations"),
        ("ismcts:rollout=policy", "rollout=policy needs a network"),
        ("ismcts:policy=pretrained,rollout=sideways", "rollout must be one of 'random', 'policy'"),
        ("ismcts:others=policy", "others=policy needs a network"),
        (
            "ismcts:policy=pretrained,others=me",
            "others must be one of .search., .policy., .greedy.",
        ),
        ("ismcts:policy=/nowhere/net.npz", "no exported policy at"),
    ],
)
def test_bad_guide_options_are_refused(spec, match):
    with pytest.raises(InvalidConfigError, match=match):
        make_agent(spec)


def test_a_guided_table_the_network_cannot_play_is_refused_at_the_start():
    agent = make_agent("ismcts:policy=pretrained")
    with pytest.raises(InvalidConfigError, match="no pretrained agent ships"):
        start_game(agent, "player_0", EnvSpec("promise_war_v0", {"num_players": 7}))


@pytest.mark.parametrize(("others", "searched", "sampled"), [
    ("search", {0, 1}, set()), ("policy", {0}, {1}), ("greedy", {0}, set()),
])  # fmt: skip
def test_other_seats_search_or_play_as_the_network(monkeypatch, others, searched, sampled):
    import cardarena.agents.ismcts as ismcts

    env = _position("promise_war_v0", 0, seed=2)
    seat = env.possible_agents.index(env.agent_selection)
    assert seat == 0
    chosen: dict[str, set[int]] = {"searched": set(), "sampled": set()}
    puct, sample = ismcts._puct, ismcts._sample

    def spy_puct(node, legal, player, c):
        chosen["searched"].add(player)
        return puct(node, legal, player, c)

    def spy_sample(probabilities, mask, u):
        chosen["sampled"].add(spied_state[0].current_player())
        return sample(probabilities, mask, u)

    spied_state: list[Any] = []
    real_sample_infostate = ismcts.sample_infostate

    def sample_infostate(base, at, rng):
        spied_state[:] = [real_sample_infostate(base, at, rng)]
        return spied_state[0]

    monkeypatch.setattr(ismcts, "_puct", spy_puct)
    monkeypatch.setattr(ismcts, "_sample", spy_sample)
    monkeypatch.setattr(ismcts, "sample_infostate", sample_infostate)
    spec = f"ismcts:iterations=40,policy=pretrained,rollout=random,others={others}"
    agent = make_agent(spec, seed=0)
    start_game(agent, env.agent_selection, EnvSpec("promise_war_v0"))
    agent._search(canonical_infostate(env.game_state, seat), seat)
    assert chosen == {"searched": searched, "sampled": sampled}
