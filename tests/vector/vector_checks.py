"""The generic checks every vector game gets (importable as ``vector_checks``).

``check_against_reference`` plays random legal games in a ``BatchEnv`` and proves every
transition against the reference rules: before each step, a raw env continued from
``state_of(i)`` with ``set_state`` observes exactly the batch row (and mask); after it, the
reference ``apply_action`` on the previous state equals ``state_of(i)`` (the game's
``state_difference``: exact, shuffled piles as multisets), with the same rewards and ends.

``distribution_differences`` compares two samples of the same features (a card's place, a
pile's top card, who acts first ...) feature by feature with a two-sample chi-square test, for
the checks of the vector engines' own deals and reshuffles (``test_vector_chance``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from tie_breaks import tie_recorder

from cardarena.envs import ENVS, make_raw
from cardarena.envs.vector import has_vector, make_vec, vector_rules_class


def vector_env_names() -> list[str]:
    """Every registered env that declares a vector engine, sorted."""
    return [name for name in sorted(ENVS) if has_vector(name)]


def vector_cases() -> list[tuple[str, int, dict[str, Any]]]:
    """(env, index, config) for every vector env and each of its ``example_configs``."""
    return [
        (name, index, dict(config))
        for name in vector_env_names()
        for index, config in enumerate(ENVS[name].raw_env.example_configs)
    ]


def random_legal_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniform legal action per row (0 in a row with no legal action)."""
    keys = np.where(mask, rng.random(mask.shape), -1.0)
    return keys.argmax(axis=1).astype(np.int64)


def check_against_reference(
    env_name: str, config: dict[str, Any], transitions: int, num_envs: int = 64, seed: int = 0
) -> dict[str, int]:
    """Random play until ``transitions`` steps of unfinished games were proved; counts.

    Per step and game: a raw env continued from ``state_of(i)`` (``set_state``) must observe
    the batch row and mask; the raw env then plays the same action through the reference rules
    and its state must be ``state_of(i)`` after the vector step (``state_difference``), with
    the same end and rewards; a game that ended must show the last mover's view of the end."""
    venv = make_vec(env_name, num_envs, seed, **config)
    raw = make_raw(env_name, **config)
    differ = vector_rules_class(env_name).state_difference
    agents = raw.possible_agents
    rng = np.random.default_rng(seed)
    batch = venv.reset()
    states = [venv.state_of(i) for i in range(num_envs)]
    counts = {"transitions": 0, "games_ended": 0, "deals": num_envs}
    while counts["transitions"] < transitions:
        done = batch.done.copy()
        actions = random_legal_actions(batch.action_mask, rng)
        references: list[tuple[Any, Any, int] | None] = []
        for i, state in enumerate(states):
            if done[i]:
                _expect(batch.current_player[i] == -1 and not batch.action_mask[i].any(),
                        "a finished game has a player to act", env_name, config, i)  # fmt: skip
                references.append(None)
                continue
            raw.set_state(state)
            seat = state.current_player()
            _expect(batch.current_player[i] == seat, f"current_player {batch.current_player[i]}"
                    f" but the rules say {seat}", env_name, config, i)  # fmt: skip
            observed = raw.observe(agents[seat])
            _expect_rows(batch.observation[i], observed["observation"], "observation",
                         env_name, config, i)  # fmt: skip
            _expect_rows(batch.action_mask[i], observed["action_mask"].astype(bool),
                         "action_mask", env_name, config, i)  # fmt: skip
            raw.step(int(actions[i]))
            references.append((state, raw.game_state, seat))
        batch = venv.step(actions)
        next_states = [venv.state_of(i) for i in range(num_envs)]
        for i, reference in enumerate(references):
            if reference is None:
                counts["deals"] += 1
                continue
            previous, expected, mover = reference
            actual = next_states[i]
            where = f"action {actions[i]}"
            difference = differ(previous, expected, actual)
            _expect(difference is None, f"{where}: {difference}", env_name, config, i)
            # The end and rewards are those of the state reached, which state_difference has
            # just proved the reference's: ``expected`` itself, or, where a chance event inside
            # the step decides the outcome (a Beast Wars battle drawing from a reshuffled
            # deck), the reference's outcome under the batch's shuffle.
            reached = actual
            ended = reached.is_terminal() or reached.is_truncated()
            _expect(bool(batch.terminated[i]) == reached.is_terminal()
                    and bool(batch.truncated[i]) == reached.is_truncated(),
                    f"{where}: terminated/truncated differ", env_name, config, i)  # fmt: skip
            returns = np.asarray(reached.returns() if reached.is_terminal() else
                                 [0.0] * len(agents), np.float32)  # fmt: skip
            _expect_rows(batch.rewards[i], returns, "rewards", env_name, config, i)
            if ended:
                counts["games_ended"] += 1
                raw.set_state(actual)
                last_view = raw.observe(agents[mover])["observation"]
                _expect_rows(batch.observation[i], last_view, "final observation",
                             env_name, config, i)  # fmt: skip
            counts["transitions"] += 1
        states = next_states
    return counts


