"""The floor of the paired-test ladders: a file must also beat the best by more
than ``floor``, besides passing the papers' test; off (``None``) by default,
so that the papers' mechanisms stay exact."""

import functools
import math

import numpy as np
import pytest

from ladderboard.mechanisms import (
    MECHANISMS,
    BayesBootLadder,
    BayesBootLadderBoot,
    Mechanism,
)
from ladderboard.mechanisms.parameters import coerce_params, parameters_of
from ladderboard.mechanisms.traits import select

N = 100
FLOOR = 1 / math.sqrt(N)  # 0.1: ten rows of a hundred


def losses(wrong):
    """0/1 losses over N rows, the first ``wrong`` of them wrong."""
    x = np.zeros(N)
    x[:wrong] = 1.0
    return x


FLOORED = select(floor=True)
"""Every mechanism that declares a floor parameter."""


def _board(name: str, floor: float | None) -> Mechanism:
    klass = MECHANISMS[name]
    params = klass._unit_test_params(N, np.random.default_rng(0))
    params.pop("n", None)  # the holdout size is the first submission's
    return klass(**params, floor=floor, **({"random_state": 0} if klass.stochastic else {}))


LOSS_BOARDS = {
    name: functools.partial(_board, name) for name in select(floor=True, input_kind="losses")
}
"""The loss-based floored ladders, each built with its test parameters."""


@pytest.mark.parametrize("name", sorted(LOSS_BOARDS))
def test_a_file_that_passes_the_test_by_less_than_the_floor_is_not_taken(name):
    """Three rows fixed of a hundred: ``s/√n ≈ 0.017`` < 0.03, so the papers'
    test passes it (a near-duplicate's step), but 0.03 < the floor's 0.1."""
    plain, floored = LOSS_BOARDS[name](None), LOSS_BOARDS[name](FLOOR)
    for board in (plain, floored):
        assert board.submit(losses(50)).improved
    assert plain.submit(losses(47)).improved
    assert not floored.submit(losses(47)).improved
    assert floored.best_score == 0.5
    # Fifteen rows fixed: beyond the floor and the test, so it is taken.
    assert floored.submit(losses(35)).improved
    assert floored.best_score == 0.35


@pytest.mark.parametrize("klass", [BayesBootLadder, BayesBootLadderBoot])
def test_a_bayesian_ladder_asks_the_floor_in_the_metrics_own_direction(klass):
    """Accuracy, greater is better: three more rows right win every replicate
    of the Bayesian bootstrap, yet fall short of a floor of 0.1."""
    y = np.ones(N)

    def right(count):
        p = np.zeros(N)
        p[:count] = 1.0
        return p

    plain = klass(metric="accuracy", y_true=y, B=200, random_state=0)
    floored = klass(metric="accuracy", y_true=y, B=200, floor=FLOOR, random_state=0)
    for board in (plain, floored):
        assert board.submit(right(50)).improved
    assert plain.submit(right(53)).improved
    assert not floored.submit(right(53)).improved
    assert floored.submit(right(65)).improved
    assert floored.best_score == pytest.approx(0.65)


@pytest.mark.parametrize("name", sorted(LOSS_BOARDS))
def test_without_a_floor_the_state_is_the_one_saved_before_it_existed(name):
    """A board stored before the floor existed must still verify: its re-run
    saves no ``floor`` while it is off, and a state without one loads as off."""
    board = LOSS_BOARDS[name](None)
    board.submit(losses(50))
    state = board.get_state(secrets=True)
    assert "floor" not in state["params"]
    again = Mechanism.from_state(state)
    assert again.floor is None
    assert again.submit(losses(47)).improved


@pytest.mark.parametrize("name", sorted(LOSS_BOARDS))
def test_a_floor_is_saved_and_restored_with_the_board(name):
    board = LOSS_BOARDS[name](FLOOR)
    board.submit(losses(50))
    state = board.get_state(secrets=True)
    assert state["params"]["floor"] == FLOOR
    again = Mechanism.from_state(state)
    assert again.floor == FLOOR
    assert not again.submit(losses(47)).improved


@pytest.mark.parametrize(
    ("floor", "error", "words"),
    [
        (0, ValueError, "floor must be a finite number in (0, inf), got 0"),
        (-0.01, ValueError, "got -0.01"),
        (math.inf, ValueError, "got inf"),
        ("0.01", TypeError, "floor must be a number, got str"),
        (True, TypeError, "floor must be a number, got bool"),
    ],
)
def test_a_bad_floor_is_refused_with_its_name_and_value(floor, error, words):
    for make in LOSS_BOARDS.values():
        with pytest.raises(error) as caught:
            make(floor)
        assert words in str(caught.value)
    with pytest.raises(error):
        BayesBootLadder(metric="accuracy", y_true=np.ones(N), floor=floor)


@pytest.mark.parametrize("name", select(floor=True, competition=True))
def test_an_organiser_can_set_the_floor_from_a_form(name):
    """The create form and the CLI's ``--param`` build their fields from
    :func:`parameters_of`: the floor is offered, empty means off."""
    info = {p.name: p for p in parameters_of(name)}["floor"]
    assert (info.kind, info.default) == ("float", None)
    assert info.help.startswith("The least")
    assert coerce_params(name, {"floor": "0.0158"})["floor"] == 0.0158
    assert "floor" not in coerce_params(name, {"floor": ""})


@pytest.mark.parametrize("name", select(floor=True, competition=True))
def test_the_rules_participants_read_state_the_floor(name):
    from ladderboard.rules.explain import describe

    assert "by more than 0.0158" in describe(name, {"floor": 0.0158})
    assert "0.0158" not in describe(name, {})
