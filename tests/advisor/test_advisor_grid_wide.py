"""The wide Shaky grid: noise 0.25-3/√n and step-to-noise ratios up to the
analysis's (Hardt 2017, eq. 2)."""

import math

from ladderboard.advisor.advice import advise_command
from ladderboard.advisor.grid import (
    default_grid,
    scoring_rule,
    shaky_default_label,
    theory_ratio,
    wide_shaky_multiples,
)

RULE = scoring_rule("zero_one")


def test_the_theory_ratio_is_eq_2():
    # λ = 4 log(4k/β) σ; at n = 4000, k = 1000 the review's ratio near 45
    assert math.isclose(theory_ratio(1000, 0.05), 4 * math.log(80_000))
    assert 45 < theory_ratio(1000) < 46


def test_the_wide_grid_reaches_the_theory_ratio_at_every_noise():
    for k in (100, 1000, 10_000):
        top = round(theory_ratio(k), 1)
        multiples = wide_shaky_multiples(k)
        assert {s for s, _ in multiples} == {0.25, 0.5, 1.0, 2.0, 3.0}
        for noise in (0.25, 0.5, 1.0, 2.0, 3.0):
            ratios = sorted(t / s for s, t in multiples if s == noise)
            assert ratios[0] == 1.0 and math.isclose(ratios[-1], top, rel_tol=1e-3)


def test_the_wide_grid_is_opt_in_and_keeps_the_default():
    narrow = [s.label for s in default_grid(RULE, families=["shaky-ladder"])]
    wide = [s.label for s in default_grid(RULE, families=["shaky-ladder"], wide_k=1000)]
    assert len(narrow) == 9 and len(wide) == 35 == len(set(wide))
    assert shaky_default_label() in narrow
    assert shaky_default_label() in wide
    assert "Shaky σ=1 λ=45.2" in wide
    assert advise_command(n=10, k=5, score="zero_one", reps=1, seed=0, wide=True).endswith(
        " --wide"
    )
