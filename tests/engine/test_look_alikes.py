"""Look-alike accounts: each rule flags the accounts of a competition that
share what one person's would (an address, a mailbox, an identity's address,
a client address within minutes, a team's predictions), says why, and names
the accounts and their teams; accounts that share nothing are not flagged,
and accounts outside the competition are not looked at."""

from __future__ import annotations

from datetime import timedelta

import pytest

from engine_helpers import create, csv_for, noisy
from ladderboard.engine.errors import NotFound
from ladderboard.engine.look_alikes import find_look_alikes, mailbox


def _flags(store, rule=None):
    found = store.look_alikes("comp")
    return [f for f in found if rule is None or f.rule == rule]


def _handles(flag):
    return [a.handle for a in flag.accounts]


def _in_team(store, handle, team, **account):
    """An account that joined ``comp`` itself (as the join route records it)
    and is in ``team``."""
    person = store.accounts.create(handle, **account)
    store.accounts.register("comp", person.id, rules_sha256="0" * 64, via="open")
    if team not in {t.name for t in store.teams("comp")}:
        store.accounts.create_account_team("comp", person.id, team)
    else:
        store.accounts.add_member("comp", team, person.id)
    return person


def test_look_alikes_two_unrelated_accounts_are_not_flagged(store, clock):
    create(store)
    _in_team(store, "alice", "owls", email="alice@example.org", created_from="10.0.0.1")
    clock.advance(minutes=1)
    _in_team(store, "bob", "larks", email="bob@example.org", created_from="10.0.0.2")
    assert store.look_alikes("comp") == []


def test_look_alikes_the_same_address_in_another_case_is_flagged(store):
    create(store)
    _in_team(store, "alice", "owls", email="Alice@Example.org")
    _in_team(store, "alias", "larks", email="alice@example.ORG")
    _in_team(store, "carol", "larks", email="carol@example.org")
    [flag] = _flags(store)
    assert flag.rule == "same-email"
    assert _handles(flag) == ["alice", "alias"] and flag.teams == ("larks", "owls")
    assert [a.team for a in flag.accounts] == ["owls", "larks"]
    assert "alice@example.org" in flag.evidence


def test_look_alikes_dots_and_a_tag_reach_one_mailbox(store):
    create(store)
    _in_team(store, "alice", "owls", email="alice.smith@example.org")
    _in_team(store, "alias", "larks", email="alicesmith+ladder@example.org")
    _in_team(store, "other", "larks", email="alice.smyth@example.org")
    [flag] = _flags(store)
    assert flag.rule == "same-mailbox" and _handles(flag) == ["alice", "alias"]
    assert "alice.smith@example.org" in flag.evidence
    assert "alicesmith+ladder@example.org" in flag.evidence


def test_look_alikes_an_identity_address_matches_another_account(store):
    create(store)
    alice = _in_team(store, "alice", "owls")
    _in_team(store, "alias", "larks", email="a.liddell@example.org")
    _in_team(store, "carol", "larks")
    store.accounts.link_identity(alice.id, "https://idp.example", "sub-1", "A.Liddell@example.org")
    carol = store.accounts.by_handle("carol")
    store.accounts.link_identity(carol.id, "https://idp.example", "sub-2", "carol@example.org")
    [flag] = _flags(store)
    assert flag.rule == "same-identity-email" and _handles(flag) == ["alice", "alias"]
    assert "(identity)" in flag.evidence


def test_look_alikes_two_identities_with_one_address_are_flagged(store):
    create(store)
    alice, alias = _in_team(store, "alice", "owls"), _in_team(store, "alias", "larks")
    store.accounts.link_identity(alice.id, "https://github.example", "1", "me@example.org")
    store.accounts.link_identity(alias.id, "https://google.example", "2", "me@example.org")
    [flag] = _flags(store)
    assert flag.rule == "same-identity-email" and _handles(flag) == ["alice", "alias"]


