"""What the attack suite gains against each setting, at holdout size ``n`` and
a budget of ``k`` submissions.

Every attack plays a :class:`~ladderboard.attacks.HoldoutOracle` and sees only
released scores. Its *gap* is the true loss of its final submission (on fresh
labels the board never scored, or its expectation there) minus the released
loss: how much better the board says the attacker is than it is. Gaps are in
the metric's loss units (a released accuracy is read as ``1 - accuracy``).

Attacks by metric (:func:`attacks_for`):

* ``accuracy``: ``boosting`` (A1; on a metric-based board, A2 from the
  all-ones and all-zeros vectors, the same attack read in the board's
  direction), ``generalized boosting`` (A2 from two classifiers each right on
  about 70 % of the labels), ``majority`` (A3) and ``shifted majority`` (A4,
  with half of the public labels known to the attacker, as Hardt's "easy
  set"); A3 and A4 on loss-based boards only;
* ``log_loss``: ``boosting`` (A2 from the confident vectors 0.99 and 0.01) and
  ``generalized boosting`` (A2 from two probabilistic models);
* ``mse``: ``Freedman`` (A5: ``min(k - 1, 400)`` univariate models on
  permuted responses, the 10 best refitted; Chaibub Neto et al. 2016);
* on bootstrap boards, the first of these again through the averaging attack
  (A7): every submission is resubmitted ``T = 5`` times and the attacker reads
  the mean of the releases (``… + averaging``), with ``k / 5`` submissions.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ladderboard.advisor.grid import ScoringRule, Setting
from ladderboard.attacks import (
    HoldoutOracle,
    averaging_attack,
    boosting_attack,
    correlated_regression_data,
    freedman_attack,
    generalized_boosting_attack,
    oracle_majority_attack,
    shifted_majority_attack,
)
from ladderboard.random import KeyedStream, RandomState

__all__ = ["AVERAGING_T", "AttackData", "attack_gaps", "attacks_for", "make_attack_data"]

AVERAGING_T = 5
"""Resubmissions per submission in the averaging variants (A7)."""
FREEDMAN_MAX_FEATURES = 400
FREEDMAN_FINAL_FEATURES = 10
_CANDIDATE_ERROR = 0.3


@dataclass(frozen=True, eq=False, slots=True)
class AttackData:
    """The hidden labels of one repetition, shared by every setting (paired).

    For ``accuracy`` and ``log_loss``: ``labels`` of ``n + n_private``
    positions of which ``public`` score the board, and two candidate models
    ``v1``, ``v2`` for A2. For ``mse``: ``regression``, the simulated design
    of Chaibub Neto et al. (public and final sets of ``n`` rows each).
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
    >>> d = make_attack_data(scoring_rule("accuracy"), n=100, n_private=200, k=10,
    ...                      random_state=0)
    >>> d.labels.shape, d.public.shape, d.fresh.shape
    ((300,), (100,), (200,))
    """
    stream = KeyedStream.from_random_state(random_state)
    rng = stream.generator(2)
    if rule.name == "mse":
        p = max(1, min(k - 1, FREEDMAN_MAX_FEATURES))
        data = correlated_regression_data(n=3 * n, p=p, random_state=stream.derive("regression"))
        return AttackData(n=n, regression=data)
    size = n + n_private
    labels = rng.integers(0, 2, size=size, dtype=np.int8)
    public = np.sort(rng.permutation(size)[:n])
    fresh = np.setdiff1d(np.arange(size), public)
    wrong = rng.random((2, size)) < _CANDIDATE_ERROR
    if rule.name == "accuracy":
        v1, v2 = (np.where(w, 1 - labels, labels).astype(np.int8) for w in wrong)
    else:
        confidence = rng.uniform(0.55, 0.95, size=(2, size))
        right = np.where(labels == 1, confidence, 1.0 - confidence)
        v1, v2 = (
            np.clip(np.where(w, 1.0 - r, r), 0.01, 0.99) for w, r in zip(wrong, right, strict=True)
        )
    return AttackData(n=n, labels=labels, public=public, fresh=fresh, v1=v1, v2=v2)


class _AveragedOracle:
    """A board read through the averaging attack (A7): each submission is made
    ``T`` times and the mean release is what the attacker sees."""

    def __init__(self, oracle: HoldoutOracle, T: int):
        self._oracle = oracle
        self._T = T

    def submit(self, prediction: Any) -> float:
        return averaging_attack(self._oracle, prediction, T=self._T).estimate

    def __getattr__(self, name: str) -> Any:
        return getattr(self._oracle, name)


Attack = Callable[[Any, AttackData, ScoringRule, int, KeyedStream], tuple[float, float]]
"""``attack(oracle, data, rule, k, stream)`` → ``(released, true)`` in board units."""


def _labels(data: AttackData) -> np.ndarray:
    """The labels of a classification repetition (all but ``mse`` have them)."""
    if data.labels is None:
        raise ValueError("the attack data has no labels (an mse repetition)")
    return data.labels


def _fresh(data: AttackData) -> dict[str, Any]:
    """The positions the board never scores, and their labels (the true score)."""
    return {"fresh_index": data.fresh, "fresh_labels": _labels(data)[data.fresh]}


def _boosting(oracle: Any, data: AttackData, rule: ScoringRule, k: int, seed: KeyedStream):
    if rule.name == "accuracy" and oracle.mechanism.input_kind == "losses":
        r = boosting_attack(
            oracle,
            n_labels=_labels(data).size,
            k=max(1, k - 1),
            random_state=seed,
            **_fresh(data),
        )
        return r.score, r.true_score
    size = _labels(data).size
    high, low = (1.0, 0.0) if rule.name == "accuracy" else (0.99, 0.01)
    dtype = np.int8 if rule.name == "accuracy" else np.float64
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


_ATTACKS: dict[str, Attack] = {
    "boosting": _boosting,
    "generalized boosting": _generalized,
    "majority": _majority,
    "Freedman": _freedman,
}


def attacks_for(setting: Setting, rule: ScoringRule) -> list[str]:
    """The attacks run against ``setting`` under ``rule``.

    >>> from ladderboard.advisor.grid import default_grid, scoring_rule
    >>> rule = scoring_rule("accuracy")
    >>> boot = [s for s in default_grid(rule) if s.label == "LadderBoot b=10"][0]
    >>> attacks_for(boot, rule)
    ['boosting', 'generalized boosting', 'majority', 'shifted majority', 'boosting + averaging']
    """
    metric_board = setting.family == "bayes-boot"
    if rule.name == "mse":
        names = ["Freedman"]
    elif rule.name == "accuracy":
        names = ["boosting", "generalized boosting"]
        if not metric_board:
            names += ["majority", "shifted majority"]
    else:
        names = ["boosting", "generalized boosting"]
    if setting.bootstrap:
        names.append(f"{names[0]} + averaging")
    return names


def _oracle(setting: Setting, rule: ScoringRule, data: AttackData, random_state: Any):
    n = data.n
    if rule.name == "mse":
        y_public = data.regression.y_public
        mechanism = setting.build(n, rule, y_public, random_state)
        if mechanism.input_kind == "predictions":
            return HoldoutOracle(None, mechanism)
        return HoldoutOracle(y_public, mechanism, loss=setting.board_loss(rule))
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


def _shifted(
    setting: Setting, rule: ScoringRule, data: AttackData, k: int, seed: KeyedStream, rs: Any
):
    """A4 on a board scoring the public labels only (the attack counts offsets
    in scored labels); half of them form the easy set the attacker knows. Its
    final submission is right on the easy set and a coin flip on the hard set
    on fresh data: true loss ``h/(2n)``."""
    y_public = _labels(data)[data.public]
    mechanism = setting.build(data.n, rule, y_public, rs)
    oracle = HoldoutOracle(y_public, mechanism, loss=setting.board_loss(rule))
    easy = np.arange(data.n // 2)
    r = shifted_majority_attack(
        oracle,
        easy_index=easy,
        easy_labels=y_public[easy],
        k=k,
        random_state=seed,
        max_submissions=max(2, k),
    )
    h = data.n - easy.size
    return r.score, 0.5 * h / data.n


def attack_gaps(
    setting: Setting,
    rule: ScoringRule,
    data: AttackData,
    *,
    k: int,
    random_state: RandomState,
) -> dict[str, float]:
    """Each applicable attack's gap (true loss − released loss) against ``setting``.

    The board of attack ``a`` draws from ``stream.derive(f"board:{a}")`` and
    the attack from ``stream.derive(f"attack:{a}")``, ``stream`` being
    ``KeyedStream.from_random_state(random_state)``.
    """
    stream = KeyedStream.from_random_state(random_state)
    gaps = {}
    for name in attacks_for(setting, rule):
        board_rs = stream.derive(f"board:{name}")
        attack_rs = stream.derive(f"attack:{name}")
        if name == "shifted majority":
            released, true = _shifted(setting, rule, data, k, attack_rs, board_rs)
        else:
            base, _, averaged = name.partition(" + ")
            oracle = _oracle(setting, rule, data, board_rs)
            budget = k
            if averaged:
                oracle = _AveragedOracle(oracle, AVERAGING_T)
                budget = max(4, k // AVERAGING_T)
            released, true = _ATTACKS[base](oracle, data, rule, budget, attack_rs)
        gap = setting.to_loss(rule, true) - setting.to_loss(rule, released)
        gaps[name] = float(gap) if math.isfinite(gap) else math.nan
    return gaps
