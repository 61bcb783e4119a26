"""E12: the reusable holdout's variable-selection experiment (Dwork, Feldman,
Hardt, Pitassi, Reingold and Roth, *The reusable holdout*, Science 2015,
Figs. 1-2; CACM 60(4), 2017, Figs. 2-3).

Data: labels ``y`` uniform on ``{−1, 1}``, ``d`` attributes drawn from
``N(0, 1)``; training, holdout and fresh sets of ``n`` points each. Fig. 1
has no signal; in Fig. 2, 20 attributes are drawn from ``N(0.06·y, 1)``
instead. The quick run shrinks ``n`` and ``d`` and keeps the signal at
``6/√n`` (0.06 at the paper's ``n``), so the selection sees the same z-scores.

The analyst (the paper's Sec. "Experiments", as its text describes it):

1. computes each attribute's correlation with the label on the training set
   and asks the holdout for the same; correlation here is the statistical
   query ``mean(x_i·y)`` (the attributes have unit variance and ``y² = 1``,
   so it is the correlation up to the sample standard deviations);
2. keeps the attributes whose two correlations have the same sign and both
   exceed ``1/√n`` in absolute value (the paper says "some threshold"; ``1/√n``
   is one standard error of either), and of those the ``k`` with the largest
   training correlation in absolute value (fewer if fewer pass);
3. builds the classifier ``sign(Σ sign(c_i)·x_i)`` over them and asks the
   holdout for its accuracy, for every ``k`` of the grid.

Arms, each a way the holdout answers those queries:

* ``holdout``: the standard holdout, every answer exact (Figs. 1A, 2A);
* ``thresholdout``: the library's :class:`~ladderboard.mechanisms.Thresholdout`
  at its defaults (Figs. 1B, 2B): one instance answers the ``d`` correlation
  queries, another the accuracy queries, each on its own scale. The mechanism
  takes values in ``[0, 1]``: a correlation query ``x_i·y`` is clipped to
  ``±6`` and mapped to ``(1 + x_i·y/6)/2``, with ``T`` and ``σ`` divided by
  12, so that it runs the default rule on the correlation scale (a standard
  normal exceeds 6 with probability 1e-9); a 0/1 loss is already in
  ``[0, 1]``, and its instance runs the defaults at ``n`` as they are. The
  budgets never run out; the count of answers that came from the holdout is
  reported;
* ``Gaussian Thresholdout``: the same with
  :class:`~ladderboard.mechanisms.GaussianThresholdout`, the Science
  experiment's code (``T = 0.04``, ``τ = 0.01`` at ``n = 10,000``);
* ``PF Ladder`` and ``Shaky Ladder``: a ladder answers submissions with the
  best loss so far, never a per-attribute statistic, so it cannot answer
  step 1: the analyst selects on training alone (``|c_i| ≥ 1/√n``, top ``k``)
  and submits the classifiers in order of ``k``; the answer for ``k`` is the
  board's release (the best 0/1 loss so far as the ladder releases it);
* ``PF Ladder, plain check``: step 1 on the standard holdout, step 3 through
  the parameter-free Ladder: a ladder guards only the queries it answers.

The first :data:`SWEEP_REPS` repetitions of each figure also compare noise
scales for Thresholdout's default (:func:`noise_sweep`): how many of the
correlation queries, none of which overfits, each scale answers from the
holdout (budget spent for nothing), and how far its answers to the accuracy
queries of the classifiers selected on training alone, which overfit, are from
their fresh accuracy.

The attributes are drawn in blocks of columns, each from its own keyed
generator, and drawn twice (correlations first, classifiers second), so
memory stays at a block, not ``3·n·d`` numbers.
"""

from __future__ import annotations

from ladderboard.experiments._e12_measure import (
    ARMS,
    QUICK_KS,
    QUICK_N,
    SCIENCE_SWEEP_ARM,
    e12_cell,
    e12_tasks,
)
from ladderboard.experiments._e12_outputs import e12_plot, e12_report
from ladderboard.experiments.registry import Experiment

__all__ = [
    "ARMS",
    "E12",
    "EXPERIMENT",
    "QUICK_KS",
    "QUICK_N",
    "SCIENCE_SWEEP_ARM",
    "e12_cell",
    "e12_tasks",
]

EXPERIMENT = E12 = Experiment(
    id="e12",
    aliases=("dwork", "reusable-holdout"),
    description=(
        "Reusable holdout Figs. 1-2: variable selection checked on a standard holdout, "
        "Thresholdout and ladders, n = d = 10,000"
    ),
    reps=100,
    quick_reps=4,
    tasks=e12_tasks,
    plot=e12_plot,
    report=e12_report,
)
"""E12: the reusable holdout's Figs. 1-2 (Dwork et al. 2015, Science)."""
