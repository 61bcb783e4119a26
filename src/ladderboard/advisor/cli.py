"""``ladderboard advise``: which leaderboard mechanism to run, for a holdout of
``n`` labels, a budget of ``k`` submissions per participant and a score.

Imports only typer, the standard library and :mod:`ladderboard.terminal`
(typer; rich once a command runs) at module level, so that
``ladderboard --help`` stays fast; the work is imported when the command runs.
"""

from __future__ import annotations

from typing import Annotated

import typer

from ladderboard.terminal import JobsOption, JsonOption, usage_error

__all__ = ["SCORE_CHOICES", "register"]

SCORE_CHOICES = ("zero_one", "log_loss", "squared")
"""The ``--score`` values: the registered losses the advisor can attack and
simulate (:data:`ladderboard.advisor.grid.SCORE_NAMES`), checked here without
importing the advisor."""

_FAMILY_HELP = (
    "Only this mechanism family (repeatable), as the table's family column names it "
    "(full-disclosure, ladder, shaky-ladder, ...; an unknown one is refused with the list). "
    "Full disclosure is always run: it is the utility reference."
)


def _check(bad: bool, option: str, message: str) -> None:
    if bad:
        usage_error(option, message)


def _check_options(
    *,
    n: int,
    budget: int,
    score: str,
    reps: int,
    seed: int,
    target_se: float | None,
    max_reps: int,
    family: list[str] | None,
) -> None:
    """Refuse a bad option as a usage error naming it, before any work is imported."""
    _check(n < 10, "--n", f"n must be at least 10, got {n}")
    _check(budget < 1, "--budget", f"budget must be at least 1, got {budget}")
    _check(
        score not in SCORE_CHOICES,
        "--score",
        f"score must be one of {', '.join(SCORE_CHOICES)} (registered names), got {score!r}",
    )
    _check(reps < 1, "--reps", f"reps must be at least 1, got {reps}")
    _check(seed < 0, "--seed", f"seed must be at least 0, got {seed}")
    _check(
        target_se is not None and not target_se > 0,
        "--target-se",
        f"target SE must be positive, got {target_se}",
    )
    _check(
        target_se is not None and max_reps < reps,
        "--max-reps",
        f"max reps must be at least --reps ({reps}), got {max_reps}",
    )
    if family:
        from ladderboard.mechanisms.traits import families

        unknown = sorted(set(family) - set(families()))
        _check(
            bool(unknown),
            "--family",
            f"unknown family {', '.join(unknown)}; known: {', '.join(families())}",
        )


def advise(
    n: Annotated[
        int, typer.Option("--n", metavar="N", help="Public holdout size (labels scored).")
    ],
    budget: Annotated[
        int,
        typer.Option(
            "--budget",
            "-k",
            metavar="K",
            help="Submissions each participant (and attacker) may make.",
        ),
    ],
    score: Annotated[
        str,
        typer.Option(
            "--score",
            metavar="NAME",
            help=f"The per-row loss scored: {', '.join(SCORE_CHOICES)} "
            "(registered names: see `ladderboard scores`).",
        ),
    ] = "zero_one",
    reps: Annotated[int, typer.Option("--reps", help="Repetitions per setting.")] = 3,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the whole run.")] = 0,
    jobs: JobsOption = 1,
    family: Annotated[
        list[str] | None, typer.Option("--family", metavar="FAMILY", help=_FAMILY_HELP)
    ] = None,
    target_se: Annotated[
        float | None,
        typer.Option(
            "--target-se",
            metavar="SE",
            help="Add repetitions until every setting's binding excess has a "
            "standard error of at most SE (e.g. 0.003), up to --max-reps.",
        ),
    ] = None,
    wide: Annotated[
        bool,
        typer.Option(
            "--wide",
            help="Compare 35 Shaky Ladder settings (noise 0.25-3/√n, step-to-noise ratios "
            "up to the analysis's 4 log(4k/β), Hardt 2017 eq. 2) instead of the default 9.",
        ),
    ] = False,
    max_reps: Annotated[
        int, typer.Option("--max-reps", help="The most repetitions --target-se runs.")
    ] = 200,
    as_json: JsonOption = False,
) -> None:
    """Run the attack suite and honest teams against every mechanism setting at
    your holdout size and budget, and recommend one.

    For each setting: the binding attack's excess (an attack's raw gain, the
    true loss of what it would select minus what the board displays at the
    end in loss units, Blum & Hardt 2015, Def. 2.1; the binding attack has the
    largest; under the 0/1 loss less the best of as many blind files on the
    noiseless full-disclosure board of the same labels) with its 95 %
    interval over repetitions, the raw gain, the leaderboard error of the
    attacks' sequences (lberr), and what honest teams lose (Kendall's tau
    between the released and the private board, the share of true
    improvements released at once, the median submissions until an
    improvement shows).

    Rule: among the protected settings (never full disclosure) whose tau is
    at most 0.05 below full disclosure's (Kaggle 1e-5) and that release at
    once at least half the share of true improvements it releases, the one
    whose binding attack's excess is smallest (ties: the higher tau). The
    table is whole, as tab-separated values, when piped; --json prints the
    summary rows and the recommendation.
    """
    _check_options(
        n=n,
        budget=budget,
        score=score,
        reps=reps,
        seed=seed,
        target_se=target_se,
        max_reps=max_reps,
        family=family,
    )
    from rich.console import Console

    from ladderboard.advisor.advice import advise as run_advice
    from ladderboard.advisor.advice import check_options
    from ladderboard.advisor.report import advice_json, advice_notes, advice_table
    from ladderboard.terminal import note, print_json, print_table, progress

    n, k, rule, reps, seed, jobs = check_options(n, budget, score, reps, seed, jobs)
    with progress(f"advise: {reps} repetitions") as advance:
        result = run_advice(
            n=n,
            k=k,
            score=rule.name,
            reps=reps,
            seed=seed,
            jobs=jobs,
            families=family or None,
            target_se=target_se,
            max_reps=max_reps,
            progress=advance,
            wide=wide,
        )
    if as_json:
        print_json(advice_json(result, seed=seed))
        return
    print_table(advice_table(result), Console())
    # The sentences go to stderr when stdout is piped: stdout is then the table alone.
    for text, markup in advice_notes(result, max_reps=max_reps):
        note(text, markup=markup)


def register(app: typer.Typer) -> None:
    """Add the ``advise`` command to ``app``."""
    app.command("advise")(advise)
