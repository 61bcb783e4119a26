"""Every leaderboard mechanism of the papers, behind one ``submit`` interface.

========================  =====================================================
``FullDisclosure``        the Kaggle mechanism (Blum & Hardt 2015, App. A)
``Ladder``                fixed step ``eta`` (Blum & Hardt 2015, Fig. 1)
``ParameterFreeLadder``   paired-test step (Blum & Hardt 2015, Fig. 2)
``SignificanceLadder``    step at level ``alpha`` (Chaibub Neto et al. 2016, Alg. 3)
========================  =====================================================
"""

from ladderboard.mechanisms.base import MECHANISMS, Mechanism, Release, make_mechanism, round_to
from ladderboard.mechanisms.ladder import (
    FullDisclosure,
    Ladder,
    ParameterFreeLadder,
    SignificanceLadder,
)

__all__ = [
    "MECHANISMS",
    "FullDisclosure",
    "Ladder",
    "Mechanism",
    "ParameterFreeLadder",
    "Release",
    "SignificanceLadder",
    "make_mechanism",
    "round_to",
]
