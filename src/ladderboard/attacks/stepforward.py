"""The step-forward Freedman attack (Chaibub Neto et al. 2016, Alg. 7, Fig. 3,
5e-h).

A ladder releases a new score only when a submission beats the best by a
margin, and then releases that submission's (rounded) score: the position of
the last "jump" in the released scores names a feature that predicts the
public holdout. Selecting it, then repeating with models that contain the
selected features plus one more, is forward stepwise selection on the holdout.
LadderBoot's bootstrap releases hide the jumps in noise; Neto et al. located
them by binary segmentation (R's ``changepoint``), told the true number of
jumps. Here that is ``ruptures.Binseg`` with an L2 cost, an optional
dependency (``pip install ruptures``, or the ``experiments`` extra).

The board's first acceptance is a jump on every board, at the board's very
first release. The paper's ladders (Algs. 3 and 4) start from ``R_0 = ∞``,
so their test (line 9) passes for the first submission and its score is
released: the board's first move, whatever it shows. If nothing in the
first iteration beats it, the level the board still shows at the end is
that submission's, and "the feature responsible for the last 'jump' in
performance as reflected in the leaderboard" (Sec. "Step-forward Freedman's
attack", Fig. 1b) is the first one submitted. Bootstrap noise (Alg. 4) hides
where later jumps happen, not that one: it is at the first release on every
board, so it needs no change-point search (Sec. "LadderBoot", Fig. 5e-h);
binary segmentation looks only for the jumps after it. So an iteration 1
whose only acceptance is the board's first selects the first feature on the
Ladder and on LadderBoot alike, and the attack goes on on both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, cast

import numpy as np

from ladderboard._validation import check_int
from ladderboard.attacks._common import (
    CountingOracle,
    Oracle,
    ScoringOracle,
    check_oracle,
    direction_of,
    exact_public_score,
    is_full_disclosure,
    is_stochastic,
    read_only,
)
from ladderboard.attacks.regression import candidate_predictions, check_design, fit_predict
from ladderboard.direction import Direction

__all__ = ["StepForwardResult", "last_jump", "step_forward_attack"]

Locate = Literal["auto", "last-jump", "best", "changepoint"]


@dataclass(frozen=True, eq=False, slots=True)
class StepForwardResult:
    """The outcome of :func:`step_forward_attack`.

    Attributes
    ----------
    selected : ndarray of int
        The selected features, in the order the iterations found them
        (read-only); shorter than ``n_iterations`` if an iteration located
        no jump.
    located : ndarray of int
        For each selected feature, the 0-based index in the whole submission
        sequence of the submission blamed for the jump (read-only).
    prediction : ndarray of float64
        The final model (OLS on the selected features) on ``X_test`` (read-only).
    score : float
        The released score of the final model, submitted once more at the end.
    public_score : float or None
        The final model's exact public score, measured organiser-side
        (``None`` for an oracle without :meth:`~HoldoutOracle.holdout_score`).
    released : ndarray of float64
        Every release of the iterations, in order (read-only): Fig. 3.
    locate : str
        The rule that located the jumps.
    n_submissions : int
        All submissions, the final one included.
    true_score : float or None
        The final model's score on ``(X_final, y_final)``, if given.
    """

    selected: np.ndarray
    located: np.ndarray
    prediction: np.ndarray
    score: float
    public_score: float | None
    released: np.ndarray
    locate: str
    n_submissions: int
    true_score: float | None = None


def last_jump(
    released: Any, previous: float | None = None, *, greater_is_better: bool = False
) -> int | None:
    """Index of the last release that beat the release just before it, or
    ``None``. ``previous`` is the release before ``released[0]``; without it
    (the board's very first submission, which every ladder accepts from
    ``R_0 = ∞``) a first release counts as a jump, as it does for
    :func:`step_forward_attack` on every board (see the module's docstring).

    On a ladder, whose releases never get worse, this is the last new best.

    >>> last_jump([0.9, 0.9, 0.8, 0.8, 0.8], previous=0.9)
    2
    >>> last_jump([0.9, 0.9], previous=0.9) is None
    True
    """
    r = np.asarray(released, dtype=np.float64)
    prev = np.concatenate(([np.nan if previous is None else previous], r[:-1]))
    jumped = Direction(greater_is_better).better(r, prev)
    if previous is None and r.size:
        jumped[0] = True
    where = np.flatnonzero(jumped)
    return int(where[-1]) if where.size else None


def _binseg() -> Any:
    try:
        import ruptures
    except ImportError:  # pragma: no cover - exercised only without ruptures
        raise ImportError(
            "locating jumps by change-point detection needs the ruptures package: "
            "pip install ruptures (or pip install 'ladderboard[experiments]')"
        ) from None
    return ruptures.Binseg


def changepoint_jump(released: Any, previous: float | None, n_jumps: int) -> int | None:
    """The last of ``n_jumps`` change points found by binary segmentation
    (``ruptures.Binseg``, L2 cost, single-point segments allowed, every
    position a candidate) in ``[previous] + released``, as an index into
    ``released`` (the first release after the change); ``None`` if
    ``n_jumps`` is 0."""
    signal = np.asarray(released, dtype=np.float64)
    if previous is not None:
        signal = np.concatenate(([previous], signal))
    n_jumps = min(n_jumps, signal.size - 1)
    if n_jumps <= 0:
        return None
    Binseg = _binseg()
    breaks = Binseg(model="l2", min_size=1, jump=1).fit(signal[:, None]).predict(n_bkps=n_jumps)
    return int(breaks[-2]) - (0 if previous is None else 1)


def _resolve_locate(locate: Any, oracle: Any) -> str:
    if locate not in ("auto", "last-jump", "best", "changepoint"):
        raise ValueError(
            f"locate must be 'auto', 'last-jump', 'best' or 'changepoint', got {locate!r}"
        )
    if locate != "auto":
        return locate
    if is_full_disclosure(oracle):
        return "best"
    return "changepoint" if is_stochastic(oracle) else "last-jump"


def step_forward_attack(
    oracle: Oracle,
    X_train: Any,
    y_train: Any,
    X_test: Any,
    *,
    n_iterations: int,
    locate: Locate = "auto",
    n_jumps: int | Literal["told"] = "told",
    X_final: Any = None,
    y_final: Any = None,
) -> StepForwardResult:
    """Forward selection by the board's jumps (Chaibub Neto et al. 2016, Alg. 7).

    ``Selected = ∅``, ``Remain`` = all features. In each iteration, for every
    feature ``x`` in ``Remain`` (in index order) fit ``y ~ 1 + Selected + x``
    by least squares on the training data and submit its predictions (line
    4); determine the feature responsible for the last jump in the released
    scores (line 6); move it from ``Remain`` to ``Selected``. The printed
    line 5 resubmits univariate models at every iteration; the paper's text
    and its submission counts (S3: 2 iterations over 100 features are 199
    submissions) have only line 4, which is followed here. At the end the
    model on ``Selected`` is submitted once more for its released score.

    Locating the jump (``locate``):

    * ``"last-jump"``: the last release that beat the release before it
      (:func:`last_jump`; the previous iteration's last release precedes the
      first). Exact on a deterministic ladder.
    * ``"changepoint"``: binary segmentation (:func:`changepoint_jump`) on
      the previous iteration's last release followed by this iteration's
      releases, with ``n_jumps`` change points, for noisy releases
      (LadderBoot). ``n_jumps="told"`` tells it the true number of this
      iteration's jumps, as Neto et al. did, read from the oracle's
      organiser-side :attr:`HoldoutOracle.n_improvements`; an int is the
      attacker's own guess of the change points per iteration.
    * ``"best"``: the iteration's best-scored submission: on full disclosure
      every release is a score, and the last jump of the running best is the
      best one. This is classic forward stepwise selection on the holdout.
    * ``"auto"``: ``"best"`` on :class:`~ladderboard.mechanisms.FullDisclosure`,
      ``"changepoint"`` on a stochastic board, ``"last-jump"`` otherwise.

    On every board the first release of the first iteration (the board's very
    first submission, which a ladder accepts from ``R_0 = ∞``) is a jump at
    that release (the module's docstring says why): ``"last-jump"`` locates
    it when nothing later beats it, and ``"changepoint"`` searches only the
    releases after it (``"told"`` counts only the acceptances after it) and
    locates it when that search locates nothing.

    An iteration in which no jump is located ends the attack. The attack
    makes no random draws.

    Parameters
    ----------
    oracle : HoldoutOracle
    X_train, y_train : arrays
        The public training data.
    X_test : array
        Features of the rows a submission predicts.
    n_iterations : int
        ``i_max``; at most the number of features.
    locate : {"auto", "last-jump", "best", "changepoint"}
    n_jumps : "told" or int
        Change points per iteration for ``locate="changepoint"``.
    X_final, y_final : arrays, optional
        Fresh data on which to report ``true_score``.

    Examples
    --------
    Fig. 3 in miniature: 4 iterations against the Ladder at ``α = 0.15``
    (Alg. 3), permuted responses; the model fits the public holdout (exact
    public MSE) far better than the final set.

    >>> from ladderboard.attacks import HoldoutOracle, correlated_regression_data
    >>> from ladderboard.mechanisms import SignificanceLadder
    >>> d = correlated_regression_data(p=300, random_state=1)
    >>> oracle = HoldoutOracle(d.y_public, SignificanceLadder(alpha=0.15), loss="squared")
    >>> r = step_forward_attack(oracle, d.X_train, d.y_train, d.X_public, n_iterations=4,
    ...                         X_final=d.X_final, y_final=d.y_final)
    >>> r.locate, r.n_submissions, round(r.public_score, 2), round(r.true_score, 2)
    ('last-jump', 1195, 0.64, 0.98)
    """
    check_oracle(oracle)
    X_train, y_train, X_test, X_final, y_final = check_design(
        X_train, y_train, X_test, X_final, y_final
    )
    p = X_train.shape[1]
    n_iterations = check_int("n_iterations", n_iterations, 1)
    if n_iterations > p:
        raise ValueError(
            f"n_iterations must be at most the number of features p={p}, got {n_iterations}"
        )
    rule = _resolve_locate(locate, oracle)
    told = n_jumps == "told"
    guessed_jumps = 0 if told else check_int("n_jumps", n_jumps, 0)  # read when not told
    if rule == "changepoint":
        _binseg()
        if told and not hasattr(oracle, "n_improvements"):
            raise TypeError(
                "n_jumps='told' reads the true number of jumps from oracle.n_improvements "
                "(a HoldoutOracle); give an int instead"
            )
    # Read only when counting, which is checked above to have n_improvements.
    counter = cast(CountingOracle, oracle)
    direction = direction_of(oracle)

    selected: list[int] = []
    located: list[int] = []
    remaining = np.arange(p)
    releases: list[float] = []
    previous: float | None = None
    for _ in range(n_iterations):
        predictions = candidate_predictions(X_train, y_train, X_test, selected, remaining)
        # With n_jumps="told", count the board's acceptances from the first
        # submission that has a release before it; the board's very first
        # acceptance is a jump too, but at a known place (see the docstring).
        counting = told and rule == "changepoint"
        first_counted = 0 if previous is not None else 1
        before: int | None = None
        released = np.empty(remaining.size)
        for j, column in enumerate(predictions.T):
            if counting and j == first_counted:
                before = counter.n_improvements
            released[j] = oracle.submit(column)
        if rule == "last-jump":
            index = last_jump(released, previous, greater_is_better=direction.greater_is_better)
        elif rule == "best":
            index = direction.argbest(released)
        else:
            told_jumps = 0 if before is None else counter.n_improvements - before
            jumps = told_jumps if told else guessed_jumps
            index = changepoint_jump(released, previous, jumps)
            if index is None and previous is None:
                index = 0  # no change after it: the first release is the last jump
        located_at = len(releases)
        releases.extend(released.tolist())
        previous = float(released[-1])
        if index is None:
            break
        selected.append(int(remaining[index]))
        located.append(located_at + index)
        remaining = np.delete(remaining, index)

    targets = [X_test] if X_final is None else [X_test, X_final]
    if selected:
        outputs = fit_predict(X_train, y_train, selected, *targets)
    else:  # nothing selected: the intercept-only model
        outputs = [np.full(X.shape[0], y_train.mean()) for X in targets]
    prediction = outputs[0]
    # Fresh data asks for an oracle that scores it (a HoldoutOracle).
    scorer = cast(ScoringOracle, oracle)
    true_score = None if X_final is None else float(scorer.evaluate(y_final, outputs[1]))
    score = float(oracle.submit(prediction))

    selected_array = np.array(selected, dtype=np.int64)
    located_array = np.array(located, dtype=np.int64)
    released_array = np.array(releases, dtype=np.float64)
    read_only(selected_array, located_array, prediction, released_array)
    return StepForwardResult(
        selected=selected_array,
        located=located_array,
        prediction=prediction,
        score=score,
        public_score=exact_public_score(oracle, prediction),
        released=released_array,
        locate=rule,
        n_submissions=len(releases) + 1,
        true_score=true_score,
    )
