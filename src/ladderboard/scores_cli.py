"""``ladderboard scores``: every score a command may name, from the registries.

A score is named the way :mod:`ladderboard.losses` and
:mod:`ladderboard.metrics` register it, and every command takes those names
only. There are two kinds:

- a *loss* is per row (``l_i = loss(y_i, yhat_i)``, lower is better): the
  mechanisms of the Ladder family see a submission only through it (Blum &
  Hardt 2015), and the Shaky Ladder needs it bounded, since it rescales it
  into ``[0, 1]`` (Hardt 2017);
- a *metric* scores the whole holdout at once (AUC, correlations, ...): the
  Bayesian-bootstrap mechanisms (Chaibub Neto et al. 2016) compute it under
  Dirichlet weightings of the rows.

Some names are both (``log_loss``, ``brier``): the metric is the mean of the
loss. The command imports the registries (the core) only when it runs.
"""

from __future__ import annotations

import math
from typing import Any

import typer

from ladderboard.terminal import (
    CsvOption,
    JsonOption,
    output_format,
    print_csv,
    print_json,
    print_table,
)

__all__ = ["SCORE_DESCRIPTIONS", "register", "score_rows", "scores"]

SCORE_DESCRIPTIONS: dict[tuple[str, str], str] = {
    ("loss", "zero_one"): "0/1 loss: 1 where the predicted label is wrong (the error rate's rows)",
    ("loss", "absolute"): "|p - y|",
    ("loss", "squared"): "(p - y)^2 (the squared error's rows)",
    ("loss", "log_loss"): "binary log loss of a probability p, clipped (default 1e-15)",
    ("loss", "multiclass_log_loss"): "log loss of a row of class probabilities, clipped",
    ("loss", "brier"): "binary (p - y)^2 for a probability p",
    ("loss", "multiclass_brier"): "sum over classes of (P_k - [y = k])^2",
    ("metric", "mse"): "mean squared error",
    ("metric", "rmse"): "root mean squared error",
    ("metric", "mae"): "mean absolute error",
    ("metric", "accuracy"): "share of labels predicted exactly",
    ("metric", "r2"): "coefficient of determination, 1 - MSE / Var(y)",
    ("metric", "pearson"): "Pearson's correlation of predictions and targets",
    ("metric", "spearman"): "Spearman's rank correlation of predictions and targets",
    ("metric", "ccc"): "Lin's concordance correlation coefficient",
    ("metric", "auc"): "area under the ROC curve of 0/1 targets",
    ("metric", "log_loss"): "mean binary log loss, clipped at 1e-15",
    ("metric", "brier"): "mean binary Brier score",
}
"""What each registered score is, one line, by ``(kind, name)``."""


def _bounds(bounds: list[float | None] | None) -> str:
    """A loss's bounds as the table shows them (``None`` is unbounded)."""
    if bounds is None:
        return ""
    lo, hi = bounds
    return f"[{lo:g}, {hi:g}]" if hi is not None else f"[{lo:g}, inf)"


def score_rows() -> list[dict[str, Any]]:
    """One dict per registered score, losses first, each kind sorted by name.
    A loss's ``bounds`` are ``[low, high]`` (``high`` is ``None`` when it is
    unbounded, which JSON cannot write as a number); a metric has none.

    >>> rows = score_rows()
    >>> [(r["kind"], r["better"]) for r in rows if r["name"] == "zero_one"]
    [('loss', 'lower')]
    >>> [r for r in rows if r["name"] == "auc"][0]["better"]
    'higher'
    """
    from ladderboard.losses import LOSSES, METRICS

    rows: list[dict[str, Any]] = []
    for name in sorted(LOSSES):
        loss = LOSSES[name]
        rows.append(
            {
                "name": name,
                "kind": "loss",
                "better": "higher" if loss.direction.greater_is_better else "lower",
                "bounds": [b if math.isfinite(b) else None for b in loss.bounds],
                "probabilities": loss.requires_probabilities,
                "description": SCORE_DESCRIPTIONS.get(("loss", name), ""),
            }
        )
    for name in sorted(METRICS):
        metric = METRICS[name]
        rows.append(
            {
                "name": name,
                "kind": "metric",
                "better": "higher" if metric.direction.greater_is_better else "lower",
                "bounds": None,
                "probabilities": metric.requires_probabilities,
                "description": SCORE_DESCRIPTIONS.get(("metric", name), ""),
            }
        )
    return rows


def scores(as_json: JsonOption = False, as_csv: CsvOption = False) -> None:
    """Every score a command may name: its registered name, kind, which way
    is better, and what it is.

    A loss is per row, for the loss-based mechanisms (the Ladder family; the
    Shaky Ladder needs its bounds finite); a metric scores the whole holdout,
    for the metric-based ones (the Bayesian-bootstrap ladders). A table at a
    terminal, whole as tab-separated values when piped.
    """
    from rich.markup import escape
    from rich.table import Table

    how = output_format(as_json, as_csv)
    rows = score_rows()
    if how == "json":
        print_json(rows)
        return
    table = Table("name", "kind", "better", "bounds", "probabilities", "what it is")
    for row in rows:
        table.add_row(
            row["name"],
            row["kind"],
            row["better"],
            escape(_bounds(row["bounds"])),
            "yes" if row["probabilities"] else "no",
            escape(row["description"]),
        )
    if how == "csv":
        print_csv(table)
    else:
        print_table(table)


def register(app: typer.Typer) -> None:
    """Add the ``scores`` command to ``app``."""
    app.command("scores")(scores)
