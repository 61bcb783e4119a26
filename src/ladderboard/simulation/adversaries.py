"""Adversaries: teams that climb the public board by attacks of :mod:`ladderboard.attacks`.

They see only the releases of their own board, as honest teams do, through a
:class:`~ladderboard.simulation.submitting.DeskOracle`, and spend their whole budget
of submissions (at least 4). Their files are always clean.

=========================  ===================================================
``boosting``               the generalised boosting attack (A2, Hardt's 2015
                           blog post) on probabilities: two honest models
                           (a logistic regression and gradient boosting) as
                           ``v1`` and ``v2``; random row-wise mixtures of the
                           two are kept when their public log loss beats the
                           mean of the two, and the rows are finally taken
                           by the majority of the kept mixtures
``perturbation_boosting``  the boosting attack (A1) adapted to probabilities:
                           random ``±delta`` perturbations of the logits of one
                           base submission (``delta = 0.5``), kept when the
                           public score beats the mean of the all-up and
                           all-down shifts, combined by the majority sign
                           per row (A2 with
                           ``v1 = base + delta``, ``v2 = base - delta``)
``feature_selection``      Freedman's attack (A5) adapted to classification:
                           one-feature logistic regressions, one submission
                           each; then logistic regressions on the features
                           whose one-feature models scored best publicly,
                           tuned (subset size, ``C``) on the public score
                           until the budget is spent
=========================  ===================================================
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    from ladderboard.random import KeyedStream
    from ladderboard.simulation.models import Model, Zoo
    from ladderboard.simulation.submitting import TeamDesk


__all__ = ["ADVERSARIES", "MIN_BUDGET", "play_adversary"]

ADVERSARIES = ("boosting", "perturbation_boosting", "feature_selection")
"""The adversaries' strategies; the ``i``-th adversary plays ``ADVERSARIES[i % 3]``."""
MIN_BUDGET = 4
_DELTA = 0.5
_C_GRID = (0.01, 0.1, 1.0, 10.0)


def play_adversary(
    desk: TeamDesk, strategy: str, zoo: Zoo, stream: KeyedStream, rng: np.random.Generator
) -> None:
    """Spend ``desk.budget`` submissions on ``strategy`` (see the module docstring)."""
    import numpy as np

    from ladderboard.attacks import generalized_boosting_attack
    from ladderboard.simulation.models import CLIP, Model, _logit
    from ladderboard.simulation.submitting import DeskOracle

    if desk.budget < MIN_BUDGET:
        raise ValueError(f"an adversary needs at least {MIN_BUDGET} submissions")
    if strategy == "boosting":
        v1 = zoo.predict(Model("logistic", (("C", 0.1), ("class_weight", None)), "all", "standard"))
        v2 = zoo.predict(
            Model(
                "gradient_boosting",
                (
                    ("l2_regularization", 1.0),
                    ("learning_rate", 0.1),
                    ("max_depth", 3),
                    ("max_iter", 50),
                ),
            )
        )
        oracle = DeskOracle(desk, "boosting: mixture of logistic and gradient boosting")
        generalized_boosting_attack(oracle, v1, v2, k=desk.budget - 3, random_state=stream)
    elif strategy == "perturbation_boosting":
        base = zoo.predict(
            Model("logistic", (("C", 0.1), ("class_weight", None)), "all", "standard")
        )
        z = _logit(base)
        v1 = np.clip(1 / (1 + np.exp(-(z + _DELTA))), CLIP, 1 - CLIP)
        v2 = np.clip(1 / (1 + np.exp(-(z - _DELTA))), CLIP, 1 - CLIP)
        oracle = DeskOracle(desk, f"perturbation boosting: logits of a logistic model +-{_DELTA}")
        generalized_boosting_attack(oracle, v1, v2, k=desk.budget - 3, random_state=stream)
    elif strategy == "feature_selection":
        _feature_selection(desk, zoo, rng)
    else:
        raise ValueError(f"unknown adversary {strategy!r}; known: {', '.join(ADVERSARIES)}")


def _logistic(columns, c: float) -> Model:
    from ladderboard.simulation.models import Model

    return Model("logistic", (("C", c), ("class_weight", None)), tuple(columns), "standard")


def _feature_selection(desk: TeamDesk, zoo: Zoo, rng: np.random.Generator) -> None:
    import numpy as np

    p = zoo.split.dataset.features.shape[1]
    n_single = min(p, max(1, desk.budget // 2))
    order = rng.permutation(p)[:n_single]
    scores = []
    for j in order.tolist():
        model = _logistic((j,), 1.0)
        release = desk.submit(zoo.predict(model), recipe=f"feature selection: {model.describe()}")
        scores.append((release if release is not None else np.inf, j))
    ranked = [j for _, j in sorted(scores)]
    best, best_release = None, np.inf
    seen: set[tuple[int, float]] = set()
    while desk.remaining:
        if best is None or rng.random() < 0.5:
            size = int(rng.integers(1, len(ranked) + 1))
            c = _C_GRID[int(rng.integers(len(_C_GRID)))]
        else:
            size = max(1, min(len(ranked), best[0] + int(rng.integers(-3, 4))))
            c = best[1] if rng.random() < 0.5 else _C_GRID[int(rng.integers(len(_C_GRID)))]
        if (size, c) in seen and len(seen) < len(ranked) * len(_C_GRID):
            continue
        seen.add((size, c))
        model = _logistic(sorted(ranked[:size]), c)
        release = desk.submit(zoo.predict(model), recipe=f"feature selection: {model.describe()}")
        if release is not None and release < best_release:
            best, best_release = (size, c), release
