"""The rule that chooses the project's defaults, applied to measurements at
several budgets.

The advisor (:func:`ladderboard.advisor.recommend`) answers one organiser's
question, at their holdout size and budget. A *default* must hold up for a
competition whose budget is not known in advance, so its rule reads the grid
at several budgets ``k`` at once, with the papers' yardstick:

* **protection** at budget ``k`` is the raw gain of the setting's *binding*
  attack, the one of the suite with the largest mean raw gain (the true loss
  of what the attack would select minus what the board displays at the end;
  Blum & Hardt 2015, Def. 2.1;
  :func:`~ladderboard.advisor.protection.attack_measures`), with a Student-t
  95 % interval over repetitions;
* its **excess over the fixed reference** is that raw gain minus the raw gain
  of the best of ``k`` blind files on the *noiseless* full-disclosure board
  of the same labels, paired by repetition
  (:data:`~ladderboard.advisor.advice.REFERENCE_MEASURE`). The reference
  depends on no board's noise: subtracting what blind play gains on the same
  board instead would count a noisy board's own noise as safety, since blind
  play there selects the noise. The floor of every mechanism, ``√(log k /
  n)`` (Blum & Hardt 2015, Thm 3.3), is reported beside it;
* a setting **meets** the rule when at every budget its mean excess is at
  most ``1/√n``, the sampling error of the holdout itself, and honest teams'
  Kendall tau between the released and the private board is at most
  :data:`DEFAULT_TAU_TOLERANCE` below full disclosure's.

Among the settings that meet it the rule chooses the one whose protection is
best established: the lowest top of the interval of its excess at any budget,
ties to the higher tau. :func:`goal` checks the issue's yardstick for the
choice: its binding raw gain no larger than the fixed-step Ladder's with
``η = 1/√n`` (the mechanism with a theorem behind it, Blum & Hardt 2015,
Thm 3.1) at every budget, within the paired interval, at equal utility.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ladderboard.advisor.advice import REFERENCE_MEASURE, surest
from ladderboard.advisor.grid import KAGGLE_LABEL
from ladderboard.advisor.yardstick import Interval, lower_bound_reference, t_interval

__all__ = [
    "DEFAULT_BUDGETS",
    "DEFAULT_N",
    "DEFAULT_TAU_TOLERANCE",
    "ETA_LADDER_LABEL",
    "DefaultChoice",
    "Goal",
    "across_budgets",
    "default_choice",
    "goal",
]

DEFAULT_N = 4000
"""The public holdout size the defaults are chosen at (Blum & Hardt 2015, Sec. 5.1)."""
DEFAULT_BUDGETS = (100, 1000, 10_000)
"""The budgets (submissions per attacker) the defaults must hold at."""
DEFAULT_TAU_TOLERANCE = 0.01
"""How far below full disclosure's honest-team tau a default may fall."""
ETA_LADDER_LABEL = "Ladder η=1/√n"
"""The fixed-step Ladder with ``η = 1/√n``: the yardstick of the goal."""


def _interval(values: Any) -> Interval:
    """:func:`~ladderboard.advisor.yardstick.t_interval` of the finite values
    (``nan`` when there are none)."""
    import numpy as np

    array = np.asarray(values, dtype=np.float64)
    array = array[np.isfinite(array)]
    if array.size == 0:
        return Interval(math.nan, math.nan, 0)
    return t_interval(array)


def _per_rep(frame: Any, label: str, measure: str, attack: str | None = None) -> Any:
    """``measure`` of ``label`` (of ``attack`` when given) by repetition."""
    here = frame[(frame.setting == label) & (frame.measure == measure)]
    if attack is not None:
        here = here[here.attack == attack]
    return here.groupby("rep").value.mean()


def _binding(frame: Any, label: str) -> str:
    """The attack with the largest mean raw gain against ``label`` ('' if none)."""
    gains = frame[(frame.setting == label) & (frame.measure == "raw_gain")]
    means = gains.groupby("attack").value.mean().dropna()
    return str(means.idxmax()) if len(means) else ""


def _paired(a: Any, b: Any) -> Interval:
    """``a − b`` over the repetitions both have, with its Student-t interval."""
    common = a.index.intersection(b.index)
    return _interval((a.loc[common] - b.loc[common]).to_numpy())


