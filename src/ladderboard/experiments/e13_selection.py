"""E13: a real randomized search on a small validation set, chosen through a
plain validation set, Thresholdout and the ladders.

Keeping the best of many candidates on one validation set overfits it: the
winner's validation score is biased upwards (Blum & Hardt 2015, Sec. 1;
Dwork et al. 2015, Science). The data are scikit-learn's bundled Wisconsin
breast-cancer set (569 rows, 30 features; no download). Each repetition
splits it anew, stratified: ``N_TEST`` rows of test data nobody touches,
``N_VALIDATION`` rows of validation data, the rest for training. A
:class:`~ladderboard.integrations.sklearn.GuardedRandomizedSearch` tries
``N_ITER`` decision trees (depth, leaf size, features per split, criterion,
splitter and seed drawn at random: many candidates of near-equal accuracy,
as in a real search) and keeps the one with the best released 0/1 loss, for
each arm:

* ``full disclosure``: the plain validation set, every score exact;
* ``Thresholdout``: Dwork et al.'s experiments' ``T = 0.04`` and ``τ = 0.01``,
  with the tree's training accuracy as its training estimate and a budget of
  one holdout answer per candidate (never spent);
* ``Thresholdout 4/√n``: ``T = 4/√n`` and the Laplace scale ``σ = 1/√n``
  (0.04 and 0.01 at the paper's ``n = 10,000``; 0.4 and 0.1 here), the
  Science experiment's numbers scaled with ``n``: large noise;
* ``PF Ladder``: the parameter-free Ladder (Blum & Hardt 2015, Fig. 2), the
  guard's default;
* ``Shaky Ladder``: the Shaky Ladder's default (Hardt 2017; noise and step
  ``0.25/√n``).

Every arm sees the same split and the same candidates in the same order. Per
repetition and arm: the released validation accuracy of the chosen model,
its exact validation accuracy, its test accuracy, and the optimism
(released validation minus test).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from ladderboard._validation import check_int
from ladderboard.advisor.yardstick import t_interval
from ladderboard.experiments.registry import Experiment, RunInfo
from ladderboard.random import KeyedStream, RandomState
from ladderboard.tasks.reports import (
    load_template,
    markdown_table,
    new_figure,
    run_line,
    save_figure,
)
from ladderboard.tasks.runner import Task, task_seed

__all__ = ["ARMS", "E13", "EXPERIMENT", "e13_cell", "e13_tasks"]

N_TEST = 200
N_VALIDATION = 100
N_ITER = 300
QUICK_N_ITER = 40

ARMS: dict[str, tuple[str, dict[str, Any]]] = {
    "full disclosure": ("full-disclosure", {}),
    "Thresholdout": ("thresholdout", {"threshold": 0.04, "noise_scale": 0.01}),
    "Thresholdout 4/√n": ("thresholdout", {"noise_scale": 1 / math.sqrt(N_VALIDATION)}),
    "PF Ladder": ("parameter-free-ladder", {}),
    "Shaky Ladder": ("shaky-ladder", {}),
}
"""Each arm's mechanism and parameters (a Thresholdout's budget is added per run)."""


def _space() -> dict[str, Any]:
    from scipy.stats import randint

    return {
        "max_depth": randint(1, 13),
        "min_samples_leaf": randint(1, 21),
        "max_features": [None, "sqrt", "log2", 0.5],
        "criterion": ["gini", "entropy"],
        "splitter": ["best", "random"],
        "random_state": randint(0, 2**31 - 1),
    }


def e13_cell(*, n_iter: int, reps: int, first_rep: int = 0, random_state: RandomState) -> Any:
    """``reps`` repetitions of the search under every arm; one row per
    repetition and arm.

    >>> frame = e13_cell(n_iter=5, reps=1, random_state=0)
    >>> list(frame.columns)[:6]
    ['rep', 'arm', 'n_iter', 'validation', 'validation_exact', 'test']
    >>> list(frame.arm) == list(ARMS)
    True
    """
    import warnings

    import pandas as pd
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split
    from sklearn.tree import DecisionTreeClassifier

    from ladderboard.integrations.sklearn import GuardedRandomizedSearch

    n_iter = check_int("n_iter", n_iter, 1)
    reps = check_int("reps", reps, 1)
    X, y = load_breast_cancer(return_X_y=True)
    stream = KeyedStream.from_random_state(random_state)
    rows = []
    for rep in range(first_rep, first_rep + reps):
        sub = stream.derive(f"rep:{rep}")
        seeds = sub.generator(0).integers(2**31 - 1, size=2)
        X_rest, X_test, y_rest, y_test = train_test_split(
            X, y, test_size=N_TEST, stratify=y, random_state=int(seeds[0])
        )
        X_train, X_val, y_train, y_val = train_test_split(
            X_rest, y_rest, test_size=N_VALIDATION, stratify=y_rest, random_state=int(seeds[1])
        )
        for arm, (mechanism, params) in ARMS.items():
            params = dict(params)
            if mechanism == "thresholdout":
                params["budget"] = n_iter
            search = GuardedRandomizedSearch(
                DecisionTreeClassifier(),
                _space(),
                n_iter=n_iter,
                score="zero_one",
                mechanism=mechanism,
                mechanism_params=params,
                validation_data=(X_val, y_val),
                random_state=sub.derive("search"),
            )
            with warnings.catch_warnings():
                # A search that overfits warns as scikit-learn does; the table says it.
                warnings.simplefilter("ignore", UserWarning)
                search.fit(X_train, y_train)
            model = search.best_estimator_
            guard = search.holdout_
            validation = 1.0 - float(search.best_score_)
            test = float(np.mean(model.predict(X_test) == y_test))
            spent = guard.answers_left() if mechanism == "thresholdout" else None
            rows.append(
                {
                    "rep": rep,
                    "arm": arm,
                    "n_iter": n_iter,
                    "validation": validation,
                    "validation_exact": float(np.mean(model.predict(X_val) == y_val)),
                    "test": test,
                    "optimism": validation - test,
                    "best_index": int(search.best_index_),
                    "holdout_answers": math.nan if spent is None else n_iter - spent,
                    "n_train": int(y_train.size),
                    "n_validation": N_VALIDATION,
                    "n_test": N_TEST,
                }
            )
    return pd.DataFrame(rows)


def e13_tasks(*, reps: int, quick: bool, seed: int) -> list[Task]:
    """One task per repetition (a split), all arms inside it (paired)."""
    n_iter = QUICK_N_ITER if quick else N_ITER
    return [
        Task(
            e13_cell,
            {
                "n_iter": n_iter,
                "reps": 1,
                "first_rep": rep,
                "random_state": task_seed(seed, "e13", n_iter),
            },
        )
        for rep in range(reps)
    ]


# --------------------------------------------------------------------- outputs
def _interval(values: Any) -> tuple[float, float]:
    """The mean and the half-width of its 95 % Student-t interval (``nan`` from
    one split).

    The splits are few (4 in a quick run, 20 to 50 in a full one), so the
    quantile is Student's t with ``splits − 1`` degrees of freedom, not the
    normal 1.96: at 4 splits the normal interval is 38 % too narrow.

    >>> [round(v, 4) for v in _interval([0.0, 0.1])]  # t_{0.975, 1} = 12.71
    [0.05, 0.6353]
    """
    interval = t_interval(np.asarray(values, dtype=np.float64))
    return interval.mean, interval.half_width


def _text(values: Any) -> str:
    mean, half = _interval(values)
    return f"{mean:.3f}" if not math.isfinite(half) else f"{mean:.3f} ± {half:.3f}"


def e13_plot(frame: Any, stem: Path) -> list[Path]:
    """Left: optimism per arm; right: the chosen model's test accuracy; means
    with 95 % Student-t intervals over the splits."""
    figure, (left, right) = new_figure(2)
    arms = [a for a in ARMS if a in set(frame.arm)]
    where = np.arange(len(arms))
    for ax, column, label in (
        (left, "optimism", "released validation − test accuracy"),
        (right, "test", "test accuracy of the chosen model"),
    ):
        stats = [_interval(frame[frame.arm == a][column]) for a in arms]
        ax.errorbar(
            where,
            [s[0] for s in stats],
            yerr=[0.0 if not math.isfinite(s[1]) else s[1] for s in stats],
            fmt="o",
            capsize=4,
        )
        ax.set_xticks(where, arms, rotation=20, fontsize=8)
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
    left.axhline(0.0, color="grey", lw=0.8)
    n_iter = int(frame.n_iter.iloc[0])
    figure.suptitle(
        f"E13: randomized search of {n_iter} trees, breast cancer, "
        f"{N_VALIDATION} validation rows: mean and 95 % Student-t interval over "
        f"{frame.rep.nunique()} splits"
    )
    return save_figure(figure, stem)


def e13_report(frame: Any, info: RunInfo) -> str:
    """Optimism and test accuracy per arm, with intervals, paired against the
    plain validation set."""
    arms = [a for a in ARMS if a in set(frame.arm)]
    plain = frame[frame.arm == "full disclosure"].set_index("rep")
    rows = []
    for arm in arms:
        part = frame[frame.arm == arm].set_index("rep")
        rows.append(
            [
                arm,
                _text(part.validation),
                _text(part.validation_exact),
                _text(part.test),
                _text(part.optimism),
                _text(part.optimism - plain.optimism.reindex(part.index)),
                _text(part.test - plain.test.reindex(part.index)),
                (
                    "–"
                    if part.holdout_answers.isna().all()
                    else f"{part.holdout_answers.mean():.0f}"
                ),
            ]
        )
    n_iter = int(frame.n_iter.iloc[0])
    command = f"ladderboard experiment run e13 --reps {info.reps} --seed {info.seed}"
    if info.quick:
        command += " --quick"
    header = [
        "arm",
        "released validation",
        "exact validation",
        "test",
        "optimism",
        "optimism − plain",
        "test − plain",
        "holdout answers",
    ]
    return load_template("ladderboard.experiments", "e13").report(
        n_test=N_TEST,
        n_validation=N_VALIDATION,
        n_train=int(frame.n_train.iloc[0]),
        n_iter=n_iter,
        reps=frame.rep.nunique(),
        dof=frame.rep.nunique() - 1,
        table=markdown_table(header, rows),
        noise_scale=f"{1 / math.sqrt(N_VALIDATION):.2f}",
        run_line=run_line(info, command),
    )


EXPERIMENT = E13 = Experiment(
    id="e13",
    aliases=("selection", "guarded-search"),
    description=(
        "A randomized search of 300 trees on breast cancer with 100 validation rows: "
        "plain validation set vs Thresholdout and ladders, optimism and test accuracy"
    ),
    reps=50,
    quick_reps=4,
    tasks=e13_tasks,
    plot=e13_plot,
    report=e13_report,
)
"""E13: a randomized search chosen through a plain, a Thresholdout and a
ladder-guarded validation set."""
