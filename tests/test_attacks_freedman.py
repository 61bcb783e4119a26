"""Freedman's attack and the step-forward attack (Chaibub Neto et al. 2016,
"Freedman's attack", Fig. 1-2, and Alg. 7), on the paper's simulated design
with permuted responses."""

import numpy as np
import pytest

from ladderboard.attacks import (
    HoldoutOracle,
    correlated_regression_data,
    freedman_attack,
    step_forward_attack,
)
from ladderboard.attacks.freedman import rank_features
from ladderboard.attacks.stepforward import changepoint_jump, last_jump
from ladderboard.mechanisms import (
    BayesBootLadder,
    FullDisclosure,
    LadderBoot,
    SignificanceLadder,
)


class Recording:
    """Passes submissions to a mechanism and keeps its releases (organiser-side)."""

    def __init__(self, mechanism):
        self.mechanism, self.releases = mechanism, []

    def __getattr__(self, name):
        return getattr(self.mechanism, name)

    def submit(self, x):
        release = self.mechanism.submit(x)
        self.releases.append(release)
        return release


def visible_last_jumps(recording, sizes):
    """Per iteration, the last accepted submission whose release differed from
    the one before it: the last jump a participant can see."""
    scores = [r.score for r in recording.releases]
    out, start = [], 0
    for size in sizes:
        jumps = [
            i
            for i in range(start, start + size)
            if recording.releases[i].improved and (i == 0 or scores[i] != scores[i - 1])
        ]
        out.append(jumps[-1] if jumps else None)
        start += size
    return out


def last_accepted(recording, sizes):
    out, start = [], 0
    for size in sizes:
        accepted = [i for i in range(start, start + size) if recording.releases[i].improved]
        out.append(accepted[-1] if accepted else None)
        start += size
    return out


def board(data, mechanism):
    return HoldoutOracle(data.y_public, mechanism, loss="squared")


def gap(result):
    return result.public_score - result.true_score  # the paper's ΔMSE


# ------------------------------------------------------------------------ data
def test_simulated_design():
    data = correlated_regression_data(n=121, p=30, n_informative=3, permute=False, random_state=0)
    assert data.X_train.shape == (41, 30) and data.X_public.shape == data.X_final.shape == (40, 30)
    for part in (data.X_train, data.y_public, data.X_final):
        np.testing.assert_allclose(part.mean(axis=0), 0, atol=1e-12)
        np.testing.assert_allclose(part.std(axis=0, ddof=1), 1)
    neighbours = [np.corrcoef(data.X_train[:, j], data.X_train[:, j + 1])[0, 1] for j in range(29)]
    assert np.mean(neighbours) > 0.8
    assert data.informative.size == 3
    again = correlated_regression_data(n=121, p=30, n_informative=3, permute=False, random_state=0)
    np.testing.assert_array_equal(again.y_final, data.y_final)


def test_permuting_destroys_the_signal():
    kept = correlated_regression_data(
        n=300, p=20, n_informative=5, noise=0.5, permute=False, random_state=1
    )
    permuted = correlated_regression_data(
        n=300, p=20, n_informative=5, noise=0.5, permute=True, random_state=1
    )
    j = kept.informative
    r_kept = np.corrcoef(kept.X_train[:, j].sum(axis=1), kept.y_train)[0, 1]
    r_perm = np.corrcoef(permuted.X_train[:, j].sum(axis=1), permuted.y_train)[0, 1]
    assert abs(r_kept) > 0.5 and abs(r_perm) < 0.3


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"n": 5}, ValueError),
        ({"rho": 1.0}, ValueError),
        ({"n_informative": 2000}, ValueError),
        ({"permute": 1}, TypeError),
        ({"p": 2.5}, TypeError),
    ],
)
def test_simulated_design_rejects_bad_arguments(kwargs, error):
    with pytest.raises(error, match=next(iter(kwargs))):
        correlated_regression_data(**kwargs)


