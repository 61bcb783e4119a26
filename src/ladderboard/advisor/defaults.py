"""The rule that chooses the project's defaults, applied to measurements at
several budgets.

The advisor (:func:`ladderboard.advisor.recommend`) answers one organiser's
question, at their holdout size and budget. A *default* must hold up for a
competition whose budget is not known in advance, so its rule reads the grid
at several budgets ``k`` at once:

* **protection**: at every budget measured, every attack's excess gain (its
  gain beyond as many submissions chosen without reading a score on the same
  board, :func:`~ladderboard.advisor.protection.attack_measures`) is at most
  ``1/√n``, the sampling error of the holdout itself;
* **utility**: honest teams' Kendall tau between the released and the private
  board is at most :data:`DEFAULT_TAU_TOLERANCE` below full disclosure's.

:func:`across_budgets` reduces a grid run at several budgets to one row per
setting (its worst budget, the attack that binds there, and the interval on
that excess gain); :func:`default_choice` applies the rule, and, when no
setting meets it, names the closest one and what binds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ladderboard.advisor.advice import INTERVAL, summarise, surest
from ladderboard.advisor.grid import KAGGLE_LABEL

__all__ = [
    "DEFAULT_BUDGETS",
    "DEFAULT_N",
    "DEFAULT_TAU_TOLERANCE",
    "DefaultChoice",
    "across_budgets",
    "default_choice",
]

DEFAULT_N = 4000
"""The public holdout size the defaults are chosen at (Blum & Hardt 2015, Sec. 5.1)."""
DEFAULT_BUDGETS = (100, 1000, 10_000)
"""The budgets (submissions per attacker) the defaults must hold at."""
DEFAULT_TAU_TOLERANCE = 0.02
"""How far below full disclosure's honest-team tau a default may fall."""


def across_budgets(frame: Any, *, confidence: float = INTERVAL) -> Any:
    """One row per setting of a grid run at several budgets (``frame.k``).

    Each budget is summarised on its own (:func:`~ladderboard.advisor.summarise`:
    at each budget the binding attack is the one with the largest mean excess
    gain, with its ``confidence`` interval); the setting's *worst* budget is
    the one where that mean is largest. Columns: ``family``; ``worst_k``;
    ``binding_attack``, ``excess_gain``, ``excess_se``, ``excess_low``,
    ``worst_high`` (the binding attack's at the worst budget, with its
    interval); ``excess_high``, the highest top of the binding attack's
    interval at any budget; ``complete``, whether
    every budget has a measured excess gain; ``excess k=K`` and ``attack
    k=K`` for every budget; ``tau`` and
    ``share_released``, the means over every repetition at every budget (the
    honest teams do not depend on the attackers' budget); and ``reps``, the
    fewest repetitions of any budget.
    """
    import pandas as pd

    budgets = sorted(int(k) for k in frame.k.unique())
    per_k = {k: summarise(frame[frame.k == k], confidence=confidence) for k in budgets}
    order = list(dict.fromkeys(frame.setting))
    rows = []
    for label in order:
        here = frame[frame.setting == label]
        row: dict[str, Any] = {"setting": label, "family": here.family.iloc[0]}
        known = [k for k in budgets if math.isfinite(per_k[k].loc[label, "excess_gain"])]
        worst = max(known, key=lambda k: per_k[k].loc[label, "excess_gain"]) if known else None
        row["worst_k"] = worst if worst is not None else math.nan
        for column, source in (
            ("binding_attack", "binding_attack"),
            ("excess_gain", "excess_gain"),
            ("excess_se", "excess_se"),
            ("excess_low", "excess_low"),
            ("worst_high", "excess_high"),
        ):
            row[column] = per_k[worst].loc[label, source] if worst is not None else math.nan
        tops = [per_k[k].loc[label, "excess_high"] for k in known]
        tops = [t for t in tops if math.isfinite(t)]
        row["excess_high"] = max(tops) if tops else math.nan
        row["complete"] = len(known) == len(budgets)
        for k in budgets:
            row[f"excess k={k}"] = float(per_k[k].loc[label, "excess_gain"])
            row[f"attack k={k}"] = per_k[k].loc[label, "binding_attack"]
        for measure in ("tau", "share_released"):
            values = here[here.measure == measure].value
            row[measure] = float(values.mean()) if len(values) else math.nan
        row["reps"] = min(int(per_k[k].loc[label, "reps"]) for k in budgets)
        rows.append(row)
    return pd.DataFrame(rows).set_index("setting")


