"""A competition in two phases, played through on both stores with an
injected clock: a development phase, then a final phase with an opening
time, a freeze and late files, each with its own holdout and boards and the
same teams (their tokens, accounts, disabling and merges)."""

from __future__ import annotations

import hashlib
from datetime import timedelta

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from engine_helpers import CALENDAR_START as START
from engine_helpers import Clock, csv_for, make_solution, noisy
from ladderboard.engine import Competitions, Conflict, NotFound
from ladderboard.engine.errors import CompetitionClosed, NotOpenYet, QuotaExceeded
from ladderboard.rules.config import CompetitionConfig
from ladderboard.store.models import CompetitionRow, TeamRow

DEV_DEADLINE = START + timedelta(days=10)
FINAL_OPENS = DEV_DEADLINE + timedelta(hours=1)
FINAL_FREEZE = FINAL_OPENS + timedelta(days=4)
FINAL_DEADLINE = FINAL_OPENS + timedelta(days=5)


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _board(store, slug, **kwargs):
    return [(r.team, r.score, r.entries) for r in store.leaderboard(slug, **kwargs)]


def _file(solution, flip: float, seed: int) -> bytes:
    return csv_for(solution, noisy(solution, flip, seed))


def _series(store):
    dev = make_solution(seed=1)
    final = make_solution(n=600, seed=2)
    store.create(
        "dev",
        dev,
        CompetitionConfig(
            score="zero_one",
            mechanism="parameter-free-ladder",
            deadline=DEV_DEADLINE,
            registration="open",
        ),
        title="Development phase",
        random_state=3,
    )
    return dev, final


def _final_config(**changes) -> CompetitionConfig:
    settings = dict(
        score="zero_one",
        mechanism="parameter-free-ladder",
        daily_quota=2,
        opens_at=FINAL_OPENS,
        freeze_at=FINAL_FREEZE,
        deadline=FINAL_DEADLINE,
        late_submissions=True,
        phase_of="dev",
    )
    return CompetitionConfig(**{**settings, **changes})


def _teams(store, slug: str) -> list[tuple[str, int | None, bool]]:
    """``(name, home team's name, disabled)`` of each row of ``slug``."""
    with Session(store.engine) as session:
        competition = session.scalars(
            select(CompetitionRow).where(CompetitionRow.slug == slug)
        ).one()
        rows = session.scalars(
            select(TeamRow).where(TeamRow.competition_id == competition.id).order_by(TeamRow.id)
        ).all()
        names = {t.id: t.name for t in session.scalars(select(TeamRow))}
        return [(r.name, names[r.home_team_id], r.disabled_at is not None) for r in rows]


