"""The averaging attack (Chaibub Neto et al. 2016, Discussion).

A bootstrap mechanism (LadderBoot, BayesBootLadderBoot) releases a fresh noisy
draw at every submission, so resubmitting one model ``T`` times and averaging
the releases estimates its public score with error shrinking like ``1/√T``;
with that, an attacker can find the "last jump" that the noise was meant to
hide. The defence the paper proposes, refusing identical (or nearly identical)
resubmissions, belongs to the competition engine; ``jitter`` lets an experiment
test it with near-identical copies.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ladderboard._validation import check_int, check_real
from ladderboard.attacks._common import Oracle, check_oracle, generator, read_only
from ladderboard.random import RandomState

__all__ = ["AveragingResult", "averaging_attack"]


@dataclass(frozen=True, eq=False, slots=True)
class AveragingResult:
    """The outcome of :func:`averaging_attack`.

    Attributes
    ----------
    estimate : float
        The mean of the ``T`` releases: the attacker's estimate of the score.
    released : ndarray of float64
        The ``T`` releases, in order (read-only).
    standard_error : float
        ``std(released, ddof=1)/√T`` (``nan`` for ``T = 1``), the attacker's
        own idea of its error.
    n_submissions : int
        ``T``.
    true_score : float or None
        The score the estimate is compared with, as the caller gave it (for
        example the model's exact public score, organiser-side).
    error : float or None
        ``estimate - true_score``.
    """

    estimate: float
    released: np.ndarray
    standard_error: float
    n_submissions: int
    true_score: float | None = None
    error: float | None = None


def averaging_attack(
    oracle: Oracle,
    prediction: Any,
    *,
    T: int,
    true_score: float | None = None,
    jitter: float = 0.0,
    random_state: RandomState = None,
) -> AveragingResult:
    """Resubmit one model ``T`` times and average the noisy releases (Chaibub
    Neto et al. 2016, Discussion: "submit each univariate model a large number
    of times, T, and compute the average").

    Against LadderBoot (Alg. 4) a resubmission of the best model is rejected
    (equal risk never passes) and each release is a fresh bootstrap mean of the
    best loss vector, unbiased for its public score with standard deviation
    ``sd(l)/√(b n)``; the average of ``T`` has ``1/√T`` of that. A model that
    is not the best gets the best's draws, which is what the step-forward
    attack needs to see.

    Parameters
    ----------
    oracle : HoldoutOracle
    prediction : array
        The model's submission, resubmitted unchanged, or jittered.
    T : int
        Resubmissions.
    true_score : float, optional
        What to measure the estimate against (``error = estimate - true_score``),
        e.g. ``oracle.holdout_score(prediction)``.
    jitter : float
        Standard deviation of Gaussian noise added to each copy of a
        real-valued prediction, so that no two submissions are identical; 0
        (the default) resubmits the model exactly.
    random_state : int, key, KeyedStream or None
        Jitter draws come from
        ``KeyedStream.from_random_state(random_state).generator(0)`` (one
        ``T × rows`` array); unused when ``jitter`` is 0.

    Examples
    --------
    LadderBoot (Alg. 4) with ``b = 10`` on 500 squared losses: single releases
    spread by about 0.005; the mean of 400 is within 0.0003 of the exact public
    score, as its standard error says.

    >>> import numpy as np
    >>> from ladderboard.attacks import HoldoutOracle
    >>> from ladderboard.mechanisms import LadderBoot
    >>> rng = np.random.default_rng(5)
    >>> y = rng.normal(size=500)
    >>> model = y + rng.normal(scale=0.5, size=500)
    >>> oracle = HoldoutOracle(y, LadderBoot(b=10, random_state=5), loss="squared")
    >>> result = averaging_attack(oracle, model, T=400, true_score=oracle.holdout_score(model))
    >>> round(float(np.std(result.released, ddof=1)), 4), round(result.standard_error, 4)
    (0.0054, 0.0003)
    >>> round(abs(result.error), 4)
    0.0001
    """
    check_oracle(oracle)
    T = check_int("T", T, 1)
    if true_score is not None:
        true_score = check_real("true_score", true_score)
    jitter = check_real("jitter", jitter, low=0, low_open=False)
    try:
        model = np.asarray(prediction)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"prediction must be an array: {exc}") from None
    if model.ndim == 0:
        raise ValueError(f"prediction must have one row per label, got a scalar {prediction!r}")
    if jitter and model.dtype.kind not in "fc":
        raise ValueError(
            f"jitter needs a real-valued prediction, got dtype {model.dtype}; "
            "use jitter=0 for labels"
        )

    if jitter:
        noise = generator(random_state).normal(0.0, jitter, size=(T, *model.shape))
        copies = (model + noise[t] for t in range(T))
    else:
        copies = (model for _ in range(T))
    released = np.fromiter((oracle.submit(c) for c in copies), dtype=np.float64, count=T)
    estimate = float(released.mean())
    standard_error = float(released.std(ddof=1) / math.sqrt(T)) if T > 1 else math.nan

    read_only(released)
    return AveragingResult(
        estimate=estimate,
        released=released,
        standard_error=standard_error,
        n_submissions=T,
        true_score=true_score,
        error=None if true_score is None else estimate - true_score,
    )
