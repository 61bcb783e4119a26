"""``ladderboard advise``: which leaderboard mechanism to run, for a holdout of
``n`` labels and a budget of ``k`` submissions.

Imports only typer and the standard library at module level, so that
``ladderboard --help`` stays fast; the work is imported when the command runs.
"""

from __future__ import annotations

import math
from typing import Annotated

import typer

__all__ = ["METRIC_CHOICES", "register"]

METRIC_CHOICES = ("accuracy", "log-loss", "log_loss", "mse")
"""The ``--metric`` values, checked here without importing the advisor (the
advisor's own :func:`~ladderboard.advisor.grid.scoring_rule` accepts these)."""

_FAMILY_HELP = (
    "Only these mechanism families (repeatable): full-disclosure, ladder, "
    "parameter-free-ladder, significance-ladder, shaky-ladder, ladder-boot, bayes-boot. "
    "Full disclosure is always run: it is the utility reference."
)


FAMILIES = (
    "full-disclosure",
    "ladder",
    "parameter-free-ladder",
    "significance-ladder",
    "shaky-ladder",
    "ladder-boot",
    "bayes-boot",
)
"""The mechanism families (:data:`ladderboard.advisor.grid.FAMILIES`), without importing it."""


def _check(bad: bool, option: str, message: str) -> None:
    if bad:
        raise typer.BadParameter(message, param_hint=option)


def _delay(value: float) -> str:
    return "never" if math.isinf(value) else ("—" if math.isnan(value) else f"{value:.1f}")


def advise(
    n: Annotated[
        int, typer.Option("--n", metavar="N", help="Public holdout size (labels scored).")
    ],
    submissions: Annotated[
        int,
        typer.Option(
            "--submissions", "-k", metavar="K", help="Submissions allowed per participant."
        ),
    ],
    metric: Annotated[
        str,
        typer.Option("--metric", metavar="METRIC", help="accuracy (0/1 loss), log_loss or mse."),
    ] = "accuracy",
    reps: Annotated[int, typer.Option("--reps", help="Repetitions per setting.")] = 3,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the whole run.")] = 0,
    jobs: Annotated[int, typer.Option("--jobs", help="Parallel worker processes.")] = 1,
    family: Annotated[
        list[str] | None, typer.Option("--family", metavar="FAMILY", help=_FAMILY_HELP)
    ] = None,
) -> None:
    """Run the attack suite and honest teams against every mechanism setting at
    your holdout size and submission budget, and recommend one.

    For each setting: the strongest attacker's gain (the true loss of its final
    submission minus the released one, in loss units; the largest over the
    attacks run) and what honest teams lose (Kendall's tau between the
    released and the private board, the share of true improvements released
    at once, the median submissions until an improvement shows).

    Rule: among the settings whose tau is at most 0.05 below full disclosure's
    (Kaggle 1e-5) and that release at once at least half the share of true
    improvements it releases, the one whose strongest attacker gains least
    (ties: the higher tau).
    """
    _check(n < 10, "--n", f"n must be at least 10, got {n}")
    _check(submissions < 1, "--submissions", f"submissions must be at least 1, got {submissions}")
    _check(
        metric.strip().lower() not in METRIC_CHOICES,
        "--metric",
        f"metric must be one of accuracy, log_loss, mse, got {metric!r}",
    )
    _check(reps < 1, "--reps", f"reps must be at least 1, got {reps}")
    _check(seed < 0, "--seed", f"seed must be at least 0, got {seed}")
    _check(jobs < 1, "--jobs", f"jobs must be at least 1, got {jobs}")
    unknown = sorted(set(family or ()) - set(FAMILIES))
    _check(
        bool(unknown),
        "--family",
        f"unknown family {', '.join(unknown)}; known: {', '.join(FAMILIES)}",
    )

    from ladderboard.advisor.advice import check_options

    n, k, rule, reps, seed, jobs = check_options(n, submissions, metric, reps, seed, jobs)

    from rich.console import Console
    from rich.table import Table

    from ladderboard.advisor.advice import SHARE_FRACTION, TAU_TOLERANCE
    from ladderboard.advisor.advice import advise as run_advice

    console = Console()
    result = run_advice(
        n=n, k=k, metric=rule.name, reps=reps, seed=seed, jobs=jobs, families=family or None
    )
    table = Table(
        title=f"n = {n} public labels, {k} submissions, {rule.name}; mean over {reps} reps"
    )
    for header in (
        "setting",
        "strongest attack",
        "gain",
        "tau",
        "share released",
        "delay",
    ):
        text = header in ("setting", "strongest attack")
        table.add_column(header, justify="left" if text else "right", no_wrap=True)
    for label, row in result.summary.iterrows():
        mark = " ◀" if label == result.recommended else ""
        table.add_row(
            f"{label}{mark}",
            str(row.strongest_attack),
            f"{row.gain:+.4f}",
            f"{row.tau:.3f}",
            f"{row.share_released:.2f}",
            _delay(row.median_delay),
        )
    console.print(table)
    console.print(
        f"Rule: among settings with tau ≥ Kaggle 1e-5's − {TAU_TOLERANCE} and share released ≥ "
        f"{SHARE_FRACTION} × Kaggle 1e-5's, the smallest gain of the strongest attacker."
    )
    console.print(f"Recommended: [bold]{result.recommended}[/bold]")
    if result.recommended_shaky is not None:
        shaky = result.recommended_shaky
        why = (
            "the smallest gain within the tolerance"
            if shaky in result.eligible
            else "none is within the tolerance; the highest tau"
        )
        console.print(f"Among the Shaky Ladder settings: [bold]{shaky}[/bold] ({why})")
    console.print(f"Reproduce with: {result.command}", soft_wrap=True, markup=False)


def register(app: typer.Typer) -> None:
    """Add the ``advise`` command to ``app``."""
    app.command("advise")(advise)
