"""Label recovery from the digits of a released log loss (Whitehill 2017):
what each board's precision lets one submission carry."""

import numpy as np
import pytest

from ladderboard.attacks import HoldoutOracle, LabelRecoveryResult, label_recovery_attack
from ladderboard.attacks.labelrecovery import encoding_probabilities, release_error
from ladderboard.mechanisms import FullDisclosure, LadderBoot, ParameterFreeLadder

ROWS, PUBLIC = 900, 300


def board(mechanism, seed=0, public=PUBLIC):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, ROWS)
    index = np.sort(rng.choice(ROWS, public, replace=False))
    oracle = HoldoutOracle(y[index], mechanism, loss="log_loss", public_index=index, n_labels=ROWS)
    mask = np.zeros(ROWS, dtype=bool)
    mask[index] = True
    return oracle, y, mask


class Counting:
    def __init__(self, oracle):
        self.oracle, self.calls = oracle, 0
        self.mechanism = oracle.mechanism

    def submit(self, prediction):
        self.calls += 1
        return self.oracle.submit(prediction)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_full_precision_board_gives_every_probed_row_away(seed):
    oracle, y, mask = board(FullDisclosure(precision=1e-15), seed)
    result = label_recovery_attack(oracle, n_labels=ROWS, n_public=PUBLIC, k=15, true_labels=y)
    assert isinstance(result, LabelRecoveryResult)
    probed = np.arange(result.n_submissions * result.rows_per_submission)
    assert result.n_inconsistent == 0
    # Which rows are scored, and the label of each scored one, all exact.
    assert (result.scored[probed] == mask[probed]).all()
    assert (result.labels[probed][mask[probed]] == y[probed][mask[probed]]).all()
    assert (result.labels[probed][~mask[probed]] == -1).all()
    assert (result.scored[probed.size :] == -1).all()
    assert result.n_correct == result.n_recovered == int(mask[probed].sum())


def test_every_row_scored_spells_binary_digits_and_carries_more_rows():
    y = np.random.default_rng(3).integers(0, 2, 400)
    oracle = HoldoutOracle(y, FullDisclosure(precision=1e-15), loss="log_loss")
    result = label_recovery_attack(oracle, n_labels=400, n_public=400, k=5, true_labels=y)
    ternary = len(encoding_probabilities(400, 1e-15))
    assert result.rows_per_submission > 1.4 * ternary  # log 3 / log 2 = 1.58 digits
    assert result.n_recovered == result.n_correct == 5 * result.rows_per_submission
    assert (result.scored[: result.n_recovered] == 1).all()


def test_rows_per_submission_shrink_with_the_release_precision():
    widths = [len(encoding_probabilities(PUBLIC, 10.0**-d)) for d in (15, 12, 9, 7, 5, 4, 3, 2)]
    assert widths == sorted(widths, reverse=True)
    assert widths[0] >= 3 * widths[4] > 0
    assert widths[-1] == 0


def test_a_board_too_coarse_to_spell_a_row_is_not_asked():
    oracle, _, _ = board(FullDisclosure(precision=1e-2))
    counting = Counting(oracle)
    result = label_recovery_attack(counting, n_labels=ROWS, n_public=PUBLIC, k=10)
    assert counting.calls == result.n_submissions == result.n_recovered == 0


@pytest.mark.parametrize(
    "mechanism",
    [
        lambda: ParameterFreeLadder(n=PUBLIC),
        lambda: LadderBoot(b=10, n=PUBLIC, random_state=0),
    ],
    ids=["parameter-free-ladder", "ladder-boot"],
)
def test_a_ladder_does_not_release_the_digits(mechanism):
    """A ladder releases its best (rounded to 1/n, or a bootstrap draw), not
    the file's own loss: decoded as finely as a full-precision board allows,
    whatever decodes is a guess."""
    oracle, y, _ = board(mechanism())
    m = len(encoding_probabilities(PUBLIC, 1e-15))
    result = label_recovery_attack(
        oracle, n_labels=ROWS, n_public=PUBLIC, k=15, m=m, resolution=0.0, true_labels=y
    )
    assert result.n_submissions == 15
    assert result.n_correct is not None
    # No better than coin flips, within three binomial standard deviations.
    assert result.n_correct <= result.n_recovered / 2 + 1.5 * np.sqrt(result.n_recovered)


def test_digits_below_the_release_precision_are_guesses():
    """Forcing 15 rows into a five-decimal release (which spells 5): the
    digits below the rounding are noise, so many labels come out wrong."""
    oracle, y, _ = board(FullDisclosure())
    result = label_recovery_attack(
        oracle, n_labels=ROWS, n_public=PUBLIC, k=20, m=15, true_labels=y
    )
    assert result.n_correct is not None and result.n_recovered > 0
    assert result.n_correct < 0.85 * result.n_recovered


def test_the_decoding_tolerance_covers_rounding_and_the_float_sum():
    assert release_error(1000, 1e-5) == pytest.approx(1000 * 1e-5 / 2, rel=1e-6)
    assert 0 < release_error(1000, 0.0) < 1e-10


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        ({"n_labels": 0}, ValueError, "n_labels"),
        ({"n_public": ROWS + 1}, ValueError, "n_public"),
        ({"k": 0}, ValueError, "k"),
        ({"resolution": -1.0}, ValueError, "resolution"),
        ({"resolution": "fine"}, TypeError, "resolution"),
        ({"m": 0}, ValueError, "m"),
        ({"m": 10_000}, ValueError, "m=10000"),
        ({"rows": [0, 0]}, ValueError, "repeat"),
        ({"rows": [ROWS]}, ValueError, "rows"),
        ({"rows": [0.5]}, ValueError, "rows"),
        ({"true_labels": [0, 1]}, ValueError, "true_labels"),
    ],
)
def test_bad_input_is_refused_before_any_submission(kwargs, error, words):
    oracle, _, _ = board(FullDisclosure(precision=1e-15))
    counting = Counting(oracle)
    arguments = {"n_labels": ROWS, "n_public": PUBLIC, "k": 3} | kwargs
    with pytest.raises(error, match=words):
        label_recovery_attack(counting, **arguments)
    assert counting.calls == 0


def test_an_oracle_without_submit_is_a_type_error():
    with pytest.raises(TypeError, match="submit"):
        label_recovery_attack(object(), n_labels=10, n_public=5, k=1)
