"""Accounts in the engine: handles unique under the team names' folding,
personal tokens and sessions stored as hashes and refused once revoked or
expired, one team per account and competition, registrations that record
the rules accepted, and organisers with at least one owner."""

from __future__ import annotations

from datetime import timedelta

import pytest

from engine_helpers import create
from ladderboard.engine.accounts import token_digest
from ladderboard.engine.errors import Conflict, NotFound


def test_accounts_handles_are_unique_under_case_and_look_alike_letters(store):
    alice = store.accounts.create("Alice", email=" Alice@Example.org ")
    assert alice.email == "alice@example.org" and not alice.email_verified
    for taken in ("alice", "ALICE", "\u0410lice"):  # a Cyrillic A
        with pytest.raises(Conflict):
            store.accounts.create(taken)
    assert store.accounts.by_handle("ALICE").id == alice.id
    with pytest.raises(ValueError, match="email"):
        store.accounts.create("bob", email="not an address")
    with pytest.raises(NotFound):
        store.accounts.by_handle("bob")  # the refused account was not written


def test_accounts_a_personal_token_is_kept_as_a_hash_and_dies_when_revoked_or_rotated(store):
    alice = store.accounts.create("alice")
    info, token = store.accounts.create_token(alice.id, "laptop")
    assert store.accounts.account_of_token_hash(token_digest(token)).id == alice.id
    rotated, new = store.accounts.rotate_token(alice.id, info.id)
    assert rotated.label == "laptop" and new != token
    assert store.accounts.account_of_token_hash(token_digest(token)) is None
    assert store.accounts.account_of_token_hash(token_digest(new)).id == alice.id
    store.accounts.revoke_token(alice.id, rotated.id)
    assert store.accounts.account_of_token_hash(token_digest(new)) is None
    with pytest.raises(NotFound):  # nobody revokes another account's token
        other = store.accounts.create("bob")
        store.accounts.revoke_token(other.id, store.accounts.create_token(alice.id, "x")[0].id)
    assert [t.revoked_at is None for t in store.accounts.tokens(alice.id)] == [False, False, True]


def test_accounts_a_session_expires_and_a_disabled_account_loses_its_sessions(store, clock):
    alice = store.accounts.create("alice")
    cookie = store.accounts.open_session(alice.id, timedelta(hours=1))
    assert store.accounts.session_account(cookie).id == alice.id
    clock.advance(hours=2)
    assert store.accounts.session_account(cookie) is None
    cookie = store.accounts.open_session(alice.id, timedelta(hours=1))
    store.accounts.set_disabled(alice.id, True)
    store.accounts.set_disabled(alice.id, False)
    assert store.accounts.session_account(cookie) is None  # revoked, not revived


def test_accounts_one_team_per_account_and_competition(store):
    create(store)
    alice, bob = store.accounts.create("alice"), store.accounts.create("bob")
    team = store.accounts.create_account_team("comp", alice.id, "owls")
    assert store.accounts.team_of_account("comp", alice.id) == team
    assert store.accounts.member_role("comp", alice.id) == "captain"
    with pytest.raises(Conflict):
        store.accounts.create_account_team("comp", alice.id, "larks")
    assert [t.name for t in store.teams("comp")] == ["owls"]  # nothing half-written
    store.accounts.add_member("comp", "owls", bob.id)
    with pytest.raises(Conflict):
        store.accounts.add_member("comp", "owls", bob.id)
    assert [(m.handle, m.role) for m in store.accounts.members("comp", "owls")] == [
        ("alice", "captain"),
        ("bob", "member"),
    ]
    store.accounts.remove_member("comp", bob.id)
    assert store.accounts.team_of_account("comp", bob.id) is None
    assert store.accounts.competitions_of(alice.id) == [("comp", "member")]


def test_accounts_a_registration_records_the_rules_accepted_and_a_second_acceptance(store, clock):
    create(store)
    alice = store.accounts.create("alice")
    first = store.accounts.register("comp", alice.id, rules_sha256="a" * 64, via="open")
    clock.advance(hours=1)
    again = store.accounts.register("comp", alice.id, rules_sha256="b" * 64, via="invitation")
    assert (again.rules_sha256, again.via) == ("b" * 64, "open")  # how it came in stays
    assert again.accepted_rules_at - first.accepted_rules_at == timedelta(hours=1)
    assert [r.handle for r in store.accounts.registrations("comp")] == ["alice"]
    with pytest.raises(ValueError):
        store.accounts.register("comp", alice.id, rules_sha256="c" * 64, via="somehow")


def test_accounts_a_competition_keeps_an_owner(store):
    create(store)
    alice, bob = store.accounts.create("alice"), store.accounts.create("bob")
    store.accounts.add_organiser("comp", alice.id, "owner", "administrator token")
    with pytest.raises(Conflict, match="owner"):
        store.accounts.remove_organiser("comp", alice.id)
    with pytest.raises(Conflict, match="owner"):
        store.accounts.add_organiser("comp", alice.id, "co-organiser", "alice")
    store.accounts.add_organiser("comp", bob.id, "co-organiser", "alice")
    assert store.accounts.organiser_role("comp", bob.id) == "co-organiser"
    store.accounts.add_organiser("comp", bob.id, "owner", "alice")
    store.accounts.remove_organiser("comp", alice.id)
    assert [(o.handle, o.role) for o in store.accounts.organisers("comp")] == [("bob", "owner")]


def test_accounts_the_action_log_is_newest_first_per_competition(store):
    create(store)
    store.accounts.record_action("comp", "administrator token", None, "close", {"why": "end"})
    store.accounts.record_action("comp", "account alice", None, "publish")
    store.accounts.record_action(None, "administrator token", None, "account created")
    assert [a.action for a in store.accounts.actions("comp")] == ["publish", "close"]
    assert [a.action for a in store.accounts.actions(None)] == ["account created"]
