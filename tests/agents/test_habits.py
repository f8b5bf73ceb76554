"""The habit zoo (``habit:plan=NAME``): at least eight plans per game, each legal in every
game it plays (default and small configs), deterministic for its seed, doing what its
docstring says at the decision that defines it, and refused with the plans named when the
plan or the env is unknown."""

from __future__ import annotations

import numpy as np
import pytest
from test_heuristics import play

from cardarena.agents import EnvSpec, make_agent
from cardarena.agents.habits import HABITS, describe, plans
from cardarena.envs import InvalidConfigError, make_raw

CASES = [(env, plan) for env in sorted(HABITS) for plan in plans(env)]
CONFIGS = {
    "promise_war_v0": [{}, {"num_players": 3}],
    "ironman_war_v0": [{}, {"variant": "beginner"}],
    "beast_wars_v0": [{}, {"team_size": 3}],
    "cardline_v0": [{}, {"num_players": 3, "hand_size": 2}],
}


@pytest.mark.parametrize("env_name", sorted(CONFIGS))
def test_every_game_has_at_least_eight_described_plans(env_name):
    assert len(plans(env_name)) >= 8
    for plan in plans(env_name):
        assert len(describe(env_name, plan)) > 20, plan


@pytest.mark.parametrize(("env_name", "plan"), CASES, ids=lambda v: str(v))
def test_a_habit_plays_legal_games_and_repeats_them_for_its_seed(env_name, plan):
    for index, config in enumerate(CONFIGS[env_name]):
        seats = len(make_raw(env_name, **config).possible_agents)
        for seed in (0, 1):
            games = [
                play(env_name, config,
                     [make_agent(f"habit:plan={plan}", seed=seed)]
                     + [make_agent("random", seed=seed + s) for s in range(1, seats)],
                     seed=100 * index + seed)
                for _ in range(2)
            ]  # fmt: skip
            assert games[0] == games[1]


def test_unknown_plans_and_envs_are_refused_naming_what_there_is():
    with pytest.raises(InvalidConfigError, match=r"needs plan=NAME .*promise_war_v0: highest"):
        make_agent("habit")
    with pytest.raises(InvalidConfigError, match=r"has no plan 'hihgest' \(plans: "):
        make_agent("habit:plan=hihgest")
    agent = make_agent("habit:plan=highest")
    agent.start_game("player_0", EnvSpec("promise_war_v0"))
    with pytest.raises(InvalidConfigError, match="ironman_war_v0 has no plan 'highest'; its plans: "
                                                 "commit_weakest"):  # fmt: skip
        agent.start_game("iron_man", EnvSpec("ironman_war_v0"))


def _decisions(env_name: str, config: dict, seeds: range):
    """Every decision of random games: (env, seat, observation) just before each move."""
    for seed in seeds:
        env = make_raw(env_name, **config)
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for seat in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            yield env, seat, observation
            env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))


def _agent(env_name: str, plan: str, seat: str, config: dict | None = None):
    agent = make_agent(f"habit:plan={plan}", seed=0)
    agent.start_game(seat, EnvSpec(env_name, config or {}))
    return agent


def test_promise_war_plans_pick_the_card_they_say():
    for env, seat, observation in _decisions("promise_war_v0", {}, range(3)):
        powers = np.flatnonzero(observation["action_mask"])
        view = env.layout.view(observation["observation"])
        assert _agent("promise_war_v0", "highest", seat).act(observation) == powers[-1]
        assert _agent("promise_war_v0", "lowest", seat).act(observation) == powers[0]
        assert _agent("promise_war_v0", "middle", seat).act(observation) == powers[
            (len(powers) - 1) // 2]  # fmt: skip
        shown = np.flatnonzero(view["last_revealed"][1])
        best = shown.max() if shown.size else -1
        above = powers[powers > best]
        expected = above[0] if above.size else powers[0]
        assert _agent("promise_war_v0", "beat_the_last", seat).act(observation) == expected


def test_iron_man_plans_commit_and_fight_as_they_say():
    from cardarena.agents.heuristics.ironman_war import (
        COMMIT,
        PLAY_OR_CONCEDE,
        STRIKE,
        WORTH,
        standing,
    )
    from cardarena.agents.heuristics.ironman_war import (
        play as play_card,
    )
    from cardarena.envs.ironman_war.rules import CONCEDE

    commits = concedes = 0
    for env, seat, observation in _decisions("ironman_war_v0", {}, range(4)):
        actions = np.flatnonzero(observation["action_mask"])
        view = env.layout.view(observation["observation"])
        decision = int(np.argmax(view["decision"]))
        if decision == COMMIT:
            commits += 1
            weakest = _agent("ironman_war_v0", "commit_weakest", seat).act(observation)
            strongest = _agent("ironman_war_v0", "commit_strongest", seat).act(observation)
            assert WORTH[weakest] == WORTH[actions].min()
            assert STRIKE[strongest] == STRIKE[actions].max()
        elif decision == PLAY_OR_CONCEDE:
            assert _agent("ironman_war_v0", "turtle", seat).act(observation) == CONCEDE
            mine, theirs = (view["battle_cards"][i].astype(np.int64) for i in (0, 1))
            cards = actions[actions != CONCEDE]
            leading = [k for k in cards if standing(*play_card(mine, theirs, int(k))) > (0, 0)]
            chosen = _agent("ironman_war_v0", "commit_weakest", seat).act(observation)
            if leading:
                assert chosen in leading and WORTH[chosen] == WORTH[leading].min()
            else:
                concedes += 1
                assert chosen == CONCEDE
                assert _agent("ironman_war_v0", "never_concede", seat).act(observation) != CONCEDE
    assert commits > 50 and concedes > 5


def test_cardline_fixed_places_are_the_ends_and_the_middle():
    for env, seat, observation in _decisions("cardline_v0", {}, range(3)):
        view = env.layout.view(observation["observation"])
        gaps = int(view["line_length"][0]) + 1
        width = env.game.num_gaps
        assert _agent("cardline_v0", "left_end", seat).act(observation) == 0
        assert _agent("cardline_v0", "right_end", seat).act(observation) == gaps - 1
        assert _agent("cardline_v0", "middle", seat).act(observation) == gaps // 2
        assert _agent("cardline_v0", "median", seat).act(observation) // width < view[
            "hand_sizes"][0]  # fmt: skip


def test_beast_wars_rush_attacks_whenever_it_can_and_the_turtle_only_when_it_must():
    from cardarena.envs.beast_wars.rules import ATTACK_BASE, PICK_BASE, REINFORCE_BASE

    attacked = 0
    for _, seat, observation in _decisions("beast_wars_v0", {}, range(3)):
        actions = np.flatnonzero(observation["action_mask"])
        attacks = actions[(actions >= ATTACK_BASE) & (actions < REINFORCE_BASE)]
        if actions[0] >= PICK_BASE:
            continue
        rush = _agent("beast_wars_v0", "rush", seat).act(observation)
        turtle = _agent("beast_wars_v0", "turtle", seat).act(observation)
        if attacks.size:
            attacked += 1
            assert rush in attacks
            assert (turtle in attacks) == (attacks.size == actions.size)
    assert attacked > 10
