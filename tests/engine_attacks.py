"""What the tests that play attacks through the competition engine share: a
competition on random labels, the attacker's view of it, and the same board
built from the library for comparison."""

from __future__ import annotations

import itertools

import numpy as np

from engine_helpers import Clock, csv_for
from ladderboard.attacks import HoldoutOracle
from ladderboard.engine import Competitions
from ladderboard.engine.errors import DuplicateSubmission
from ladderboard.files.solution import Solution
from ladderboard.mechanisms import MECHANISMS
from ladderboard.rules.config import CompetitionConfig

_STORES = itertools.count()

TRUE_ERROR = 0.5
"""The true 0/1 error of every file on random labels."""


class EngineBoard:
    """The attacker's view of a competition: submit a file, read the public
    score. ``mechanism`` is the board's public rules (an instance that is
    never submitted to), from which an attack reads how to climb; refusals
    of identical files are counted, then raised."""

    def __init__(self, store, solution, mechanism, *, slug="comp", team="alpha"):
        self.store, self.solution, self.mechanism = store, solution, mechanism
        self.slug, self.team = slug, team
        self.n_labels, self.n_public = solution.n, solution.n_public
        self.refused = 0

    def submit(self, prediction):
        try:
            result = self.store.submit(self.slug, self.team, csv_for(self.solution, prediction))
        except DuplicateSubmission:
            self.refused += 1
            raise
        return result.public_score

    def evaluate(self, y_true, y_pred):
        """The 0/1 error on labels the test supplies (the private rows)."""
        return float(np.mean(np.asarray(y_true) != np.asarray(y_pred)))

    def stored(self) -> int:
        return len(self.store.submissions(self.slug, self.team))


def random_solution(rows: int, public: int, seed: int) -> Solution:
    labels = np.random.default_rng(seed).integers(0, 2, rows)
    return Solution.from_labels(labels, public_fraction=public / rows, random_state=seed)


def open_competition(
    tmp_path, solution, mechanism, params, *, score="zero_one", precision=None, key=7
):
    """A store holding one competition ``comp`` with one team ``alpha`` and
    no quota that an attack would meet; ``precision`` (the decimals the
    boards show) the configuration's default unless given."""
    path = tmp_path / f"{mechanism}-{next(_STORES)}.db"
    store = Competitions.open(f"sqlite:///{path}", clock=Clock())
    shown = {} if precision is None else {"precision": precision}
    config = CompetitionConfig(
        score=score,
        mechanism=mechanism,
        mechanism_params=dict(params),
        daily_quota=100_000,
        **shown,
    )
    store.create("comp", solution, config, random_state=key)
    store.add_team("comp", "alpha")
    return store


def rules(mechanism, params, n_public, random_state=None):
    """The board's public rules as a library instance (never submitted to
    when it stands beside an engine board)."""
    klass = MECHANISMS[mechanism]
    extra = {"random_state": random_state} if klass.stochastic else {}
    return klass(n=n_public, **params, **extra)


def library_board(solution, mechanism, params, random_state):
    """The same board played by the library: the solution's public rows
    scored by a fresh instance keyed by ``random_state``."""
    public = np.flatnonzero(solution.public_mask)
    y = solution.targets.astype(int)
    return HoldoutOracle(
        y[public],
        rules(mechanism, params, public.size, random_state),
        public_index=public,
        n_labels=solution.n,
    )


def exact_public_error(solution, prediction) -> float:
    """The 0/1 error of ``prediction`` on the public rows (organiser-side)."""
    mask = solution.public_mask
    return float(np.mean(np.asarray(prediction)[mask] != solution.targets.astype(int)[mask]))
