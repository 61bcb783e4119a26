"""The majority attack (Hardt 2017, Sec. 3.1, App. B), draw for draw and
through a board."""

import numpy as np
import pytest

from ladderboard.attacks import (
    HoldoutOracle,
    majority_attack,
    majority_vote,
    oracle_majority_attack,
)
from ladderboard.mechanisms import FullDisclosure
from ladderboard.random import KeyedStream
from reference_attacks import majority_attack as listing


# ------------------------------------------------------- App. B, draw for draw
@pytest.mark.parametrize(
    ("n", "k", "sigma", "seed"),
    [
        (100, 7, None, 0),
        (64, 3, 0.0, 1),  # `if sigma:` is false: no normal draws
        (1000, 300, 3 / np.sqrt(1000), 5),
        (2001, 501, 0.01, 9),  # odd k: the legacy Gaussian caches a spare draw
        (10, 40, 0.5, 2),  # k > n, many ties in the vote
    ],
)
def test_listing_mode_reproduces_the_printed_listing(n, k, sigma, seed):
    expected = listing(n, k, sigma, random=np.random.RandomState(seed))
    result = majority_attack(n=n, k=k, sigma=sigma, random_state=seed, draws="listing")
    assert result.error == expected
    assert result.bias == pytest.approx(1 - 2 * expected, abs=1e-12)


@pytest.mark.parametrize("sigma", [0.05, 0.0, None])
def test_listing_mode_repetitions_continue_the_state_as_repeated_calls_do(sigma):
    rs = np.random.RandomState(3)
    expected = [listing(500, 11, sigma, random=rs) for _ in range(4)]
    result = majority_attack(
        n=500, k=11, sigma=sigma, repetitions=4, random_state=3, draws="listing"
    )
    np.testing.assert_array_equal(result.error, expected)
    # and the states end in the same place
    state = np.random.RandomState(3)
    majority_attack(n=500, k=11, sigma=sigma, repetitions=4, random_state=state, draws="listing")
    assert state.randint(0, 2**31) == rs.randint(0, 2**31)


def test_listing_as_printed_with_the_global_numpy_random():
    # The listing draws from the global np.random: that is the point here.
    saved = np.random.get_state()  # noqa: NPY002
    try:
        np.random.seed(42)  # noqa: NPY002
        expected = listing(300, 25, 0.1)  # np.random itself, exactly as printed
        np.random.seed(42)  # noqa: NPY002
        result = majority_attack(
            n=300, k=25, sigma=0.1, random_state=np.random.mtrand._rand, draws="listing"
        )
    finally:
        np.random.set_state(saved)  # noqa: NPY002
    assert result.error == expected


@pytest.mark.parametrize("k", [9, 10])  # an even k makes ties, which go to +1
def test_the_vote_is_lines_10_to_15(k):
    rng = np.random.default_rng(k)
    bits = rng.integers(0, 2, (k, 200))
    answers = rng.normal(size=k)
    queries = 2.0 * bits - 1.0
    weighted = np.vstack([queries[answers > 0.0], -1.0 * queries[answers <= 0.0]])
    weights = weighted.T.dot(np.ones(k))
    final = np.ones(200)
    final[weights < 0.0] = -1.0
    assert k % 2 or (weights == 0).any()
    np.testing.assert_array_equal(2 * majority_vote(bits, answers > 0) - 1, final)


# ---------------------------------------------------------------- keyed draws
def test_keyed_answers_are_exact_correlations_with_the_hidden_vector():
    result = majority_attack(n=257, k=40, random_state=1)
    counts = result.answers * 257
    np.testing.assert_array_equal(counts, np.round(counts))
    assert ((np.round(counts).astype(int) - 257) % 2 == 0).all()  # n - 2·mismatches
    assert result.final.dtype == np.int8 and set(np.unique(result.final)) <= {-1, 1}
    assert result.bias == pytest.approx(1 - 2 * result.error)


