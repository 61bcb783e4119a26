"""Which way a score improves, stated once and applied everywhere.

A metric states its direction once (``greater_is_better``); a loss is always
better lower. Every comparison, "best so far" and ordering of scores goes
through one :class:`Direction`, so that no caller flips a sign by hand.
``nan`` (a metric undefined on a submission) is never better than anything,
is never the best, and sorts last.

>>> from ladderboard.metrics import get_metric
>>> auc = get_metric("auc").direction
>>> auc.better(0.8, 0.7), auc.best([0.7, float("nan"), 0.8]), auc.argbest([0.7, 0.8, 0.8])
(True, 0.8, 1)
>>> sorted([0.3, float("nan"), 0.1], key=LOWER_IS_BETTER.key)
[0.1, 0.3, nan]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["GREATER_IS_BETTER", "LOWER_IS_BETTER", "Direction"]


@dataclass(frozen=True, slots=True)
class Direction:
    """The direction of a score: ``greater_is_better`` or lower is better.

    Get it from what is scored: ``get_metric(name).direction``,
    ``get_loss(name).direction`` (always :data:`LOWER_IS_BETTER`) or a
    mechanism's ``direction``.

    >>> Direction(greater_is_better=False) == LOWER_IS_BETTER
    True
    >>> GREATER_IS_BETTER.worst, LOWER_IS_BETTER.worst
    (-inf, inf)
    """

    greater_is_better: bool

    @property
    def worst(self) -> float:
        """The score every finite score beats: where a "best so far" starts."""
        return -math.inf if self.greater_is_better else math.inf

    def better(self, a: Any, b: Any) -> Any:
        """Whether ``a`` is strictly better than ``b``; elementwise for arrays.

        ``nan`` on either side is never better.

        >>> LOWER_IS_BETTER.better(0.2, 0.3), LOWER_IS_BETTER.better(0.3, 0.3)
        (True, False)
        >>> GREATER_IS_BETTER.better(np.array([0.5, np.nan, 0.9]), 0.6)
        array([False, False,  True])
        """
        return a > b if self.greater_is_better else a < b

    def key(self, score: float) -> tuple[bool, float]:
        """A sort key for one score: ascending keys put the best first, ``nan`` last.

        Combine it with tie-breakers in a tuple, e.g.
        ``sorted(rows, key=lambda r: (direction.key(r.score), r.when))``.

        >>> sorted([0.5, 0.9, float("nan"), 0.7], key=GREATER_IS_BETTER.key)
        [0.9, 0.7, 0.5, nan]
        """
        score = float(score)
        if math.isnan(score):
            return (True, 0.0)
        return (False, -score if self.greater_is_better else score)

    def order(self, values: Any) -> np.ndarray:
        """Indices of ``values`` best first; ties keep index order, ``nan`` last.

        >>> LOWER_IS_BETTER.order([1.0, 0.8, np.nan, 0.8, 0.9])
        array([1, 3, 4, 0, 2])
        """
        v = np.asarray(values, dtype=np.float64)
        return np.argsort(-v if self.greater_is_better else v, kind="stable")

    def argbest(self, values: Any) -> int:
        """The index of the first best of ``values``, ignoring ``nan``.

        Raises ``ValueError`` when there is no value other than ``nan``.

        >>> GREATER_IS_BETTER.argbest([0.2, np.nan, 0.7, 0.7])
        2
        >>> LOWER_IS_BETTER.argbest([np.nan, np.inf])
        1
        >>> LOWER_IS_BETTER.argbest([np.nan])
        Traceback (most recent call last):
        ValueError: argbest needs at least one value that is not nan, got [nan]
        """
        v = np.asarray(values, dtype=np.float64)
        if v.ndim != 1 or np.isnan(v).all():
            raise ValueError(
                f"argbest needs at least one value that is not nan, got {v.tolist()!r:.60}"
            )
        kept = np.flatnonzero(~np.isnan(v))
        values = v[kept]
        return int(kept[np.argmax(values) if self.greater_is_better else np.argmin(values)])

    def best(self, values: Any) -> float:
        """The best of ``values``, ignoring ``nan``; ``nan`` when there is none.

        >>> LOWER_IS_BETTER.best([0.4, np.nan, 0.2]), LOWER_IS_BETTER.best([])
        (0.2, nan)
        """
        v = np.asarray(values, dtype=np.float64)
        if v.size == 0 or np.isnan(v).all():
            return math.nan
        return float(v[self.argbest(v.ravel())])

    def running_best(self, values: Any) -> np.ndarray:
        """The best of ``values[: i + 1]`` at each ``i``, for finite scores (a ``nan`` propagates).

        >>> LOWER_IS_BETTER.running_best([0.5, 0.3, 0.4, 0.2])
        array([0.5, 0.3, 0.3, 0.2])
        """
        v = np.asarray(values, dtype=np.float64)
        accumulate = np.maximum.accumulate if self.greater_is_better else np.minimum.accumulate
        return accumulate(v)


LOWER_IS_BETTER = Direction(greater_is_better=False)
"""The direction of every loss, and of metrics such as ``mse``."""
GREATER_IS_BETTER = Direction(greater_is_better=True)
"""The direction of metrics such as ``auc``, ``pearson`` and ``accuracy``."""
