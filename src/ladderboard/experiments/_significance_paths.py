"""Freedman's attack and the step-forward attack against full disclosure and the
significance Ladder, whole paths from one run (Chaibub Neto et al. 2016,
Figs. 1-4 and supplement S3; the experiments e4, e5, e6 and e9).

The paper's designs (:func:`design`): its simulated data (``n = 120``, AR(1)
features, :func:`~ladderboard.attacks.correlated_regression_data`) and, for
its non-public ADNI data, real correlated features
(:func:`~ladderboard.attacks.real_regression_data`). As in the paper's
"permuted response" experiments, a design is drawn once per run and every
repetition permutes the response within each set (:func:`permuted`).

The boards are :class:`~ladderboard.mechanisms.FullDisclosure` and the Ladder
of the paper's Alg. 3, :class:`~ladderboard.mechanisms.SignificanceLadder`
(the paper's "Ladder" is that algorithm; its α = 0.15 is close to the
parameter-free Ladder of Alg. 2). :class:`BatchBoard` stands for either and
takes a whole batch of submissions at once: the loss vectors of the batch are
one matrix, and the Ladder's paired test (the mechanism's own
:func:`~ladderboard.mechanisms.ladder.paired_test_passes`) is evaluated only
for the submissions whose risk is below the current release, the only ones
that can pass (:meth:`BatchBoard.batch_significance_step`). Its releases equal
the mechanism's, submission by submission; the tests check this directly and
through :func:`~ladderboard.attacks.freedman_attack` and
:func:`~ladderboard.attacks.step_forward_attack` played against a
:class:`~ladderboard.attacks.HoldoutOracle`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ladderboard.attacks import (
    RegressionData,
    correlated_regression_data,
    real_regression_data,
)
from ladderboard.attacks.freedman import rank_features
from ladderboard.attacks.regression import candidate_predictions, fit_predict
from ladderboard.attacks.stepforward import last_jump
from ladderboard.mechanisms import FullDisclosure, SignificanceLadder, round_to
from ladderboard.mechanisms.ladder import paired_test_passes, t_critical_value
from ladderboard.random import KeyedStream, RandomState
from ladderboard.tasks.runner import Task, task_seed

__all__ = [
    "AD_N",
    "DESIGNS",
    "FULL_DISCLOSURE",
    "BatchBoard",
    "block_tasks",
    "board_label",
    "design",
    "freedman_path",
    "mechanism",
    "permuted",
    "repetition_generator",
    "single_threaded",
    "step_forward_path",
    "summary_interval",
    "with_features",
]

FULL_DISCLOSURE = "FullDisclosure"
DESIGNS = ("simulated", "real")
AD_N = 628
"""The AD Challenge's sample size (ADNI, 628 samples): the simulated design's
``n`` where the paper used those data (Figs. 2, 4, 6, S11). With a third of
the rows for training (209), a 30-feature least-squares fit is stable, as in
the paper; at ``n = 120`` (40 training rows) it is not."""
_PRECISION = 1e-5  # FullDisclosure's default rounding


def block_tasks(
    func: Any,
    experiment: str,
    parts: tuple[str, ...],
    *,
    part_key: str,
    reps: int,
    block: int,
    seed: int,
    **kwargs: Any,
) -> list[Task]:
    """Per part, tasks of up to ``block`` repetitions of ``func``; each
    repetition's seed names the experiment, the part and the repetition (not
    the block), and each part's design seed the part alone, so results do not
    depend on how repetitions are grouped. ``kwargs`` go to every task.

    >>> def f(**kwargs): ...
    >>> tasks = block_tasks(f, "e0", ("a",), part_key="part", reps=5, block=2, seed=0)
    >>> [t.kwargs["reps"] for t in tasks]
    [(0, 1), (2, 3), (4,)]
    """
    tasks = []
    for part in parts:
        for start in range(0, reps, block):
            chunk = tuple(range(start, min(reps, start + block)))
            arguments = {
                part_key: part,
                "reps": chunk,
                "rep_seeds": tuple(task_seed(seed, experiment, part, r) for r in chunk),
                "data_seed": task_seed(seed, experiment, part, "design"),
                **kwargs,
            }
            tasks.append(Task(func, arguments))
    return tasks


def board_label(alpha: float | None) -> str:
    """``"FullDisclosure"`` for ``None``, else ``"Ladder(alpha=0.15)"``."""
    return FULL_DISCLOSURE if alpha is None else f"Ladder(alpha={alpha:g})"


def mechanism(alpha: float | None) -> Any:
    """The mechanism a :class:`BatchBoard` stands for (for checks against the attacks)."""
    return FullDisclosure() if alpha is None else SignificanceLadder(alpha=alpha)


def design(name: str, *, p: int, random_state: RandomState, n: int = 120) -> RegressionData:
    """The run's fixed design, response not yet permuted.

    ``"simulated"``: Neto's simulated data, ``n`` rows (120) and ``p`` AR(1)
    features (``rho = 0.9``). ``"real"``: ``p`` random genes of the tissue
    gene-expression data (189 rows), the stand-in for the ADNI features.
    """
    if name == "simulated":
        return correlated_regression_data(n=n, p=p, permute=False, random_state=random_state)
    if name == "real":
        return real_regression_data(p=p, permute=False, random_state=random_state)
    raise ValueError(f"design must be one of {DESIGNS}, got {name!r}")


def permuted(data: RegressionData, rng: np.random.Generator) -> RegressionData:
    """``data`` with the response permuted within each set (the paper's
    "permuted response" experiments). A permutation keeps each set's mean and
    standard deviation, so the sets stay scaled."""

    def shuffled(y: np.ndarray) -> np.ndarray:
        return y[rng.permutation(y.size)]

    return RegressionData(
        data.X_train,
        shuffled(data.y_train),
        data.X_public,
        shuffled(data.y_public),
        data.X_final,
        shuffled(data.y_final),
        informative=np.zeros(0, dtype=np.int64),
    )


def with_features(data: RegressionData, features: np.ndarray) -> RegressionData:
    """``data`` restricted to the columns ``features`` (each set was scaled
    column by column, so it stays scaled)."""
    return RegressionData(
        data.X_train[:, features],
        data.y_train,
        data.X_public[:, features],
        data.y_public,
        data.X_final[:, features],
        data.y_final,
        informative=np.zeros(0, dtype=np.int64),
    )


def single_threaded() -> Any:
    """BLAS on one thread: the least-squares fits here are small, so more
    threads would only contend for the cores."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1)


