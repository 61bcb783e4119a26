"""Simulated competitions: a realistic submission history to replay.

The Ladder paper (Blum & Hardt 2015, Sec. 6) replays the 1785 submissions of
200 teams in Kaggle's Photo Quality competition under per-team ladders. That
data is not public, so this package makes one: from a real dataset that
installs offline (ISLR ``Caravan``, the CoIL 2000 challenge data, by default),
honest teams fit scikit-learn models of their favourite family, improve them
over several submissions by what the public board shows them, and a few
adversaries run the attacks of :mod:`ladderboard.attacks` through the same
boards. The result is a competition directory (the hidden solution, one file
per submission with its team and time, and the ground truth of who is who and
which files were spoiled on purpose) that ``ladderboard replay`` reads.

===========================  =================================================
``simulate_competition``     run the simulation and write the directory
``SimulationSummary``        what was written, with every submission's truth
``DATASETS``                 the datasets: caravan, default, synthetic
``DEFECTS``                  the formatting defects injected into a few files
``ADVERSARIES``              the adversaries' strategies
===========================  =================================================

The command is ``ladderboard simulate-competition`` (:mod:`.cli`). The
package's modules import numpy, pyarrow, scikit-learn and the attacks when a
simulation runs, so that importing the package (and the command line) stays
light.
"""

from __future__ import annotations

from ladderboard.simulation.adversaries import ADVERSARIES
from ladderboard.simulation.competition import SimulationSummary, simulate_competition
from ladderboard.simulation.datasets import DATASETS
from ladderboard.simulation.defects import DEFECTS
from ladderboard.simulation.submitting import SubmissionRecord

__all__ = [
    "ADVERSARIES",
    "DATASETS",
    "DEFECTS",
    "SimulationSummary",
    "SubmissionRecord",
    "simulate_competition",
]
