"""What the engine's tests share: a clock they move by hand, a store on
each database, a solution, submission files of a chosen error, and threads
that ask for something at once."""

from __future__ import annotations

import threading
import time
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


def at_once(function, count: int) -> list:
    """``function()`` in ``count`` threads started together, its results
    (or the exception each raised); the test fails rather than hangs if one
    of them is left waiting."""
    asked = threading.Barrier(count)
    out: list = [None] * count

    def run(k: int) -> None:
        asked.wait()
        try:
            out[k] = function()
        except Exception as exc:
            out[k] = exc

    threads = [threading.Thread(target=run, args=(k,), daemon=True) for k in range(count)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 10
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))
    assert not any(thread.is_alive() for thread in threads), "left waiting"
    return out


# A competition's calendar for the tests of opening, freeze and late files,
# through which a test moves a Clock (the engine's and the store's clock).
CALENDAR_START = datetime(2026, 3, 1, tzinfo=UTC)
OPENS = CALENDAR_START + timedelta(days=1)
FREEZE = CALENDAR_START + timedelta(days=5)
DEADLINE = CALENDAR_START + timedelta(days=7)
