"""Run the grid, summarise it, and recommend a setting.

:func:`evaluate_grid` plays, for each repetition, the attack suite and the
honest teams against every setting on the same hidden data (so settings are
compared paired), and returns a tidy table with one row per repetition,
setting and measure. :func:`summarise` reduces it to one row per setting,
:func:`recommend` applies the advisor's rule, and :func:`advise` does all
three.

The rule (:func:`recommend`): among the settings whose honest-team utility is
within a tolerance of full disclosure's (Kendall's tau at most
``tau_tolerance`` = 0.05 lower than ``Kaggle 1e-5``'s, and at least
``share_fraction`` = half of the true improvements it releases at once also
released), choose the one whose strongest attacker gains least; ties go to
the higher tau.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict

from ladderboard._validation import check_int, check_real
from ladderboard.advisor.grid import (
    KAGGLE_LABEL,
    ScoringRule,
    default_grid,
    scoring_rule,
)
from ladderboard.tasks.runner import Task, task_seed

if TYPE_CHECKING:
    from ladderboard.advisor.honest import HonestTeams

__all__ = [
    "Advice",
    "advise",
    "advise_command",
    "check_options",
    "eligible",
    "evaluate_grid",
    "grid_repetition",
    "recommend",
    "summarise",
]

UTILITY_MEASURES = ("tau", "share_released", "median_delay", "n_improvements")
TAU_TOLERANCE = 0.05
SHARE_FRACTION = 0.5


def check_options(n: Any, k: Any, metric: Any, reps: Any = 1, seed: Any = 0, jobs: Any = 1):
    """Validate the advisor's options before any work; return them normalised.

    >>> check_options(1000, 100, "log_loss")[2].name
    'log_loss'
    >>> check_options(5, 100, "accuracy")
    Traceback (most recent call last):
    ValueError: n must be an integer >= 10, got 5
    """
    n = check_int("n", n, 10)
    k = check_int("submissions", k, 1)
    rule = scoring_rule(metric)
    reps = check_int("reps", reps, 1)
    seed = check_int("seed", seed, 0)
    jobs = check_int("jobs", jobs, 1)
    return n, k, rule, reps, seed, jobs


def grid_repetition(
    *,
    rep: int,
    metric: str,
    n: int,
    k: int,
    n_private: int,
    labels: tuple[str, ...] | None,
    families: tuple[str, ...] | None,
    model: HonestTeams,
    random_state: int,
) -> Any:
    """One repetition: every setting against the attacks and the honest teams.

    The settings are ``default_grid`` (kept to ``families``, then to
    ``labels`` when given). The hidden data of the attacks and of the honest
    teams are drawn once per repetition and shared by every setting. Returns a
    tidy DataFrame: ``rep``, ``setting``, ``family``, ``measure`` (``gap`` or
    a utility measure), ``attack`` (the attack, for gaps), ``value``, and the
    run's ``metric``, ``n`` and ``k``.
    """
    import pandas as pd

    from ladderboard.advisor.honest import honest_utility, simulate_teams
    from ladderboard.advisor.protection import attack_gaps, make_attack_data
    from ladderboard.random import KeyedStream

    rule = scoring_rule(metric)
    grid = default_grid(rule, families=families)
    if labels is not None:
        grid = [s for s in grid if s.label in labels]
    stream = KeyedStream.from_random_state(random_state)
    attack_data = make_attack_data(
        rule, n=n, n_private=n_private, k=k, random_state=stream.derive("attack-data")
    )
    teams = simulate_teams(
        rule, n=n, n_private=n_private, model=model, random_state=stream.derive("teams")
    )
    rows = []
    for setting in grid:
        gaps = attack_gaps(
            setting, rule, attack_data, k=k, random_state=stream.derive(f"gaps:{setting.label}")
        )
        for attack, gap in gaps.items():
            rows.append((rep, setting.label, setting.family, "gap", attack, gap))
        utility = honest_utility(
            setting, rule, teams, model=model, random_state=stream.derive(f"teams:{setting.label}")
        )
        for measure in UTILITY_MEASURES:
            rows.append((rep, setting.label, setting.family, measure, "", utility[measure]))
    frame = pd.DataFrame(rows, columns=["rep", "setting", "family", "measure", "attack", "value"])
    return frame.assign(metric=rule.name, n=n, k=k)


def grid_tasks(
    *,
    reps: int,
    seed: int,
    metric: str,
    n: int,
    k: int,
    n_private: int | None = None,
    labels: tuple[str, ...] | None = None,
    families: tuple[str, ...] | None = None,
    model: HonestTeams | None = None,
    name: str = "advisor",
) -> list[Task]:
    """One :class:`Task` per repetition, each with its own seed."""
    from ladderboard.advisor.honest import HonestTeams

    n_private = 2 * n if n_private is None else n_private
    model = HonestTeams(submissions=min(k, 40)) if model is None else model
    return [
        Task(
            grid_repetition,
            {
                "rep": r,
                "metric": metric,
                "n": n,
                "k": k,
                "n_private": n_private,
                "labels": labels,
                "families": families,
                "model": model,
                "random_state": task_seed(seed, name, metric, n, k, r),
            },
        )
        for r in range(reps)
    ]


def evaluate_grid(
    *,
    n: int,
    k: int,
    metric: str = "accuracy",
    reps: int = 3,
    seed: int = 0,
    jobs: int = 1,
    n_private: int | None = None,
    families: Any = None,
    labels: Any = None,
    model: HonestTeams | None = None,
) -> Any:
    """The tidy table of :func:`grid_repetition` over ``reps`` repetitions,
    run on ``jobs`` worker processes (the result does not depend on ``jobs``).
    """
    from ladderboard.tasks.runner import run_tasks

    n, k, rule, reps, seed, jobs = check_options(n, k, metric, reps, seed, jobs)
    if n_private is not None:
        n_private = check_int("n_private", n_private, 1)
    import pandas as pd

    tasks = grid_tasks(
        reps=reps,
        seed=seed,
        metric=rule.name,
        n=n,
        k=k,
        n_private=n_private,
        families=None if families is None else tuple(families),
        labels=None if labels is None else tuple(labels),
        model=model,
    )
    return pd.concat(run_tasks(tasks, jobs=jobs), ignore_index=True)


def summarise(frame: Any) -> Any:
    """One row per setting (in the grid's order): ``family``, the strongest
    attack and its mean gap ``gain`` (and its sd over repetitions), the mean of
    each utility measure, and each attack's mean gap (``gap: <attack>``).

    The strongest attack is the one with the largest mean gap.
    """
    import numpy as np
    import pandas as pd

    order = list(dict.fromkeys(frame.setting))
    gaps = frame[frame.measure == "gap"]
    by_attack = gaps.groupby(["setting", "attack"]).value.agg(["mean", "std"])
    rows = []
    for label in order:
        here = frame[frame.setting == label]
        row: dict[str, Any] = {"setting": label, "family": here.family.iloc[0]}
        attacks = by_attack.loc[label] if label in by_attack.index.get_level_values(0) else None
        if attacks is not None and attacks["mean"].notna().any():
            strongest = attacks["mean"].idxmax()
            row["strongest_attack"] = strongest
            row["gain"] = float(attacks.loc[strongest, "mean"])
            sd = attacks.loc[strongest, "std"]
            row["gain_sd"] = float(sd) if np.isfinite(sd) else 0.0
        else:
            row.update(strongest_attack="", gain=math.nan, gain_sd=math.nan)
        for measure in UTILITY_MEASURES:
            values = here[here.measure == measure].value
            row[measure] = float(values.mean()) if len(values) else math.nan
        if attacks is not None:
            for attack, stats in attacks.iterrows():
                row[f"gap: {attack}"] = float(stats["mean"])
        rows.append(row)
    return pd.DataFrame(rows).set_index("setting")


def eligible(
    summary: Any,
    *,
    reference: str = KAGGLE_LABEL,
    tau_tolerance: float = TAU_TOLERANCE,
    share_fraction: float = SHARE_FRACTION,
) -> list[str]:
    """The settings whose honest-team utility is within tolerance of the
    reference's: ``tau`` at least the reference's minus ``tau_tolerance`` and
    ``share_released`` at least ``share_fraction`` times the reference's.

    >>> import pandas as pd
    >>> table = pd.DataFrame({"setting": ["Kaggle 1e-5", "A", "B", "C"],
    ...     "gain": [0.07, 0.01, 0.0, 0.0], "tau": [0.90, 0.88, 0.70, 0.90],
    ...     "share_released": [0.8, 0.45, 0.8, 0.3]}).set_index("setting")
    >>> eligible(table)
    ['Kaggle 1e-5', 'A']
    """
    import numpy as np

    tau_tolerance = check_real("tau_tolerance", tau_tolerance, low=0, low_open=False)
    share_fraction = check_real(
        "share_fraction", share_fraction, low=0, high=1, low_open=False, high_open=False
    )
    if reference not in summary.index:
        raise ValueError(f"reference {reference!r} is not a setting of the summary")
    ref = summary.loc[reference]
    share_ref = ref.share_released if np.isfinite(ref.share_released) else 0.0
    ok = (
        (summary.tau >= ref.tau - tau_tolerance)
        & (summary.share_released.fillna(0.0) >= share_fraction * share_ref)
        & summary.gain.notna()
    )
    return [str(label) for label in summary.index[ok.to_numpy()]]


def recommend(
    summary: Any,
    *,
    reference: str = KAGGLE_LABEL,
    tau_tolerance: float = TAU_TOLERANCE,
    share_fraction: float = SHARE_FRACTION,
    among: Any = None,
) -> str:
    """The advisor's rule: among the settings (of ``among``, a list of labels,
    when given) that are :func:`eligible`, the one with the smallest ``gain``
    (the strongest attacker's); ties go to the higher ``tau``. When none is
    eligible, the one with the highest ``tau`` (see :func:`eligible` to tell).

    >>> import pandas as pd
    >>> table = pd.DataFrame({
    ...     "setting": ["Kaggle 1e-5", "A", "B", "C"],
    ...     "gain": [0.07, 0.01, 0.002, 0.03],
    ...     "tau": [0.90, 0.88, 0.70, 0.90],
    ...     "share_released": [0.9, 0.85, 0.9, 0.9]}).set_index("setting")
    >>> recommend(table), recommend(table, tau_tolerance=0.3), recommend(table, among=["B", "C"])
    ('A', 'B', 'C')
    """
    ok = eligible(
        summary,
        reference=reference,
        tau_tolerance=tau_tolerance,
        share_fraction=share_fraction,
    )
    pool = summary if among is None else summary.loc[[s for s in summary.index if s in among]]
    if pool.empty:
        raise ValueError(f"among names no setting of the summary: {among!r}")
    good = pool.loc[[s for s in pool.index if s in ok]]
    if good.empty:
        return str(pool.tau.idxmax())
    ranked = good.assign(_neg_tau=-good.tau).sort_values(["gain", "_neg_tau"], kind="stable")
    return str(ranked.index[0])


def advise_command(
    *, n: int, k: int, metric: str, reps: int, seed: int, families: Any = None
) -> str:
    """The command line that reproduces an advice.

    >>> advise_command(n=4000, k=100, metric="accuracy", reps=3, seed=0)
    'ladderboard advise --n 4000 --submissions 100 --metric accuracy --reps 3 --seed 0'
    """
    command = (
        f"ladderboard advise --n {n} --submissions {k} --metric {metric.replace('_', '-')} "
        f"--reps {reps} --seed {seed}"
    )
    for family in families or ():
        command += f" --family {family}"
    return command


class _Tolerances(TypedDict):
    """The utility tolerances :func:`eligible` and :func:`recommend` take."""

    tau_tolerance: float
    share_fraction: float


@dataclass(frozen=True, slots=True)
class Advice:
    """The advisor's answer: the summary table, the recommendation (overall and
    among the Shaky Ladder settings), the settings within the utility
    tolerance, and the command that reproduces it."""

    rule: ScoringRule
    n: int
    k: int
    summary: Any
    frame: Any
    recommended: str
    recommended_shaky: str | None
    eligible: tuple[str, ...]
    command: str


def advise(
    *,
    n: int,
    k: int,
    metric: str = "accuracy",
    reps: int = 3,
    seed: int = 0,
    jobs: int = 1,
    families: Any = None,
    tau_tolerance: float = TAU_TOLERANCE,
    share_fraction: float = SHARE_FRACTION,
) -> Advice:
    """Run the grid at holdout size ``n`` and budget ``k`` and recommend a setting.

    Full disclosure at ``1e-5`` (the utility reference) is always evaluated.
    """
    n, k, rule, reps, seed, jobs = check_options(n, k, metric, reps, seed, jobs)
    families = None if families is None else tuple(dict.fromkeys(families))
    run_families = None if families is None else tuple(sorted({"full-disclosure", *families}))
    frame = evaluate_grid(
        n=n, k=k, metric=rule.name, reps=reps, seed=seed, jobs=jobs, families=run_families
    )
    summary = summarise(frame)
    kwargs: _Tolerances = {"tau_tolerance": tau_tolerance, "share_fraction": share_fraction}
    shaky = [s for s in summary.index if summary.loc[s, "family"] == "shaky-ladder"]
    return Advice(
        rule=rule,
        n=n,
        k=k,
        summary=summary,
        frame=frame,
        recommended=recommend(summary, **kwargs),
        recommended_shaky=recommend(summary, among=shaky, **kwargs) if shaky else None,
        eligible=tuple(eligible(summary, **kwargs)),
        command=advise_command(n=n, k=k, metric=rule.name, reps=reps, seed=seed, families=families),
    )
