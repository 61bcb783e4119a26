"""What ``ladderboard advise`` shows of an :class:`~ladderboard.advisor.advice.Advice`:
its table, its JSON and the sentences under the table.

The advice is computed by :mod:`~ladderboard.advisor.advice`; this module only
words and lays it out, so the command line stays a parser of options and the
same words serve the terminal and ``--json``. rich is imported when a table
is built.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ladderboard.advisor.advice import INTERVAL, SHARE_FRACTION, TAU_TOLERANCE, largest_se
from ladderboard.advisor.protection import SLOW_ATTACK_CAP
from ladderboard.recommended import RECOMMENDED

if TYPE_CHECKING:
    from rich.table import Table

    from ladderboard.advisor.advice import Advice

__all__ = [
    "COLUMNS",
    "Note",
    "advice_json",
    "advice_notes",
    "advice_table",
    "capped_sentence",
    "rule_sentence",
]

LEVEL = f"{round(100 * INTERVAL)} %"
"""The excess interval's confidence level, as the table's header says it."""

COLUMNS = (
    "setting",
    "binding attack",
    "excess gain",
    f"{LEVEL} interval",
    "gain",
    "lberr",
    "tau",
    "share released",
    "delay",
    "pick",
)
"""The table's columns; the text ones are left-aligned, the numbers right."""
_TEXT_COLUMNS = frozenset({"setting", "binding attack", "pick"})

Note = tuple[str, bool]
"""A sentence under the table, and whether it holds rich markup."""


def rule_sentence() -> str:
    """The advisor's rule in one sentence (:func:`~ladderboard.advisor.advice.recommend`).

    >>> rule_sentence().startswith("Rule: among protected settings")
    True
    """
    return (
        f"Rule: among protected settings (never full disclosure) with tau ≥ Kaggle 1e-5's − "
        f"{TAU_TOLERANCE} and share released ≥ {SHARE_FRACTION} × Kaggle 1e-5's, the lowest "
        "top of the binding attack's excess interval (its raw gain over the blind reference; "
        "the mean from one repetition)."
    )


def capped_sentence(k: int) -> str | None:
    """Which attacks ran with fewer submissions than the budget ``k``, or
    ``None`` when every attack ran with all of them.

    >>> capped_sentence(100) is None, capped_sentence(5000).startswith("Budget 5000")
    (True, True)
    """
    if k <= SLOW_ATTACK_CAP:
        return None
    return (
        f"Budget {k} > {SLOW_ATTACK_CAP}: boosting, majority, shifted majority, hill-climbing "
        f"and the averaging variants ran with {k} submissions; generalized boosting, Freedman "
        f"and step-forward with {SLOW_ATTACK_CAP} (their cost grows faster with the budget)."
    )


def _signed(value: float, spec: str = "{:+.4f}") -> str:
    return "—" if math.isnan(value) else spec.format(value)


def _number(value: float) -> float | None:
    """A JSON number, or null for one that is not known (from one repetition)."""
    return None if math.isnan(value) else float(value)


def _delay(value: float) -> str:
    return "never" if math.isinf(value) else ("—" if math.isnan(value) else f"{value:.1f}")


def _attacks(row: Any) -> dict[str, dict[str, float]]:
    """Every attack run against a setting, with its mean gain and excess gain
    (the summary's ``gap: <attack>`` and ``excess: <attack>`` columns)."""
    out: dict[str, dict[str, float]] = {}
    for column, value in row.items():
        measure, _, attack = str(column).partition(": ")
        if measure in ("gap", "excess") and attack and not math.isnan(value):
            out.setdefault(attack, {})["gain" if measure == "gap" else "excess_gain"] = float(value)
    return out


def _pick(result: Advice, label: str) -> str:
    if label == result.recommended:
        return "recommended"
    if label == result.recommended_shaky:
        return "Shaky pick"
    if label == RECOMMENDED.label:
        return "default"
    return ""


def advice_json(result: Advice, *, seed: int) -> dict[str, Any]:
    """The advice as ``--json`` prints it: one record per setting, the
    recommendation, the rule and the command that reproduces it."""
    settings = [
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
    return {
        "n": result.n,
        "budget": result.k,
        "score": result.rule.name,
        "reps": result.reps,
        "seed": seed,
        "interval": INTERVAL,
        "target_se": result.target_se,
        "target_reached": result.target_reached,
        "settings": settings,
        "recommended": result.recommended,
        "recommended_shaky": result.recommended_shaky,
        "default": RECOMMENDED.label,
        "rule": rule_sentence().removeprefix("Rule: "),
        "command": result.command,
        "slow_attack_cap": SLOW_ATTACK_CAP if capped_sentence(result.k) else None,
    }


def advice_table(result: Advice) -> Table:
    """One row per setting: the binding attack's excess gain with its
    interval, the raw gain, lberr, what honest teams lose, and the picks."""
    from rich.markup import escape
    from rich.table import Table

    table = Table(
        title=f"n = {result.n} public labels, budget {result.k} submissions, "
        f"{result.rule.name}; mean over {result.reps} reps"
    )
    for header in COLUMNS:
        if header in _TEXT_COLUMNS:
            table.add_column(header, justify="left", no_wrap=True)
        else:
            table.add_column(header, justify="right", no_wrap=True)
    for label, row in result.summary.iterrows():
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
            _pick(result, label),
        )
    return table


def advice_notes(result: Advice, *, max_reps: int) -> list[Note]:
    """The sentences under the table, in order: what the columns mean, the
    repetitions against the target, the capped attacks, the rule, the
    recommendations and the command that reproduces them."""
    from rich.markup import escape

    notes: list[Note] = [
        (
            "Excess gain: an attack's gain (true minus released loss of its final submission) "
            "less that of as many submissions chosen without reading a score on the same board "
            f"(the binding attack's, with its {LEVEL} interval over repetitions); lberr: the "
            "largest leaderboard error of an attack's sequence (Blum & Hardt 2015, Def. 2.1).",
            False,
        )
    ]
    if result.target_se is not None:
        if result.target_reached:
            text = f"Target SE {result.target_se:g} reached after {result.reps} repetitions."
        else:
            text = (
                f"Target SE {result.target_se:g} not reached: the largest SE is "
                f"{largest_se(result.summary):.4f} after {result.reps} repetitions "
                f"(--max-reps {max_reps})."
            )
        notes.append((text, False))
    capped = capped_sentence(result.k)
    if capped:
        notes.append((capped, False))
    notes.append((rule_sentence(), False))
    notes.append((f"Recommended: [bold]{escape(result.recommended)}[/bold]", True))
    if result.recommended_shaky is not None:
        shaky = result.recommended_shaky
        why = (
            "the lowest excess interval within the tolerance"
            if shaky in result.eligible
            else "none is within the tolerance; the highest tau"
        )
        notes.append(
            (f"Among the Shaky Ladder settings: [bold]{escape(shaky)}[/bold] ({why})", True)
        )
    notes.append(
        (
            f"ladderboard's default for a competition of unknown size and budget: "
            f"{RECOMMENDED.label} (why: {RECOMMENDED.command}).",
            False,
        )
    )
    notes.append((f"Reproduce with: {result.command}", False))
    return notes