def test_look_alikes_accounts_created_together_from_one_address(store, clock):
    create(store)
    _in_team(store, "alice", "owls", created_from="192.0.2.7")
    clock.advance(minutes=4)
    _in_team(store, "alias", "larks", created_from="192.0.2.7")
    clock.advance(minutes=1)
    _in_team(store, "elsewhere", "larks", created_from="198.51.100.1")
    clock.advance(minutes=30)
    _in_team(store, "later", "larks", created_from="192.0.2.7")  # same address, not together
    _in_team(store, "unknown1", "larks")  # no address known: never together
    _in_team(store, "unknown2", "larks")
    [flag] = _flags(store)
    assert flag.rule == "created-together" and _handles(flag) == ["alice", "alias"]
    assert "192.0.2.7" in flag.evidence and "2 accounts" in flag.evidence


def test_look_alikes_duplicate_submissions_name_both_teams_members(store):
    solution, _ = create(store)
    _in_team(store, "alice", "owls")
    _in_team(store, "bob", "owls")
    _in_team(store, "alias", "larks")
    _in_team(store, "carol", "wrens")
    predictions = csv_for(solution, noisy(solution, 0.3, 1))
    store.submit("comp", "owls", predictions)
    store.submit("comp", "wrens", csv_for(solution, noisy(solution, 0.3, 2)))
    store.submit("comp", "larks", predictions)
    assert len(store.flags("comp")) == 1
    [flag] = _flags(store)
    assert flag.rule == "duplicate-submissions"
    assert _handles(flag) == ["alice", "bob", "alias"] and flag.teams == ("larks", "owls")
    assert "larks #1 repeats owls #1" in flag.evidence


def test_look_alikes_look_only_at_the_accounts_of_the_competition(store):
    create(store)
    create(store, slug="other")
    _in_team(store, "alice", "owls", email="alice@example.org")
    outsider = store.accounts.create("alias", email="alice@example.org")
    assert store.look_alikes("comp") == []
    store.accounts.register("comp", outsider.id, rules_sha256="a" * 64, via="open")
    [flag] = _flags(store)  # registered, in no team yet
    assert _handles(flag) == ["alice", "alias"] and [a.team for a in flag.accounts] == [
        "owls",
        None,
    ]
    assert store.look_alikes("other") == []


def test_look_alikes_the_window_is_a_duration():
    with pytest.raises(ValueError, match="window"):
        find_look_alikes([], [], window=timedelta(minutes=-1))
    assert mailbox("Al.Ice+x+y@Mail.Example") == "alice@mail.example"


def test_look_alikes_a_dismissed_flag_stays_dismissed_until_an_account_joins_it(store):
    create(store)
    _in_team(store, "alice", "owls", email="alice@example.org")
    _in_team(store, "alias", "larks", email="alice@example.org")
    [flag] = _flags(store)
    assert not flag.dismissed
    assert store.dismiss_look_alike("comp", flag.key, "administrator token").dismissed
    store.dismiss_look_alike("comp", flag.key, "again")  # twice is once
    [kept] = _flags(store)
    assert kept.dismissed and kept.key == flag.key
    with pytest.raises(NotFound):
        store.dismiss_look_alike("comp", "0" * 64, "administrator token")
    assert store.restore_look_alike("comp", flag.key).dismissed is False
    with pytest.raises(NotFound):
        store.restore_look_alike("comp", flag.key)  # not dismissed any more
    store.dismiss_look_alike("comp", flag.key, "administrator token")
    _in_team(store, "third", "larks", email="ALICE@example.org")
    [grown] = _flags(store)
    assert not grown.dismissed and _handles(grown) == ["alice", "alias", "third"]


def test_look_alikes_an_account_the_organiser_listed_is_not_looked_at(store):
    """The organiser's list puts any account in a team without its owner's
    choice: its addresses are not shown to the organiser for that."""
    create(store)
    _in_team(store, "alice", "owls", email="alice@example.org")
    listed = store.accounts.create("victim", email="alice@example.org")
    store.add_team("comp", "larks")
    store.accounts.add_member("comp", "larks", listed.id)
    store.accounts.register("comp", listed.id, rules_sha256="0" * 64, via="list")
    assert _flags(store) == []
