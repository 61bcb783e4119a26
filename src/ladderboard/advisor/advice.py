"""Run the grid, summarise it, and recommend a setting.

:func:`evaluate_grid` plays, for each repetition, the attack suite and the
honest teams against every setting on the same hidden data (so settings are
compared paired), and returns a tidy table with one row per repetition,
setting and measure. :func:`summarise` reduces it to one row per setting,
:func:`recommend` applies the advisor's rule, and :func:`advise` does all
three.

The yardstick is the papers' (Blum & Hardt 2015, Def. 2.1): an attack's raw
gain, the true loss of what it would select minus what the board displays at
the end. A setting's *binding* attack has the largest mean raw gain; its
*excess* is that raw gain over a reference no board's noise moves (under the
0/1 loss the best of ``k`` blind files on the noiseless full-disclosure board
of the same labels, paired by repetition; under the other scores none is
defined and the excess is the raw gain itself). Blind play on the board
itself is never subtracted: on a noisy board it selects the board's noise.

The rule (:func:`recommend`): among the protected settings (never full
disclosure, at any precision) whose honest-team utility is within a
tolerance of full disclosure's (Kendall's tau at most ``tau_tolerance`` =
0.05 lower than ``Kaggle 1e-5``'s, and at least ``share_fraction`` = half of
the true improvements it releases at once also released), choose the one
whose binding excess has the lowest top of its 95 % interval, so that a
setting is not picked for a mean that is low by chance; ties go to the
higher tau.
"""

from __future__ import annotations

import math
from collections.abc import Callable
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
    "largest_se",
    "recommend",
    "reps_for",
    "summarise",
    "surest",
    "unprotected",
]

UTILITY_MEASURES = ("tau", "share_released", "median_delay", "n_improvements")
ATTACK_MEASURES = ("raw_gain", "baseline_gap", "excess", "lberr")
"""Per attack and repetition: its raw gain, its non-adaptive baseline's, the
excess (their difference) and the lberr of its sequence."""
REFERENCE_MEASURE = "blind_reference"
"""Per setting and repetition (0/1 loss): the raw gain of the best of ``k``
blind files on the noiseless full-disclosure board of the repetition's
public labels (:func:`~ladderboard.advisor.yardstick.blind_gain`), the same
for every setting: a reference no board's noise moves."""
INTERVAL = 0.95
"""The confidence of the interval on the binding excess gain."""
MAX_REPS = 200
"""The most repetitions a ``target_se`` run adds up to."""
TAU_TOLERANCE = 0.05
SHARE_FRACTION = 0.5


def check_options(n: Any, k: Any, score: Any, reps: Any = 1, seed: Any = 0, jobs: Any = 1):
    """Validate the advisor's options before any work; return them normalised.

    ``k`` is the budget: the submissions each participant (and attacker) makes.

    >>> check_options(1000, 100, "log_loss")[2].name
    'log_loss'
    >>> check_options(5, 100, "zero_one")
    Traceback (most recent call last):
    ValueError: n must be an integer >= 10, got 5
    """
    n = check_int("n", n, 10)
    k = check_int("budget", k, 1)
    rule = scoring_rule(score)
    reps = check_int("reps", reps, 1)
    seed = check_int("seed", seed, 0)
    jobs = check_int("jobs", jobs, 1)
    return n, k, rule, reps, seed, jobs


