"""What the demo played: both competitions' boards read back over HTTP, and
what each attacker won on each board."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

__all__ = ["DemoResult", "Standing"]


@dataclass(frozen=True, slots=True)
class Standing:
    """A team's place on one competition's public and private boards."""

    public_rank: int
    public: float
    private_rank: int
    private: float
    entries: int


@dataclass(frozen=True, slots=True)
class DemoResult:
    """The boards of both competitions, read back over HTTP once published.

    ``standings[slug][team]`` is the team's :class:`Standing`.
    ``mechanisms[slug]`` is the competition's ``(mechanism, params)`` as the
    server states them.
    ``start_public[slug][team]`` is the score the board released for an
    attacker's first file (the ``attacker``'s unperturbed model, the
    ``hill-climber``'s majority class) and ``start_private[team]`` that
    file's error on the private rows (the organiser's knowledge: the
    attackers never see it). ``changed[slug][team]`` is how many public
    and private rows an attacker's selected file changes from its first.
    """

    n_train: int
    n_public: int
    n_private: int
    k: int
    seed: int
    teams: tuple[str, ...]
    mechanisms: dict[str, tuple[str, dict[str, Any]]]
    standings: dict[str, dict[str, Standing]]
    start_public: dict[str, dict[str, float]]
    start_private: dict[str, float]
    changed: dict[str, dict[str, tuple[int, int]]]

    def raw_gain(self, slug: str, team: str) -> float:
        """How much better the public board shows the team's selected file
        than it is: its error on the private rows minus the board's score
        (Blum & Hardt 2015, Def. 2.1, with the private rows standing in for
        the truth). For a file that never saw the board this is sampling
        error (and a ladder's rounding), with sd about
        ``√(p(1 − p)(1/n_public + 1/n_private))`` at error ``p``."""
        standing = self.standings[slug][team]
        return standing.private - standing.public

    def attack_gain(self, slug: str, team: str) -> float:
        """What an attacker won on the board: :meth:`raw_gain` of its
        selected file minus that of its first file, which it sent before
        reading any score. Both files are scored on the same public and
        private rows, so the split's sampling error and a ladder's rounding
        of an unchanged release cancel; what is left is what the board's
        releases taught the attacker about the public rows."""
        start = self.start_private[team] - self.start_public[slug][team]
        return self.raw_gain(slug, team) - start

    def blind_sd(self, slug: str, team: str) -> float:
        """The sampling error of :meth:`attack_gain`: its sd had the
        attacker changed the same numbers of public and private rows of its
        first file without reading a score. Each changed row moves its side's
        error by ``1/n`` one way or the other, so the sd is at most
        ``√(d_public/n_public² + d_private/n_private²)``; an attack gain many
        times it is the board's doing, not the split's."""
        public, private = self.changed[slug][team]
        return math.sqrt(public / self.n_public**2 + private / self.n_private**2)