def repetition_generator(seed: int) -> np.random.Generator:
    """Where a repetition draws its permutation (and feature subset) from."""
    return KeyedStream.from_random_state(seed).generator(0)


class BatchBoard:
    """A board (FullDisclosure, or the Ladder of Neto's Alg. 3 at ``alpha``) on
    the squared loss that takes a batch of submissions at once.

    :meth:`submit` takes a batch of predictions of the public labels (one
    column per submission) and returns the releases the mechanism would make
    for them in that order. :meth:`copy` keeps the state, to try a submission
    without making it.

    Three submissions off the labels by 1, 0.9 and 0.1: full disclosure shows
    each MSE, the Ladder (releases on the grid of ``1/n``) each new best.

    >>> y = np.array([0.0, 1.0, 2.0, 3.0, 1.0, 0.0])
    >>> predictions = y[:, None] + np.array([1.0, 0.9, 0.1])
    >>> BatchBoard(y, alpha=None).submit(predictions).tolist()
    [1.0, 0.81, 0.01]
    >>> BatchBoard(y, alpha=0.15).submit(predictions).round(3).tolist()
    [1.0, 0.833, 0.0]
    """

    def __init__(self, y_public: np.ndarray, alpha: float | None):
        self.y = np.asarray(y_public, dtype=np.float64)
        self.n = self.y.shape[0]
        self.alpha = alpha
        self.c = None if alpha is None else t_critical_value(alpha, self.n)
        self.multiple: int | None = None  # the Ladder's release times n; None is ∞
        self.best: np.ndarray | None = None
        self.best_total = 0.0
        self.best_sum_sq = 0.0

    def copy(self) -> BatchBoard:
        other = BatchBoard.__new__(BatchBoard)
        other.y, other.n, other.alpha, other.c = self.y, self.n, self.alpha, self.c
        other.multiple, other.best = self.multiple, self.best
        other.best_total, other.best_sum_sq = self.best_total, self.best_sum_sq
        return other

    def losses(self, predictions: np.ndarray) -> np.ndarray:
        """Squared losses, one row per submission (``(y - p)²``, as the oracle)."""
        return np.ascontiguousarray(((self.y[:, None] - predictions) ** 2).T)

    def submit(self, predictions: np.ndarray) -> np.ndarray:
        """The releases of the submissions in the columns of ``predictions``."""
        losses = self.losses(predictions.reshape(self.n, -1))
        totals = losses.sum(axis=1)
        if self.c is None:
            return np.array([round_to(t / self.n, _PRECISION) for t in totals])
        return self.batch_significance_step(losses, totals)

    def batch_significance_step(self, losses: np.ndarray, totals: np.ndarray) -> np.ndarray:
        """:meth:`SignificanceLadder.submit <ladderboard.mechanisms.SignificanceLadder.submit>`
        for each row of ``losses`` in turn (``totals`` their sums): the
        releases, with the board's state advanced past the last row.

        Between two acceptances the release stays put, so only the rows whose
        total lies below it are tested, in order, until one passes.
        """
        m = totals.shape[0]
        released = np.empty(m)
        i = 0
        while i < m:
            if self.multiple is None:
                self._accept(losses[i], float(totals[i]))
                released[i] = self.multiple / self.n
                i += 1
                continue
            reference = float(self.multiple)
            accepted = None
            for j in np.flatnonzero(totals[i:] < reference) + i:
                if self.best is None or self.c is None:  # set with multiple; alpha given
                    raise TypeError("the significance step needs a board with alpha")
                if paired_test_passes(
                    losses[j],
                    float(totals[j]),
                    self.best,
                    self.best_total,
                    self.best_sum_sq,
                    reference,
                    self.c,
                ):
                    accepted = int(j)
                    break
            stop = m if accepted is None else accepted
            released[i:stop] = self.multiple / self.n
            if accepted is None:
                break
            self._accept(losses[accepted], float(totals[accepted]))
            released[accepted] = self.multiple / self.n
            i = accepted + 1
        return released

    def _accept(self, x: np.ndarray, total: float) -> None:
        self.multiple = round(total)
        self.best = x.copy()
        self.best_total = total
        self.best_sum_sq = float(np.dot(x, x))


