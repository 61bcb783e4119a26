"""The competition server: a FastAPI app factory over the competition engine.

``create_app`` is in :mod:`ladderboard.server.app`; the routes in
:mod:`ladderboard.server.api`; the response models (the privacy boundary) in
:mod:`ladderboard.server.schemas`; how refusals become HTTP errors in
:mod:`ladderboard.server.errors`. Needs the ``server`` extra.

This package re-exports nothing: importing it would load FastAPI and the
templates for the commands (``init``, the parent of ``serve``) that need only
:mod:`ladderboard.server.run`.
"""