@pytest.mark.parametrize("board", ["per-team", "per-rank"])
@pytest.mark.slow
def test_phases_played_through(database_url, board):
    clock = Clock(START)
    store = Competitions.open(database_url, clock=clock, store_clock=clock)
    dev, final = _series(store)
    store.add_team("dev", "alpha", token_hash=_hash("alpha-token"))
    ann = store.accounts.create("ann").id
    store.accounts.register("dev", ann, rules_sha256="0" * 64, via="open")
    store.membership.create_team("dev", ann, "owls")

    # The final phase: its own holdout and calendar, the first phase's teams.
    info = store.create("final", final, _final_config(board=board), random_state=4)
    assert info.config.phase_of == "dev" and info.n_public == final.n_public
    store.add_team("dev", "gamma", token_hash=_hash("gamma-token"))  # after: mirrored too
    assert _teams(store, "final") == [
        ("alpha", "alpha", False),
        ("owls", "owls", False),
        ("gamma", "gamma", False),
    ]
    with pytest.raises(Conflict, match="register the team in 'dev'"):
        store.add_team("final", "delta", token_hash=_hash("delta-token"))
    assert [name for name, _, _ in _teams(store, "final")] == ["alpha", "owls", "gamma"]

    # One token and one account are the team in both phases, each its own row.
    dev_alpha = store.team_by_token_hash("dev", _hash("alpha-token"))
    final_alpha = store.team_by_token_hash("final", _hash("alpha-token"))
    assert (dev_alpha.name, final_alpha.name) == ("alpha", "alpha")
    assert dev_alpha.id != final_alpha.id
    read = store.member_admission("final", _hash("alpha-token"))
    assert read.team == final_alpha and read.competition.slug == "final"
    assert store.accounts.team_of_account("final", ann).name == "owls"
    assert store.accounts.team_of_account("final", ann).id != (
        store.accounts.team_of_account("dev", ann).id
    )

    # The development phase runs; the final phase waits for its opening.
    store.submit("dev", "alpha", _file(dev, 0.2, 0))
    store.submit("dev", "owls", _file(dev, 0.3, 1))
    with pytest.raises(NotOpenYet):
        store.submit("final", "alpha", _file(final, 0.2, 0))
    assert store.quota("final", "alpha").used_total == 0
    dev_board = _board(store, "dev")
    assert sorted(team for team, _, _ in dev_board) == ["alpha", "owls"]
    assert store.leaderboard("final") == []

    # A team formed from the final phase's page forms in the first phase.
    bob = store.accounts.create("bob").id
    store.accounts.register("dev", bob, rules_sha256="0" * 64, via="open")
    store.membership.create_team("final", bob, "bats")
    assert store.team("dev", "bats").name == "bats" and store.team("final", "bats").name == "bats"
    assert store.membership.my_team("final", bob).team.id == store.team("dev", "bats").id

    # The development phase ends; the final phase opens with its own boards
    # and quotas, and the first phase's board stays as it closed.
    clock.now = FINAL_OPENS + timedelta(minutes=5)
    with pytest.raises(CompetitionClosed):
        store.submit("dev", "alpha", _file(dev, 0.1, 2))
    store.submit("final", "alpha", _file(final, 0.3, 3))
    store.submit("final", "owls", _file(final, 0.25, 4))
    store.submit("final", "bats", _file(final, 0.35, 5))
    before_freeze = _board(store, "final")
    assert sorted(t for t, _, _ in before_freeze) == ["alpha", "bats", "owls"]
    assert _board(store, "dev") == dev_board
    assert [s.number for s in store.submissions("final", "alpha")] == [1]
    assert store.quota("final", "alpha").used_today == 1
    assert store.quota("dev", "alpha").used_total == 1

    # Disabling a team in the first phase disables it in every phase.
    store.set_team_disabled("dev", "bats", True)
    assert store.team("final", "bats").disabled
    assert "bats" not in [t for t, _, _ in _board(store, "final")]
    store.set_team_disabled("dev", "bats", False)
    assert not store.team("final", "bats").disabled
    assert _board(store, "final") == before_freeze

    # A merge in the first phase merges the two teams in every phase: the
    # kept team's quota in the final phase counts the retired team's files.
    merge = store.membership.request_merge("final", bob, "owls")
    store.membership.answer_merge("final", ann, merge.id, accept=True)
    assert store.team("final", "bats").disabled and store.team("dev", "bats").disabled
    assert store.quota("final", "owls").used_today == 2
    with pytest.raises(QuotaExceeded):
        store.admit("final", "owls")
    assert store.accounts.team_of_account("final", bob).name == "owls"
    before_freeze = _board(store, "final")
    assert sorted(t for t, _, _ in before_freeze) == ["alpha", "owls"]

    # The freeze: the final phase's public board stands still, releases go on.
    clock.now = FINAL_FREEZE + timedelta(hours=1)
    store.submit("final", "alpha", _file(final, 0.05, 6))
    assert _board(store, "final") == before_freeze
    assert _board(store, "final", organiser=True) != before_freeze

    # The close and the publication: the final ranking is the final phase's
    # private board; late files go to its late board only.
    clock.now = FINAL_DEADLINE + timedelta(minutes=1)
    store.publish("final")
    ranking = store.leaderboard("final", "private")
    assert sorted(r.team for r in ranking) == ["alpha", "owls"]
    late = store.submit("final", "gamma", _file(final, 0.0, 7))
    assert late.late
    assert store.leaderboard("final", "private") == ranking
    assert [r.team for r in store.late_board("final")] == ["gamma"]
    # Every phase closed: the teams stand as they are.
    with pytest.raises(CompetitionClosed):
        store.membership.invite("final", ann)
    store.engine.dispose()


def test_phases_refusals_change_nothing(store):
    _series(store)
    with pytest.raises(
        ValueError, match="there is no competition 'nope' for this one to be a phase of"
    ):
        store.create("final", make_solution(seed=2), _final_config(phase_of="nope"))
    with pytest.raises(ValueError, match="phase_of must be a competition's slug"):
        _final_config(phase_of="Not a slug")
    assert [c.slug for c in store.competitions()] == ["dev"]
    store.create("final", make_solution(seed=2), _final_config(), random_state=1)
    with pytest.raises(Conflict, match="phase_of of competition 'final' cannot change"):
        store.update("final", phase_of=None)
    # A phase of a later phase joins the series' first phase.
    extra = store.create(
        "extra", make_solution(seed=3), _final_config(phase_of="final"), random_state=2
    )
    assert extra.config.phase_of == "dev"
    with pytest.raises(Conflict, match="later phase"):
        store.accounts.add_member("final", "alpha", store.accounts.create("cy").id)


