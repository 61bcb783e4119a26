"""The organiser's advisor, as a table the create form can read at once.

The create form starts on ladderboard's default
(:data:`ladderboard.recommended.RECOMMENDED`) and, once a solution file is
chosen, shows it with its parameters at the file's number of public rows.
It shows another setting only where a row of :data:`ADVICE` says that
setting is better there by more than the measurements' intervals: the 95 %
interval of its worst raw gain under the attack suite (the true loss of what
an attacker would select minus what the board displays, Blum & Hardt 2015,
Def. 2.1) lies wholly below the default's, measured on the same holdout size
and budget. A row without both intervals shows the default, and a board that
answers every file with its own score (full disclosure, Kaggle's board, at
any precision) is never shown: it is the board the boosting attack climbs
(Blum & Hardt 2015, Sec. 2-3).

The table is empty. Its former rows, one ``ladderboard advise`` run per size,
were chosen by an attack's gain less that of as many blind submissions on
the same board, which counts a noisy board's own noise as protection (issue
37), carried no intervals, recommended an unprotected board (full disclosure
at 1e-5 for the squared loss at 500 rows) and changed their pick at every
size; no row could meet the rule above, so none is kept. A row is added with
both intervals from a run of the advisor on the papers' yardstick;
``ladderboard advise`` also measures an organiser's own size and budget.
The web edge does not import the advisor (``tests/test_layers.py``), hence a
table here rather than a call.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ladderboard.mechanisms import COMPETITION_MECHANISMS

__all__ = ["ADVICE", "ADVISOR_METRIC", "BUDGET", "Advice", "advice_for", "protects"]

BUDGET = 100
"""The submissions a team may make in the runs behind :data:`ADVICE`."""
REPS = 20
"""The repetitions of each run behind :data:`ADVICE`."""

ADVISOR_METRIC = {"zero_one": "zero_one", "accuracy": "zero_one", "log_loss": "log_loss"}
ADVISOR_METRIC |= {"squared": "squared", "mse": "squared"}
"""The loss ``ladderboard advise --score`` measures for each score of the
form: a competition scored by the accuracy metric is attacked through the
0/1 loss, one scored by the MSE through the squared loss."""


def protects(mechanism: str) -> bool:
    """Whether a board on ``mechanism`` guards its holdout at all: one that
    releases every file's own score (full disclosure, at any precision)
    does not, whatever an attack happened to gain in a measurement.

    >>> protects("ladder"), protects("full-disclosure"), protects("metric-full-disclosure")
    (True, False, False)
    """
    return COMPETITION_MECHANISMS[mechanism].release_is_current_best


@dataclass(frozen=True)
class Advice:
    """A setting measured for a holdout of ``n`` public labels attacked
    through the loss ``metric`` (``advise --score``): ``label`` as
    ``ladderboard advise`` prints it, the form's values that set it up (the
    mechanism, the score it is measured on, and parameters; those in
    ``per_root_n`` are multiples of ``1/√n``), and the 95 % intervals
    ``(low, high)`` of the worst raw gain of the suite's attacks on it
    (``gain``) and on the default (``default_gain``) in the same run.

    >>> row = Advice("zero_one", 4000, "X", "ladder-boot", "zero_one", {"b": 10},
    ...              gain=(0.010, 0.014), default_gain=(0.015, 0.019))
    >>> row.shown, Advice("zero_one", 4000, "X", "ladder-boot", "zero_one").shown
    (True, False)
    >>> Advice("zero_one", 4000, "Kaggle 1e-5", "full-disclosure", "zero_one",
    ...        gain=(0.0, 0.001), default_gain=(0.015, 0.019)).shown
    False
    """

    metric: str
    n: int
    label: str
    mechanism: str
    score: str
    params: dict[str, Any] = field(default_factory=dict)
    per_root_n: dict[str, float] = field(default_factory=dict)
    gain: tuple[float, float] | None = None
    default_gain: tuple[float, float] | None = None

    @property
    def shown(self) -> bool:
        """Whether the form may offer this row over the default: a board
        that protects, better than the default by more than both intervals."""
        if self.gain is None or self.default_gain is None:
            return False
        return protects(self.mechanism) and self.gain[1] < self.default_gain[0]

    def values(self, n: int | None = None) -> dict[str, Any]:
        """The parameters at holdout size ``n`` (default: the row's)."""
        root = math.sqrt(n or self.n)
        scaled = {name: float(f"{m / root:.3g}") for name, m in self.per_root_n.items()}
        return {**self.params, **scaled}

    def command(self) -> str:
        return (
            f"ladderboard advise --n {self.n} --budget {BUDGET} "
            f"--score {self.metric} --reps {REPS} --seed 0"
        )


ADVICE: tuple[Advice, ...] = ()
"""The measured settings the form may offer over the default (see the
module's text for why it is empty)."""


def advice_for(score: str, n: int) -> Advice | None:
    """The row for ``score`` whose ``n`` is nearest on a log scale, if the
    form may offer it (:attr:`Advice.shown`); ``None`` (the default) for a
    score the advisor does not measure, a size without rows, or a nearest
    row that does not beat the default.

    >>> advice_for("zero_one", 4200) is None, advice_for("auc", 1000) is None
    (True, True)
    """
    metric = ADVISOR_METRIC.get(score)
    rows = [row for row in ADVICE if row.metric == metric]
    if not rows or n < 1:
        return None
    nearest = min(rows, key=lambda row: abs(math.log(row.n / n)))
    return nearest if nearest.shown else None
