"""E10: how much LadderBoot's release varies, by prediction quality and by
``b`` (Chaibub Neto et al. 2016, Supplementary Text S4, Figs. S12-S13), and
what averaging resubmissions wins back (the "average across repeated
submissions" attack of the paper's Discussion).

LadderBoot (Alg. 4) releases the mean of ``b`` bootstrap means of the best
loss vector, a fresh draw at each submission. Its spread is
``sd_pop(l)/√(b n)``: it falls like ``1/√b``, and with the spread of the
squared errors, i.e. with the prediction's quality. On the paper's simulated
design (``n = 120``, 40 public rows, *unpermuted* response), each repetition
scores ten predictions of the public response:

* eight "noisy truths" (Fig. S13), the scaled response plus decreasing
  multiples of one Gaussian noise vector, rescaled, whose population
  correlation with the response runs from 0.18 to 0.92 (so their MSE
  ``2(1 - r)`` runs from 1.64 to 0.16, the paper's range);
* a cross-validated lasso and a 3-nearest-neighbour regression fitted on the
  training set (Fig. S12).

For each prediction and ``b`` it draws ``R`` releases (10,000 as in the paper)
with the mechanism's own kernel (one multinomial count vector per release),
and runs the averaging attack (:func:`~ladderboard.attacks.averaging_attack`,
``T`` resubmissions) against a real :class:`~ladderboard.mechanisms.LadderBoot`
board. Each repetition is one task.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, TypedDict

import numpy as np

from ladderboard._validation import check_int
from ladderboard.attacks import HoldoutOracle, averaging_attack
from ladderboard.experiments._bootstrap_sweeps import design_data, spread_of_mean_of_means
from ladderboard.experiments.registry import Experiment, RunInfo
from ladderboard.mechanisms import LadderBoot
from ladderboard.random import KeyedStream, RandomState
from ladderboard.tasks.reports import (
    load_template,
    markdown_table,
    new_figure,
    run_line,
    save_figure,
)
from ladderboard.tasks.runner import Task, task_seed

__all__ = ["CORRELATIONS", "E10", "EXPERIMENT", "e10_repetition", "e10_tasks"]

CORRELATIONS = (0.18, 0.29, 0.39, 0.50, 0.60, 0.71, 0.81, 0.92)
"""Population correlations of the eight noisy truths: MSE ``2(1 - r)`` from 1.64
to 0.16, the range of the paper's Fig. S13 (1.64 to 0.15, Pearson 0.18 to 0.92)."""
BS = (10, 100, 1000, 10000)
RELEASES = 10_000
T = 100
P = 1000
QUICK_BS = (10, 1000)
QUICK_RELEASES = 1000
QUICK_T = 20
LASSO = "lasso"
KNN = "knn (k=3)"


class _Paper(TypedDict):
    """The keys of :data:`PAPER`."""

    S13_mse: tuple[float, float]
    S13_pearson: tuple[float, float]
    S12_lasso_mse: float
    S12_knn_mse: float


PAPER: _Paper = {
    "S13_mse": (1.64, 0.15),
    "S13_pearson": (0.18, 0.92),
    "S12_lasso_mse": 0.79,
    "S12_knn_mse": 1.12,
}
"""The numbers Supplementary Text S4 gives."""


def _scaled(v: np.ndarray) -> np.ndarray:
    return (v - v.mean()) / v.std(ddof=1)


def _predictions(data: Any, rng: np.random.Generator) -> list[tuple[str, float, np.ndarray]]:
    """``(model, target correlation, prediction of the public rows)``; nan for fitted models."""
    from sklearn.linear_model import LassoCV
    from sklearn.neighbors import KNeighborsRegressor

    y = data.y_public
    noise = rng.standard_normal(y.shape[0])  # one noise vector, scaled down level by level
    out = []
    for r in CORRELATIONS:
        sigma = math.sqrt(1.0 / (r * r) - 1.0)
        out.append((f"r={r:.2f}", r, _scaled(y + sigma * noise)))
    # LassoCV's own grid (20 alphas down from the smallest that zeroes every
    # coefficient), spelled out so that it means the same in every scikit-learn.
    X, t = data.X_train, data.y_train
    top = float(np.max(np.abs((X - X.mean(axis=0)).T @ (t - t.mean())))) / X.shape[0]
    grid = np.geomspace(top, top * 1e-3, 20)
    lasso = LassoCV(cv=5, alphas=grid, tol=1e-3).fit(X, t)
    out.append((LASSO, math.nan, lasso.predict(data.X_public)))
    knn = KNeighborsRegressor(n_neighbors=3).fit(data.X_train, data.y_train)
    out.append((KNN, math.nan, knn.predict(data.X_public)))
    return out


