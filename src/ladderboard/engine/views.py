"""The engine's results under the module name ``server/api.py`` still
imports; :mod:`ladderboard.engine.results` holds them. Importers use that
module; this one goes once ``server/api.py`` does."""

from ladderboard.engine.results import CompetitionInfo

__all__ = ["CompetitionInfo"]
