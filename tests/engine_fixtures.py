"""The engine's fixtures: a hand-moved clock and a store on each database
(a plugin of tests/conftest.py: a second conftest.py would clash with
tests/server's, the test folders being no packages)."""

from __future__ import annotations

import pytest

from engine_helpers import Clock
from ladderboard.engine import Competitions


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def store(database_url, clock):
    competitions = Competitions.open(database_url, clock=clock, store_clock=clock)
    yield competitions
    competitions.engine.dispose()
