"""The step-forward Freedman attack (Chaibub Neto et al. 2016, Alg. 7, Fig.
3, 5e-h), on the paper's simulated design with permuted responses."""

from types import SimpleNamespace

import numpy as np
import pytest

from attack_boards import Recording, board, gap, last_accepted, visible_last_jumps
from ladderboard.attacks import (
    correlated_regression_data,
    step_forward_attack,
)
from ladderboard.attacks.stepforward import changepoint_jump, last_jump
from ladderboard.mechanisms import (
    FullDisclosure,
    LadderBoot,
    SignificanceLadder,
)


# ---------------------------------------------------------------- step-forward
def test_forward_models_are_least_squares_fits_on_the_selected_features():
    data = correlated_regression_data(p=12, random_state=5)
    spy = Recording(FullDisclosure(precision=1e-12))
    result = step_forward_attack(
        board(data, spy), data.X_train, data.y_train, data.X_public, n_iterations=2, locate="best"
    )
    first = result.selected[0]
    remaining = [j for j in range(12) if j != first]
    second_iteration = result.released[12:]
    for value, j in zip(second_iteration, remaining, strict=True):
        Z = np.column_stack([np.ones(40), data.X_train[:, [first, j]]])
        coef = np.linalg.lstsq(Z, data.y_train, rcond=None)[0]
        pred = np.column_stack([np.ones(40), data.X_public[:, [first, j]]]) @ coef
        assert value == pytest.approx(np.mean((pred - data.y_public) ** 2), abs=1e-10)
    assert result.locate == "best" and result.n_submissions == 12 + 11 + 1
    assert result.selected[1] == remaining[int(np.argmin(second_iteration))]


def iteration_sizes(p, n_released):
    sizes = []
    while sum(sizes) < n_released:
        sizes.append(p - len(sizes))
    assert sum(sizes) == n_released
    return sizes


def test_step_forward_finds_the_last_visible_jump_exactly_on_a_ladder():
    """Neto Fig. 3: on a noise-free ladder the last jump is read off the releases.
    An accepted submission rounded to the previous release is no visible jump;
    an iteration without one ends the attack."""
    p, iterations, completed = 300, 3, 0
    for seed in range(4):
        data = correlated_regression_data(p=p, random_state=seed)
        spy = Recording(SignificanceLadder(alpha=0.15))
        result = step_forward_attack(
            board(data, spy), data.X_train, data.y_train, data.X_public, n_iterations=iterations
        )
        assert result.locate == "last-jump"
        truth = visible_last_jumps(spy, iteration_sizes(p, result.released.size))
        assert result.located.tolist() == truth[: result.selected.size]
        if result.selected.size < iterations:
            assert truth[-1] is None
        completed += result.selected.size == iterations
        assert len(spy.releases) == result.n_submissions
    assert completed >= 3  # measured 4 of 4 (with p = 100 runs often stop early)


def test_change_points_find_the_jumps_through_bootstrap_noise_at_b_1000_not_10():
    """Neto Fig. 5: LadderBoot with b = 1000 does not hide the last jump; b = 10 does
    (binary segmentation told the true number of jumps)."""
    pytest.importorskip("ruptures")
    p, rate = 30, {}
    for b in (1000, 10):
        hits = located = 0
        for seed in range(10):
            data = correlated_regression_data(p=p, random_state=seed)
            spy = Recording(LadderBoot(alpha=0.15, b=b, random_state=seed))
            result = step_forward_attack(
                board(data, spy), data.X_train, data.y_train, data.X_public, n_iterations=2
            )
            assert result.locate == "changepoint"
            truth = last_accepted(spy, iteration_sizes(p, result.released.size))
            hits += sum(a == t for a, t in zip(result.located, truth, strict=False))
            located += result.located.size
        rate[b] = hits / located
    assert rate[1000] >= 0.8  # measured 0.95 over 20 data sets
    assert rate[10] <= 0.3  # measured 0.12


def test_the_small_case_is_found_exactly():
    pytest.importorskip("ruptures")
    data = correlated_regression_data(p=50, random_state=0)
    spy = Recording(LadderBoot(alpha=0.15, b=1000, random_state=0))
    result = step_forward_attack(
        board(data, spy), data.X_train, data.y_train, data.X_public, n_iterations=2
    )
    assert result.located.tolist() == last_accepted(spy, [50, 49])