# -------------------------------------------------------------------- Freedman
def test_univariate_models_are_least_squares_fits():
    data = correlated_regression_data(p=5, random_state=2)
    spy = Recording(FullDisclosure(precision=1e-12))
    result = freedman_attack(board(data, spy), data.X_train, data.y_train, data.X_public, k=2)
    for j in range(5):
        slope, intercept = np.polyfit(data.X_train[:, j], data.y_train, 1)
        mse = np.mean((intercept + slope * data.X_public[:, j] - data.y_public) ** 2)
        assert result.released[j] == pytest.approx(mse, abs=1e-10)
    np.testing.assert_array_equal(result.selected, np.argsort(result.released)[:2])
    assert result.n_submissions == 6 and result.true_score is None


def test_ties_keep_index_order_as_the_paper_does():
    np.testing.assert_array_equal(rank_features(np.array([0.9, 0.8, 0.8, 0.8])), [1, 2, 3, 0])
    np.testing.assert_array_equal(
        rank_features(np.array([0.1, 0.3, 0.3]), greater_is_better=True), [1, 2, 0]
    )


def test_freedman_overfits_full_disclosure_and_the_ladder_cuts_the_gap():
    """Neto Fig. 2 (k = 3, simulated design, permuted responses, 10 data sets)."""
    gaps = {"full": [], "ladder": []}
    public, final = [], []
    for seed in range(10):
        data = correlated_regression_data(random_state=seed)
        for name, mechanism in (("full", FullDisclosure()), ("ladder", SignificanceLadder())):
            result = freedman_attack(
                board(data, mechanism),
                data.X_train,
                data.y_train,
                data.X_public,
                k=3,
                X_final=data.X_final,
                y_final=data.y_final,
            )
            gaps[name].append(gap(result))
            if name == "full":
                public.append(result.public_score)
                final.append(result.true_score)
                assert result.score == pytest.approx(result.public_score, abs=1e-5)
    # public MSE well below 1 (the intercept-only model), final MSE above it
    assert np.mean(public) < 0.85 and np.mean(final) > 1.05  # measured 0.78, 1.12
    full, ladder = np.mean(gaps["full"]), np.mean(gaps["ladder"])
    assert full < -0.25  # measured -0.34
    assert ladder > full + 0.1  # measured -0.18


def test_freedman_with_a_metric_based_board():
    data = correlated_regression_data(p=50, random_state=3)
    mechanism = BayesBootLadder(metric="ccc", y_true=data.y_public, B=200, random_state=0)
    result = freedman_attack(
        HoldoutOracle(None, mechanism),
        data.X_train,
        data.y_train,
        data.X_public,
        k=2,
        X_final=data.X_final,
        y_final=data.y_final,
    )
    assert (
        result.selected.tolist()
        == rank_features(result.released, greater_is_better=True)[:2].tolist()
    )
    assert -1 <= result.true_score <= 1


@pytest.mark.parametrize(
    ("change", "error", "message"),
    [
        ({"k": 0}, ValueError, "k must"),
        ({"k": 11}, ValueError, "at most"),
        ({"X_test": np.zeros((4, 3))}, ValueError, "features of X_train"),
        ({"y_train": np.zeros(3)}, ValueError, "one value per row"),
        ({"X_final": np.zeros((4, 10))}, ValueError, "together"),
        ({"X_train": "abc"}, TypeError, "numeric"),
        ({"X_train": np.full((9, 10), np.nan)}, ValueError, "finite"),
    ],
)
def test_freedman_rejects_bad_arguments(change, error, message):
    rng = np.random.default_rng(0)
    args = {
        "X_train": rng.normal(size=(9, 10)),
        "y_train": rng.normal(size=9),
        "X_test": rng.normal(size=(4, 10)),
        "k": 2,
        **change,
    }
    oracle = HoldoutOracle(np.zeros(4), FullDisclosure(), loss="squared")
    with pytest.raises(error, match=message):
        freedman_attack(
            oracle, args.pop("X_train"), args.pop("y_train"), args.pop("X_test"), **args
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
    assert last_jump([1.0, 1.0]) == 0  # the board's first submission is a jump
    pytest.importorskip("ruptures")
    noise = np.random.default_rng(0).normal(0, 0.002, 30)
    steps = np.r_[np.full(10, 1.0), np.full(12, 0.9), np.full(8, 0.85)] + noise
    assert changepoint_jump(steps, None, 2) == 22
    assert changepoint_jump(steps[5:], 1.0, 2) == 17
    assert changepoint_jump(steps, None, 0) is None


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
