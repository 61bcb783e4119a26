"""A competition stores every mechanism parameter it runs with, never ``{}``:
the mechanism's own defaults written out, the recommended setting's values
on the recommended mechanism at the solution's public size; and a store
written before, with ``{}``, runs and reads as it did."""

from __future__ import annotations

import numpy as np
import pytest
from sqlalchemy import update
from sqlalchemy.orm import Session

from engine_helpers import csv_for, make_solution
from ladderboard.engine import Competitions
from ladderboard.engine.audit import verify
from ladderboard.engine.errors import NotFound
from ladderboard.losses import get_loss
from ladderboard.mechanisms import COMPETITION_MECHANISMS, parameters_of
from ladderboard.mechanisms.parameters import complete_params
from ladderboard.recommended import RECOMMENDED
from ladderboard.rules.config import CompetitionConfig
from ladderboard.rules.explain import describe
from ladderboard.store import CompetitionRow

FIRST_SCORE = {"losses": "zero_one", "predictions": "accuracy"}


@pytest.fixture
def store(tmp_path):
    competitions = Competitions.open(f"sqlite:///{tmp_path / 'explicit.db'}")
    yield competitions
    competitions.dispose()


@pytest.mark.parametrize("mechanism", sorted(COMPETITION_MECHANISMS))
def test_a_competition_created_without_parameters_stores_every_one(store, mechanism):
    klass = COMPETITION_MECHANISMS[mechanism]
    solution = make_solution(400)
    required = {p.name for p in parameters_of(mechanism) if p.required}
    if mechanism == RECOMMENDED.mechanism:
        required -= set(RECOMMENDED.params_at(solution.n_public))
    if required:
        pytest.skip(f"{mechanism} needs {sorted(required)}: it has no run without them")
    config = CompetitionConfig(score=FIRST_SCORE[klass.input_kind], mechanism=mechanism)
    store.create("c", solution, config)
    stored = store.competition("c").config.mechanism_params
    assert set(stored) == {p.name for p in parameters_of(mechanism)}
    for info in parameters_of(mechanism):
        if mechanism == RECOMMENDED.mechanism and info.name in RECOMMENDED.params_at(400):
            assert stored[info.name] == RECOMMENDED.params_at(solution.n_public)[info.name]
        elif info.name not in klass.pinned_defaults:  # those settle at the holdout size
            assert stored[info.name] == info.default, info.name


def test_a_ladder_boot_competition_without_parameters_stores_b_100(store):
    store.create("c", make_solution(), CompetitionConfig(score="zero_one", mechanism="ladder-boot"))
    assert store.competition("c").config.mechanism_params == {
        "alpha": 0.15,
        "b": 100,
        "floor": None,
        "precision": None,
    }


def test_the_recommended_mechanism_without_parameters_runs_the_recommended_setting(store):
    solution = make_solution(800)
    config = CompetitionConfig(score="zero_one", mechanism=RECOMMENDED.mechanism)
    store.create("c", solution, config)
    stored = store.competition("c").config.mechanism_params
    assert stored == {**stored, **RECOMMENDED.params_at(solution.n_public)}
    # A value the organiser gives is kept, on the recommended mechanism too.
    given = {name: 2 * value for name, value in RECOMMENDED.params_at(400).items()}
    store.create("d", solution, CompetitionConfig("zero_one", RECOMMENDED.mechanism, given))
    assert store.competition("d").config.mechanism_params == {**stored, **given}


def test_the_default_step_is_in_the_losss_units_and_needs_a_bounded_loss(store):
    """The default's ``1/√n`` is for a loss in ``[0, 1]`` (Blum & Hardt 2015,
    Thm 3.1): on a wider bounded loss it is times the range; on an unbounded
    loss there is no scale, so a step left to the default is refused, nothing
    stored, while a step the organiser gives is kept."""
    solution = make_solution(800)
    clip = {"clip": (0.01, 0.99)}
    store.create("c", solution, CompetitionConfig("log_loss", RECOMMENDED.mechanism, {}, clip))
    lo, hi = get_loss("log_loss", **clip).bounds
    expected = RECOMMENDED.params_at(solution.n_public, scale=hi - lo)
    assert store.competition("c").config.mechanism_params == expected
    assert expected["eta"] > 4 * RECOMMENDED.params_at(solution.n_public)["eta"]
    with pytest.raises(ValueError, match="'squared' is unbounded: give eta"):
        store.create("d", solution, CompetitionConfig("squared", RECOMMENDED.mechanism))
    with pytest.raises(NotFound):
        store.competition("d")
    store.create("e", solution, CompetitionConfig("squared", RECOMMENDED.mechanism, {"eta": 5.0}))
    assert store.competition("e").config.mechanism_params == {"eta": 5.0}


def test_a_store_written_with_no_parameters_runs_and_reads_as_before(tmp_path):
    """Two stores, one board each on one key, the second then written as
    before (``{}``): the same releases, the same words, and its audit passes."""
    solution = make_solution(400)
    config = CompetitionConfig(score="zero_one", mechanism="ladder-boot", daily_quota=None)
    stores = [Competitions.open(f"sqlite:///{tmp_path / name}.db") for name in ("new", "old")]
    try:
        for store in stores:
            store.create("c", solution, config, random_state=7)
            store.add_team("c", "ada")
        with Session(stores[1].engine) as session, session.begin():
            bare = {**stores[1].competition("c").config.to_json(), "mechanism_params": {}}
            session.execute(update(CompetitionRow).values(config=bare))
        new, old = (store.competition("c").config for store in stores)
        assert old.mechanism_params == {} and new.mechanism_params["b"] == 100
        assert describe(old.mechanism, {}) == describe(new.mechanism, new.mechanism_params)
        rng = np.random.default_rng(3)
        for rate in (0.5, 0.3, 0.31, 0.2, 0.25):
            guess = np.where(rng.random(solution.n) < rate, 1 - solution.targets, solution.targets)
            results = [store.submit("c", "ada", csv_for(solution, guess)) for store in stores]
            assert results[0].public_score == results[1].public_score
            words = [store.explain("c", "ada", r) for store, r in zip(stores, results, strict=True)]
            assert words[0] == words[1]
        assert [verify(store, "c").submissions for store in stores] == [5, 5]
    finally:
        for store in stores:
            store.dispose()


@pytest.mark.parametrize("mechanism", sorted(COMPETITION_MECHANISMS))
def test_every_default_written_out_reads_as_the_default_left_out(mechanism):
    """A board's overview says the same of a competition stored with its
    defaults written out as of one stored, as before, without them."""
    if any(p.required for p in parameters_of(mechanism)):
        pytest.skip(f"{mechanism} has no run without a parameter given")
    assert describe(mechanism, {}) == describe(mechanism, complete_params(mechanism, {}))