def grid_repetition(
    *,
    rep: int,
    score: str,
    n: int,
    k: int,
    n_private: int,
    labels: tuple[str, ...] | None,
    families: tuple[str, ...] | None,
    model: HonestTeams,
    wide: bool = False,
    wide_k: int | None = None,
    random_state: int,
    baselines: bool = True,
    honest: bool = True,
) -> Any:
    """One repetition: every setting against the attacks and the honest teams.

    The settings are ``default_grid`` (kept to ``families``, then to
    ``labels`` when given). The hidden data of the attacks and of the honest
    teams are drawn once per repetition and shared by every setting. Returns a
    tidy DataFrame: ``rep``, ``setting``, ``family``, ``measure`` (one of
    :data:`ATTACK_MEASURES`, see :class:`~ladderboard.advisor.protection.AttackMeasure`,
    or a utility measure), ``attack`` (the attack, for the attack measures),
    ``value``, and the run's ``score``, ``n`` and ``k`` (the budget).
    ``wide`` compares the wide Shaky grid for the budget ``k``, or for
    ``wide_k`` when given, so that runs at several budgets compare the same
    settings. Without ``baselines`` the attacks' non-adaptive baselines are
    not played (their ``baseline_gap`` and ``excess`` rows are left out);
    without ``honest`` the honest teams are not (no utility rows: a run at
    several budgets needs them at one budget only, as they do not depend on it).
    Under the 0/1 loss every setting also has a :data:`REFERENCE_MEASURE`
    row, the same value for all: the fixed reference of the repetition.
    """
    import pandas as pd

    from ladderboard.advisor.honest import honest_utility, simulate_teams
    from ladderboard.advisor.protection import attack_measures, make_attack_data
    from ladderboard.random import KeyedStream

    rule = scoring_rule(score)
    grid = default_grid(rule, families=families, wide_k=(wide_k or k) if wide else None)
    if labels is not None:
        grid = [s for s in grid if s.label in labels]
    stream = KeyedStream.from_random_state(random_state)
    attack_data = make_attack_data(
        rule, n=n, n_private=n_private, k=k, random_state=stream.derive("attack-data")
    )
    teams = simulate_teams(
        rule, n=n, n_private=n_private, model=model, random_state=stream.derive("teams")
    )
    reference = math.nan
    if rule.name == "zero_one":
        from ladderboard.advisor.yardstick import blind_gain

        assert attack_data.labels is not None
        reference = blind_gain(
            attack_data.labels[attack_data.public], k, stream.derive("blind").generator(0)
        )
    measured = ATTACK_MEASURES if baselines else ("raw_gain", "lberr")
    rows = []
    for setting in grid:
        measures = attack_measures(
            setting,
            rule,
            attack_data,
            k=k,
            random_state=stream.derive(f"gaps:{setting.label}"),
            baselines=baselines,
        )
        for attack, m in measures.items():
            for measure in measured:
                rows.append(
                    (rep, setting.label, setting.family, measure, attack, getattr(m, measure))
                )
        if math.isfinite(reference):
            rows.append((rep, setting.label, setting.family, REFERENCE_MEASURE, "", reference))
        if not honest:
            continue
        utility = honest_utility(
            setting, rule, teams, model=model, random_state=stream.derive(f"teams:{setting.label}")
        )
        for measure in UTILITY_MEASURES:
            rows.append((rep, setting.label, setting.family, measure, "", utility[measure]))
    frame = pd.DataFrame(rows, columns=["rep", "setting", "family", "measure", "attack", "value"])
    return frame.assign(score=rule.name, n=n, k=k)


def grid_tasks(
    *,
    reps: int,
    seed: int,
    score: str,
    n: int,
    k: int,
    n_private: int | None = None,
    labels: tuple[str, ...] | None = None,
    families: tuple[str, ...] | None = None,
    model: HonestTeams | None = None,
    name: str = "advisor",
    first_rep: int = 0,
    wide: bool = False,
    wide_k: int | None = None,
    baselines: bool = True,
    honest: bool = True,
) -> list[Task]:
    """One :class:`Task` per repetition (``first_rep``, ``first_rep + 1``, …),
    each with its own seed: repetition ``r`` is the same in every run."""
    from ladderboard.advisor.honest import HonestTeams

    n_private = 2 * n if n_private is None else n_private
    model = HonestTeams(submissions=min(k, 40)) if model is None else model
    return [
        Task(
            grid_repetition,
            {
                "rep": r,
                "score": score,
                "n": n,
                "k": k,
                "n_private": n_private,
                "labels": labels,
                "families": families,
                "model": model,
                "wide": wide,
                "wide_k": wide_k,
                "random_state": task_seed(seed, name, score, n, k, r),
                "baselines": baselines,
                "honest": honest,
            },
        )
        for r in range(first_rep, first_rep + reps)
    ]


