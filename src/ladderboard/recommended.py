"""The mechanism ladderboard recommends for a new competition.

This is the one place the default is defined: the engine fills a
competition's parameters from it (:meth:`Recommended.fill`), the API and the
command line run it when no mechanism is named, the organiser's create form
preselects it, and ``ladderboard advise`` names it beside its own pick.
Switching the default is a change of :data:`RECOMMENDED` alone.

It is the choice of the defaults' rule (:mod:`ladderboard.advisor.defaults`,
run by the ``defaults`` experiment): a default must hold for a competition
whose size and budget nobody knows, so it is measured at ``n = 4000`` public
labels and budgets of 100, 1000 and 10 000 submissions by the raw gain of the
strongest attacks (the true loss of what the attacker would select minus what
the board displays, Blum & Hardt 2015, Def. 2.1), and honest teams' Kendall
tau between the released and the private board must stay near full
disclosure's. The fixed-step Ladder is the mechanism with a theorem behind
it: for any step ``η`` and any adaptive analyst, Blum & Hardt 2015, Thm 3.1
(eq. 4) bounds the distance between the best true loss and the release,
because the board moves only by steps of ``η`` and so can say little; a
ladder that releases on a paired test instead is what near-duplicate
hill-climbing climbs (Hardt 2017, Sec. 3-4). The measurements are in
``docs/defaults.md``, which :attr:`Recommended.command` writes.

A step that scales with the holdout (``per_root_n``) is written to three
significant digits, as a participant reads it on the board (``0.0158`` at
4000 public rows):

>>> RECOMMENDED.label, RECOMMENDED.params_at(4000)
('Ladder η=1/√n', {'eta': 0.0158})
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["RECOMMENDED", "Recommended"]


@dataclass(frozen=True)
class Recommended:
    """A recommended setting: ``label`` as the advisor names it, the
    registered ``mechanism`` with its fixed ``params`` and the parameters
    that scale with the public holdout, ``per_root_n`` (a multiple of
    ``1/√n`` each), and the ``command`` that measures it against every other
    setting.

    >>> shaky = Recommended("Shaky σ=0.25 λ=0.25", "shaky-ladder", {"noise": "laplace"},
    ...                     {"noise_scale": 0.25, "step": 0.25})
    >>> shaky.params_at(400)
    {'noise': 'laplace', 'noise_scale': 0.0125, 'step': 0.0125}
    >>> shaky.fill("shaky-ladder", {"step": 0.02, "noise_scale": None}, 400)
    {'noise': 'laplace', 'noise_scale': 0.0125, 'step': 0.02}
    >>> shaky.fill("ladder-boot", {}, 400)
    {}
    """

    label: str
    mechanism: str
    params: dict[str, Any] = field(default_factory=dict)
    per_root_n: dict[str, float] = field(default_factory=dict)
    command: str = ""

    def params_at(self, n: int, *, scale: float = 1.0) -> dict[str, Any]:
        """The setting's explicit parameters for a holdout of ``n`` public
        labels: the fixed ones and each ``per_root_n`` multiple over ``√n``,
        times ``scale`` (the loss's range: the multiples are for a loss in
        ``[0, 1]``, Blum & Hardt 2015, Thm 3.1), to three significant digits.

        >>> RECOMMENDED.params_at(100), RECOMMENDED.params_at(10_000)
        ({'eta': 0.1}, {'eta': 0.01})
        >>> RECOMMENDED.params_at(400, scale=4.6)
        {'eta': 0.23}
        >>> RECOMMENDED.params_at(0)
        Traceback (most recent call last):
        ValueError: n must be a whole number of public labels, at least 1, got 0
        """
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"n must be a whole number of public labels, at least 1, got {n!r}")
        if not (isinstance(scale, int | float) and math.isfinite(scale) and scale > 0):
            raise ValueError(f"scale must be a positive finite number, got {scale!r}")
        root = math.sqrt(n)
        scaled = {name: float(f"{m * scale / root:.3g}") for name, m in self.per_root_n.items()}
        return {**self.params, **scaled}

    def fill(
        self, mechanism: str, params: Mapping[str, Any], n: int, *, scale: float = 1.0
    ) -> dict[str, Any]:
        """``params`` for ``mechanism`` on ``n`` public labels, with this
        setting's values (:meth:`params_at` at ``scale``) for what they leave
        out (absent or ``None``) when ``mechanism`` is this setting's: a board
        on the recommended mechanism runs the recommended setting unless the
        organiser says otherwise. Another mechanism's parameters are returned
        as given (its own defaults apply)."""
        given = dict(params)
        if mechanism != self.mechanism:
            return given
        kept = {k: v for k, v in given.items() if v is not None}
        if all(name in kept for name in self.per_root_n):
            scale = 1.0  # nothing scaled is left to fill
        filled = self.params_at(n, scale=scale)
        return {**filled, **kept}


RECOMMENDED = Recommended(
    label="Ladder η=1/√n",
    mechanism="ladder",
    per_root_n={"eta": 1.0},
    command="ladderboard experiment run defaults --reps 20 --seed 0 --out docs",
)
"""ladderboard's default for a new competition (see the module's text)."""