def _mse(y: np.ndarray, prediction: np.ndarray) -> float:
    return float(np.mean((y - prediction) ** 2))


@dataclass(frozen=True, slots=True)
class FinalModel:
    """An attack's final model: its exact public and final MSE, and the
    board's release had it been submitted."""

    public_mse: float
    final_mse: float
    released: float


def _final_model(data: RegressionData, board: BatchBoard, features: list[int]) -> FinalModel:
    if features:
        public, final = fit_predict(
            data.X_train, data.y_train, features, data.X_public, data.X_final
        )
    else:
        public = np.full(data.y_public.size, data.y_train.mean())
        final = np.full(data.y_final.size, data.y_train.mean())
    released = float(board.copy().submit(public[:, None])[0])
    return FinalModel(_mse(data.y_public, public), _mse(data.y_final, final), released)


def freedman_path(
    data: RegressionData, alpha: float | None, ks: range | tuple[int, ...]
) -> tuple[np.ndarray, dict[int, FinalModel]]:
    """Freedman's attack for every ``k`` in ``ks`` at once.

    The ``p`` univariate submissions are the same whatever ``k``; the attack
    with ``k`` features refits on the ``k`` best-ranked
    (:func:`~ladderboard.attacks.freedman.rank_features`). Returns the
    univariate releases (Fig. 1) and, per ``k``, the final model as
    :func:`~ladderboard.attacks.freedman_attack` would make and submit it.
    """
    board = BatchBoard(data.y_public, alpha)
    p = data.X_train.shape[1]
    univariate = candidate_predictions(data.X_train, data.y_train, data.X_public, [], np.arange(p))
    released = board.submit(univariate)
    order = rank_features(released)
    return released, {k: _final_model(data, board, order[:k].tolist()) for k in ks}


@dataclass(frozen=True, slots=True)
class Step:
    """The step-forward attack stopped after ``iteration`` iterations."""

    iteration: int
    n_selected: int
    n_submissions: int
    best_released: float
    model: FinalModel


def step_forward_path(data: RegressionData, alpha: float | None, n_iterations: int) -> list[Step]:
    """The step-forward attack (Alg. 7) for 1, 2, ..., ``n_iterations`` iterations.

    The attack with ``i`` iterations makes the first ``i`` iterations of the
    longer one (the boards here are deterministic), so one run gives them
    all. The jump is located as the attack does by default: the best release
    on full disclosure, the last jump on a ladder. An iteration that locates
    no jump ends the attack; later entries repeat its model. ``n_submissions``
    counts the final model's submission, as the attack's result does.
    """
    board = BatchBoard(data.y_public, alpha)
    p = data.X_train.shape[1]
    selected: list[int] = []
    remaining = np.arange(p)
    previous: float | None = None
    count = 0
    steps: list[Step] = []
    stopped = False
    for iteration in range(1, n_iterations + 1):
        if not stopped:
            predictions = candidate_predictions(
                data.X_train, data.y_train, data.X_public, selected, remaining
            )
            released = board.submit(predictions)
            count += released.size
            if alpha is None:
                index: int | None = int(np.argmin(released))
            else:
                index = last_jump(released, previous)
            previous = float(released[-1])
            if index is None:
                stopped = True
            else:
                selected.append(int(remaining[index]))
                remaining = np.delete(remaining, index)
            model = _final_model(data, board, selected)
            best = float(np.min(released)) if alpha is None else previous
        steps.append(Step(iteration, len(selected), count + 1, best, model))
    return steps


def summary_interval(values: Any) -> str:
    """``median [q25, q75]`` of ``values``, three decimals."""
    q = np.quantile(np.asarray(values, dtype=np.float64), [0.5, 0.25, 0.75])
    return f"{q[0]:.3f} [{q[1]:.3f}, {q[2]:.3f}]"
