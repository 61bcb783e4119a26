"""The organiser's advisor, as a table the create form can read at once.

``ladderboard advise`` (:mod:`ladderboard.advisor`) recommends a mechanism
for a holdout of ``n`` public labels by playing the attack suite and a
population of honest teams against every mechanism setting; that takes
seconds to minutes per holdout size, and the web edge does not import the
advisor (``tests/test_layers.py``). So the create form carries its answers
for a few holdout sizes and a budget of 100 submissions a team, one row per
run of::

    ladderboard advise --n N --budget 100 --score SCORE --reps 5 --seed 0

The form shows the table, and its script counts the public rows of the
solution file the organiser chooses and preselects the row of the nearest
size (on a log scale) for the score chosen. Run the command for the
competition's own ``n`` and budget before relying on it: the recommendation
is the rule's choice among noisy measurements, and sizes between the rows
are not measured.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ADVICE", "ADVISOR_METRIC", "BUDGET", "Advice", "advice_for"]

BUDGET = 100
"""The submissions a team may make in the runs behind :data:`ADVICE`."""
REPS = 5
"""The repetitions of each run behind :data:`ADVICE`."""

ADVISOR_METRIC = {"zero_one": "zero_one", "accuracy": "zero_one", "log_loss": "log_loss"}
ADVISOR_METRIC |= {"squared": "squared", "mse": "squared"}
"""The loss ``ladderboard advise --score`` measured for each score of the
form: a competition scored by the accuracy metric is attacked through the
0/1 loss, one scored by the MSE through the squared loss."""


@dataclass(frozen=True)
class Advice:
    """The advisor's recommendation for a holdout of ``n`` public labels
    attacked through the loss ``metric`` (``advise --score``): ``label`` as
    ``ladderboard advise`` prints it, and the form's values that set it up
    (the mechanism, the score it is measured on, and parameters; those in
    ``per_root_n`` are multiples of ``1/√n``)."""

    metric: str
    n: int
    label: str
    mechanism: str
    score: str
    params: dict[str, Any] = field(default_factory=dict)
    per_root_n: dict[str, float] = field(default_factory=dict)

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


ADVICE: tuple[Advice, ...] = (
    Advice("zero_one", 500, "PF Ladder", "parameter-free-ladder", "zero_one", {}),
    Advice(
        "zero_one",
        1000,
        "BayesBootBoot b=100",
        "bayes-boot-ladder-boot",
        "accuracy",
        {"B": 100, "b": 100},
    ),
    Advice("zero_one", 2000, "Sig-Ladder α=0.5", "significance-ladder", "zero_one", {"alpha": 0.5}),
    Advice(
        "zero_one",
        5000,
        "BayesBootBoot b=100",
        "bayes-boot-ladder-boot",
        "accuracy",
        {"B": 100, "b": 100},
    ),
    Advice("zero_one", 10000, "LadderBoot b=1000", "ladder-boot", "zero_one", {"b": 1000}),
    Advice("log_loss", 500, "BayesBoot", "bayes-boot-ladder", "log_loss", {"B": 100}),
    Advice(
        "log_loss",
        1000,
        "BayesBootBoot b=100",
        "bayes-boot-ladder-boot",
        "log_loss",
        {"B": 100, "b": 100},
    ),
    Advice("log_loss", 2000, "BayesBoot", "bayes-boot-ladder", "log_loss", {"B": 100}),
    Advice("log_loss", 5000, "PF Ladder", "parameter-free-ladder", "log_loss", {}),
    Advice("log_loss", 10000, "LadderBoot b=10", "ladder-boot", "log_loss", {"b": 10}),
    Advice("squared", 500, "Kaggle 1e-5", "full-disclosure", "squared", {}),
    Advice("squared", 1000, "Kaggle 1/√n", "full-disclosure", "squared", {}, {"precision": 1.0}),
    Advice("squared", 2000, "LadderBoot b=10", "ladder-boot", "squared", {"b": 10}),
    Advice("squared", 5000, "LadderBoot b=10", "ladder-boot", "squared", {"b": 10}),
    Advice("squared", 10000, "LadderBoot b=10", "ladder-boot", "squared", {"b": 10}),
)
"""``ladderboard advise`` at n = 500, 1000, 2000, 5000 and 10000 for each of
its metrics (budget :data:`BUDGET`, :data:`REPS` repetitions, seed 0)."""


def advice_for(score: str, n: int) -> Advice | None:
    """The row for ``score`` whose ``n`` is nearest on a log scale, or
    ``None`` for a score the advisor does not measure.

    >>> advice_for("zero_one", 4200).label, advice_for("squared", 900).values(900)
    ('BayesBootBoot b=100', {'precision': 0.0333})
    >>> advice_for("auc", 1000) is None
    True
    """
    metric = ADVISOR_METRIC.get(score)
    if metric is None or n < 1:
        return None
    rows = [row for row in ADVICE if row.metric == metric]
    return min(rows, key=lambda row: abs(math.log(row.n / n)))
