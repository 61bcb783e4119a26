"""Hand-checked sequences and agreement with the papers' pseudo-code for the
deterministic mechanisms (Blum & Hardt 2015, Fig. 1-2 and App. A;
Chaibub Neto et al. 2016, Alg. 3)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import reference
from ladderboard.mechanisms import (
    FullDisclosure,
    Ladder,
    ParameterFreeLadder,
    SignificanceLadder,
    round_to,
)
from ladderboard.mechanisms.ladder import paired_test_passes


def releases(mechanism, vectors):
    return [(r.score, r.improved) for r in map(mechanism.submit, vectors)]


# ---------------------------------------------------------------- hand-checked
class TestParameterFreeLadderByHand:
    """n = 4, best losses [1, 1, 0, 0] (risk 0.5, released 0.5)."""

    def board(self):
        board = ParameterFreeLadder()
        assert releases(board, [[1, 1, 0, 0]]) == [(0.5, True)]
        return board

    def test_first_submission_always_accepted(self):
        # R_0 = ∞: even a terrible first submission is accepted and released.
        board = ParameterFreeLadder()
        assert releases(board, [[1, 1, 1, 1]]) == [(1.0, True)]
        assert board.best_index == 1

    def test_equal_loss_resubmission_rejected(self):
        # Identical losses: s = 0 and the risk equals the release; strict < fails.
        board = self.board()
        assert releases(board, [[1, 1, 0, 0]]) == [(0.5, False)]

    def test_same_risk_different_vector_rejected(self):
        board = self.board()
        assert releases(board, [[0, 0, 1, 1]]) == [(0.5, False)]

    def test_worse_submission_repeats_release(self):
        board = self.board()
        assert releases(board, [[1, 1, 1, 0]]) == [(0.5, False)]
        assert board.best_score == 0.5 and board.best_index == 1

    def test_improvement_exactly_at_threshold_rejected(self):
        # l = [0, 1, 0, 0]: d = [-1, 0, 0, 0], std(d, ddof=1) = 0.5,
        # threshold 0.5 - 0.5/√4 = 0.25 = R: not strictly below.
        board = self.board()
        assert releases(board, [[0, 1, 0, 0]]) == [(0.5, False)]

    def test_improvement_just_above_threshold_accepted_and_rounded(self):
        # l = [0, .99, 0, 0]: R = 0.2475, s = 0.49836, threshold 0.25082 > R.
        # The release is rounded to 1/n = 1/4: [0.2475]_{1/4} = 0.25.
        board = self.board()
        assert releases(board, [[0, 0.99, 0, 0]]) == [(0.25, True)]
        assert board.best_score == pytest.approx(0.2475)

    def test_improvement_just_below_threshold_rejected(self):
        # l = [0, 1, 0, 0.01]: R = 0.2525, just above the threshold ≈ 0.2492.
        board = self.board()
        d = np.array([0, 1, 0, 0.01]) - np.array([1, 1, 0, 0])
        threshold = 0.5 - np.std(d, ddof=1) / 2
        assert threshold < 0.2525
        assert releases(board, [[0, 1, 0, 0.01]]) == [(0.5, False)]

    def test_compares_with_rounded_release_not_best_risk(self):
        # n = 3: the first risk 0.35 is released as [0.35]_{1/3} = 1/3.
        # A constant shift has s = 0, so 0.34 would pass against the best risk
        # 0.35, but it must beat the rounded release 1/3, and does not.
        board = ParameterFreeLadder()
        first = board.submit([0.35, 0.35, 0.35])
        assert first.score == pytest.approx(1 / 3)
        assert board.submit([0.34, 0.34, 0.34]).improved is False
        # 0.33 < 1/3 (s = 0 again) passes.
        assert board.submit([0.33, 0.33, 0.33]).improved is True


class TestLadderByHand:
    def test_eta_step_and_rounding(self):
        board = Ladder(eta=0.1)
        got = releases(board, [[0.5] * 4, [0.45] * 4, [0.38] * 4, [0.27] * 4, [0.27] * 4])
        # 0.45 is not < 0.5 - 0.1; 0.38 < 0.4 → [0.38]_0.1 = 0.4; 0.27 < 0.3 → 0.3; tie → no.
        assert got == [(0.5, True), (0.5, False), (0.4, True), (0.3, True), (0.3, False)]

    def test_compares_with_rounded_previous(self):
        # First 0.44 releases [0.44]_0.1 = 0.4; then 0.31 is not < 0.4 - 0.1.
        board = Ladder(eta=0.1)
        assert releases(board, [[0.44] * 2, [0.31] * 2]) == [(0.4, True), (0.4, False)]


class TestFullDisclosureByHand:
    def test_rounds_every_release_and_tracks_best(self):
        board = FullDisclosure(precision=0.01)
        got = releases(board, [[0.123, 0.127], [0.5, 0.5], [0.1, 0.1], [0.1, 0.1]])
        assert got == [(0.12, True), (0.5, False), (0.1, True), (0.1, False)]
        assert board.best_index == 3

    def test_default_precision_is_kaggle_five_decimals(self):
        assert FullDisclosure().submit([1 / 3] * 3).score == 0.33333


class TestSignificanceLadder:
    def test_critical_value_is_magnitude_of_neto_quantile(self):
        board = SignificanceLadder(alpha=0.15)
        assert board.critical_value(4000) == pytest.approx(-stats.t.ppf(0.15, 3999))
        assert board.critical_value(4000) == pytest.approx(1.036, abs=1e-3)

    def test_alpha_half_accepts_any_strict_improvement(self):
        # c_0.5 = 0: any risk below the rounded release passes.
        board = SignificanceLadder(alpha=0.5)
        got = releases(board, [[1, 1, 0, 0], [1, 0.9, 0, 0]])
        assert [g[1] for g in got] == [True, True]

    def test_stricter_alpha_rejects_what_parameter_free_accepts(self):
        seq = [[1, 1, 0, 0], [0, 0.99, 0, 0]]
        assert releases(ParameterFreeLadder(), seq)[1][1] is True
        assert releases(SignificanceLadder(alpha=0.01), seq)[1][1] is False

    @pytest.mark.parametrize("alpha", [0, 1, -0.1, 1.5])
    def test_rejects_bad_alpha(self, alpha):
        with pytest.raises(ValueError, match="alpha"):
            SignificanceLadder(alpha=alpha)


def test_round_to_does_not_depend_on_the_float_type():
    """A numpy scalar and a Python float of the same value round alike (numpy's
    own rounding scales by 10**d and takes 0.505 down to 0.50)."""
    values = np.random.default_rng(0).integers(0, 4001, size=2000) / 4000
    for value in [0.505, 0.125, 0.000005, *values]:
        for step in (0.1, 0.01, 1e-5):
            assert round_to(np.float64(value), step) == round_to(float(value), step), (value, step)


def test_round_to_matches_paper_examples():
    # Neto et al. 2016, text after Alg. 1: [0.8763]_{0.1, 0.01, 0.001}.
    assert [round_to(0.8763, s) for s in (0.1, 0.01, 0.001)] == [0.9, 0.88, 0.876]
    assert round_to(1234 / 4000 + 1e-12, 1 / 4000) == 1234 / 4000
    assert round_to(math.inf, 0.1) == math.inf


# ------------------------------------------------ agreement with the pseudo-code
def loss_sequences(max_n=12):
    """Sequences of 0/1 or fractional loss vectors of a common length."""

    @st.composite
    def build(draw):
        n = draw(st.integers(2, max_n))
        k = draw(st.integers(1, 12))
        fractional = draw(st.booleans())
        # Fractional losses are multiples of 1/64: their sums are exact in
        # floating point, so the exact reference and the fast code must agree
        # even on ties. (With arbitrary floats the sum itself rounds.)
        values = (
            st.integers(0, 64).map(lambda k: k / 64) if fractional else st.sampled_from([0.0, 1.0])
        )
        return [draw(st.lists(values, min_size=n, max_size=n)) for _ in range(k)]

    return build()


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(loss_sequences())
def test_parameter_free_ladder_agrees_with_fig2(seq):
    assert [r.score for r in map(ParameterFreeLadder().submit, seq)] == pytest.approx(
        reference.paired_test_ladder(seq), abs=1e-12
    )


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(loss_sequences(), st.sampled_from([0.01, 0.15, 0.5]))
def test_significance_ladder_agrees_with_alg3(seq, alpha):
    c = reference.significance_critical_value(alpha, len(seq[0]))
    got = [r.score for r in map(SignificanceLadder(alpha=alpha).submit, seq)]
    assert got == pytest.approx(reference.paired_test_ladder(seq, c), abs=1e-12)


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(loss_sequences(), st.sampled_from([0.01, 0.05, 0.1, 0.25]))
def test_ladder_agrees_with_fig1(seq, eta):
    got = [r.score for r in map(Ladder(eta=eta).submit, seq)]
    assert got == pytest.approx(reference.ladder(seq, eta), abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(loss_sequences())
def test_full_disclosure_agrees_with_app_a(seq):
    got = [r.score for r in map(FullDisclosure().submit, seq)]
    assert got == pytest.approx(reference.full_disclosure(seq, 1e-5), abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(loss_sequences())
def test_ladder_releases_never_rise_and_improved_means_lower(seq):
    for board in (ParameterFreeLadder(), SignificanceLadder(alpha=0.15), Ladder(eta=0.05)):
        out = [board.submit(v) for v in seq]
        scores = [r.score for r in out]
        assert all(b <= a for a, b in itertools.pairwise(scores))
        for prev, cur in itertools.pairwise(out):
            assert cur.improved == (cur.score < prev.score) or (
                cur.improved and cur.score == prev.score  # rounding can tie
            )


@settings(max_examples=300, deadline=None)
@given(
    st.integers(2, 300),
    st.floats(1e-12, 1e-3),
    st.floats(0.0, 2.0),
    st.integers(0, 2**32 - 1),
)
def test_paired_test_matches_direct_std_including_near_identical_vectors(n, gap, c, seed):
    """Σd² from dot products, with the direct fallback when x ≈ best."""
    rng = np.random.default_rng(seed)
    best = rng.random(n)
    x = best - gap * rng.random(n)  # nearly identical: the cancellation case
    reference_total = float(best.sum())
    margin = reference_total - float(x.sum())
    threshold = c * np.std(x - best, ddof=1) * math.sqrt(n)
    if abs(margin - threshold) <= 1e-9 * max(margin, threshold, 1e-300):
        return  # too close to call in floating point
    got = paired_test_passes(
        x, float(x.sum()), best, float(best.sum()), float(best @ best), reference_total, c
    )
    assert got == (margin > threshold)


@pytest.mark.parametrize("board", [ParameterFreeLadder, lambda: SignificanceLadder(alpha=0.3)])
def test_paired_test_ladder_keeps_the_accepted_vectors_own_sum_of_squares(board):
    """An accepted vector's x·x is taken from its test, not computed again:
    the same number a fresh dot product, or a restored state, gives."""
    rng = np.random.default_rng(41)
    ladder, accepted = board(), 0
    for step in range(40):
        x = rng.random(5000) * (1 - step / 60)  # real losses, drifting down
        if ladder.submit(x).improved:
            accepted += 1
            assert ladder._best_sum_sq == float(np.dot(x, x))
            restored = type(ladder).from_state(ladder.get_state())
            assert restored._best_sum_sq == ladder._best_sum_sq
            assert restored._best_total == ladder._best_total
    assert accepted > 5


@pytest.mark.parametrize("name", ["auc", "ccc", "mse", "log_loss"])
def test_metric_full_disclosure_releases_each_rounded_score_and_tracks_the_best(name):
    """Every release is the submission's own metric, rounded to the precision;
    ``improved`` marks a new best in the metric's own direction."""
    from ladderboard.mechanisms import MetricFullDisclosure
    from ladderboard.metrics import get_metric

    metric = get_metric(name)
    rng = np.random.default_rng(6)
    y = (rng.random(300) < 0.5).astype(float)
    board = MetricFullDisclosure(metric=name, y_true=y, precision=1e-3)
    best = None
    for t in range(12):
        p = np.clip(0.5 + (y - 0.5) * rng.uniform(-0.2, 0.9) + rng.normal(0, 0.2, 300), 0.01, 0.99)
        exact = metric.score(y, p)
        release = board.submit(p)
        assert release.score == pytest.approx(round(exact, 3), abs=1e-12)
        better = best is None or metric.direction.better(exact, best)
        assert release.improved == better and release.index == t + 1
        best = exact if better else best
    assert board.best_score == best
    again = MetricFullDisclosure.from_state(board.get_state(), y_true=y)
    p = np.clip(y * 0.9 + 0.05, 0, 1)
    assert again.submit(p) == board.submit(p)
    with pytest.raises(ValueError, match="probabilities"):
        MetricFullDisclosure(metric="log_loss", y_true=y).submit(np.full(300, 1.5))
    with pytest.raises(ValueError, match="only 0 and 1"):
        MetricFullDisclosure(metric="auc", y_true=np.arange(300.0))