@dataclass(frozen=True, slots=True)
class DefaultChoice:
    """The rule's answer over a set of settings.

    ``label`` is the setting chosen; ``meets`` whether it meets the rule (if
    not, it is the closest: see :func:`default_choice`); ``passing`` every
    setting that meets it; ``bound`` the excess-gain bound ``1/√n``;
    ``excess_gain`` and ``excess_high`` the chosen setting's worst binding
    excess gain and the top of its interval, with ``binding_attack`` and
    ``worst_k`` saying where it binds; ``tau_gap`` how far its tau is below
    the reference's (negative: above).
    """

    label: str
    meets: bool
    passing: tuple[str, ...]
    bound: float
    excess_gain: float
    excess_high: float
    binding_attack: str
    worst_k: int
    tau_gap: float

    @property
    def over_bound(self) -> float:
        """By how much the worst excess gain exceeds ``1/√n`` (0 when it does not)."""
        return max(self.excess_gain - self.bound, 0.0)


def default_choice(
    table: Any,
    *,
    n: int,
    reference: str = KAGGLE_LABEL,
    tau_tolerance: float = DEFAULT_TAU_TOLERANCE,
    among: Any = None,
) -> DefaultChoice:
    """Apply the defaults' rule to ``table`` (:func:`across_budgets`), over
    the settings of ``among`` (labels) when given.

    A setting *meets* the rule when it was measured at every budget
    (``complete``), its worst excess gain over the budgets is at most
    ``1/√n``, and its tau at least ``reference``'s minus ``tau_tolerance``.
    Among those that meet it, the one whose protection is best established is
    chosen: the lowest top of the interval on its binding excess gain at any
    budget (``excess_high``; the mean where there is no interval), ties
    to the higher tau. Near-zero means differ by noise; the interval's top
    also counts how sure the measurement is. When none meets the rule, the
    *closest* is the one with the smallest worst excess gain among those
    within the tau tolerance, or, if none is, the one with the highest tau.

    >>> import pandas as pd
    >>> table = pd.DataFrame({"setting": ["Kaggle 1e-5", "A", "B", "C"],
    ...     "excess_gain": [0.20, 0.010, 0.004, 0.012], "excess_high": [0.21, 0.012, 0.006, 0.02],
    ...     "binding_attack": ["boosting"] * 4, "worst_k": [10_000] * 4,
    ...     "tau": [0.90, 0.89, 0.80, 0.90]}).set_index("setting")
    >>> choice = default_choice(table, n=4000)    # 1/√4000 = 0.0158
    >>> choice.label, choice.meets, choice.passing
    ('A', True, ('A', 'C'))
    >>> table.loc["C", "excess_high"] = 0.011   # C's protection is surer than A's
    >>> default_choice(table, n=4000).label
    'C'
    >>> table.loc["C", "excess_high"] = 0.02
    >>> choice = default_choice(table, n=40_000)  # 1/√n = 0.005: none meets it
    >>> choice.label, choice.meets, round(choice.over_bound, 4)
    ('A', False, 0.005)
    """
    if reference not in table.index:
        raise ValueError(f"reference {reference!r} is not a setting of the table")
    if not math.isfinite(float(table.loc[reference, "tau"])):
        raise ValueError(f"the reference {reference!r} has no measured tau: nothing to compare")
    bound = 1.0 / math.sqrt(n)
    pool = table if among is None else table.loc[[s for s in table.index if s in set(among)]]
    if pool.empty:
        raise ValueError(f"among names no setting of the table: {among!r}")
    floor = float(table.loc[reference, "tau"]) - tau_tolerance
    useful = pool[(pool.tau >= floor) & pool.excess_gain.notna()]
    complete = useful.complete if "complete" in useful else True
    passing = useful[(useful.excess_gain <= bound) & complete]
    if not passing.empty:
        label = surest(passing)
    elif not useful.empty:
        ranked = useful.assign(_neg_tau=-useful.tau).sort_values(
            ["excess_gain", "_neg_tau"], kind="stable"
        )
        label = str(ranked.index[0])
    else:
        label = str(pool.tau.idxmax())
    row = table.loc[label]
    worst = row.worst_k
    return DefaultChoice(
        label=label,
        meets=label in passing.index,
        passing=tuple(str(s) for s in passing.index),
        bound=bound,
        excess_gain=float(row.excess_gain),
        excess_high=float(row.excess_high),
        binding_attack=str(row.binding_attack),
        worst_k=int(worst) if math.isfinite(float(worst)) else 0,
        tau_gap=float(table.loc[reference, "tau"] - row.tau),
    )
