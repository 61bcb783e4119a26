"""The files of a refused creation form, kept for the next try (SQLite and
PostgreSQL): only for the session that sent them, until they expire, each
keep replacing what the draft held."""

from __future__ import annotations

from datetime import timedelta

from engine_helpers import Clock
from ladderboard.engine import Competitions
from ladderboard.store.staged_uploads import DRAFT_LIFETIME, Draft


def test_staged_uploads_are_the_sessions_own_until_they_expire(database_url):
    clock = Clock()
    store = Competitions.open(database_url, clock=clock, store_clock=clock)
    try:
        drafts = store.drafts
        draft = drafts.keep("cookie", "", ("solution.csv", b"id,y\n"), [("a.csv", b"a")])
        assert drafts.kept("cookie", draft) == Draft(
            ("solution.csv", b"id,y\n"), (("a.csv", b"a"),)
        )
        assert drafts.kept("another cookie", draft) == Draft()
        assert drafts.kept("cookie", "another draft") == Draft()
        assert drafts.keep("cookie", draft, None, [("b.csv", b"b")]) == draft
        assert drafts.kept("cookie", draft) == Draft(None, (("b.csv", b"b"),))
        clock.advance(seconds=DRAFT_LIFETIME.total_seconds() - 1)
        assert drafts.kept("cookie", draft).files == (("b.csv", b"b"),)
        clock.now += timedelta(seconds=1)
        assert drafts.kept("cookie", draft) == Draft()
        second = drafts.keep("cookie", "", ("s.csv", b"s"), [])
        drafts.forget("cookie", second)
        assert drafts.kept("cookie", second) == Draft()
    finally:
        store.engine.dispose()