@pytest.mark.parametrize(("n", "k", "sigma"), [(130, 21, 0.05), (64, 10, None), (5, 2000, 0.3)])
def test_keyed_draws_follow_their_documented_layout(n, k, sigma):
    """Run r: hidden bits, k standard normals, then k rows of ceil(n/64) raw
    words, bit j of a row being bit j mod 64 of word j // 64."""
    result = majority_attack(n=n, k=k, sigma=sigma, repetitions=2, random_state=3)
    words = -(-n // 64)
    for r in range(2):
        gen = KeyedStream.from_random_state(3).generator(0, r)

        def bits(raw, rows):
            octets = raw.astype("<u8").view(np.uint8).reshape(rows, words * 8)
            return np.unpackbits(octets, axis=1, bitorder="little")[:, :n].astype(int)

        hidden = 2 * bits(gen.bit_generator.random_raw(words), 1)[0] - 1
        noise = gen.standard_normal(k)
        queries = bits(gen.bit_generator.random_raw(k * words), k)
        answers = (2 * queries - 1) @ hidden / n + (sigma or 0.0) * noise
        np.testing.assert_allclose(result.answers[r], answers, atol=1e-12)
        np.testing.assert_array_equal(result.final[r], 2 * majority_vote(queries, answers > 0) - 1)
        assert result.error[r] == np.mean(result.final[r] != hidden)


def test_chunking_the_queries_changes_nothing(monkeypatch):
    from ladderboard.attacks import majority

    whole = majority_attack(n=300, k=50, sigma=0.1, random_state=8)
    monkeypatch.setattr(majority, "_CHUNK_BYTES", 300 * 7)  # 7 queries per chunk
    chunked = majority_attack(n=300, k=50, sigma=0.1, random_state=8)
    np.testing.assert_array_equal(chunked.answers, whole.answers)
    np.testing.assert_array_equal(chunked.final, whole.final)


def test_keyed_runs_replay_and_share_draws_across_noise_levels():
    a = majority_attack(n=400, k=50, repetitions=3, random_state=7)
    b = majority_attack(n=400, k=50, repetitions=3, random_state=7)
    np.testing.assert_array_equal(a.final, b.final)
    single = majority_attack(n=400, k=50, random_state=7)
    np.testing.assert_array_equal(single.answers, a.answers[0])  # run 0 is generator(0)
    noisy = majority_attack(n=400, k=50, sigma=0.2, repetitions=3, random_state=7)
    stream = KeyedStream.from_random_state(7)
    for r in range(3):
        gen = stream.generator(0, r)
        gen.bit_generator.random_raw(7)  # the hidden vector: ceil(400/64) words
        np.testing.assert_allclose(noisy.answers[r] - a.answers[r], 0.2 * gen.standard_normal(50))


def test_bias_grows_with_k_and_noise_of_three_over_root_n_cuts_it():
    """Shaky Ladder Fig. 3 in small: n = 1000, 30 repetitions."""
    n = 1000

    def bias(k, sigma=None):
        return majority_attack(n=n, k=k, sigma=sigma, repetitions=30, random_state=0).bias.mean()

    few, many = bias(20), bias(300)
    assert 0 < few < many
    assert many > 2 * few  # about sqrt(300/20) ≈ 3.9 times
    assert bias(300, sigma=3 / np.sqrt(n)) < many / 2


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"n": 0}, ValueError, "n must"),
        ({"k": 1.5}, TypeError, "k must"),
        ({"sigma": -0.1}, ValueError, "sigma must"),
        ({"repetitions": 0}, ValueError, "repetitions must"),
        ({"draws": "global"}, ValueError, "draws must"),
        ({"draws": "listing", "random_state": "seed"}, TypeError, "random_state must"),
        ({"draws": "listing", "random_state": -1}, ValueError, "random_state must"),
        ({"random_state": 1.5}, TypeError, "random_state must"),
    ],
)
def test_majority_attack_rejects_bad_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        majority_attack(**{"n": 10, "k": 3, **kwargs})


# ------------------------------------------------------------ through a board
def test_oracle_majority_attack_climbs_full_disclosure_but_not_fresh_data():
    rng = np.random.default_rng(11)
    labels = rng.integers(0, 2, 12000)
    public = rng.permutation(12000)[:4000]
    fresh = np.setdiff1d(np.arange(12000), public)
    oracle = HoldoutOracle(labels[public], FullDisclosure(), public_index=public, n_labels=12000)
    result = oracle_majority_attack(
        oracle, n_labels=12000, k=400, random_state=0, fresh_index=fresh, fresh_labels=labels[fresh]
    )
    assert result.score < 0.44
    assert abs(result.true_score - 0.5) < 0.03
    assert result.n_submissions == 401
    guesses = (
        KeyedStream.from_random_state(0)
        .generator(0)
        .integers(0, 2, size=(400, 12000), dtype=np.int8)
    )
    np.testing.assert_array_equal(result.prediction, majority_vote(guesses, result.answers > 0))
