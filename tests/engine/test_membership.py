"""Teams of several members on both stores: creating, inviting, joining,
leaving, handing over the captaincy, merging under Kaggle's rule, and the
history; every refusal changes nothing."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from engine_helpers import at_once, create, csv_for, noisy
from ladderboard.engine import CompetitionClosed, Conflict, NotFound, QuotaExceeded, TeamDisabled
from ladderboard.engine.errors import NotCaptain
from ladderboard.engine.results import TeamInfo
from ladderboard.store.models import (
    SubmissionRow,
    TeamEventRow,
    TeamInvitationRow,
    TeamMemberRow,
    TeamMergeRow,
    TeamRow,
)


def _people(store, *handles: str, slug: str = "comp") -> list[int]:
    """Accounts registered in ``slug``, by handle."""
    ids = []
    for handle in handles:
        account = store.accounts.create(handle)
        store.accounts.register(slug, account.id, rules_sha256="0" * 64, via="open")
        ids.append(account.id)
    return ids


def _state(store) -> tuple:
    """Every row a refused membership change must leave alone."""
    tables = (TeamRow, TeamMemberRow, TeamInvitationRow, TeamMergeRow, TeamEventRow, SubmissionRow)
    with Session(store.engine) as session:
        return tuple(
            tuple(
                tuple(sorted((k, repr(v)) for k, v in vars(row).items() if not k.startswith("_")))
                for row in session.scalars(select(table).order_by(table.id))
            )
            for table in tables
        )


def _refused(store, error, call, *args, match: str | None = None):
    before = _state(store)
    with pytest.raises(error, match=match):
        call(*args)
    assert _state(store) == before


def _submit(store, solution, team: str, seed: int):
    return store.submit("comp", team, csv_for(solution, noisy(solution, 0.4, seed)))


def test_membership_create_invite_join_and_see_the_team(store):
    create(store)
    ann, bob = _people(store, "ann", "bob")
    team = store.membership.create_team("comp", ann, "owls")
    invitation, code = store.membership.invite("comp", ann)
    assert len(code) >= 20 and invitation.expires_at - invitation.created_at == timedelta(days=7)
    seen = store.membership.my_team("comp", ann)
    assert seen.role == "captain" and [i.id for i in seen.invitations] == [invitation.id]
    assert store.membership.join("comp", bob, code).name == team.name == "owls"
    seen = store.membership.my_team("comp", bob)
    assert [(m.handle, m.role) for m in seen.members] == [("ann", "captain"), ("bob", "member")]
    assert seen.role == "member" and seen.invitations == []  # the code admitted one account
    history = [e.event for e in store.membership.history("comp", "owls")]
    assert history == ["created", "invited", "joined"]


def test_membership_an_unregistered_account_neither_creates_nor_joins(store):
    create(store)
    (ann,) = _people(store, "ann")
    stranger = store.accounts.create("stranger").id
    _refused(store, Conflict, store.membership.create_team, "comp", stranger, "x", match="join")
    store.membership.create_team("comp", ann, "owls")
    _, code = store.membership.invite("comp", ann)
    _refused(store, Conflict, store.membership.join, "comp", stranger, code, match="join")


def test_membership_refused_codes_change_nothing(store, clock):
    create(store, max_team_size=2)
    ann, bob, cat, dan = _people(store, "ann", "bob", "cat", "dan")
    store.membership.create_team("comp", ann, "owls")
    store.membership.create_team("comp", dan, "bats")
    _, used = store.membership.invite("comp", ann)
    store.membership.join("comp", bob, used)
    _refused(store, Conflict, store.membership.join, "comp", cat, used, match="used already")
    revoked, code = store.membership.invite("comp", ann)
    store.membership.revoke_invitation("comp", ann, revoked.id)
    _refused(store, Conflict, store.membership.join, "comp", cat, code, match="revoked")
    _, late = store.membership.invite("comp", ann)
    clock.advance(days=7)
    _refused(store, Conflict, store.membership.join, "comp", cat, late, match="expired")
    _, fresh = store.membership.invite("comp", ann)
    _refused(store, Conflict, store.membership.join, "comp", cat, fresh, match="full")
    _, other = store.membership.invite("comp", dan)
    _refused(store, Conflict, store.membership.join, "comp", bob, other, match="already")
    for nonsense in ("", "x" * 65, "no-such-code", "\x00"):
        _refused(store, NotFound, store.membership.join, "comp", cat, nonsense)


def test_membership_only_the_captain_invites_hands_over_and_merges(store):
    create(store)
    ann, bob, dan = _people(store, "ann", "bob", "dan")
    store.membership.create_team("comp", ann, "owls")
    store.membership.create_team("comp", dan, "bats")
    _, code = store.membership.invite("comp", ann)
    store.membership.join("comp", bob, code)
    _refused(store, NotCaptain, store.membership.invite, "comp", bob)
    _refused(store, NotCaptain, store.membership.make_captain, "comp", bob, "ann")
    _refused(store, NotCaptain, store.membership.request_merge, "comp", bob, "bats")
    store.membership.make_captain("comp", ann, "bob")
    assert store.membership.my_team("comp", bob).role == "captain"
    assert store.membership.invite("comp", bob)[1]


def test_membership_the_captain_leaves_last_and_an_empty_team_is_retired(store):
    create(store)
    ann, bob = _people(store, "ann", "bob")
    store.membership.create_team("comp", ann, "owls")
    _, code = store.membership.invite("comp", ann)
    store.membership.join("comp", bob, code)
    _refused(store, Conflict, store.membership.leave, "comp", ann, match="captain leaves last")
    store.membership.leave("comp", bob)
    assert store.membership.my_team("comp", bob) is None
    store.membership.leave("comp", ann)
    team = store.team("comp", "owls")
    assert team.disabled
    events = [e.event for e in store.membership.history("comp", "owls")]
    assert events[-3:] == ["left", "left", "retired"]


def test_membership_nobody_leaves_a_team_that_has_submitted(store):
    """A member who left could start again with a new quota: one person
    would get more of the board's answers than one team's quota."""
    solution, _ = create(store)
    ann, bob = _people(store, "ann", "bob")
    store.membership.create_team("comp", ann, "owls")
    _, code = store.membership.invite("comp", ann)
    store.membership.join("comp", bob, code)
    _submit(store, solution, "owls", 0)
    for person in (bob, ann):
        _refused(store, Conflict, store.membership.leave, "comp", person, match="has submitted")
    assert [m.handle for m in store.accounts.members("comp", "owls")] == ["ann", "bob"]


def _two_teams(store, **config):
    solution, _ = create(store, **config)
    ann, bob, cat = _people(store, "ann", "bob", "cat")
    store.membership.create_team("comp", ann, "owls")
    store.membership.create_team("comp", bob, "bats")
    return solution, (ann, bob, cat)


def test_membership_a_merge_moves_the_members_retires_the_team_and_shares_one_quota(store, clock):
    solution, (ann, bob, cat) = _two_teams(store, daily_quota=3)
    _, code = store.membership.invite("comp", ann)
    store.membership.join("comp", cat, code)
    _submit(store, solution, "owls", 0)
    _submit(store, solution, "owls", 1)
    store.select("comp", "owls", [1])
    merge = store.membership.request_merge("comp", ann, "bats")
    assert [m.id for m in store.membership.my_team("comp", bob).merges] == [merge.id]
    accepted = store.membership.answer_merge("comp", bob, merge.id, accept=True)
    assert accepted.status == "accepted"
    seen = store.membership.my_team("comp", ann)
    assert seen.team.name == "bats" and {m.handle for m in seen.members} == {"ann", "bob", "cat"}
    owls = store.team("comp", "owls")
    assert owls.disabled and len(store.submissions("comp", "owls")) == 2
    assert not any(s.selected for s in store.submissions("comp", "owls"))
    assert "owls" not in [row.team for row in store.board("comp")]
    # bats' daily quota of 3 counts owls' two submissions of today, on the
    # organiser's desk as in the team's own view.
    assert store.quota("comp", "bats").used_today == 2
    desk = {row.name: row for row in store.team_summaries("comp")}
    assert desk["bats"].used_today == 2 and desk["bats"].submissions == 0
    assert _submit(store, solution, "bats", 2).remaining_today == 0
    with pytest.raises(QuotaExceeded):
        store.admit("comp", "bats")
    with pytest.raises(QuotaExceeded):
        _submit(store, solution, "bats", 3)
    clock.advance(days=1)
    assert _submit(store, solution, "bats", 3).number == 2  # bats' own numbering
    events = [e.event for e in store.membership.history("comp", "bats")]
    assert events[-2:] == ["merge requested", "merge accepted"]


def test_membership_merges_refused_by_the_rules_change_nothing(store, clock):
    solution, (ann, bob, cat) = _two_teams(store, daily_quota=2, max_team_size=2)
    (dan,) = _people(store, "dan")
    _, code = store.membership.invite("comp", bob)
    store.membership.join("comp", dan, code)
    # Too many members: 1 + 2 > 2.
    _refused(
        store, Conflict, store.membership.request_merge, "comp", ann, "bats", match="3 members"
    )
    store.membership.leave("comp", dan)
    # Too many submissions: 2 + 1 > 2 x 1 day.
    _submit(store, solution, "owls", 0)
    _submit(store, solution, "owls", 1)
    _submit(store, solution, "bats", 2)
    _refused(store, Conflict, store.membership.request_merge, "comp", ann, "bats", match="3 sub")
    clock.advance(days=1)  # two days: 4 allowed
    merge = store.membership.request_merge("comp", ann, "bats")
    _refused(store, Conflict, store.membership.request_merge, "comp", ann, "bats", match="pending")
    _refused(store, NotFound, store.membership.answer_merge, "comp", cat, merge.id, True)
    _refused(store, NotFound, store.membership.answer_merge, "comp", ann, merge.id, True)
    _refused(store, Conflict, store.membership.request_merge, "comp", ann, "owls", match="itself")
    store.add_team("comp", "listed")  # the organiser's, with a token and no members
    _refused(store, Conflict, store.membership.request_merge, "comp", ann, "listed", match="no mem")
    # The acceptance checks the rules again: a submission since tips the count.
    _submit(store, solution, "bats", 3)
    _submit(store, solution, "bats", 4)
    _refused(
        store, Conflict, store.membership.answer_merge, "comp", bob, merge.id, True, match="5 sub"
    )
    assert store.membership.answer_merge("comp", bob, merge.id, False).status == "refused"
    assert store.membership.my_team("comp", bob).merges == []


def test_membership_no_merge_after_the_merger_deadline_nor_changes_after_the_close(store, clock):
    now = clock()
    _, (ann, bob, _) = _two_teams(
        store, merger_deadline=now + timedelta(hours=1), deadline=now + timedelta(hours=2)
    )
    merge = store.membership.request_merge("comp", ann, "bats")
    clock.advance(hours=1)
    _refused(store, Conflict, store.membership.request_merge, "comp", bob, "owls", match="merger")
    _refused(
        store, Conflict, store.membership.answer_merge, "comp", bob, merge.id, True, match="merger"
    )
    clock.advance(hours=1)
    _refused(store, CompetitionClosed, store.membership.invite, "comp", ann)
    _refused(store, CompetitionClosed, store.membership.leave, "comp", ann)


def test_membership_a_chain_of_merges_counts_every_retired_teams_submissions(store, clock):
    solution, (ann, bob, cat) = _two_teams(store, total_quota=4)
    store.membership.create_team("comp", cat, "cats")
    _submit(store, solution, "owls", 0)
    _submit(store, solution, "bats", 1)
    merge = store.membership.request_merge("comp", ann, "bats")
    store.membership.answer_merge("comp", bob, merge.id, True)
    merge = store.membership.request_merge("comp", bob, "cats")
    store.membership.answer_merge("comp", cat, merge.id, True)
    assert store.quota("comp", "cats").used_total == 2
    _submit(store, solution, "cats", 2)
    _submit(store, solution, "cats", 3)
    with pytest.raises(QuotaExceeded):
        _submit(store, solution, "cats", 4)


def test_membership_joins_at_once_never_overfill_a_team(store):
    create(store, max_team_size=2)
    ann, *others = _people(store, "ann", "bob", "cat", "dan", "eve")
    store.membership.create_team("comp", ann, "owls")
    waiting = [(who, store.membership.invite("comp", ann)[1]) for who in others]
    results = at_once(lambda: store.membership.join("comp", *waiting.pop()), len(others))
    assert sum(not isinstance(r, Exception) for r in results) == 1
    assert all(isinstance(r, (Conflict, TeamInfo)) for r in results), results
    assert len(store.membership.my_team("comp", ann).members) == 2


def test_membership_the_captain_withdraws_a_pending_request_and_asks_again(store):
    _, (ann, bob, _) = _two_teams(store)
    merge = store.membership.request_merge("comp", ann, "bats")
    _refused(store, NotFound, store.membership.withdraw_merge, "comp", bob, merge.id)
    assert store.membership.withdraw_merge("comp", ann, merge.id).status == "withdrawn"
    _refused(store, NotFound, store.membership.answer_merge, "comp", bob, merge.id, True)
    _refused(store, NotFound, store.membership.withdraw_merge, "comp", ann, merge.id)
    again = store.membership.request_merge("comp", ann, "bats")
    assert store.membership.answer_merge("comp", bob, again.id, True).status == "accepted"
    events = [e.event for e in store.membership.history("comp", "bats")]
    assert events == ["created", "merge requested", "merge withdrawn", "merge requested",
                      "merge accepted"]  # fmt: skip


def _postgres_only(database_url):
    if not database_url.startswith("postgresql"):
        pytest.skip("SQLite serialises every writer: the race is PostgreSQL's")


@pytest.mark.slow
def test_membership_a_merge_waits_for_a_submission_in_flight(store, database_url, monkeypatch):
    """A merge accepted while a file of the team it retires is being stored
    waits for that file's commit: the retired team gains no submission after
    its merge, and the quotas that count it see it."""
    _postgres_only(database_url)
    from ladderboard.engine import submitting

    solution, (ann, bob, _) = _two_teams(store)
    merge = store.membership.request_merge("comp", ann, "bats")
    locked, release = threading.Event(), threading.Event()
    counts = submitting.statements.counts

    def paused(*args, **kwargs):  # runs under the board's lock
        locked.set()
        release.wait(30)
        return counts(*args, **kwargs)

    monkeypatch.setattr(submitting.statements, "counts", paused)
    sending = _in_thread(lambda: _submit(store, solution, "owls", 0))
    assert locked.wait(30)
    answering = _in_thread(lambda: store.membership.answer_merge("comp", bob, merge.id, True))
    answering.join(1.0)
    merge_waited = answering.is_alive()
    release.set()
    sending.join(30)
    answering.join(30)
    assert sending.outcome.number == 1 and answering.outcome.status == "accepted"
    assert merge_waited, "the merge committed while a file of the team it retires was in flight"
    assert store.quota("comp", "bats").used_total == 1


def test_membership_a_file_waiting_for_a_merge_is_refused_once_its_team_is_retired(
    store, database_url, monkeypatch
):
    """A file of a team that waits for the board while the team's merge
    holds it is refused once the merge commits: the retired team is read
    after the wait, not before."""
    _postgres_only(database_url)
    from ladderboard.engine import membership

    solution, (ann, bob, _) = _two_teams(store)
    merge = store.membership.request_merge("comp", ann, "bats")
    locked, release = threading.Event(), threading.Event()
    lock_states = membership.statements.lock_states

    def paused(*args, **kwargs):  # the merge holds both teams' boards
        lock_states(*args, **kwargs)
        locked.set()
        release.wait(30)

    monkeypatch.setattr(membership.statements, "lock_states", paused)
    answering = _in_thread(lambda: store.membership.answer_merge("comp", bob, merge.id, True))
    assert locked.wait(30)
    sending = _in_thread(lambda: _submit(store, solution, "owls", 0))
    _wait_for_a_lock_wait(store)  # the file reaches the board's lock and waits there
    release.set()
    answering.join(30)
    sending.join(30)
    assert answering.outcome.status == "accepted"
    assert isinstance(sending.outcome, TeamDisabled), sending.outcome
    assert store.submissions("comp", "owls") == []


def _wait_for_a_lock_wait(store) -> None:
    """Return once a session of the store's database waits for a lock."""
    from sqlalchemy import text

    waiting = text(
        "select count(*) from pg_stat_activity "
        "where datname = current_database() and wait_event_type = 'Lock'"
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with store.engine.connect() as connection:
            if connection.execute(waiting).scalar():
                return
        time.sleep(0.01)
    raise AssertionError("no session came to wait for a lock")


class _Thread(threading.Thread):
    outcome: object = None


def _in_thread(call) -> _Thread:
    """``call`` in a thread of its own; its result or exception in ``outcome``."""

    def run():
        try:
            thread.outcome = call()
        except Exception as exc:  # the test reads it
            thread.outcome = exc

    thread = _Thread(target=run, daemon=True)
    thread.start()
    return thread