def evaluate_grid(
    *,
    n: int,
    k: int,
    score: str = "zero_one",
    reps: int = 3,
    seed: int = 0,
    jobs: int = 1,
    n_private: int | None = None,
    families: Any = None,
    labels: Any = None,
    model: HonestTeams | None = None,
    progress: Callable[[int, int], None] | None = None,
    first_rep: int = 0,
    wide: bool = False,
) -> Any:
    """The tidy table of :func:`grid_repetition` over ``reps`` repetitions
    (numbered from ``first_rep``),
    run on ``jobs`` worker processes (the result does not depend on ``jobs``);
    ``progress(done, total)``, when given, is called as each repetition ends.
    """
    from ladderboard.tasks.runner import run_tasks

    n, k, rule, reps, seed, jobs = check_options(n, k, score, reps, seed, jobs)
    if n_private is not None:
        n_private = check_int("n_private", n_private, 1)
    import pandas as pd

    tasks = grid_tasks(
        reps=reps,
        seed=seed,
        score=rule.name,
        n=n,
        k=k,
        n_private=n_private,
        families=None if families is None else tuple(families),
        labels=None if labels is None else tuple(labels),
        model=model,
        first_rep=first_rep,
        wide=wide,
    )
    return pd.concat(run_tasks(tasks, jobs=jobs, progress=progress), ignore_index=True)


def summarise(frame: Any, *, confidence: float = INTERVAL) -> Any:
    """One row per setting (in the grid's order).

    The *binding* attack is the one with the largest mean raw gain (the true
    loss of its selection minus what the board displays at the end,
    :func:`~ladderboard.advisor.protection.attack_measures`). Its *excess*,
    per repetition, is that raw gain minus the repetition's fixed reference
    (:data:`REFERENCE_MEASURE`, under the 0/1 loss; the raw gain itself where
    the frame has none). Columns: ``family``; ``binding_attack``;
    ``excess_gain`` (the mean excess over repetitions), ``excess_se`` (the
    standard error of that mean: the sample standard deviation over
    ``√reps``; ``nan`` from one repetition) and the two-sided ``confidence``
    interval ``excess_low``, ``excess_high`` (mean ± Student's t quantile with
    ``reps − 1`` degrees of freedom × SE); ``gain``, the binding attack's mean
    raw gain, and ``baseline_gap``, its blind baseline's on the board itself
    (``nan`` when not played; reported, never ranked by); ``reference``, the
    mean fixed reference; ``lberr``, the largest mean leaderboard error of an
    attack's sequence (Blum & Hardt 2015, Def. 2.1); ``reps``; the mean of
    each utility measure; and each attack's mean raw gain and excess
    (``gap: <attack>``, ``excess: <attack>``).
    """
    import numpy as np
    import pandas as pd
    from scipy import stats

    order = list(dict.fromkeys(frame.setting))
    attacks = frame[frame.measure.isin(ATTACK_MEASURES)]
    means = attacks.pivot_table(
        index=["setting", "attack"], columns="measure", values="value", aggfunc="mean"
    )
    gains = attacks[attacks.measure == "raw_gain"]
    references = frame[frame.measure == REFERENCE_MEASURE]
    rows = []
    for label in order:
        here = frame[frame.setting == label]
        row: dict[str, Any] = {"setting": label, "family": here.family.iloc[0]}
        mine = means.loc[label] if label in means.index.get_level_values(0) else None
        reference = references[references.setting == label].groupby("rep").value.mean()
        row.update(
            binding_attack="",
            excess_gain=math.nan,
            excess_se=math.nan,
            excess_low=math.nan,
            excess_high=math.nan,
            gain=math.nan,
            baseline_gap=math.nan,
            reference=float(reference.mean()) if len(reference) else math.nan,
            lberr=math.nan,
        )
        if mine is not None and mine["raw_gain"].notna().any():
            binding = str(mine["raw_gain"].idxmax())
            by_rep = gains[(gains.setting == label) & (gains.attack == binding)]
            by_rep = by_rep.groupby("rep").value.mean()
            if len(reference):
                by_rep = by_rep - reference.reindex(by_rep.index)
            values = by_rep.to_numpy(dtype=float)
            values = values[np.isfinite(values)]
            mean = float(values.mean())
            se = float(values.std(ddof=1) / math.sqrt(values.size)) if values.size > 1 else math.nan
            half = (
                float(stats.t.ppf(0.5 + confidence / 2, values.size - 1)) * se
                if values.size > 1
                else math.nan
            )
            baseline = mine.get("baseline_gap", None)
            row.update(
                binding_attack=binding,
                excess_gain=mean,
                excess_se=se,
                excess_low=mean - half,
                excess_high=mean + half,
                gain=float(mine.loc[binding, "raw_gain"]),
                baseline_gap=float(baseline.loc[binding]) if baseline is not None else math.nan,
                lberr=float(mine["lberr"].max()),
            )
        row["reps"] = int(here.rep.nunique())
        for measure in UTILITY_MEASURES:
            values = here[here.measure == measure].value
            row[measure] = float(values.mean()) if len(values) else math.nan
        if mine is not None:
            offset = row["reference"] if math.isfinite(row["reference"]) else 0.0
            for attack, stats_row in mine.iterrows():
                row[f"gap: {attack}"] = float(stats_row["raw_gain"])
            for attack, stats_row in mine.iterrows():
                row[f"excess: {attack}"] = float(stats_row["raw_gain"]) - offset
        rows.append(row)
    return pd.DataFrame(rows).set_index("setting")


