"""The mechanism ladderboard recommends for a new competition.

It is chosen by the defaults' rule (:mod:`ladderboard.advisor.defaults`, run
by the ``defaults`` experiment): on a holdout of ``n = 4000`` public labels
and for budgets of 100, 1000 and 10 000 submissions, every attack of the
suite gains at most ``1/√n`` beyond as many submissions chosen without
reading a score, and honest teams' Kendall tau between the released and the
private board stays within 0.02 of full disclosure's; among the settings that
meet it, the one whose protection is best established (the lowest top of the
95 % interval on its worst excess gain). The organiser's create form
preselects it until a solution file says the holdout's size, and
``ladderboard advise`` names it beside its own pick for an organiser's size
and budget. The measurements behind it are in the ``defaults`` experiment's
report (``command``; 20 repetitions of 49 settings): eleven settings meet the
rule, and LadderBoot with ``b = 10`` is the surest of them, its worst excess
gain -0.0005 with 95 % intervals reaching +0.004 and honest teams' tau 0.009
below full disclosure's, where the Kaggle board concedes 0.37 to the majority
attack at 10 000 submissions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["RECOMMENDED", "Recommended"]


@dataclass(frozen=True)
class Recommended:
    """A recommended setting: ``label`` as the advisor names it, the
    registered ``mechanism`` with its ``params``, and the ``command`` that
    measures it against every other setting."""

    label: str
    mechanism: str
    params: dict[str, Any] = field(default_factory=dict)
    command: str = ""


RECOMMENDED = Recommended(
    label="LadderBoot b=10",
    mechanism="ladder-boot",
    params={"b": 10},
    command="ladderboard experiment run defaults --reps 20 --seed 0",
)
"""ladderboard's default for a new competition (see the module's text)."""