def test_phases_a_reissued_token_signs_the_team_out_of_every_phase(store):
    _series(store)
    store.add_team("dev", "alpha", token_hash=_hash("old"))
    store.create("final", make_solution(seed=2), _final_config(), random_state=1)
    final_alpha = store.team_by_token_hash("final", _hash("old"))
    cookies = [
        store.team_sessions.open(team.id, timedelta(hours=1))
        for team in (store.team("dev", "alpha"), final_alpha)
    ]
    assert [store.team_sessions.team_of(c) for c in cookies] == [
        store.team("dev", "alpha").id,
        final_alpha.id,
    ]
    with pytest.raises(Conflict, match="reissued"):
        store.reissue_token("final", "alpha", _hash("new"))
    assert store.team_sessions.team_of(cookies[1]) == final_alpha.id  # refused: nothing changed
    store.reissue_token("dev", "alpha", _hash("new"))
    assert [store.team_sessions.team_of(c) for c in cookies] == [None, None]
    with pytest.raises(NotFound):
        store.team_by_token_hash("final", _hash("old"))
    assert store.team_by_token_hash("final", _hash("new")) == final_alpha


def test_phases_a_team_that_submitted_in_a_later_phase_keeps_its_members(store, clock):
    """Leaving a team that used its quota in the final phase (and sent
    nothing in the first) would let its members start again with a fresh
    quota there: refused, as for a team that submitted in the first."""
    clock.now = START
    _, final = _series(store)
    ann, bob = (store.accounts.create(h).id for h in ("ann", "bob"))
    for account in (ann, bob):
        store.accounts.register("dev", account, rules_sha256="0" * 64, via="open")
    store.membership.create_team("dev", ann, "owls")
    _, code = store.membership.invite("dev", ann)
    store.membership.join("dev", bob, code)
    store.create("final", final, _final_config(opens_at=None), random_state=4)
    clock.now = FINAL_OPENS
    store.submit("final", "owls", _file(final, 0.3, 1))
    with pytest.raises(Conflict, match="has submitted"):
        store.membership.leave("final", bob)
    assert store.membership.my_team("dev", bob).team.name == "owls"


def test_phases_a_later_phases_own_disabling_outlives_the_first_phases(store, clock):
    clock.now = START
    _, final = _series(store)
    for name in ("cheats", "friends"):
        ann = store.accounts.create(f"{name}-captain").id
        store.accounts.register("dev", ann, rules_sha256="0" * 64, via="open")
        store.membership.create_team("dev", ann, name)
    store.create("final", final, _final_config(), random_state=4)
    store.set_team_disabled("final", "cheats", True)  # disqualified in the final only
    assert not store.team("dev", "cheats").disabled
    store.set_team_disabled("dev", "cheats", True)
    store.set_team_disabled("dev", "cheats", False)
    assert store.team("final", "cheats").disabled and not store.team("dev", "cheats").disabled
    # Disabled in the first phase and enabled again, a team the first phase
    # disabled is enabled in every phase.
    store.set_team_disabled("dev", "friends", True)
    assert store.team("final", "friends").disabled
    store.set_team_disabled("dev", "friends", False)
    assert not store.team("final", "friends").disabled
    # A team disabled in a later phase merges nowhere, and nothing merges into it.
    cheats_captain = store.accounts.by_handle("cheats-captain").id
    friends_captain = store.accounts.by_handle("friends-captain").id
    with pytest.raises(Conflict, match="disabled in a later phase"):
        store.membership.request_merge("dev", cheats_captain, "friends")
    with pytest.raises(Conflict, match="disabled in a later phase"):
        store.membership.request_merge("dev", friends_captain, "cheats")


def test_phases_registration_stays_open_while_a_later_phase_is(store, clock):
    clock.now = START
    _, final = _series(store)
    store.create("final", final, _final_config(), random_state=4)
    clock.now = FINAL_OPENS + timedelta(hours=1)  # the first phase is closed, the final open
    pat = store.accounts.create("pat").id
    joined = store.registrations.join("dev", pat, accept_rules=True, team="late-comers")
    assert joined.team.name == "late-comers"
    assert store.team("final", "late-comers").name == "late-comers"
    assert [m.handle for m in store.accounts.members("final", "late-comers")] == ["pat"]
    with pytest.raises(Conflict, match="later phase"):
        store.accounts.remove_member("final", pat)
