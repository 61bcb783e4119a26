"""ladderboard's default is the one its measurements name, and its
parameters scale with the public holdout as a participant reads them."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from ladderboard.mechanisms import COMPETITION_MECHANISMS, make_mechanism
from ladderboard.recommended import RECOMMENDED

DEFAULTS_REPORT = Path(__file__).resolve().parents[1] / "docs" / "defaults.md"


def test_the_recommended_label_is_the_one_the_defaults_report_names():
    """``docs/defaults.md`` is written by ``RECOMMENDED.command``; the default
    ladderboard ships must be the one that report recommends."""
    sentence = r"The recommended default mechanism(?: \([^)]*\))?: \*\*(.+?)\*\*"
    named = re.search(sentence, DEFAULTS_REPORT.read_text())
    assert named is not None, "docs/defaults.md names no recommended default mechanism"
    assert RECOMMENDED.label == named.group(1)


@pytest.mark.parametrize("n", [1, 2, 99, 4000, 123_457])
def test_the_recommended_parameters_at_a_size_are_three_digits_of_the_multiple(n):
    params = RECOMMENDED.params_at(n)
    for name, multiple in RECOMMENDED.per_root_n.items():
        exact = multiple / math.sqrt(n)
        assert params[name] == pytest.approx(exact, rel=5e-3)
        assert len(f"{params[name]:e}".split("e")[0].rstrip("0").replace(".", "")) <= 3
    assert RECOMMENDED.mechanism in COMPETITION_MECHANISMS
    kwargs = (
        {"n": n} if COMPETITION_MECHANISMS[RECOMMENDED.mechanism].input_kind == "losses" else {}
    )
    make_mechanism(RECOMMENDED.mechanism, **params, **kwargs, random_state=0)


@pytest.mark.parametrize("n", [0, -4, 2.5, True, "4000"])
def test_the_recommended_parameters_refuse_a_size_that_is_not_one(n):
    with pytest.raises(ValueError, match=f"n must be a whole number .* got {re.escape(repr(n))}"):
        RECOMMENDED.params_at(n)