def _expect(condition: bool, message: str, env_name: str, config: Any, game: int) -> None:
    if not condition:
        raise AssertionError(f"{env_name} {config} game {game}: {message}")


def _expect_rows(
    actual: np.ndarray, expected: np.ndarray, what: str, env_name: str, config: Any, game: int
) -> None:
    if actual.dtype != expected.dtype or not np.array_equal(actual, expected):
        differ = np.flatnonzero(actual != expected)[:8].tolist()
        raise AssertionError(
            f"{env_name} {config} game {game}: {what} differs from the reference at {differ}: "
            f"batch {actual[differ].tolist()} ({actual.dtype}), "
            f"reference {expected[differ].tolist()} ({expected.dtype})"
        )


def chi2_sf(statistic: float, df: int) -> float:
    """P(X >= ``statistic``) for X chi-square with ``df`` (a positive int) degrees of freedom:
    the regularized upper incomplete gamma function Q(df/2, statistic/2) in closed form (a
    finite sum for even ``df``, erfc plus a finite sum for odd), in logs, so no scipy."""
    if statistic <= 0.0:
        return 1.0
    x = statistic / 2.0
    if df % 2 == 0:
        logs = [k * math.log(x) - x - math.lgamma(k + 1) for k in range(df // 2)]
        head = 0.0
    else:
        logs = [(k - 0.5) * math.log(x) - x - math.lgamma(k + 0.5) for k in range(1, df // 2 + 1)]
        head = math.erfc(math.sqrt(x))
    top = max(logs, default=-math.inf)
    tail = math.exp(top) * sum(math.exp(v - top) for v in logs) if logs else 0.0
    return min(1.0, head + tail)


def two_sample_p_value(first: np.ndarray, second: np.ndarray, min_expected: float = 10.0) -> float:
    """Pearson's chi-square test that two samples of one categorical feature (``first`` and
    ``second``: counts per category) come from one distribution. Categories where either
    sample expects fewer than ``min_expected`` are pooled into one (and that into the next
    smallest if it is still short), so the chi-square tail holds; one category left: 1.0."""
    table = np.stack([first, second]).astype(np.float64)
    table = table[:, table.sum(0) > 0]
    sizes = table.sum(1)
    if table.shape[1] < 2 or sizes.min() == 0:
        return 1.0
    share = table.sum(0) / sizes.sum()
    order = np.argsort(share, kind="stable")
    table, share = table[:, order], share[order]
    short = int(np.searchsorted(share * sizes.min(), min_expected))
    if short:
        pooled = table[:, :short].sum(1, keepdims=True)
        table = np.concatenate([pooled, table[:, short:]], axis=1)
        if pooled.sum() * sizes.min() / sizes.sum() < min_expected and table.shape[1] > 2:
            table = np.concatenate([table[:, :2].sum(1, keepdims=True), table[:, 2:]], axis=1)
    if table.shape[1] < 2:
        return 1.0
    expected = sizes[:, None] * table.sum(0)[None, :] / sizes.sum()
    statistic = float(((table - expected) ** 2 / expected).sum())
    return chi2_sf(statistic, table.shape[1] - 1)


def distribution_differences(
    first: np.ndarray, second: np.ndarray, names: Sequence[str], alpha: float
) -> list[str]:
    """The features (columns of the int arrays ``first [N, F]`` and ``second [M, F]``) whose
    distributions differ by ``two_sample_p_value`` at ``alpha / F`` (Bonferroni: a pair of
    samples from one distribution is reported with probability at most ``alpha``), each with
    its p-value and the category frequencies of both samples."""
    if first.shape[1] != second.shape[1] or first.shape[1] != len(names):
        raise ValueError(f"feature counts differ: {first.shape}, {second.shape}, {len(names)}")
    threshold = alpha / first.shape[1]
    found = []
    for column, name in enumerate(names):
        a, b = first[:, column].astype(np.int64), second[:, column].astype(np.int64)
        low = min(int(a.min()), int(b.min()))
        width = max(int(a.max()), int(b.max())) - low + 1
        counts_a = np.bincount(a - low, minlength=width)
        counts_b = np.bincount(b - low, minlength=width)
        p_value = two_sample_p_value(counts_a, counts_b)
        if p_value < threshold:
            seen = np.flatnonzero(counts_a + counts_b)[:12]
            shares = ", ".join(
                f"{low + k}: {counts_a[k] / len(a):.4f} vs {counts_b[k] / len(b):.4f}" for k in seen
            )
            found.append(f"{name} (p = {p_value:.2e} < {threshold:.1e}; {shares})")
    return found


def capture_ties(monkeypatch: Any, module: Any) -> list[set[int]]:
    """Wrap ``module.choose`` so that every call appends its set of tied best actions to the
    list returned: a vector heuristic's action must be in it."""
    capture, ties = tie_recorder(module)
    monkeypatch.setattr(module, "choose", capture)
    return ties
