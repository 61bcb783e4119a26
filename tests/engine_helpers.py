"""What the engine's tests share: a clock they move by hand, a store on
each database, a solution, and submission files of a chosen error."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ladderboard.files.solution import Solution
from ladderboard.rules.config import CompetitionConfig
from ladderboard.store import MechanismStateRow, SubmissionRow

START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


class Clock:
    def __init__(self, now: datetime = START):
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **kwargs) -> None:
        self.now += timedelta(**kwargs)


def labels(n=400, seed=0):
    return np.random.default_rng(seed).integers(0, 2, n)


def make_solution(n=400, seed=0):
    return Solution.from_labels(labels(n, seed), public_fraction=0.5, random_state=seed)


def csv_for(solution: Solution, predictions, shuffle_seed=None) -> bytes:
    order = np.arange(solution.n)
    if shuffle_seed is not None:
        order = np.random.default_rng(shuffle_seed).permutation(solution.n)
    lines = [f"{solution.id_column},{solution.target_columns[0]}"]
    lines += [f"{solution.ids[i]},{float(predictions[i])!r}" for i in order]
    return ("\n".join(lines) + "\n").encode()


def noisy(solution: Solution, flip: float, seed: int) -> np.ndarray:
    y = solution.targets.astype(int)
    flips = np.random.default_rng(seed).random(solution.n) < flip
    return np.where(flips, 1 - y, y)


def create(store, slug="comp", mechanism="parameter-free-ladder", **config):
    solution = make_solution()
    params = config.pop("mechanism_params", {})
    info = store.create(
        slug,
        solution,
        CompetitionConfig(score="zero_one", mechanism=mechanism, mechanism_params=params, **config),
        random_state=7,
    )
    return solution, info


def snapshot(store) -> tuple:
    """Everything a refused submission must leave alone."""
    with Session(store.engine) as session:
        states = session.execute(
            select(
                MechanismStateRow.scope, MechanismStateRow.state, MechanismStateRow.n_submissions
            ).order_by(MechanismStateRow.scope)
        ).all()
        submissions = session.scalar(select(func.count()).select_from(SubmissionRow))
    return [tuple(map(repr, s)) for s in states], submissions
