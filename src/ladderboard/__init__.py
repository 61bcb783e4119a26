"""ladderboard: reliable public leaderboards for machine-learning competitions.

The public leaderboard of a competition is computed on a holdout set that
participants query again and again; the scores it shows are then biased, and a
determined participant can climb it without learning anything. ladderboard
implements the mechanisms that keep the board honest: the Ladder (Blum & Hardt,
2015), the Shaky Ladder (Hardt, 2017) and LadderBoot / BayesBootLadder
(Chaibub Neto et al., 2016).
"""

__version__ = "0.2.0"