def release_draws(losses: np.ndarray, b: int, count: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` LadderBoot releases of ``losses``: each the mean of ``b``
    bootstrap means, i.e. of ``b·n`` draws with replacement, from one
    multinomial count vector (:func:`ladderboard.bootstrap.bootstrap_mean_of_means`,
    vectorised over releases).

    >>> draws = release_draws(np.array([0.0, 1.0]), 50, 4000, np.random.default_rng(0))
    >>> round(float(draws.mean()), 2), round(float(draws.std() * np.sqrt(100)), 1)
    (0.5, 0.5)
    """
    n = losses.shape[0]
    counts = rng.multinomial(b * n, np.full(n, 1.0 / n), size=count)
    return counts @ losses / (b * n)


def e10_repetition(
    *,
    rep: int,
    bs: tuple[int, ...] = BS,
    releases: int = RELEASES,
    T: int = T,
    p: int = P,
    random_state: RandomState,
) -> Any:
    """One simulated design: every prediction, every ``b``; a tidy DataFrame.

    Draws from ``KeyedStream.from_random_state(random_state)``: the design from
    ``derive("data")``, the noisy truths from ``derive("noise").generator(0)``,
    prediction ``i``'s releases at ``b`` from ``derive("releases").generator(i, b)``
    and its LadderBoot board from ``derive(f"board/{i}/{b}")``. Columns:
    ``rep``, ``model``, ``target_r``, ``mse`` (exact public MSE), ``pearson``,
    ``b``, ``n``, ``release_mean``, ``release_sd`` (over ``releases`` draws),
    ``theory_sd`` (``sd_pop(l)/√(b n)``), ``T``, ``single_error`` (first release
    of the board minus the exact MSE) and ``averaged_error`` (the averaging
    attack's estimate minus the exact MSE).

    >>> f = e10_repetition(rep=0, bs=(10, 1000), releases=500, T=10, p=30, random_state=0)
    >>> sorted(f.b.unique().tolist()), f.model.nunique()
    ([10, 1000], 10)
    >>> ratio = f[f.b == 10].release_sd.to_numpy() / f[f.b == 1000].release_sd.to_numpy()
    >>> bool(((ratio > 8) & (ratio < 12.5)).all())      # 1/√b: √(1000/10) = 10
    True
    """
    import pandas as pd

    rep = check_int("rep", rep, 0)
    bs = tuple(check_int("b", b, 1) for b in bs)
    if not bs:
        raise ValueError("bs must hold at least one b")
    releases = check_int("releases", releases, 2)
    T = check_int("T", T, 2)
    p = check_int("p", p, 1)
    stream = KeyedStream.from_random_state(random_state)
    data = design_data("simulated", p=p, permute=False, random_state=stream.derive("data"))
    y = data.y_public
    n = y.shape[0]
    draws = stream.derive("releases")
    rows = []
    for i, (model, target, prediction) in enumerate(
        _predictions(data, stream.derive("noise").generator(0))
    ):
        losses = (prediction - y) ** 2
        mse = float(losses.mean())
        pearson = float(np.corrcoef(prediction, y)[0, 1]) if prediction.std() > 0 else math.nan
        for b in bs:
            values = release_draws(losses, b, releases, draws.generator(i, b))
            board = LadderBoot(b=b, random_state=stream.derive(f"board/{i}/{b}"))
            oracle = HoldoutOracle(y, board, loss="squared")
            true_score = oracle.holdout_score(prediction)
            attack = averaging_attack(oracle, prediction, T=T, true_score=true_score)
            rows.append(
                {
                    "rep": rep,
                    "model": model,
                    "target_r": target,
                    "mse": mse,
                    "pearson": pearson,
                    "b": b,
                    "n": n,
                    "release_mean": float(values.mean()),
                    "release_sd": float(values.std(ddof=1)),
                    "theory_sd": spread_of_mean_of_means(losses, b),
                    "T": T,
                    "single_error": float(attack.released[0]) - true_score,
                    "averaged_error": attack.error,
                }
            )
    return pd.DataFrame(rows)


def e10_tasks(*, reps: int, quick: bool, seed: int) -> list[Task]:
    """One task per repetition (design), each with its own seed."""
    settings = {
        "bs": QUICK_BS if quick else BS,
        "releases": QUICK_RELEASES if quick else RELEASES,
        "T": QUICK_T if quick else T,
    }
    return [
        Task(e10_repetition, {"rep": r, **settings, "random_state": task_seed(seed, "e10", r)})
        for r in range(reps)
    ]


# --------------------------------------------------------------------- outputs
def _noisy(frame: Any) -> Any:
    return frame[frame.target_r.notna()]


def e10_plot(frame: Any, stem: Path) -> list[Path]:
    """Left: spread of the releases against the prediction's MSE, per b (Fig. S13b),
    lasso and knn marked (Fig. S12); middle: spread times √b, which collapses the b's;
    right: the averaging attack's error against a single release's."""
    figure, (left, middle, right) = new_figure(3, width=5.0)
    noisy = _noisy(frame)
    for b in sorted(frame.b.unique()):
        stats = noisy[noisy.b == b].groupby("target_r")[["mse", "release_sd"]].mean()
        stats = stats.sort_values("mse")
        line = left.plot(stats.mse, stats.release_sd, marker="o", markersize=3, label=f"b = {b}")
        middle.plot(
            stats.mse, stats.release_sd * math.sqrt(b), marker="o", markersize=3, label=f"b = {b}"
        )
        for model, marker in ((LASSO, "s"), (KNN, "^")):
            fitted = frame[(frame.model == model) & (frame.b == b)]
            left.scatter(
                fitted.mse.mean(),
                fitted.release_sd.mean(),
                marker=marker,
                color=line[0].get_color(),
                s=30,
                zorder=3,
            )
    left.scatter([], [], marker="s", color="grey", label="lasso")
    left.scatter([], [], marker="^", color="grey", label="knn (k=3)")
    left.set_yscale("log")
    left.set_ylabel("sd of the released MSE")
    left.set_title("Spread by quality and b (Figs. S12-S13)")
    middle.set_ylabel("sd × √b")
    middle.set_title("The 1/√b law: the curves coincide")
    for ax in (left, middle):
        ax.set_xlabel("exact public MSE of the prediction")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    t = int(frame["T"].iloc[0])
    errors = frame.groupby("b")[["single_error", "averaged_error"]].agg(
        lambda v: float(np.sqrt(np.mean(np.square(v))))
    )
    x = np.arange(len(errors))
    right.bar(x - 0.2, errors.single_error, width=0.4, label="one release")
    right.bar(x + 0.2, errors.averaged_error, width=0.4, label=f"mean of T = {t} releases (A7)")
    right.set_xticks(x, [f"b = {b}" for b in errors.index])
    right.set_yscale("log")
    right.set_ylabel("RMS error of the estimated public MSE")
    right.set_title("Averaging attack (A7)")
    right.grid(alpha=0.3)
    right.legend(fontsize=7)
    figure.suptitle(
        f"E10 (Chaibub Neto et al. 2016, S4): LadderBoot's release spread, n = "
        f"{int(frame.n.iloc[0])} public rows, {frame.rep.nunique()} designs"
    )
    return save_figure(figure, stem)


def _monotone(frame: Any) -> bool:
    noisy = _noisy(frame)
    for b in noisy.b.unique():
        sd = noisy[noisy.b == b].groupby("target_r").release_sd.mean().sort_index()
        if not sd.is_monotonic_decreasing:
            return False
    return True


def e10_report(frame: Any, info: RunInfo) -> str:
    """Spread per quality and b beside S4's numbers and claims, and A7's gain."""
    bs = sorted(int(b) for b in frame.b.unique())
    means = frame.groupby(["model", "b"])[["mse", "pearson", "release_sd", "theory_sd"]].mean()
    order = [f"r={r:.2f}" for r in CORRELATIONS] + [LASSO, KNN]
    rows = []
    for model in order:
        first = means.loc[(model, bs[0])]
        rows.append(
            [
                model,
                f"{first.mse:.2f}",
                f"{first.pearson:.2f}",
                *(f"{means.loc[(model, b)].release_sd:.4f}" for b in bs),
            ]
        )
    ratio = (
        frame[frame.b == bs[0]].release_sd.to_numpy()
        / frame[frame.b == bs[-1]].release_sd.to_numpy()
    )
    expected = math.sqrt(bs[-1] / bs[0])
    fit = frame.release_sd / frame.theory_sd
    lasso = frame[frame.model == LASSO].groupby("rep")[["mse", "release_sd"]].mean()
    knn = frame[frame.model == KNN].groupby("rep")[["mse", "release_sd"]].mean()
    lasso_smaller = float(np.mean(lasso.release_sd.to_numpy() < knn.release_sd.to_numpy()))
    t = int(frame["T"].iloc[0])
    gain_rows = []
    for b in bs:
        cell = frame[frame.b == b]
        single = float(np.sqrt(np.mean(cell.single_error**2)))
        averaged = float(np.sqrt(np.mean(cell.averaged_error**2)))
        gain_rows.append([b, f"{single:.4f}", f"{averaged:.4f}", f"{single / averaged:.1f}"])
    command = f"ladderboard experiment run e10 --reps {info.reps} --seed {info.seed}"
    if info.quick:
        command += " --quick"
    text = load_template("ladderboard.experiments", "e10")
    worst, best = means.loc[(order[0], bs[0])], means.loc[(order[7], bs[0])]
    return text.report(
        n=int(frame.n.iloc[0]),
        reps=frame.rep.nunique(),
        spread_table=markdown_table(
            ["prediction", "MSE", "Pearson", *(f"sd, b = {b}" for b in bs)], rows
        ),
        paper_mse_high=PAPER["S13_mse"][0],
        paper_mse_low=PAPER["S13_mse"][1],
        mse_high=f"{worst.mse:.2f}",
        mse_low=f"{best.mse:.2f}",
        paper_pearson_low=PAPER["S13_pearson"][0],
        paper_pearson_high=PAPER["S13_pearson"][1],
        pearson_low=f"{worst.pearson:.2f}",
        pearson_high=f"{best.pearson:.2f}",
        paper_lasso_mse=PAPER["S12_lasso_mse"],
        lasso_mse=f"{lasso.mse.mean():.2f}",
        paper_knn_mse=PAPER["S12_knn_mse"],
        knn_mse=f"{knn.mse.mean():.2f}",
        monotone=text.part("held" if _monotone(frame) else "not_held"),
        lasso_smaller=f"{lasso_smaller:.0%}",
        b_low=bs[0],
        b_high=bs[-1],
        ratio_median=f"{np.median(ratio):.2f}",
        ratio_min=f"{ratio.min():.2f}",
        ratio_max=f"{ratio.max():.2f}",
        expected=f"{expected:.2f}",
        fit_median=f"{fit.median():.3f}",
        fit_min=f"{fit.min():.3f}",
        fit_max=f"{fit.max():.3f}",
        t=t,
        root_t=f"{math.sqrt(t):.1f}",
        gain_table=markdown_table(["b", "one release", f"mean of {t}", "gain"], gain_rows),
        run_line=run_line(info, command),
    )


EXPERIMENT = E10 = Experiment(
    id="e10",
    aliases=("ladderboot-spread", "boot-spread"),
    description=(
        "Neto S4, Figs. S12-S13: spread of LadderBoot releases by prediction quality and "
        "b = 10..10000 (1/√b), and the averaging attack's gain"
    ),
    reps=20,
    quick_reps=3,
    tasks=e10_tasks,
    plot=e10_plot,
    report=e10_report,
)
