"""Competition invitations in the store (SQLite and PostgreSQL): a code kept
only as its hash, found only in its own competition, and a use counted only
while the invitation is valid, never past ``max_uses``."""

from __future__ import annotations

from datetime import timedelta

from engine_helpers import make_solution
from ladderboard.rules.config import CompetitionConfig
from ladderboard.store.invitations import code_hash


def _competitions(store, *slugs):
    for slug in slugs:
        store.create(slug, make_solution(), CompetitionConfig(score="zero_one", mechanism="ladder"))
    return store.invitations


def test_a_code_is_kept_as_its_hash_and_found_in_its_competition_only(store):
    invitations = _competitions(store, "demo", "other")
    made, code = invitations.create("demo", label="course", created_by="administrator token")
    assert made.uses == 0 and made.state(store.context.now()) == "valid"
    assert invitations.find("demo", code) == made
    assert invitations.find("other", code) is None
    assert invitations.find("demo", code_hash(code)) is None
    assert invitations.invitations("demo") == [made] and invitations.invitations("other") == []


def test_uses_are_counted_up_to_the_limit(store):
    invitations = _competitions(store, "demo")
    made, code = invitations.create("demo", label="", created_by="x", max_uses=2)
    assert invitations.take(made.id) and invitations.take(made.id)
    assert not invitations.take(made.id)
    found = invitations.find("demo", code)
    assert found.uses == 2 and found.state(store.context.now()) == "used up"
    invitations.give_back(made.id)
    assert invitations.find("demo", code).state(store.context.now()) == "valid"


def test_an_expired_or_revoked_invitation_counts_no_use(store, clock):
    invitations = _competitions(store, "demo")
    soon, soon_code = invitations.create(
        "demo", label="", created_by="x", expires_at=clock() + timedelta(hours=1)
    )
    later, later_code = invitations.create("demo", label="", created_by="x")
    clock.advance(hours=1)
    assert not invitations.take(soon.id)
    assert invitations.find("demo", soon_code).state(clock()) == "expired"
    revoked = invitations.revoke("demo", later.id)
    assert revoked.revoked_at == clock()
    clock.advance(hours=1)
    assert invitations.revoke("demo", later.id).revoked_at == revoked.revoked_at
    assert not invitations.take(later.id)
    assert invitations.find("demo", later_code).uses == 0
    assert invitations.revoke("other", later.id) is None