def unprotected(summary: Any) -> list[str]:
    """The settings that protect nothing: full disclosure at any precision
    (family ``full-disclosure``; by label, ``Kaggle …``, in a table without
    families). The advisor never recommends one.

    >>> import pandas as pd
    >>> unprotected(pd.DataFrame(index=["Kaggle 1e-5", "Kaggle 1/√n", "PF Ladder"]))
    ['Kaggle 1e-5', 'Kaggle 1/√n']
    """
    if "family" in summary:
        return [str(s) for s in summary.index[(summary.family == "full-disclosure").to_numpy()]]
    return [str(s) for s in summary.index if str(s).startswith("Kaggle")]


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
    ...     "excess_gain": [0.07, 0.01, 0.0, 0.0], "tau": [0.90, 0.88, 0.70, 0.90],
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
        & summary.excess_gain.notna()
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
    """The advisor's rule: among the protected settings (of ``among``, a list
    of labels, when given; never one of :func:`unprotected`) that are
    :func:`eligible`, the one whose binding attack's excess (its raw gain
    over the fixed reference, :func:`summarise`) has the lowest
    ``excess_high``, the top of its interval (the mean, ``excess_gain``,
    where there is no interval, as from one repetition); ties go to the
    higher ``tau``. When none is eligible, the protected one with the highest
    ``tau`` (see :func:`eligible` to tell).

    >>> import pandas as pd
    >>> table = pd.DataFrame({
    ...     "setting": ["Kaggle 1e-5", "A", "B", "C"],
    ...     "excess_gain": [0.07, 0.01, 0.002, 0.03],
    ...     "tau": [0.90, 0.88, 0.70, 0.90],
    ...     "share_released": [0.9, 0.85, 0.9, 0.9]}).set_index("setting")
    >>> recommend(table), recommend(table, tau_tolerance=0.3), recommend(table, among=["B", "C"])
    ('A', 'B', 'C')
    >>> table["excess_high"] = [0.08, 0.012, 0.02, 0.031]   # A's gain is the surer
    >>> recommend(table, tau_tolerance=0.3)
    'A'
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
    open_boards = set(unprotected(summary))
    if all(s in open_boards for s in pool.index):
        raise ValueError(f"among names only unprotected boards: {list(pool.index)!r}")
    pool = pool.loc[[s for s in pool.index if s not in open_boards]]
    good = pool.loc[[s for s in pool.index if s in ok]]
    if good.empty:
        return str(pool.tau.idxmax())
    return surest(good)


def surest(table: Any) -> str:
    """The setting of ``table`` whose binding excess gain has the lowest top
    of its interval (``excess_high``, or the mean ``excess_gain`` where there
    is no interval); ties go to the higher ``tau``. The advisor's rule and the
    defaults' rule both rank by it."""
    top = table.excess_high if "excess_high" in table else table.excess_gain
    top = top.where(top.notna(), table.excess_gain)
    ranked = table.assign(_top=top, _neg_tau=-table.tau).sort_values(
        ["_top", "_neg_tau"], kind="stable"
    )
    return str(ranked.index[0])


def advise_command(
    *, n: int, k: int, score: str, reps: int, seed: int, families: Any = None, wide: bool = False
) -> str:
    """The command line that reproduces an advice.

    >>> advise_command(n=4000, k=100, score="zero_one", reps=3, seed=0)
    'ladderboard advise --n 4000 --budget 100 --score zero_one --reps 3 --seed 0'
    """
    command = f"ladderboard advise --n {n} --budget {k} --score {score} --reps {reps} --seed {seed}"
    for family in families or ():
        command += f" --family {family}"
    if wide:
        command += " --wide"
    return command


class _Tolerances(TypedDict):
    """The utility tolerances :func:`eligible` and :func:`recommend` take."""

    tau_tolerance: float
    share_fraction: float


