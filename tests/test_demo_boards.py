"""The demo's second board is ladderboard's default, with its parameters made
explicit for the demo's public rows (``ladderboard.demo.boards.default_board``)."""

import pytest

import ladderboard.recommended as recommended
from ladderboard.demo.boards import board_mechanisms, board_text, default_board
from ladderboard.mechanisms import make_mechanism
from ladderboard.recommended import Recommended


@pytest.fixture
def default(monkeypatch):
    def use(setting: Recommended) -> None:
        monkeypatch.setattr(recommended, "RECOMMENDED", setting)

    return use


def test_the_default_board_is_the_recommended_mechanism():
    mechanism, params = default_board(171)
    assert mechanism == recommended.RECOMMENDED.mechanism
    make_mechanism(mechanism, **params)  # explicit parameters the registry accepts
    assert board_mechanisms(171) == {
        "kaggle": ("full-disclosure", {}),
        "default": (mechanism, params),
    }


@pytest.mark.parametrize(("n_public", "eta"), [(171, 0.0765), (4000, 0.0158), (100, 0.1)])
def test_the_fixed_step_ladder_gets_one_over_root_n_to_three_digits(default, n_public, eta):
    default(Recommended("Ladder", "ladder", per_root_n={"eta": 1.0}))
    assert default_board(n_public) == ("ladder", {"eta": eta})


def test_another_mechanism_keeps_its_recommended_parameters(default):
    default(Recommended("LadderBoot b=10", "ladder-boot", {"b": 10}))
    mechanism, params = default_board(171)
    assert (mechanism, params) == ("ladder-boot", {"b": 10})
    params["b"] = 1  # a copy: the recommendation is left alone
    assert recommended.RECOMMENDED.params == {"b": 10}


@pytest.mark.parametrize(
    ("n_public", "error", "message"),
    [(0, ValueError, "n_public"), (-3, ValueError, "n_public"), ("171", TypeError, "n_public")],
)
def test_a_bad_size_is_refused(n_public, error, message):
    with pytest.raises(error, match=message):
        default_board(n_public)


@pytest.mark.parametrize(
    ("mechanism", "params", "words"),
    [
        ("full-disclosure", {}, "Kaggle's"),
        ("ladder", {"eta": 0.0765}, "step 0.0765"),
        ("ladder-boot", {"b": 10, "precision": None}, "b = 10:"),
        ("significance-ladder", {"alpha": 0.01}, "alpha = 0.01"),
    ],
)
def test_each_board_is_explained_in_the_overview(mechanism, params, words):
    text = board_text(mechanism, params)
    assert words in text
    assert "None" not in text
