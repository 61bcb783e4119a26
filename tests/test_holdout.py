"""A guarded validation set releases what its mechanism releases, keeps the
history, saves and restores bit for bit, and refuses bad input untouched."""

from __future__ import annotations

import copy
import json
import math

import numpy as np
import pytest

from ladderboard.analysis import ladder_max_submissions
from ladderboard.attacks import near_duplicate_attack
from ladderboard.holdout import DEFAULT_MECHANISM, GuardedHoldout, default_step
from ladderboard.losses import KAGGLE_CLIP, LADDER_CLIP, get_loss
from ladderboard.mechanisms import (
    BayesBootLadder,
    BudgetExhaustedError,
    Ladder,
    ParameterFreeLadder,
    ShakyLadder,
    Thresholdout,
)

N = 400
RNG = np.random.default_rng(0)
Y = RNG.integers(0, 2, N).astype(float)


def flipped(rate: float, seed: int) -> np.ndarray:
    """Predicted labels wrong on about ``rate`` of the points."""
    rng = np.random.default_rng(seed)
    return np.where(rng.random(N) < rate, 1 - Y, Y)


def probabilities(quality: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.clip(Y * quality + (1 - Y) * (1 - quality) + 0.3 * rng.standard_normal(N), 0, 1)


QUERIES = [flipped(r, s) for s, r in enumerate((0.4, 0.35, 0.36, 0.3, 0.2, 0.22, 0.18, 0.3))]


def test_holdout_releases_what_the_mechanism_releases():
    guard = GuardedHoldout(Y, score="zero_one")
    twin = Ladder(eta=1 / math.sqrt(N), n=N)
    loss = get_loss("zero_one")
    for x in QUERIES:
        assert guard.score(x) == twin.submit(loss(Y, x)).score
    assert isinstance(guard.mechanism, Ladder)
    assert guard.mechanism.get_state() == twin.get_state()


def test_holdout_default_is_the_fixed_step_ladder_with_a_step_of_one_over_root_n():
    assert DEFAULT_MECHANISM == "ladder"
    assert GuardedHoldout(Y).mechanism.get_params() == {"eta": 1 / math.sqrt(N), "n": N}
    assert GuardedHoldout(Y, score="brier").mechanism.eta == default_step(N, score="brier")
    # A wider loss is stepped in its own units: the log loss at the Ladder authors' clip.
    log = GuardedHoldout(Y, score="log_loss")
    lo, hi = get_loss("log_loss", clip=LADDER_CLIP).bounds
    assert log.mechanism.eta == pytest.approx((hi - lo) / math.sqrt(N))
    assert log.get_state()["score_params"] == {"clip": list(LADDER_CLIP)}
    chosen = GuardedHoldout(Y, score="log_loss", score_params={"clip": (0.1, 0.9)})
    assert chosen.mechanism.eta == default_step(
        N, score="log_loss", score_params={"clip": (0.1, 0.9)}
    )
    # A step given is kept; an unbounded loss needs one.
    assert GuardedHoldout(Y, mechanism_params={"eta": 0.01}).mechanism.eta == 0.01
    # None, as a competition reads it, is the default step.
    assert GuardedHoldout(Y, mechanism_params={"eta": None}).mechanism.eta == 1 / math.sqrt(N)
    with pytest.raises(ValueError, match=r"'squared' is unbounded.*eta"):
        GuardedHoldout(Y, score="squared")
    assert GuardedHoldout(Y, score="squared", mechanism_params={"eta": 0.1}).mechanism.eta == 0.1


@pytest.mark.parametrize(
    ("n", "score", "error", "match"),
    [
        ("400", "zero_one", TypeError, "n must be an int, got str"),
        (0, "zero_one", ValueError, "n must be at least 1, got 0"),
        (400, "auc", ValueError, "score must be a loss.*'auc'"),
        (400, "absolute", ValueError, "'absolute' is unbounded"),
    ],
)
def test_default_step_refuses_bad_input(n, score, error, match):
    with pytest.raises(error, match=match):
        default_step(n, score=score)


class GuardBoard:
    """An attacker's view of a guard: ``submit`` is ``score``, and the public
    rules are the guard's mechanism, direction and size."""

    def __init__(self, guard: GuardedHoldout):
        self.guard, self.mechanism, self.direction = guard, guard.mechanism, guard.direction
        self.n_labels = self.n_public = guard.n

    def submit(self, prediction):
        return self.guard.score(prediction)


def test_holdout_default_concedes_about_one_step_to_near_duplicate_hill_climbing():
    """A search that moves locally at its strongest: each query flips a few
    rows of the best so far, on coin-flip labels (true error 0.5). A paired-
    test ladder takes every file whose flips fix a few more rows than they
    break (Hardt 2017, Sec. 3-4), and the parameter-free Ladder is talked
    down by several times 1/√n; the default's fixed step does not shrink
    with the rows changed (Blum & Hardt 2015, Thm 3.1)."""
    n = 2000
    rng = np.random.default_rng(37)
    y = rng.integers(0, 2, n)
    start = rng.integers(0, 2, n).astype(np.int8)

    def gain(**kwargs):
        board = GuardBoard(GuardedHoldout(y, **kwargs))
        result = near_duplicate_attack(board, start, k=300, random_state=5, true_score=0.5)
        return result.raw_gain

    assert gain() <= 2 / math.sqrt(n)
    assert gain(mechanism="parameter-free-ladder") >= 4 / math.sqrt(n)


def test_holdout_with_a_metric_mechanism_releases_its_releases():
    guard = GuardedHoldout(Y, score="auc", mechanism="bayes-boot-ladder", random_state=4)
    twin = BayesBootLadder(metric="auc", y_true=Y, random_state=4)
    for seed, quality in enumerate((0.6, 0.7, 0.72, 0.8)):
        p = probabilities(quality, seed)
        assert guard.score(p) == twin.submit(p).score
    assert guard.direction.greater_is_better


def test_holdout_keeps_the_history_of_queries_and_releases():
    guard = GuardedHoldout(Y, mechanism=Ladder(eta=0.01))
    released = [guard.score(x, label=f"m{i}") for i, x in enumerate(QUERIES[:4])]
    history = guard.history
    assert [a.index for a in history] == [1, 2, 3, 4]
    assert [a.score for a in history] == released
    assert [a.label for a in history] == ["m0", "m1", "m2", "m3"]
    assert all(a.train_score is None and len(a.digest) == 64 for a in history)
    assert history[0].digest != history[1].digest
    best = guard.best
    assert best is not None and best.score == min(released)
    assert best.index == released.index(min(released)) + 1


def test_holdout_thresholdout_takes_the_training_estimate():
    mechanism = Thresholdout(budget=3, threshold=0.05, noise_scale=1e-9, random_state=0)
    guard = GuardedHoldout(Y, mechanism=mechanism)
    x = QUERIES[3]
    holdout = float(get_loss("zero_one")(Y, x).mean())
    assert guard.score(x, train_score=holdout - 0.01) == holdout - 0.01  # agrees: training's
    assert guard.score(x, train_score=0.0) == pytest.approx(holdout, abs=1e-6)  # overfit
    assert guard.answers_left() == 2
    assert guard.history[1].train_score == 0.0
    guard.score(x)
    guard.score(x)
    with pytest.raises(BudgetExhaustedError):
        guard.score(x, train_score=0.0)
    assert guard.answers_left() == 0 and len(guard.history) == 4


def test_holdout_answers_left_follows_the_papers_bounds():
    ladder = GuardedHoldout(Y, mechanism=Ladder(eta=0.1))
    big = GuardedHoldout(np.tile(Y, 250), mechanism=Ladder(eta=0.1))
    covered = ladder_max_submissions(N * 250, 0.05, 0.1, 0.05)
    assert big.answers_left() == covered > 0
    big.score(np.tile(QUERIES[0], 250))
    assert big.answers_left() == covered - 1
    assert ladder.answers_left() == 0  # Thm 3.1 is vacuous at n = 400
    assert GuardedHoldout(Y, mechanism="parameter-free-ladder").answers_left() is None
    default = GuardedHoldout(np.tile(Y, 250))  # the fixed-step Ladder: a count
    assert default.answers_left() == ladder_max_submissions(
        N * 250, 0.05, 1 / math.sqrt(N * 250), 0.05
    )
    thresholdout = GuardedHoldout(Y, mechanism="thresholdout", mechanism_params={"budget": 7})
    assert thresholdout.answers_left() == 7


class Fitted:
    """A model as scikit-learn shapes one: predict and predict_proba."""

    def __init__(self, p: np.ndarray):
        self.p = p

    def predict(self, X):
        return (self.p[X] >= 0.5).astype(float)

    def predict_proba(self, X):
        return np.column_stack([1 - self.p[X], self.p[X]])


def test_holdout_scores_an_estimator_by_duck_typing():
    p = probabilities(0.8, 1)
    index = np.arange(N)
    labels = GuardedHoldout(Y, score="zero_one", mechanism="parameter-free-ladder")
    assert (
        labels.score_estimator(Fitted(p), index)
        == ParameterFreeLadder(n=N).submit(get_loss("zero_one")(Y, (p >= 0.5).astype(float))).score
    )
    brier = GuardedHoldout(Y, score="brier", mechanism="parameter-free-ladder")
    assert (
        brier.score_estimator(Fitted(p), index)
        == ParameterFreeLadder(n=N).submit(get_loss("brier")(Y, p)).score
    )
    with pytest.raises(TypeError, match="no decision_function"):
        brier.score_estimator(Fitted(p), index, method="decision_function")


def test_holdout_estimator_training_estimate_for_thresholdout():
    p = probabilities(0.8, 2)
    model = Fitted(p)
    mechanism = Thresholdout(budget=2, threshold=1.0, noise_scale=1e-9, random_state=0)
    guard = GuardedHoldout(Y, mechanism=mechanism)
    train_rows = np.arange(100)
    expected = float(get_loss("zero_one")(Y[:100], model.predict(train_rows)).mean())
    score = guard.score_estimator(model, np.arange(N), X_train=train_rows, y_train=Y[:100])
    assert score == expected  # within the wide threshold: the training estimate
    with pytest.raises(ValueError, match="together"):
        guard.score_estimator(model, np.arange(N), X_train=train_rows)
    with pytest.raises(ValueError, match="does not take"):
        GuardedHoldout(Y).score_estimator(model, np.arange(N), X_train=train_rows, y_train=Y[:100])


def test_holdout_rescales_a_wider_bounded_loss_for_a_unit_mechanism():
    guard = GuardedHoldout(Y, score="log_loss", mechanism=ShakyLadder(snap=False, random_state=1))
    twin = ShakyLadder(snap=False, random_state=1)
    loss = get_loss("log_loss", clip=(0.01, 0.99))  # the clip a rescaled log loss gets
    lo, hi = loss.bounds
    p = probabilities(0.8, 3)
    assert guard.score(p) == pytest.approx(
        lo + twin.submit(loss.rescaled()(Y, p)).score * (hi - lo)
    )
    with pytest.raises(ValueError, match="unbounded"):
        GuardedHoldout(Y, score="squared", mechanism="shaky-ladder")


@pytest.mark.parametrize(
    "mechanism", ["ladder", "parameter-free-ladder", "shaky-ladder", "thresholdout"]
)
@pytest.mark.parametrize("cut", [0, 3])
def test_holdout_state_round_trip_continues_identically(mechanism, cut):
    params = {"budget": 20} if mechanism == "thresholdout" else {}

    def fresh():
        return GuardedHoldout(Y, mechanism=mechanism, mechanism_params=params, random_state=8)

    def ask(guard, xs):
        train = {"train_score": 0.2} if mechanism == "thresholdout" else {}
        return [guard.score(x, **train) for x in xs]

    whole = fresh()
    expected = ask(whole, QUERIES)
    first = fresh()
    ask(first, QUERIES[:cut])
    secret_key = first.mechanism.get_state(secrets=True)["key"]
    state = json.loads(json.dumps(first.get_state(), allow_nan=False))
    assert state["labels"] is None and "0.0, 1.0" not in json.dumps(state)
    restored = GuardedHoldout.from_state(state, y_true=Y, key=secret_key)
    assert restored.history == first.history
    assert ask(restored, QUERIES[cut:]) == expected[cut:]
    assert restored.history == whole.history
    with_secrets = GuardedHoldout.from_state(json.loads(json.dumps(first.get_state(secrets=True))))
    assert ask(with_secrets, QUERIES[cut:]) == expected[cut:]


def test_holdout_restore_needs_and_checks_its_secrets():
    guard = GuardedHoldout(Y)
    guard.score(QUERIES[0])
    with pytest.raises(ValueError, match="pass y_true="):
        GuardedHoldout.from_state(guard.get_state())
    with pytest.raises(ValueError, match="labels given differ"):
        GuardedHoldout.from_state(guard.get_state(secrets=True), y_true=1 - Y)
    shaky = GuardedHoldout(Y, score="zero_one", mechanism="shaky-ladder")
    with pytest.raises(ValueError, match="key="):
        GuardedHoldout.from_state(shaky.get_state(), y_true=Y)


@pytest.mark.parametrize(
    ("bad", "kwargs", "match"),
    [
        (QUERIES[0][:-1], {}, "length|shape|same"),
        (np.stack([QUERIES[0], QUERIES[0]]), {}, "1-D|shape|dimension"),
        (np.where(np.arange(N) == 3, np.nan, QUERIES[0]), {}, "finite|NaN"),
        (QUERIES[0], {"train_score": 0.2}, "train_score"),
    ],
)
def test_holdout_bad_input_raises_and_changes_nothing(bad, kwargs, match):
    guard = GuardedHoldout(Y)
    guard.score(QUERIES[0])
    before = copy.deepcopy(guard.get_state(secrets=True))
    with pytest.raises(ValueError, match=match):
        guard.score(bad, **kwargs)
    assert guard.get_state(secrets=True) == before and len(guard.history) == 1


def test_holdout_refuses_a_bad_setup():
    with pytest.raises(ValueError, match="1-D"):
        GuardedHoldout(Y.reshape(2, -1))
    with pytest.raises(ValueError, match="not a loss"):
        GuardedHoldout(Y, score="auc")
    with pytest.raises(ValueError, match=r"unknown metric .zero_one."):
        GuardedHoldout(Y, score="zero_one", mechanism="bayes-boot-ladder")
    used = Ladder(eta=0.1)
    used.submit(get_loss("zero_one")(Y, QUERIES[0]))
    with pytest.raises(ValueError, match="give a fresh one"):
        GuardedHoldout(Y, mechanism=used)
    with pytest.raises(ValueError, match="n=10"):
        GuardedHoldout(Y, mechanism=Ladder(eta=0.1, n=10))


def test_holdout_log_loss_keeps_thresholds_near_their_nominal_size():
    """A [0, 1] mechanism sees the log loss rescaled by its range: at the
    default clip (1e-15) that range is 34.5 nats, and a Thresholdout threshold
    of 0.04 would let a training estimate 0.3 nat too optimistic pass."""
    x = np.clip(probabilities(0.7, 1), 0.05, 0.95)  # the same loss under either clip
    holdout = float(get_loss("log_loss")(Y, x).mean())

    def answer(score_params):
        mechanism = Thresholdout(budget=3, threshold=0.04, noise_scale=1e-9, random_state=0)
        guard = GuardedHoldout(Y, score="log_loss", mechanism=mechanism, score_params=score_params)
        return guard.score(x, train_score=holdout - 0.3)

    # Clipped at (0.01, 0.99) unless told: the threshold is 0.04 x 4.6 nats,
    # the overfit estimate is caught and the holdout's own loss released.
    assert answer(None) == pytest.approx(holdout, abs=1e-6)
    assert answer({"clip": (0.01, 0.99)}) == pytest.approx(holdout, abs=1e-6)
    # A clip the caller chose is kept: 0.04 x 34.5 nats lets the estimate through.
    assert answer({"clip": (1e-15, 1 - 1e-15)}) == pytest.approx(holdout - 0.3)


def test_holdout_best_skips_nan_releases_and_refuses_a_seed_for_an_instance():
    guard = GuardedHoldout(Y, mechanism="full-disclosure")
    guard.score(QUERIES[0])
    guard.score(QUERIES[4])
    first = guard.history[0]
    # A release that came out NaN first (as from a broken model) is never the best.
    guard._history.insert(0, type(first)(0, float("nan"), None, "0" * 64, "broken"))
    assert guard.best is not None and guard.best.index == guard.history[2].index
    with pytest.raises(ValueError, match="random_state applies to a mechanism given by name"):
        GuardedHoldout(Y, mechanism=Ladder(eta=0.1), random_state=3)
    with pytest.raises(ValueError, match="score_params apply to a loss"):
        GuardedHoldout(Y, score="accuracy", mechanism="bayes-boot-ladder", score_params={"a": 1})


def test_holdout_score_params_survive_a_saved_state():
    guard = GuardedHoldout(
        Y,
        score="log_loss",
        mechanism="shaky-ladder",
        score_params={"clip": (0.001, 0.999)},
        random_state=4,
    )
    guard.score(probabilities(0.7, 2))
    again = GuardedHoldout.from_state(json.loads(json.dumps(guard.get_state(secrets=True))))
    x = probabilities(0.8, 3)
    assert again.score(x) == guard.score(x)


def test_holdout_state_names_the_clip_it_ran_with_and_reads_older_states():
    auto = GuardedHoldout(Y, score="log_loss", mechanism="shaky-ladder", random_state=5)
    state = auto.get_state(secrets=True)
    assert state["score_params"] == {"clip": [0.01, 0.99]}
    state["score_params"]["clip"] = [0.2, 0.8]  # the state is a copy
    assert auto.get_state()["score_params"] == {"clip": [0.01, 0.99]}
    # A state saved before score_params were kept ran the log loss at its default clip.
    kaggle = GuardedHoldout(
        Y, score="log_loss", mechanism="shaky-ladder", random_state=5,
        score_params={"clip": KAGGLE_CLIP},
    )  # fmt: skip
    kaggle.score(probabilities(0.7, 6))
    older = json.loads(json.dumps(kaggle.get_state(secrets=True)))
    del older["score_params"]
    again = GuardedHoldout.from_state(older)
    x = probabilities(0.8, 7)
    assert again.score(x) == kaggle.score(x)


def test_holdout_training_estimate_uses_the_validation_losses_clip():
    """The training estimate of a log loss is the same loss, clipped as the
    validation rows' are: at the default clip a training prediction of exactly
    0 or 1 would cost 34.5 nats, outside the rescaled mechanism's range."""

    class Model:
        def __init__(self, p):
            self.p = p

        def predict_proba(self, X):
            p = self.p[: len(X)]
            return np.column_stack([1 - p, p])

    p = np.where(Y == 1, 1.0, 0.3)  # sure, and right, wherever the label is 1
    guard = GuardedHoldout(
        Y, score="log_loss", mechanism="thresholdout", mechanism_params={"budget": 5},
        random_state=1,
    )  # fmt: skip
    X = np.zeros((N, 1))
    guard.score_estimator(Model(p), X, X_train=X, y_train=Y)
    expected = float(get_loss("log_loss", clip=(0.01, 0.99))(Y, p).mean())
    assert guard.history[0].train_score == pytest.approx(expected)


@pytest.mark.parametrize("mechanism", ["ladder-boot", "parameter-free-ladder", "shaky-ladder"])
def test_holdout_best_is_the_query_the_mechanism_holds_best(mechanism):
    """A good model, then random guesses: under LadderBoot each later release
    is a fresh draw of the model's score, often lower than the model's own
    release, yet ``best`` stays the model (the query the mechanism took)."""
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 2, 2000)
    misses = 0
    for seed in range(20):
        guard = GuardedHoldout(labels, mechanism=mechanism, random_state=seed)
        draw = np.random.default_rng(100 + seed)
        model = np.where(draw.random(labels.size) < 0.05, 1 - labels, labels)
        guard.score(model, label="model")
        for k in range(6):
            guard.score(draw.integers(0, 2, labels.size), label=f"random {k}")
        assert guard.best is not None
        misses += guard.best.label != "model"
        assert guard.best.improved
    assert misses == 0
