"""A competition keeps the mechanism defaults it was created with: a later
release that chooses other defaults (the Shaky Ladder's noise and step) must
change neither a running board nor the audit of a finished one."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sqlalchemy import update
from sqlalchemy.orm import Session

from engine_helpers import csv_for
from ladderboard.engine import Competitions
from ladderboard.engine.audit import verify
from ladderboard.engine.errors import CompetitionError
from ladderboard.files.solution import Solution
from ladderboard.mechanisms import ShakyLadder, shaky
from ladderboard.rules.config import CompetitionConfig
from ladderboard.store import CompetitionRow
from ladderboard.store.database import downgrade, migrate

SHAKY_KEYS = ("noise_scale", "step", "max_updates")


def _competition(store: Competitions, board: str = "per-team", params=None) -> Solution:
    rng = np.random.default_rng(4)
    solution = Solution.from_labels(rng.integers(0, 2, 400), public_fraction=0.5, random_state=1)
    config = CompetitionConfig(
        score="zero_one",
        mechanism="shaky-ladder",
        daily_quota=None,
        board=board,
        mechanism_params=params or {},
    )
    store.create("c", solution, config)
    for team in ("ada", "bo"):
        store.add_team("c", team)
        for rate in (0.5, 0.3, 0.32, 0.2):
            guess = np.where(rng.random(solution.n) < rate, 1 - solution.targets, solution.targets)
            store.submit("c", team, csv_for(solution, guess))
    return solution


def _other_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    """A later release's defaults: much noisier, a much larger step."""
    monkeypatch.setattr(shaky, "DEFAULT_NOISE_MULTIPLE", 3.0)
    monkeypatch.setattr(shaky, "DEFAULT_STEP_MULTIPLE", 6.0)


@pytest.mark.parametrize(
    ("board", "params"),
    [("per-team", None), ("per-rank", None), ("per-team", {"step": None, "noise_scale": None})],
    ids=["per-team", "per-rank", "null-params"],
)
def test_a_competition_stores_the_defaults_it_settles_to(database_url, monkeypatch, board, params):
    store = Competitions.open(database_url)
    try:
        solution = _competition(store, board, params)
        params = store.competition("c").config.mechanism_params
        settled = ShakyLadder(n=solution.n_public).get_params()
        assert {k: params[k] for k in SHAKY_KEYS} == {k: settled[k] for k in SHAKY_KEYS}
        _other_defaults(monkeypatch)
        assert verify(store, "c").submissions == 8  # replayed with the stored values
    finally:
        store.dispose()


@pytest.mark.slow
def test_the_migration_writes_out_the_defaults_an_older_competition_ran_with(
    database_url, monkeypatch
):
    store = Competitions.open(database_url)
    try:
        # Created under the defaults before 0008 (0.5/√n and 1/√n, whatever
        # the defaults are now), then stored without them, as it was then.
        root = math.sqrt(200)
        _competition(store, params={"noise_scale": 0.5 / root, "step": 1.0 / root})
        solution_n = store.competition("c").n_public
        assert solution_n == 200
        config = store.competition("c").config.to_json()
        bare = {**config, "mechanism_params": {}}  # as stored before the defaults were kept
        with Session(store.engine) as session, session.begin():
            session.execute(update(CompetitionRow).values(config=bare))
        with monkeypatch.context() as changed:
            _other_defaults(changed)
            # Without the values written out, a change of defaults breaks the audit.
            with pytest.raises(CompetitionError):
                verify(Competitions(store.engine), "c")
        downgrade(store.engine, "0007")  # the store as it was, then brought up to date
        migrate(store.engine)
        params = Competitions(store.engine).competition("c").config.mechanism_params
        assert params == {
            "noise_scale": 0.5 / root,
            "step": 1.0 / root,
            "max_updates": math.ceil(4.0 * root),
        }
        _other_defaults(monkeypatch)
        assert verify(Competitions(store.engine), "c").submissions == 8
    finally:
        store.dispose()