def across_budgets(frame: Any, *, eta_label: str = ETA_LADDER_LABEL) -> Any:
    """One row per setting of a grid run at several budgets (``frame.k``).

    Per budget ``K`` (every interval a Student-t 95 % interval over the
    repetitions, given by its mean and half-width ``±``):

    * ``attack k=K``, the binding attack (largest mean raw gain), and
      ``gain k=K`` / ``gain± k=K``, its raw gain;
    * ``excess k=K`` / ``excess± k=K``: that raw gain minus the fixed
      reference, paired by repetition;
    * ``lberr k=K``: the binding attack's mean lberr;
    * ``hill k=K`` / ``hill± k=K``: near-duplicate hill-climbing's raw gain
      (``nan`` where it did not play);
    * ``vs eta k=K`` / ``vs eta± k=K``: the binding raw gain minus that of
      ``eta_label``'s binding attack, paired by repetition (``nan`` when
      ``eta_label`` is not in the frame);
    * ``blind k=K`` / ``blind± k=K``: the fixed reference itself, and
      ``floor k=K``, ``√(log K / n)``.

    Over the budgets: ``worst_k``, where the mean excess is largest, with its
    ``binding_attack``, ``raw_gain`` and ``excess_gain``; ``excess_high``, the
    highest top of an excess interval at any budget (what the rule ranks by);
    ``complete``, whether every budget has a measured excess; ``tau`` and
    ``share_released``, means over every repetition and budget (honest teams
    do not depend on the attackers' budget); ``reps``, the fewest
    repetitions of any budget.
    """
    import pandas as pd

    budgets = sorted(int(k) for k in frame.k.unique())
    n = int(frame.n.iloc[0])
    order = list(dict.fromkeys(frame.setting))
    eta: dict[int, Any] = {}
    for k in budgets:
        at_k = frame[frame.k == k]
        if eta_label in set(at_k.setting):
            eta[k] = _per_rep(at_k, eta_label, "raw_gain", _binding(at_k, eta_label))
    rows = []
    for label in order:
        here = frame[frame.setting == label]
        row: dict[str, Any] = {"setting": label, "family": here.family.iloc[0]}
        excess_means: dict[int, float] = {}
        tops = []
        for k in budgets:
            at_k = frame[frame.k == k]
            binding = _binding(at_k, label)
            row[f"attack k={k}"] = binding
            gains = _per_rep(at_k, label, "raw_gain", binding) if binding else None
            gain = _interval([] if gains is None else gains.to_numpy())
            row[f"gain k={k}"], row[f"gain± k={k}"] = gain.mean, gain.half_width
            reference = _per_rep(at_k, label, REFERENCE_MEASURE)
            excess = (
                _paired(gains, reference)
                if gains is not None and len(reference)
                else Interval(math.nan, math.nan, 0)
            )
            row[f"excess k={k}"], row[f"excess± k={k}"] = excess.mean, excess.half_width
            if math.isfinite(excess.mean):
                excess_means[k] = excess.mean
                top = excess.high if math.isfinite(excess.high) else excess.mean
                tops.append(top)
            lberr = _per_rep(at_k, label, "lberr", binding) if binding else None
            row[f"lberr k={k}"] = float(lberr.mean()) if lberr is not None else math.nan
            hill = _interval(_per_rep(at_k, label, "raw_gain", "hill-climbing").to_numpy())
            row[f"hill k={k}"], row[f"hill± k={k}"] = hill.mean, hill.half_width
            versus = (
                _paired(gains, eta[k])
                if gains is not None and k in eta
                else Interval(math.nan, math.nan, 0)
            )
            row[f"vs eta k={k}"], row[f"vs eta± k={k}"] = versus.mean, versus.half_width
            blind = _interval(reference.to_numpy())
            row[f"blind k={k}"], row[f"blind± k={k}"] = blind.mean, blind.half_width
            row[f"floor k={k}"] = lower_bound_reference(n, k)
        worst = max(excess_means, key=excess_means.__getitem__) if excess_means else None
        row["worst_k"] = worst if worst is not None else math.nan
        row["binding_attack"] = row[f"attack k={worst}"] if worst is not None else ""
        row["raw_gain"] = row[f"gain k={worst}"] if worst is not None else math.nan
        row["excess_gain"] = excess_means[worst] if worst is not None else math.nan
        row["excess_high"] = max(tops) if tops else math.nan
        row["complete"] = len(excess_means) == len(budgets)
        for measure in ("tau", "share_released"):
            values = here[here.measure == measure].value
            row[measure] = float(values.mean()) if len(values) else math.nan
        row["reps"] = min(int(frame[frame.k == k].rep.nunique()) for k in budgets)
        rows.append(row)
    return pd.DataFrame(rows).set_index("setting")


@dataclass(frozen=True, slots=True)
class DefaultChoice:
    """The rule's answer over a set of settings.

    ``label`` is the setting chosen; ``meets`` whether it meets the rule (if
    not, it is the closest: see :func:`default_choice`); ``passing`` every
    setting that meets it; ``bound`` the excess bound ``1/√n``;
    ``excess_gain`` the chosen setting's largest mean excess over the fixed
    reference at any budget and ``excess_high`` the highest top of its
    intervals, with ``raw_gain``, ``binding_attack`` and ``worst_k`` saying
    where it binds; ``tau_gap`` how far its tau is below the reference's
    (negative: above).
    """

    label: str
    meets: bool
    passing: tuple[str, ...]
    bound: float
    excess_gain: float
    excess_high: float
    raw_gain: float
    binding_attack: str
    worst_k: int
    tau_gap: float

    @property
    def over_bound(self) -> float:
        """By how much the worst excess exceeds ``1/√n`` (0 when it does not)."""
        return max(self.excess_gain - self.bound, 0.0)


