"""The demo's two attackers, each playing through the HTTP API.

* The ``attacker`` has a good model and perturbs it: the perturbation
  boosting attack (A2 of Hardt's 2015 blog post, "A neat generalization"; the
  boosting attack of Blum & Hardt 2015, Sec. 5, started from two candidates).
  ``v1`` and ``v2`` are its model with the decision threshold moved by
  ``±PERTURBATION`` on the logit scale, so they differ exactly on the rows
  its model is less than ``σ(PERTURBATION) ≈ 95 %`` sure of; ``k`` random
  row-wise mixtures of the two are submitted, those the board scores better
  than the mean of ``v1`` and ``v2`` are kept (on a ladder, those that
  lowered its best release, Blum & Hardt 2015, Sec. 5.1), and their per-row
  majority is its last submission
  (:func:`~ladderboard.attacks.generalized_boosting_attack`).
* The ``hill-climber`` has no model: it starts from the training rows'
  majority class and hill-climbs with near-duplicates, each file changing a
  few rows of the one it believes the board holds as best
  (:func:`~ladderboard.attacks.hillclimb.near_duplicate_attack`), reading
  from the releases alone whether a file was taken. No two of its files are
  identical, so the server's refusal of a file already sent never fires.
  This is the attack that breaks paired-test ladders such as the
  parameter-free Ladder (Hardt 2017, Sec. 3-4).

Each selects, as its one final submission, the file it believes best: what
the public board ranks it by. The public board's score of that file against
its error on the private rows is what the attack got: how far the board
overstates it (the raw gain of Blum & Hardt 2015, Def. 2.1).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

import numpy as np

from ladderboard.client import Client
from ladderboard.demo.data import predictions_csv
from ladderboard.mechanisms import make_mechanism

__all__ = [
    "ATTACKER",
    "CLIMBER",
    "PERTURBATION",
    "HttpOracle",
    "climb",
    "perturb",
]

ATTACKER = "attacker"
"""The team that perturbs a good model."""

CLIMBER = "hill-climber"
"""The team that hill-climbs from a file that knows nothing."""

PERTURBATION = 3.0
"""How far the attacker moves its model's decision threshold either way, on
the logit scale: its perturbations change the rows it is less than
``σ(3) ≈ 95 %`` sure of (about a fifth of the holdout). With the default
budget this puts it first on the Kaggle board's public side and fourth or
last of five on its private side for each seed from 0 to 4. A smaller shift
leaves some of its model's mistakes outside the perturbed rows, and with few
rows a lucky random mixture can pass a paired test; a larger one perturbs
more rows than the budget's majority can sort out."""


class HttpOracle:
    """The board as an attacker sees it: a submission over HTTP, a released score.

    The board's public rules (its mechanism with its parameters and the
    number of public rows, as ``GET /api/competitions/{slug}`` gives them to
    anyone) are ``mechanism`` and ``n_public``; the attacks read them to
    decide how to read the releases. The server refuses a file the team
    already sent (409 duplicate), as when the perturbation attacker's
    majority is one of its candidates: the oracle then answers with the
    score released before, from the team's own notes. ``best_number`` is
    the team's own number of the submission with the lowest release, the
    earliest among equals (the demo's score is the 0/1 error, lower is
    better), and ``best_prediction`` its file.
    """

    greater_is_better = False

    def __init__(
        self,
        client: Client,
        slug: str,
        ids: np.ndarray,
        on_submit: Callable[[], None] | None = None,
    ):
        self.client, self.slug, self.ids = client, slug, ids
        rules = client.competition(slug)
        self.mechanism = make_mechanism(rules["mechanism"], **rules["mechanism_params"])
        self.n_public = int(rules["n_public"])
        self.n_labels = len(ids)
        self.submissions = 0
        self.best_number: int | None = None
        self.best_prediction: np.ndarray | None = None
        self._best = float("inf")
        self._released: dict[bytes, tuple[float, int]] = {}
        self._on_submit = on_submit

    def submit(self, prediction: Any) -> float:
        if self._on_submit is not None:
            self._on_submit()
        data = predictions_csv(self.ids, np.asarray(prediction))
        if data not in self._released:
            self.submissions += 1
            answer = self.client.submit(self.slug, data)
            score, number = float(answer["public_score"]), int(answer["number"])
            self._released[data] = (score, number)
            if score < self._best:
                self._best, self.best_number = score, number
                self.best_prediction = np.array(prediction, dtype=np.int8)
        return self._released[data][0]

    def number(self, prediction: Any) -> int:
        """The team's own number of the submission of ``prediction``, which
        was sent."""
        return self._released[predictions_csv(self.ids, np.asarray(prediction))][1]


def perturb(
    oracle: HttpOracle, logits: np.ndarray, *, k: int, key: bytes, full_disclosure: bool
) -> tuple[float, int, np.ndarray]:
    """The attacker's play on one board: its model (the positive ``logits``),
    then the perturbation boosting attack with ``k`` mixtures; returns the
    model's release, and the number and file of the submission to select (its
    best release)."""
    from ladderboard.attacks import generalized_boosting_attack

    model = (logits > 0).astype(np.int8)
    start = oracle.submit(model)
    keep: Literal["mean", "improved"] = "mean" if full_disclosure else "improved"
    generalized_boosting_attack(
        oracle,
        (logits > -PERTURBATION).astype(np.int8),
        (logits > PERTURBATION).astype(np.int8),
        k=k,
        random_state=key,
        keep=keep,
    )
    assert oracle.best_number is not None and oracle.best_prediction is not None  # the model's
    return start, oracle.best_number, oracle.best_prediction


def climb(
    oracle: HttpOracle, start: np.ndarray, *, k: int, key: bytes
) -> tuple[float, int, np.ndarray]:
    """The hill-climber's play on one board: at most ``k`` near-duplicates
    from ``start``; returns the release of ``start``, and the number and file of
    the submission to select (the one it believes the board holds as best)."""
    from ladderboard.attacks import near_duplicate_attack

    result = near_duplicate_attack(oracle, start, k=k, random_state=key)
    chosen = np.array(result.prediction)
    return float(result.released[0]), oracle.number(chosen), chosen