@dataclass(frozen=True, slots=True)
class Advice:
    """The advisor's answer: the summary table, the recommendation (overall and
    among the Shaky Ladder settings), the settings within the utility
    tolerance, the repetitions run, whether the target standard error was
    reached (``None`` without a target), and the command that reproduces it."""

    rule: ScoringRule
    n: int
    k: int
    summary: Any
    frame: Any
    recommended: str
    recommended_shaky: str | None
    eligible: tuple[str, ...]
    command: str
    reps: int = 0
    target_se: float | None = None
    target_reached: bool | None = None


def largest_se(summary: Any) -> float:
    """The largest standard error of a binding excess gain (``inf`` when one
    is unknown, as from a single repetition).

    >>> import pandas as pd
    >>> largest_se(pd.DataFrame({"excess_se": [0.002, 0.004]}))
    0.004
    """
    values = summary.excess_se.to_numpy(dtype=float)
    return math.inf if (values != values).any() else float(values.max())


def reps_for(reps: int, se: float, target: float, max_reps: int) -> int:
    """The repetitions to run next for a standard error of ``se`` after
    ``reps`` to fall to ``target`` (it falls as ``1/√reps``), at most ``max_reps``.

    >>> reps_for(3, 0.006, 0.003, 200), reps_for(3, float("inf"), 0.003, 200)
    (12, 6)
    >>> reps_for(100, 0.01, 0.003, 200)
    200
    """
    wanted = 2 * reps if math.isinf(se) else math.ceil(reps * (se / target) ** 2)
    return min(max(wanted, reps + 1), max_reps)


def advise(
    *,
    n: int,
    k: int,
    score: str = "zero_one",
    reps: int = 3,
    seed: int = 0,
    jobs: int = 1,
    families: Any = None,
    tau_tolerance: float = TAU_TOLERANCE,
    share_fraction: float = SHARE_FRACTION,
    target_se: float | None = None,
    max_reps: int = MAX_REPS,
    progress: Callable[[int, int], None] | None = None,
    wide: bool = False,
) -> Advice:
    """Run the grid at holdout size ``n`` and budget ``k`` (submissions per
    participant) under ``score`` (a registered loss: ``zero_one``,
    ``log_loss``, ``squared``) and recommend a setting.

    Full disclosure at ``1e-5`` (the utility reference) is always evaluated.
    With ``target_se``, repetitions are added after the first ``reps`` until
    every setting's binding excess gain has a standard error of at most
    ``target_se``, or ``max_reps`` repetitions have run (then
    ``Advice.target_reached`` is false); repetition ``r`` is the same in any
    run, so the command printed (with the repetitions run) reproduces the
    advice. ``jobs`` worker processes share the repetitions;
    ``progress(done, total)``, when given, is called as each repetition ends.
    ``wide`` compares the wide Shaky grid (:func:`~ladderboard.advisor.grid.
    wide_shaky_multiples`, 35 Shaky settings up to the analysis's
    step-to-noise ratio at ``k``) instead of the default eight.
    """
    import pandas as pd

    n, k, rule, reps, seed, jobs = check_options(n, k, score, reps, seed, jobs)
    if target_se is not None:
        target_se = check_real("target_se", target_se, low=0)
        max_reps = check_int("max_reps", max_reps, reps)
    families = None if families is None else tuple(dict.fromkeys(families))
    run_families = None if families is None else tuple(sorted({"full-disclosure", *families}))

    def run(first: int, count: int) -> Any:
        return evaluate_grid(
            n=n,
            k=k,
            score=rule.name,
            reps=count,
            seed=seed,
            jobs=jobs,
            families=run_families,
            progress=progress,
            first_rep=first,
            wide=wide,
        )

    frame = run(0, reps)
    summary = summarise(frame)
    reached = None
    if target_se is not None:
        while largest_se(summary) > target_se and reps < max_reps:
            more = reps_for(reps, largest_se(summary), target_se, max_reps)
            frame = pd.concat([frame, run(reps, more - reps)], ignore_index=True)
            reps = more
            summary = summarise(frame)
        reached = largest_se(summary) <= target_se
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
        command=advise_command(
            n=n, k=k, score=rule.name, reps=reps, seed=seed, families=families, wide=wide
        ),
        reps=reps,
        target_se=target_se,
        target_reached=reached,
    )