def _meets_bound(table: Any, bound: float) -> Any:
    """Whether each setting's mean excess is at most ``bound`` at every budget."""
    columns = [c for c in table.columns if str(c).startswith("excess k=")]
    if not columns:
        return table.excess_gain <= bound
    return (table[columns] <= bound).all(axis=1)


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
    (``complete``), its mean excess over the fixed reference is at most
    ``1/√n`` at every budget, and its tau at least ``reference``'s minus
    ``tau_tolerance``. Among those that meet it, the lowest ``excess_high``
    (the top of the interval of its excess at any budget) is chosen, ties to
    the higher tau. When none meets it, the *closest* is the one with the
    smallest worst excess among those within the tau tolerance, or, if none
    is, the one with the highest tau.

    >>> import pandas as pd
    >>> table = pd.DataFrame({"setting": ["Kaggle 1e-5", "A", "B", "C"],
    ...     "excess_gain": [0.20, 0.010, 0.004, 0.012], "excess_high": [0.21, 0.012, 0.006, 0.02],
    ...     "raw_gain": [0.3, 0.03, 0.02, 0.03], "binding_attack": ["boosting"] * 4,
    ...     "worst_k": [10_000] * 4, "tau": [0.90, 0.895, 0.80, 0.90]}).set_index("setting")
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
    passing = useful[_meets_bound(useful, bound) & complete]
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
    worst = float(row.worst_k)
    return DefaultChoice(
        label=label,
        meets=label in passing.index,
        passing=tuple(str(s) for s in passing.index),
        bound=bound,
        excess_gain=float(row.excess_gain),
        excess_high=float(row.excess_high),
        raw_gain=float(row.raw_gain),
        binding_attack=str(row.binding_attack),
        worst_k=int(worst) if math.isfinite(worst) else 0,
        tau_gap=float(table.loc[reference, "tau"] - row.tau),
    )


@dataclass(frozen=True, slots=True)
class Goal:
    """The issue's goal checked for one setting against the fixed-step Ladder
    with ``η = 1/√n``.

    ``versus[k]`` is the setting's binding raw gain minus the Ladder's at
    budget ``k``, paired by repetition (a Student-t 95 % interval); ``gain``
    and ``eta_gain`` the two raw gains. ``protected`` holds when at every
    budget the difference is not above zero beyond its interval (its low end
    at most 0); ``useful`` when the setting's tau is within ``tau_tolerance``
    of full disclosure's; ``met`` when both hold.
    """

    label: str
    versus: dict[int, Interval]
    gain: dict[int, Interval]
    eta_gain: dict[int, Interval]
    tau_gap: float
    tau_tolerance: float

    @property
    def protected(self) -> bool:
        return all(math.isfinite(v.mean) and not v.low > 0 for v in self.versus.values())

    @property
    def useful(self) -> bool:
        return self.tau_gap <= self.tau_tolerance

    @property
    def met(self) -> bool:
        return self.protected and self.useful


def goal(
    table: Any,
    label: str,
    *,
    eta_label: str = ETA_LADDER_LABEL,
    reference: str = KAGGLE_LABEL,
    tau_tolerance: float = DEFAULT_TAU_TOLERANCE,
) -> Goal:
    """:class:`Goal` of ``label`` in ``table`` (:func:`across_budgets`).

    >>> import pandas as pd
    >>> table = pd.DataFrame({"setting": ["Kaggle 1e-5", "Ladder η=1/√n", "A"],
    ...     "gain k=10": [0.3, 0.02, 0.025], "gain± k=10": [0.01, 0.002, 0.003],
    ...     "vs eta k=10": [0.28, 0.0, 0.005], "vs eta± k=10": [0.01, 0.0, 0.004],
    ...     "tau": [0.9, 0.8, 0.895]}).set_index("setting")
    >>> g = goal(table, "A")
    >>> g.protected, g.useful, g.met     # 0.005 - 0.004 > 0: larger than the Ladder's
    (False, True, False)
    """
    if label not in table.index or eta_label not in table.index:
        raise ValueError(f"the table must hold {label!r} and {eta_label!r}")
    budgets = sorted(int(c.split("=")[1]) for c in table.columns if c.startswith("vs eta k="))
    row, eta = table.loc[label], table.loc[eta_label]
    reps = int(row.reps) if "reps" in row else 0
    return Goal(
        label=label,
        versus={
            k: Interval(float(row[f"vs eta k={k}"]), float(row[f"vs eta± k={k}"]), reps)
            for k in budgets
        },
        gain={
            k: Interval(float(row[f"gain k={k}"]), float(row[f"gain± k={k}"]), reps)
            for k in budgets
        },
        eta_gain={
            k: Interval(float(eta[f"gain k={k}"]), float(eta[f"gain± k={k}"]), reps)
            for k in budgets
        },
        tau_gap=float(table.loc[reference, "tau"] - row.tau),
        tau_tolerance=tau_tolerance,
    )
