"""Every release recorded in ``tests/data`` is given again, bit for bit.

The record was written by ``tests/golden_histories.py`` before the engine was
restructured into layers; these tests hold any later change of structure to
the same released scores and decisions, on both stores, and hold the store
written then to the audit.
"""

from __future__ import annotations

import json
import shutil

import pytest

from golden_histories import RECORD, STORE, library_histories, store_histories


@pytest.fixture(scope="module")
def recorded():
    return json.loads(RECORD.read_text())


def test_every_mechanism_releases_what_it_released(recorded):
    assert library_histories() == recorded["library"]


@pytest.mark.slow
def test_every_board_of_the_engine_releases_what_it_released(recorded, database_url):
    assert store_histories(database_url) == recorded["store"]


def test_a_store_written_before_still_verifies(recorded, tmp_path):
    from ladderboard.engine import Competitions
    from ladderboard.engine.audit import verify

    copy = tmp_path / "store.sqlite"
    shutil.copy(STORE, copy)
    store = Competitions.open(f"sqlite:///{copy}")
    try:
        slugs = sorted(info.slug for info in store.competitions())
        assert slugs == sorted(recorded["store"])
        for slug in slugs:
            report = verify(store, slug)
            assert report.submissions == len(recorded["store"][slug]["releases"])
    finally:
        store.dispose()
