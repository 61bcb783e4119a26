"""The competition server: a FastAPI app factory over the competition engine.

``create_app`` is in :mod:`ladderboard.server.app`; the routes in
:mod:`ladderboard.server.api`; the response models (the privacy boundary) in
:mod:`ladderboard.server.schemas`; how refusals become HTTP errors in
:mod:`ladderboard.server.errors`. Needs the ``server`` extra.
"""

from ladderboard.server.app import create_app
from ladderboard.server.settings import Settings

__all__ = ["Settings", "create_app"]