def test_step_forward_overfits_full_disclosure():
    gaps = []
    for seed in range(5):
        data = correlated_regression_data(p=100, random_state=seed)
        result = step_forward_attack(
            board(data, FullDisclosure()),
            data.X_train,
            data.y_train,
            data.X_public,
            n_iterations=3,
            X_final=data.X_final,
            y_final=data.y_final,
        )
        gaps.append(gap(result))
    assert np.mean(gaps) < -0.25


def test_last_jump_and_change_points_on_fixed_sequences():
    assert last_jump([1.0, 0.9, 0.9, 0.7, 0.7]) == 3
    assert last_jump([0.5, 0.6, 0.6], greater_is_better=True, previous=0.5) == 1
    assert last_jump([1.0, 1.0]) == 0  # the board's first release is a jump
    assert last_jump([1.0, 0.9]) == 1
    pytest.importorskip("ruptures")
    noise = np.random.default_rng(0).normal(0, 0.002, 30)
    steps = np.r_[np.full(10, 1.0), np.full(12, 0.9), np.full(8, 0.85)] + noise
    assert changepoint_jump(steps, None, 2) == 22
    assert changepoint_jump(steps[5:], 1.0, 2) == 17
    assert changepoint_jump(steps, None, 0) is None


def first_feature_only(n=40, p=6, seed=0):
    """Responses that the first feature predicts almost exactly, the others not
    at all: the board accepts the first univariate model (its first submission)
    and none of the rest."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(3 * n, p))
    y = X[:, 0] + rng.normal(0, 0.05, 3 * n)
    train, public = slice(0, n), slice(n, 2 * n)
    return SimpleNamespace(
        X_train=X[train], y_train=y[train], X_public=X[public], y_public=y[public]
    )


FIRST_ONLY_BOARDS = {
    "Ladder": lambda: SignificanceLadder(alpha=0.01),
    "LadderBoot b=1000": lambda: LadderBoot(alpha=0.01, b=1000, random_state=0),
    "LadderBoot b=10": lambda: LadderBoot(alpha=0.01, b=10, random_state=0),
}


@pytest.mark.parametrize("name", sorted(FIRST_ONLY_BOARDS))
def test_the_boards_first_acceptance_is_a_jump_on_every_board(name):
    """The board accepts its first submission and nothing else in iteration 1:
    on the Ladder (last jump) and on LadderBoot (change points told the true
    number of jumps) alike, that first release is the iteration's last jump,
    so the first feature is selected and the attack goes on."""
    pytest.importorskip("ruptures")
    data = first_feature_only()
    spy = Recording(FIRST_ONLY_BOARDS[name]())
    result = step_forward_attack(
        board(data, spy), data.X_train, data.y_train, data.X_public, n_iterations=3
    )
    p = data.X_train.shape[1]
    assert [r.improved for r in spy.releases[:p]] == [True] + [False] * (p - 1)
    assert result.selected[:1].tolist() == [0] and result.located[:1].tolist() == [0]
    assert result.n_submissions > p + 1  # it went on to iteration 2


def test_told_jumps_need_the_organisers_count():
    data = correlated_regression_data(p=5, random_state=0)

    class Plain:
        mechanism = LadderBoot(b=10, random_state=0)

        def submit(self, x):
            return self.mechanism.submit((x - data.y_public) ** 2).score

    with pytest.raises(TypeError, match="n_improvements"):
        step_forward_attack(Plain(), data.X_train, data.y_train, data.X_public, n_iterations=1)
    result = step_forward_attack(
        Plain(), data.X_train, data.y_train, data.X_public, n_iterations=1, n_jumps=1
    )
    assert result.selected.size == 1


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"n_iterations": 0}, ValueError, "n_iterations must"),
        ({"n_iterations": 6}, ValueError, "at most"),
        ({"locate": "first"}, ValueError, "locate must"),
        ({"n_jumps": "many"}, TypeError, "n_jumps must"),
    ],
)
def test_step_forward_rejects_bad_arguments(kwargs, error, message):
    data = correlated_regression_data(p=5, random_state=0)
    with pytest.raises(error, match=message):
        step_forward_attack(
            board(data, SignificanceLadder()),
            data.X_train,
            data.y_train,
            data.X_public,
            **{"n_iterations": 1, **kwargs},
        )
