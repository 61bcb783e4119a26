"""``ladderboard advise``: which leaderboard mechanism to run, for a holdout of
``n`` labels, a budget of ``k`` submissions per participant and a score.

Imports only typer, the standard library and :mod:`ladderboard.terminal`
(typer; rich once a command runs) at module level, so that
``ladderboard --help`` stays fast; the work is imported when the command runs.
"""

from __future__ import annotations

import math
from typing import Annotated, Any

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


def _signed(value: float, spec: str = "{:+.4f}") -> str:
    return "—" if math.isnan(value) else spec.format(value)


def _number(value: float) -> float | None:
    """A JSON number, or null for one that is not known (from one repetition)."""
    return None if math.isnan(value) else float(value)


def _attacks(row: Any) -> dict[str, dict[str, float]]:
    """Every attack run against a setting, with its mean gain and excess gain
    (the summary's ``gap: <attack>`` and ``excess: <attack>`` columns)."""
    out: dict[str, dict[str, float]] = {}
    for column, value in row.items():
        measure, _, attack = str(column).partition(": ")
        if measure in ("gap", "excess") and attack and not math.isnan(value):
            out.setdefault(attack, {})["gain" if measure == "gap" else "excess_gain"] = float(value)
    return out


def _delay(value: float) -> str:
    return "never" if math.isinf(value) else ("—" if math.isnan(value) else f"{value:.1f}")


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

    from ladderboard.advisor.advice import check_options

    n, k, rule, reps, seed, jobs = check_options(n, budget, score, reps, seed, jobs)

    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from ladderboard.advisor.advice import INTERVAL, SHARE_FRACTION, TAU_TOLERANCE, largest_se
    from ladderboard.advisor.advice import advise as run_advice
    from ladderboard.recommended import RECOMMENDED
    from ladderboard.terminal import note, print_json, print_table, progress

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
    from ladderboard.advisor.protection import SLOW_ATTACK_CAP

    capped = (
        f"Budget {k} > {SLOW_ATTACK_CAP}: boosting, majority, shifted majority, hill-climbing "
        f"and the averaging variants ran with {k} submissions; generalized boosting, Freedman "
        f"and step-forward with {SLOW_ATTACK_CAP} (their cost grows faster with the budget)."
        if k > SLOW_ATTACK_CAP
        else None
    )
    rule_text = (
        f"Rule: among protected settings (never full disclosure) with tau ≥ Kaggle 1e-5's − "
        f"{TAU_TOLERANCE} and share released ≥ {SHARE_FRACTION} × Kaggle 1e-5's, the lowest "
        "top of the binding attack's excess interval (its raw gain over the blind reference; "
        "the mean from one repetition)."
    )
    level = f"{round(100 * INTERVAL)} %"
    if as_json:
        rows = [
            {
                "setting": label,
                "family": row.family,
                "binding_attack": row.binding_attack,
                "excess_gain": _number(row.excess_gain),
                "excess_se": _number(row.excess_se),
                "excess_interval": [_number(row.excess_low), _number(row.excess_high)],
                "gain": _number(row.gain),
                "baseline_gap": _number(row.baseline_gap),
                "lberr": _number(row.lberr),
                "tau": row.tau,
                "share_released": row.share_released,
                "median_delay": row.median_delay,
                "eligible": label in result.eligible,
                "attacks": _attacks(row),
            }
            for label, row in result.summary.iterrows()
        ]
        print_json(
            {
                "n": n,
                "budget": k,
                "score": rule.name,
                "reps": result.reps,
                "seed": seed,
                "interval": INTERVAL,
                "target_se": result.target_se,
                "target_reached": result.target_reached,
                "settings": rows,
                "recommended": result.recommended,
                "recommended_shaky": result.recommended_shaky,
                "default": RECOMMENDED.label,
                "rule": rule_text.removeprefix("Rule: "),
                "command": result.command,
                "slow_attack_cap": SLOW_ATTACK_CAP if capped else None,
            }
        )
        return
    console = Console()
    table = Table(
        title=f"n = {n} public labels, budget {k} submissions, {rule.name}; "
        f"mean over {result.reps} reps"
    )
    for header in (
        "setting",
        "binding attack",
        "excess gain",
        f"{level} interval",
        "gain",
        "lberr",
        "tau",
        "share released",
        "delay",
        "pick",
    ):
        text = header in ("setting", "binding attack", "pick")
        table.add_column(header, justify="left" if text else "right", no_wrap=True)
    for label, row in result.summary.iterrows():
        if label == result.recommended:
            pick = "recommended"
        elif label == result.recommended_shaky:
            pick = "Shaky pick"
        elif label == RECOMMENDED.label:
            pick = "default"
        else:
            pick = ""
        table.add_row(
            escape(label),
            escape(str(row.binding_attack)),
            _signed(row.excess_gain),
            f"[{_signed(row.excess_low)}, {_signed(row.excess_high)}]",
            _signed(row.gain),
            _signed(row.lberr, "{:.4f}"),
            f"{row.tau:.3f}",
            f"{row.share_released:.2f}",
            _delay(row.median_delay),
            pick,
        )
    print_table(table, console)
    # The sentences go to stderr when stdout is piped: stdout is then the table alone.
    note(
        "Excess gain: an attack's gain (true minus released loss of its final submission) "
        "less that of as many submissions chosen without reading a score on the same board "
        f"(the binding attack's, with its {level} interval over repetitions); lberr: the "
        "largest leaderboard error of an attack's sequence (Blum & Hardt 2015, Def. 2.1)."
    )
    if result.target_se is not None:
        worst = largest_se(result.summary)
        if result.target_reached:
            note(f"Target SE {result.target_se:g} reached after {result.reps} repetitions.")
        else:
            note(
                f"Target SE {result.target_se:g} not reached: the largest SE is {worst:.4f} "
                f"after {result.reps} repetitions (--max-reps {max_reps})."
            )
    if capped:
        note(capped)
    note(rule_text)
    note(f"Recommended: [bold]{escape(result.recommended)}[/bold]", markup=True)
    if result.recommended_shaky is not None:
        shaky = result.recommended_shaky
        why = (
            "the lowest excess interval within the tolerance"
            if shaky in result.eligible
            else "none is within the tolerance; the highest tau"
        )
        note(f"Among the Shaky Ladder settings: [bold]{escape(shaky)}[/bold] ({why})", markup=True)
    note(
        f"ladderboard's default for a competition of unknown size and budget: "
        f"{RECOMMENDED.label} (why: {RECOMMENDED.command})."
    )
    note(f"Reproduce with: {result.command}")


def register(app: typer.Typer) -> None:
    """Add the ``advise`` command to ``app``."""
    app.command("advise")(advise)
