"""Replaying a competition's whole submission history under the mechanisms.

The Ladder paper (Blum & Hardt 2015, §6) replays the 1785 submissions of a
Kaggle competition under the parameter-free Ladder and compares the boards
with Kaggle's: the top-10 perturbations (Table 1), public against private
scores (Fig. 4), random half-splits of the private rows (Fig. 5) and paired
t-tests of the top submission against ranks 2-10 (Fig. 6). This package does
the same for any competition directory and any registered mechanisms:

=====================  ==========================================================
``history``            which files, for which team, at what time, in what order
``loading``            a tolerant reader: the defects repaired, the ones refused
``mechanism_choice``   mechanisms by name, ``--param KEY=VALUE``, checked first
``replay``             each file scored once; one mechanism per team; the boards
``analysis``           rank perturbations, Kendall's tau, half-splits, t-tests
``run``                :func:`replay_competition`, all of it in one call
``report``             CSV tables and a Markdown report beside the paper's values
``figures``            the four figures (Table 1, Figs. 4-6) as PNG and SVG
``cli``                the ``ladderboard replay`` command
=====================  ==========================================================

The package's modules import numpy, the mechanisms and matplotlib when a
replay runs or a figure is drawn, so that importing the package (and the
command line) stays light.
"""

from __future__ import annotations

from ladderboard.replay.report import write_outputs
from ladderboard.replay.run import ReplayResult, replay_competition

__all__ = ["ReplayResult", "replay_competition", "write_outputs"]
