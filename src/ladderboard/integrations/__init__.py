"""Model-selection libraries whose selection goes through a guarded validation set.

=========================  ====================================================
:mod:`~.sklearn`           ``GuardedGridSearch`` and ``GuardedRandomizedSearch``:
                           scikit-learn searches that choose on released scores
:mod:`~.optuna`            ``guarded_objective``: an Optuna objective whose
                           trial values are released scores
=========================  ====================================================

Each module imports its library at module level and nothing else does:
importing this package needs neither, and the core stays numpy and scipy only.
They come with the ``sklearn`` and ``optuna`` extras
(``pip install 'ladderboard[sklearn,optuna]'``).
"""
