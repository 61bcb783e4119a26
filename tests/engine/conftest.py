"""The engine's fixtures: a hand-moved clock and a store on each database."""

from __future__ import annotations

import pytest

from engine_helpers import Clock
from ladderboard.engine import Competitions


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def store(database_url, clock):
    competitions = Competitions.open(database_url, clock=clock)
    yield competitions
    competitions.engine.dispose()
