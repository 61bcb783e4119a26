"""What the attack suite gains against each setting, at holdout size ``n`` and
a budget of ``k`` submissions.

Every attack plays a :class:`~ladderboard.attacks.HoldoutOracle` and sees only
released scores. Its *raw gain* is the papers' yardstick (Blum & Hardt 2015,
Def. 2.1; Hardt 2017): the true loss of the submission the attack would
select (on fresh labels the board never scored, or its expectation there)
minus what the board displays for the attacker at the end: the latest
release on every board that shows the latest (the ladders, the bootstrap
boards), the attacker's best release under full disclosure (Blum & Hardt
2015, App. A). Gains are in the score's loss units (a released accuracy is
read as ``1 - accuracy``). Its *lberr* is the leaderboard error of its whole
sequence of releases (Blum & Hardt 2015, Def. 2.1). On request
(``baselines=True``) each attack is also paired with as many submissions
chosen without reading a release on the same board: that *excess* subtracts
a noisy board's own noise, so it is reported, never used to rank boards (see
:mod:`ladderboard.advisor.defaults` for the fixed reference used instead).

Attacks by score (:func:`attacks_for`):

* ``zero_one``: ``boosting`` (A1; on a metric-based board, A2 from the
  all-ones and all-zeros vectors, the same attack read in the board's
  direction), ``generalized boosting`` (A2 from two classifiers each right on
  about 70 % of the labels), ``majority`` (A3) and ``shifted majority`` (A4,
  with half of the public labels known to the attacker, as Hardt's "easy
  set"); A3 and A4 on loss-based boards only; and on every board
  ``hill-climbing``, near-duplicate hill-climbing
  (:func:`~ladderboard.attacks.near_duplicate_attack`: each file changes a
  few rows of the file believed best, acceptance read from the releases
  only, and on a board that shows its latest noisy release the last files
  spent fishing for a low draw; Hardt 2017, Sec. 3-4);
* ``log_loss``: ``boosting`` (A2 from the confident vectors 0.99 and 0.01),
  ``generalized boosting`` (A2 from two probabilistic models) and, on
  loss-based boards, ``label recovery`` (labels read from the digits of the
  releases, Whitehill 2016, 2017, at the full budget);
* ``squared``: ``Freedman`` (A5: ``min(k - 1, 400)`` univariate models on
  permuted responses, the 10 best refitted; Chaibub Neto et al. 2016) and
  ``step-forward`` (A6, their step-forward Freedman's attack, Alg. 7: forward
  selection by the board's last jump, one iteration per 50 features and at
  least two, as many features as the budget allows; :func:`step_forward_size`);
* on bootstrap boards, the first of these again through the averaging attack
  (A7; Chaibub Neto et al. 2016, Discussion), read through near-duplicates
  (``… + averaging``): each submission is sent as ``T = 5`` copies that each
  change one row (:func:`~ladderboard.attacks.near_duplicate_averaging_attack`;
  a competition refuses identical files, not these) and the attacker reads
  the mean of their releases, with ``k / 5`` submissions.

The attacks aimed at a board's noise (hill-climbing and the averaging
variants) and the vectorised ones play every budget in full
(:func:`attack_budget`); the others at most :data:`SLOW_ATTACK_CAP`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ladderboard.advisor.grid import ScoringRule, Setting
from ladderboard.analysis import lberr
from ladderboard.attacks import (
    HoldoutOracle,
    boosting_attack,
    correlated_regression_data,
    freedman_attack,
    generalized_boosting_attack,
    label_recovery_attack,
    near_duplicate_attack,
    near_duplicate_averaging_attack,
    oracle_majority_attack,
    shifted_majority_attack,
    step_forward_attack,
)
from ladderboard.attacks.hillclimb import reading_of
from ladderboard.attacks.regression import candidate_predictions, fit_predict
from ladderboard.random import KeyedStream, RandomState

__all__ = [
    "AVERAGING_T",
    "NOISE_ATTACKS",
    "SLOW_ATTACK_CAP",
    "VECTORISED_ATTACKS",
    "AttackData",
    "AttackMeasure",
    "attack_budget",
    "attack_gaps",
    "attack_measures",
    "attacks_for",
    "make_attack_data",
    "step_forward_size",
]

AVERAGING_T = 5
"""Resubmissions per submission in the averaging variants (A7)."""
VECTORISED_ATTACKS = frozenset({"boosting", "majority", "shifted majority", "random guesses"})
"""The attacks whose queries are drawn at once (or, for the shifted majority
attack, which spends its easy set in a few hundred submissions): they run at
any budget, ``k = 10^4`` in seconds per setting."""
NOISE_ATTACKS = frozenset({"hill-climbing", "label recovery"})
"""The attacks aimed at a board's noise and at how it tells a pass (with the
averaging variants, ``… + averaging``): they play every budget in full, as
their gain grows with the files they send (Hardt 2017, Sec. 3-4)."""
SLOW_ATTACK_CAP = 1000
"""The submissions the remaining attacks (generalised boosting, Freedman,
step-forward) are given at most: their cost grows with ``k`` faster, and the
advisor says so when the budget exceeds it."""
TRUE_ERROR = 0.5
"""The true 0/1 error (and accuracy) of any file on the suite's random
labels: no file predicts fresh coin flips."""
FREEDMAN_MAX_FEATURES = 400
FREEDMAN_FINAL_FEATURES = 10
STEP_FORWARD_FEATURES_PER_ITERATION = 50
"""A6 runs one iteration per 50 features it screens, and at least two:
Chaibub Neto et al. (2016, S3) set the iterations of the step-forward attack
to 2 % of the features (1 iteration over 50, ..., 6 over 300); one iteration
is Freedman's attack refitted on one feature (their case *i*), already in the
suite, and gains nothing over picking the best of as many blind
submissions."""
_CANDIDATE_ERROR = 0.3


@dataclass(frozen=True, eq=False, slots=True)
class AttackData:
    """The hidden labels of one repetition, shared by every setting (paired).

    For ``zero_one`` and ``log_loss``: ``labels`` of ``n + n_private``
    positions of which ``public`` score the board, and two candidate models
    ``v1``, ``v2`` for A2. For ``squared``: ``regression``, the simulated design
    of Chaibub Neto et al. (2016, Fig. 1, 3, 5; training, public and final sets
    of ``n`` rows each, ``min(k - 1, 400)`` features strongly correlated with
    one another) in its "permuted responses" form: no feature is associated
    with the response, so whatever a model gains on the public set over the
    final set is overfitting. Freedman's attack (A5) and the step-forward
    attack (A6) both read the first features of it, as many as their budget
    allows (A6's :func:`step_forward_size` never asks for more than ``k - 1``),
    so every setting of a repetition is attacked on the same data.
    """

    n: int
    labels: np.ndarray | None = None
    public: np.ndarray | None = None
    fresh: np.ndarray | None = None
    v1: np.ndarray | None = None
    v2: np.ndarray | None = None
    regression: Any = None


def make_attack_data(
    rule: ScoringRule, *, n: int, n_private: int, k: int, random_state: RandomState
) -> AttackData:
    """Draw one repetition's hidden data from ``generator(2)`` of the stream.

    >>> from ladderboard.advisor.grid import scoring_rule
    >>> d = make_attack_data(scoring_rule("zero_one"), n=100, n_private=200, k=10,
    ...                      random_state=0)
    >>> d.labels.shape, d.public.shape, d.fresh.shape
    ((300,), (100,), (200,))
    """
    stream = KeyedStream.from_random_state(random_state)
    rng = stream.generator(2)
    if rule.name == "squared":
        p = max(1, min(k - 1, FREEDMAN_MAX_FEATURES))
        data = correlated_regression_data(n=3 * n, p=p, random_state=stream.derive("regression"))
        return AttackData(n=n, regression=data)
    size = n + n_private
    labels = rng.integers(0, 2, size=size, dtype=np.int8)
    public = np.sort(rng.permutation(size)[:n])
    fresh = np.setdiff1d(np.arange(size), public)
    wrong = rng.random((2, size)) < _CANDIDATE_ERROR
    if rule.name == "zero_one":
        v1, v2 = (np.where(w, 1 - labels, labels).astype(np.int8) for w in wrong)
    else:
        confidence = rng.uniform(0.55, 0.95, size=(2, size))
        right = np.where(labels == 1, confidence, 1.0 - confidence)
        v1, v2 = (
            np.clip(np.where(w, 1.0 - r, r), 0.01, 0.99) for w, r in zip(wrong, right, strict=True)
        )
    return AttackData(n=n, labels=labels, public=public, fresh=fresh, v1=v1, v2=v2)


def _step_forward_submissions(p: int, iterations: int) -> int:
    """A6's submissions over ``p`` features: ``p - t + 1`` models in iteration
    ``t`` (Chaibub Neto et al. 2016, Alg. 7, line 4), then the final refit."""
    return iterations * p - iterations * (iterations - 1) // 2 + 1


def step_forward_size(k: int, width: int) -> tuple[int, int]:
    """``(p, iterations)`` of the step-forward attack (A6) under a budget of
    ``k`` submissions, over at most ``width`` features: the most features
    ``p`` whose schedule (``p - t + 1`` models in iteration ``t``, then the
    refit) fits ``k`` when the iterations are 2 % of ``p`` and at least two
    (:data:`STEP_FORWARD_FEATURES_PER_ITERATION`; Chaibub Neto et al. 2016,
    S3). One feature and one iteration (two submissions) when nothing more
    fits, as Freedman's attack makes at least two.

    >>> step_forward_size(1000, 400), step_forward_size(100, 400), step_forward_size(12, 11)
    ((249, 4), (50, 2), (6, 2))
    >>> step_forward_size(1786, 400)  # S3's largest setting: 6 iterations over 300 features
    (300, 6)
    """
    best = (1, 1)
    for p in range(1, max(1, width) + 1):
        iterations = max(min(2, p), p // STEP_FORWARD_FEATURES_PER_ITERATION)
        if _step_forward_submissions(p, iterations) <= k:
            best = (p, iterations)
    return best


class _AveragedOracle:
    """A board read through the averaging attack (A7) with near-duplicates:
    each submission is sent as ``T`` copies that each change one row (a 0/1
    label flipped, a real prediction moved by 1e-6), and the mean of their
    releases is what the attacker sees. The organiser's record counts each
    copy at its model's true loss (``record.model``; they differ in one row)."""

    def __init__(self, record: _Recorder, T: int, stream: KeyedStream):
        self._record = record
        self._T = T
        self._stream = stream
        self._made = 0

    def submit(self, prediction: Any) -> float:
        self._record.model = np.asarray(prediction)
        try:
            result = near_duplicate_averaging_attack(
                self._record,
                prediction,
                T=self._T,
                random_state=self._stream.derive(f"copies:{self._made}"),
            )
        finally:
            self._record.model = None
        self._made += 1
        return result.estimate

    def __getattr__(self, name: str) -> Any:
        return getattr(self._record, name)


Attack = Callable[[Any, AttackData, ScoringRule, int, KeyedStream], tuple[float, float] | None]
"""``attack(oracle, data, rule, k, stream)`` → ``(released, true)`` in board units
(``None``: the final submission is the one with the best release)."""


def _labels(data: AttackData) -> np.ndarray:
    """The labels of a classification repetition (all but ``squared`` have them)."""
    if data.labels is None:
        raise ValueError("the attack data has no labels (a squared-loss repetition)")
    return data.labels


def _fresh(data: AttackData) -> dict[str, Any]:
    """The positions the board never scores, and their labels (the true score)."""
    return {"fresh_index": data.fresh, "fresh_labels": _labels(data)[data.fresh]}


def _boosting(oracle: Any, data: AttackData, rule: ScoringRule, k: int, seed: KeyedStream):
    if rule.name == "zero_one" and oracle.mechanism.input_kind == "losses":
        r = boosting_attack(
            oracle,
            n_labels=_labels(data).size,
            k=max(1, k - 1),
            random_state=seed,
            **_fresh(data),
        )
        return r.score, r.true_score
    size = _labels(data).size
    high, low = (1.0, 0.0) if rule.name == "zero_one" else (0.99, 0.01)
    dtype = np.int8 if rule.name == "zero_one" else np.float64
    g = generalized_boosting_attack(
        oracle,
        np.full(size, high, dtype=dtype),
        np.full(size, low, dtype=dtype),
        k=max(1, k - 3),
        random_state=seed,
        **_fresh(data),
    )
    return g.score, g.true_score


def _generalized(oracle: Any, data: AttackData, rule: ScoringRule, k: int, seed: KeyedStream):
    r = generalized_boosting_attack(
        oracle, data.v1, data.v2, k=max(1, k - 3), random_state=seed, **_fresh(data)
    )
    return r.score, r.true_score


def _majority(oracle: Any, data: AttackData, rule: ScoringRule, k: int, seed: KeyedStream):
    r = oracle_majority_attack(
        oracle,
        n_labels=_labels(data).size,
        k=max(1, k - 1),
        random_state=seed,
        **_fresh(data),
    )
    return r.score, r.true_score


def _freedman(oracle: Any, data: AttackData, rule: ScoringRule, k: int, seed: KeyedStream):
    d = data.regression
    p = max(1, min(k - 1, d.X_train.shape[1]))
    r = freedman_attack(
        oracle,
        d.X_train[:, :p],
        d.y_train,
        d.X_public[:, :p],
        k=min(FREEDMAN_FINAL_FEATURES, p),
        X_final=d.X_final[:, :p],
        y_final=d.y_final,
    )
    return r.score, r.true_score


def _stacked(data: AttackData, p: int) -> np.ndarray:
    """The rows an A6 submission predicts: the public set, then the final set
    (the board scores the first ``n``; see :func:`_oracle`), on ``p`` features."""
    d = data.regression
    return np.vstack([d.X_public[:, :p], d.X_final[:, :p]])


def _step_forward(oracle: Any, data: AttackData, rule: ScoringRule, k: int, seed: KeyedStream):
    """A6 over the first ``p`` features of :func:`step_forward_size`. Jumps
    are located as :func:`~ladderboard.attacks.step_forward_attack` does by
    default: the last new best on a ladder, the best release under full
    disclosure, and on a bootstrap board binary segmentation told the true
    number of jumps, as Chaibub Neto et al. (2016, Fig. 5e-h) told theirs: the
    attacker's most favourable reading of a noisy board."""
    d = data.regression
    p, iterations = step_forward_size(k, d.X_train.shape[1])
    r = step_forward_attack(
        oracle, d.X_train[:, :p], d.y_train, _stacked(data, p), n_iterations=iterations
    )
    return r.score, _squared_true(data, r.prediction[data.n :])


def _hill_climbing(oracle: Any, data: AttackData, rule: ScoringRule, k: int, seed: KeyedStream):
    """Near-duplicate hill-climbing from a random start file: acceptance read
    from the releases as the board's public rules allow
    (:func:`~ladderboard.attacks.reading_of`), fishing at the end on a board
    that shows its latest noisy release. The file it selects is judged at its
    exact true error, :data:`TRUE_ERROR` (random labels)."""
    size = _labels(data).size
    start = seed.derive("start").generator(0).integers(0, 2, size).astype(np.int8)
    r = near_duplicate_attack(
        oracle,
        start,
        k=k,
        n_public=data.n,
        random_state=seed.derive("attack"),
        true_score=TRUE_ERROR,
    )
    return r.displayed, r.true_score


def _label_recovery(oracle: Any, data: AttackData, rule: ScoringRule, k: int, seed: KeyedStream):
    """Label recovery from the digits of log losses (Whitehill 2016, 2017):
    ``k - 1`` probes, each decoding the labels of as many rows as the board's
    rounding allows (:func:`~ladderboard.attacks.label_recovery_attack`),
    then a final file confident (0.99 or 0.01) on every row decoded as
    scored and ``1/2`` elsewhere. Its true loss is ``ln 2``: it knows nothing
    of a row the board never scores."""
    size = _labels(data).size
    r = label_recovery_attack(oracle, n_labels=size, n_public=data.n, k=max(1, k - 1))
    final = np.full(size, 0.5)
    known = (r.scored == 1) & (r.labels >= 0)
    final[known] = np.where(r.labels[known] == 1, 0.99, 0.01)
    return oracle.submit(final), math.log(2.0)


_ATTACKS: dict[str, Attack] = {
    "boosting": _boosting,
    "label recovery": _label_recovery,
    "hill-climbing": _hill_climbing,
    "generalized boosting": _generalized,
    "majority": _majority,
    "Freedman": _freedman,
    "step-forward": _step_forward,
}


def attack_budget(name: str, k: int) -> int:
    """The submissions attack ``name`` is given under a budget of ``k``:
    ``k`` for :data:`VECTORISED_ATTACKS`, :data:`NOISE_ATTACKS` and the
    averaging variants (``… + averaging``, whose reads of ``T`` copies each
    count), at most :data:`SLOW_ATTACK_CAP` for the others.

    >>> attack_budget("boosting", 10_000), attack_budget("Freedman", 10_000)
    (10000, 1000)
    >>> attack_budget("hill-climbing", 10_000), attack_budget("boosting + averaging", 10_000)
    (10000, 10000)
    """
    if name in VECTORISED_ATTACKS or name in NOISE_ATTACKS or name.endswith(" + averaging"):
        return k
    return min(k, SLOW_ATTACK_CAP)


def attacks_for(setting: Setting, rule: ScoringRule) -> list[str]:
    """The attacks run against ``setting`` under ``rule``.

    >>> from ladderboard.advisor.grid import default_grid, scoring_rule
    >>> rule = scoring_rule("zero_one")
    >>> boot = [s for s in default_grid(rule) if s.label == "LadderBoot b=10"][0]
    >>> attacks_for(boot, rule)  # doctest: +NORMALIZE_WHITESPACE
    ['boosting', 'generalized boosting', 'majority', 'shifted majority', 'hill-climbing',
     'boosting + averaging']
    """
    metric_board = setting.family == "bayes-boot"
    if rule.name == "squared":
        names = ["Freedman", "step-forward"]
    elif rule.name == "zero_one":
        names = ["boosting", "generalized boosting"]
        if not metric_board:
            names += ["majority", "shifted majority"]
        names.append("hill-climbing")
    else:
        names = ["boosting", "generalized boosting"]
        if not metric_board:
            names.append("label recovery")
    if setting.bootstrap:
        names.append(f"{names[0]} + averaging")
    return names


def _oracle(
    setting: Setting, rule: ScoringRule, data: AttackData, random_state: Any, *, final: bool = False
):
    """``setting``'s board on the public labels. With ``final`` (``squared``
    only) a submission predicts the public rows then the final rows and the
    board scores the first ``n``, as a competition scores a hidden part of
    the test set it asks for: the organiser then knows the true loss of every
    submission from the submission alone."""
    n = data.n
    if rule.name == "squared":
        y_public = data.regression.y_public
        mechanism = setting.build(n, rule, y_public, random_state)
        rows: dict[str, Any] = {"public_index": np.arange(n), "n_labels": 2 * n} if final else {}
        if mechanism.input_kind == "predictions":
            return HoldoutOracle(None, mechanism, **rows)
        return HoldoutOracle(y_public, mechanism, loss=setting.board_loss(rule), **rows)
    labels = _labels(data)
    y_public = labels[data.public]
    mechanism = setting.build(n, rule, y_public, random_state)
    if mechanism.input_kind == "predictions":
        return HoldoutOracle(None, mechanism, public_index=data.public, n_labels=labels.size)
    return HoldoutOracle(
        y_public,
        mechanism,
        loss=setting.board_loss(rule),
        public_index=data.public,
        n_labels=labels.size,
    )


def _public_oracle(setting: Setting, rule: ScoringRule, data: AttackData, random_state: Any):
    """A board scoring the public labels only, as A4 needs (it counts offsets in
    scored labels)."""
    y_public = _labels(data)[data.public]
    mechanism = setting.build(data.n, rule, y_public, random_state)
    return HoldoutOracle(y_public, mechanism, loss=setting.board_loss(rule))


def _easy(data: AttackData) -> np.ndarray:
    """A4's easy set: the first half of the public labels, known to the attacker."""
    return np.arange(data.n // 2)


def _shifted_true(data: AttackData) -> float:
    """The true loss of a submission right on A4's easy set and a coin flip on
    its hard set, on fresh data: ``h/(2n)``."""
    return 0.5 * (data.n - _easy(data).size) / data.n


def _shifted(oracle: Any, data: AttackData, rule: ScoringRule, k: int, seed: KeyedStream):
    """A4; half of the public labels form the easy set the attacker knows."""
    easy = _easy(data)
    r = shifted_majority_attack(
        oracle,
        easy_index=easy,
        easy_labels=_labels(data)[data.public][easy],
        k=k,
        random_state=seed,
        max_submissions=max(2, k),
    )
    return r.score, _shifted_true(data)


_ATTACKS["shifted majority"] = _shifted


def _key(prediction: Any) -> bytes:
    """A real-valued submission's identity, robust to the last bits of a refit."""
    return np.round(np.asarray(prediction, dtype=np.float64), 8).tobytes()


class _Recorder:
    """The organiser's record of one run against a board: every release and
    the true loss of every submission, in the board's units: ``true_risk(
    prediction)``, or what :meth:`remember` was told of it; ``nan`` where the
    submission alone does not tell (the rows of a regression's public set)."""

    def __init__(self, oracle: Any, true_risk: Callable[[np.ndarray], float]):
        self._oracle = oracle
        self._true_risk = true_risk
        self._known: dict[bytes, float] = {}
        self.released: list[float] = []
        self.true: list[float] = []
        self.model: np.ndarray | None = None
        """While set, the model whose near-duplicate copies are being sent:
        each is recorded at the model's true loss."""

    def remember(self, prediction: Any, true: float) -> None:
        """Record the true loss of a submission the organiser cannot score
        from the submission itself."""
        self._known[_key(prediction)] = true

    def submit(self, prediction: Any) -> float:
        score = self._oracle.submit(prediction)
        self.released.append(score)
        judged = prediction if self.model is None else self.model
        known = self._known.get(_key(judged)) if self._known else None
        self.true.append(self._true_risk(np.asarray(judged)) if known is None else known)
        return score

    def __getattr__(self, name: str) -> Any:
        return getattr(self._oracle, name)


def _squared_true(data: AttackData, final_prediction: np.ndarray) -> float:
    """A regression model's true loss: its mean squared error on the final set."""
    return float(np.mean((data.regression.y_final - final_prediction) ** 2))


def _true_risk(name: str, rule: ScoringRule, data: AttackData, record: _Recorder):
    """How the organiser knows a submission's true loss under attack ``name``:
    on the fresh rows of a classification submission; for A4's, ``h/(2n)`` plus
    its wrong easy labels over ``n``; for
    Freedman's univariate models, their loss on the final set (told to
    ``record``; the refit's comes from the attack)."""
    if name == "shifted majority":
        easy = _easy(data)
        y_easy = _labels(data)[data.public][easy]
        coin = _shifted_true(data)
        return lambda prediction: coin + float(np.sum(prediction[easy] != y_easy)) / data.n
    if name == "step-forward":
        return lambda prediction: _squared_true(data, prediction[data.n :])
    if name == "Freedman":
        d = data.regression
        width = np.arange(d.X_train.shape[1])
        public = candidate_predictions(d.X_train, d.y_train, d.X_public, [], width)
        final = candidate_predictions(d.X_train, d.y_train, d.X_final, [], width)
        for j in width:
            record.remember(public[:, j], _squared_true(data, final[:, j]))
        return lambda prediction: math.nan
    labels = _labels(data)
    fresh = data.fresh
    return lambda prediction: float(record.evaluate(labels[fresh], prediction[fresh]))


def _starting_vectors(
    name: str, data: AttackData, rule: ScoringRule
) -> tuple[np.ndarray, np.ndarray]:
    """The two vectors whose random per-row mixes are the non-adaptive
    submissions paired with a classification attack (see :func:`attack_measures`)."""
    if name == "generalized boosting":
        assert data.v1 is not None and data.v2 is not None
        return data.v1, data.v2
    size = _labels(data).size
    if rule.name == "zero_one":
        return np.ones(size, dtype=np.int8), np.zeros(size, dtype=np.int8)
    return np.full(size, 0.99), np.full(size, 0.01)


def _blind_step_forward(
    oracle: Any, data: AttackData, count: int, budget: int, rng: np.random.Generator
) -> None:
    """A6's schedule with the features drawn in a random order instead of by
    the board's jumps: iteration ``t`` submits the models of the first
    ``t - 1`` features of a random permutation plus each remaining feature,
    in index order; after ``count - 1`` submissions (cut within an iteration
    if need be) the refit on the first ``t`` features, ``t`` the iterations
    begun, is the last submission."""
    d = data.regression
    p, iterations = step_forward_size(budget, d.X_train.shape[1])
    X_train, X_test = d.X_train[:, :p], _stacked(data, p)
    order = rng.permutation(p).tolist()
    left = count - 1
    begun = 0
    while left > 0 and begun < iterations:
        selected = order[:begun]
        remaining = np.setdiff1d(np.arange(p), selected)
        models = candidate_predictions(X_train, d.y_train, X_test, selected, remaining)
        for column in models.T[:left]:
            oracle.submit(column)
        left -= min(left, remaining.size)
        begun += 1
    if begun:
        (final,) = fit_predict(X_train, d.y_train, order[:begun], X_test)
    else:
        final = np.full(X_test.shape[0], d.y_train.mean())
    oracle.submit(final)


def _non_adaptive(
    name: str,
    oracle: Any,
    data: AttackData,
    rule: ScoringRule,
    count: int,
    seed: KeyedStream,
    budget: int = 0,
) -> None:
    """Make ``count`` submissions chosen without reading any release (the
    paired baseline of attack ``name``, given ``budget``; see
    :func:`attack_measures`)."""
    rng = seed.generator(0)
    if name == "step-forward":
        _blind_step_forward(oracle, data, count, budget, rng)
        return
    if name == "Freedman":
        d = data.regression
        p = min(count, d.X_train.shape[1])
        univariate = candidate_predictions(d.X_train, d.y_train, d.X_public, [], np.arange(p))
        for j in range(p):
            oracle.submit(univariate[:, j])
        for _ in range(count - p):
            chosen = rng.choice(p, size=min(FREEDMAN_FINAL_FEATURES, p), replace=False)
            features = sorted(chosen.tolist())
            prediction, fresh = fit_predict(d.X_train, d.y_train, features, d.X_public, d.X_final)
            oracle.remember(prediction, _squared_true(data, fresh))
            oracle.submit(prediction)
        return
    if name == "shifted majority":
        easy = _easy(data)
        y_public = _labels(data)[data.public]
        for _ in range(count):
            guess = rng.integers(0, 2, size=data.n, dtype=np.int8)
            guess[easy] = y_public[easy]
            oracle.submit(guess)
        return
    first, second = _starting_vectors(name, data, rule)
    for _ in range(count):
        oracle.submit(np.where(rng.integers(0, 2, size=first.size) == 1, first, second))


@dataclass(frozen=True, slots=True)
class AttackMeasure:
    """One attack's run against one setting, in loss units.

    Attributes
    ----------
    raw_gain : float
        The true loss of the submission the attack would select minus what
        the board displays for the attacker at the end (its latest release,
        or under full disclosure its best; Blum & Hardt 2015, Def. 2.1).
    baseline_gap : float
        The same for its paired non-adaptive baseline, whose selection is
        the submission with the best release (``nan`` unless measured:
        ``attack_measures(baselines=True)``).
    excess : float
        ``raw_gain - baseline_gap``: what adaptivity gains beyond picking the
        best of as many blind submissions on the same board, whose noise it
        thereby subtracts (``nan`` unless measured).
    lberr : float
        The leaderboard error of the attack's whole sequence of releases
        (Blum & Hardt 2015, Def. 2.1; :func:`ladderboard.analysis.lberr`).
    submissions : int
        The submissions the attacker made (each read once, or ``T`` times on
        an averaged board); the baseline made as many.
    """

    raw_gain: float
    baseline_gap: float
    excess: float
    lberr: float
    submissions: int

    @property
    def gap(self) -> float:
        """The raw gain, under the name the excess is reckoned from."""
        return self.raw_gain


def _finite(value: float) -> float:
    return float(value) if math.isfinite(value) else math.nan


def _sequence_lberr(setting: Setting, rule: ScoringRule, record: _Recorder, final_true: float):
    """``lberr`` of a recorded run; the final submission's true loss (the only
    one a run's record can miss: Freedman's refit) is ``final_true``."""
    if not record.released:
        return math.nan
    true = np.array(record.true, dtype=np.float64)
    true[np.isnan(true)] = final_true
    released = setting.to_loss(rule, np.array(record.released))
    if not (np.isfinite(true).all() and np.isfinite(released).all()):
        return math.nan
    return lberr(released, setting.to_loss(rule, true))


def _play(
    name: str,
    setting: Setting,
    rule: ScoringRule,
    data: AttackData,
    *,
    k: int,
    board_rs: KeyedStream,
    play: Callable[[Any, int], tuple[float, float] | None],
) -> tuple[float, float, _Recorder, int, float]:
    """Build ``setting``'s board for attack ``name`` (averaged on ``… +
    averaging``), let ``play(oracle, budget)`` run on it, and return
    ``(displayed, true)`` in loss units, the record, the submissions made, and
    the selected submission's true value as ``play`` gave it (board units).
    ``displayed`` is what the board shows for the attacker at the end: its
    best release under full disclosure, its latest release on every other
    board (:func:`~ladderboard.attacks.reading_of`).

    ``play`` returns its selection's ``(release, true)`` in board units, or
    ``None``: then the selection is the recorded submission with the best
    release (the best mean release on an averaged board; the non-adaptive
    baselines).
    """
    base, _, averaged = name.partition(" + ")
    if base == "shifted majority":
        oracle = _public_oracle(setting, rule, data, board_rs)
    else:
        oracle = _oracle(setting, rule, data, board_rs, final=base == "step-forward")
    record = _Recorder(oracle, lambda prediction: math.nan)
    record._true_risk = _true_risk(base, rule, data, record)
    player: Any = record
    budget, reads = k, 1
    if averaged:
        player = _AveragedOracle(record, AVERAGING_T, board_rs.derive("near-duplicates"))
        budget, reads = max(4, k // AVERAGING_T), AVERAGING_T
    final = play(player, budget)
    made = len(record.released) // reads
    shown = setting.to_loss(rule, np.array(record.released))
    displayed = float(shown.min()) if reading_of(oracle) == "best" else float(shown[-1])
    if final is None:
        released_loss = shown.reshape(made, reads)
        true_loss = setting.to_loss(rule, np.array(record.true)).reshape(made, reads)
        best = int(np.argmin(released_loss.mean(axis=1)))
        true = float(true_loss[best, 0])
        final_true = math.nan
    else:
        true = setting.to_loss(rule, final[1])
        final_true = final[1]
    return displayed, true, record, made, final_true


def _random_guesses(oracle: Any, data: AttackData, rule: ScoringRule, k: int, seed: KeyedStream):
    """Not an attack: ``k`` submissions of random labels, the best release kept
    (the classification baselines' own draw; its excess gain is noise)."""
    _non_adaptive("boosting", oracle, data, rule, k, seed)


_ATTACKS["random guesses"] = _random_guesses


def attack_measures(
    setting: Setting,
    rule: ScoringRule,
    data: AttackData,
    *,
    k: int,
    random_state: RandomState,
    attacks: Any = None,
    baselines: bool = True,
) -> dict[str, AttackMeasure]:
    """Each attack's :class:`AttackMeasure` against ``setting`` (the attacks of
    :func:`attacks_for`, or those named in ``attacks``; ``"random guesses"``
    is a non-adaptive control), with its paired non-adaptive baseline when
    ``baselines`` (else ``baseline_gap`` and ``excess`` are ``nan``).

    The raw gain is the measure that ranks boards (Blum & Hardt 2015, Def.
    2.1), against a reference that does not depend on the board
    (:mod:`ladderboard.advisor.defaults`). The baseline answers another
    question: how much of the gain adaptivity adds on this board. On a noisy board (the Shaky
    Ladder's Laplace noise, Hardt 2017; a bootstrap board's resampling,
    Chaibub Neto et al. 2016) a release of a submission that learned nothing
    still falls below its true loss about half the time, and a run that keeps
    its best release, or a board that keeps its lowest, ends below the truth;
    under full disclosure the best of ``m`` blind releases is itself an
    overfit (Blum & Hardt 2015, Sec. 5). The *excess* is the attack's raw gain minus
    that of a paired non-adaptive baseline: as many submissions as the attack
    made, chosen without reading any release, on a board of the same setting
    built from the same stream as the attack's (the same noise draws in
    order: common random numbers), on the same labels; its final submission
    is the one with the best release (the best mean release on an averaged
    board). The baseline of each family:

    * boosting (A1, and A2 from the constant vectors), majority (A3) and
      ``random guesses``: uniformly random labels on a 0/1 loss, random rows
      of 0.99 and 0.01 on the log loss: random mixes of A2's two vectors;
    * generalised boosting (A2 from ``v1``, ``v2``): per-row random mixes of
      ``v1`` and ``v2``, the very combinations A2 draws before it reads a score
      (Blum & Hardt 2015, Sec. 5.2; the blog post's ``whackyboost``);
    * shifted majority (A4): right on the easy set, random on the hard set,
      on A4's board of the public labels only (Hardt 2017, Sec. 4); true loss
      ``h/(2n)``, as A4's own final submission;
    * Freedman (A5): the univariate models A5 submits first, then refits on
      10 features drawn at random rather than the 10 best (Chaibub Neto et al.
      2016, S3), true loss on the final set;
    * step-forward (A6): A6's schedule on the same ``p`` features with the
      features added in a random order drawn before any submission instead
      of by the board's jumps: iteration ``t`` submits the model of the first
      ``t - 1`` features of the order plus each remaining feature, in index
      order (Chaibub Neto et al. 2016, Alg. 7, line 4), until as many
      submissions as A6 made less one; the last is the least-squares refit on
      the first ``t`` features, ``t`` the iterations begun (A6's own final
      model is the refit on the features it selected). Both play a board that
      is sent the public rows then the final rows of the design and scores
      the public ones, so every submission's true loss is its MSE on the
      final set;
    * ``… + averaging`` (A7): the baseline of the attack averaged, each
      submission read ``T`` times on the same bootstrap board.

    The board of attack ``a`` draws from ``stream.derive(f"board:{a}")`` (its
    baseline's board too), the attack from ``stream.derive(f"attack:{a}")``
    and the baseline from ``stream.derive(f"non-adaptive:{a}")``, ``stream``
    being ``KeyedStream.from_random_state(random_state)``. Each attack has
    :func:`attack_budget` submissions: ``k`` for the vectorised attacks and
    those aimed at the board's noise, at most :data:`SLOW_ATTACK_CAP` for the
    others. ``lberr`` is that
    of the attack's own sequence: every release of the board, each against the
    best true loss submitted so far.
    """
    stream = KeyedStream.from_random_state(random_state)
    names = attacks_for(setting, rule) if attacks is None else list(attacks)
    out = {}
    for name in names:
        base = name.partition(" + ")[0]
        if base not in _ATTACKS:
            raise ValueError(f"unknown attack {name!r}")
        attack_rs = stream.derive(f"attack:{name}")
        baseline_rs = stream.derive(f"non-adaptive:{name}")

        def attack(oracle: Any, budget: int, base: str = base, seed: KeyedStream = attack_rs):
            return _ATTACKS[base](oracle, data, rule, budget, seed)

        budget = attack_budget(name, k)
        released, true, record, made, final_true = _play(
            name,
            setting,
            rule,
            data,
            k=budget,
            board_rs=stream.derive(f"board:{name}"),
            play=attack,
        )
        sequence = _sequence_lberr(setting, rule, record, final_true)
        gain = _finite(true - released)
        if not baselines:
            out[name] = AttackMeasure(
                raw_gain=gain,
                baseline_gap=math.nan,
                excess=math.nan,
                lberr=_finite(sequence),
                submissions=made,
            )
            continue
        own = "boosting" if base in ("random guesses", "hill-climbing") else base

        def blind(
            oracle: Any, budget: int, own: str = own, seed: KeyedStream = baseline_rs, m: int = made
        ) -> None:
            _non_adaptive(own, oracle, data, rule, m, seed, budget)

        b_released, b_true, _, _, _ = _play(
            name,
            setting,
            rule,
            data,
            k=budget,
            board_rs=stream.derive(f"board:{name}"),
            play=blind,
        )
        baseline_gap = _finite(b_true - b_released)
        out[name] = AttackMeasure(
            raw_gain=gain,
            baseline_gap=baseline_gap,
            excess=gain - baseline_gap,
            lberr=_finite(sequence),
            submissions=made,
        )
    return out


def attack_gaps(
    setting: Setting,
    rule: ScoringRule,
    data: AttackData,
    *,
    k: int,
    random_state: RandomState,
) -> dict[str, float]:
    """Each applicable attack's raw gain (true loss of its selection − what
    the board displays at the end) against ``setting``: the ``raw_gain`` of
    :func:`attack_measures`, without the baselines."""
    measures = attack_measures(setting, rule, data, k=k, random_state=random_state, baselines=False)
    return {name: m.gap for name, m in measures.items()}
