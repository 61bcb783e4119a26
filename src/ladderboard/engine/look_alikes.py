"""Accounts that look alike: the organiser's check of one account per person.

The per-team board's guarantee (Blum & Hardt 2015, Sec. 2.1) counts one
adaptive analyst per team; a person with two accounts in two teams is two
analysts to the board and gets twice the feedback. No rule can tell such a
person apart from two people for certain, so nothing here refuses anyone:
the organiser's desk lists the accounts of a competition (the members of its
teams and the accounts registered in it) that share something one person
would, each flag with the rule that raised it and its evidence, for the
organiser to decide.

The rules (:data:`RULES`):

- ``same-email``: two accounts with one email address (addresses are stored
  lower-cased, so ``Alice@X.org`` and ``alice@x.org`` are one);
- ``same-mailbox``: addresses that differ only by dots or a ``+tag`` in the
  part before the ``@`` (:func:`mailbox`);
- ``same-identity-email``: an OpenID Connect identity's address that is
  another account's address, or another identity's (after :func:`mailbox`);
- ``created-together``: accounts created from one client address within
  :data:`WINDOW` of one another;
- ``duplicate-submissions``: teams whose submissions repeat one another's
  predictions (the engine's duplicate flags), with their member accounts.

>>> from datetime import datetime, timezone
>>> at = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)
>>> people = [
...     Person(1, "alice", "owls", "alice.b@example.org", (), at, "10.0.0.1"),
...     Person(2, "bob", "larks", "aliceb+ladder@example.org", (), at, "10.0.0.2"),
...     Person(3, "carol", "larks", "carol@example.org", (), at, "10.0.0.3"),
... ]
>>> [(f.rule, [a.handle for a in f.accounts]) for f in find_look_alikes(people, [])]
[('same-mailbox', ['alice', 'bob'])]
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from ladderboard.engine import lookup
from ladderboard.engine.boards import Boards
from ladderboard.engine.context import EngineContext
from ladderboard.engine.errors import NotFound
from ladderboard.engine.results import DuplicateFlag, aware
from ladderboard.store import accounts as queries
from ladderboard.store import look_alikes as dismissals

__all__ = [
    "RULES",
    "WINDOW",
    "LookAlike",
    "LookAlikeAccount",
    "LookAlikes",
    "Person",
    "find_look_alikes",
    "mailbox",
]

RULES = (
    "same-email",
    "same-mailbox",
    "same-identity-email",
    "created-together",
    "duplicate-submissions",
)
"""The rules that flag accounts, in the order the desk lists their flags."""

WINDOW = timedelta(minutes=10)
"""How close in time two accounts created from one client address must be
to be flagged as created together: a person making a second account does it
in minutes, while a class behind one address that signs up over a lesson is
flagged too, and is for the organiser to recognise."""


@dataclass(frozen=True)
class Person:
    """An account of a competition, with what the rules compare: its address,
    its identities' addresses, and when and from where it was created."""

    account_id: int
    handle: str
    team: str | None
    email: str | None
    identity_emails: tuple[str, ...]
    created_at: datetime
    created_from: str


@dataclass(frozen=True)
class LookAlikeAccount:
    """An account a flag names, with its team in the competition (if any)."""

    account_id: int
    handle: str
    team: str | None


@dataclass(frozen=True)
class LookAlike:
    """Accounts that look like one person's, by ``rule`` (one of
    :data:`RULES`), with the ``evidence`` in words and the ``teams``
    involved; ``dismissed`` once the organiser has set it aside."""

    rule: str
    evidence: str
    accounts: tuple[LookAlikeAccount, ...]
    teams: tuple[str, ...]
    dismissed: bool = False

    @property
    def key(self) -> str:
        """What names the flag across readings: the SHA-256 of its rule and
        its accounts' ids. A dismissed flag that gains an account (a third
        account at the same address) has another key, and is shown again.

        >>> flag = LookAlike("same-email", "", (LookAlikeAccount(1, "a", None),), ())
        >>> flag.key[:12]
        '6398901738c2'
        """
        ids = ",".join(str(a.account_id) for a in self.accounts)
        return hashlib.sha256(f"{self.rule}:{ids}".encode()).hexdigest()


def mailbox(email: str) -> str:
    """The mailbox an address delivers to at the many providers (Gmail,
    Outlook, Fastmail, iCloud among them) that ignore dots in the part
    before the ``@`` or deliver ``name+tag@`` to ``name@``: both dropped,
    and the case. Other providers treat those as other mailboxes, so two
    addresses with one mailbox here are a reason to look, not proof.

    >>> mailbox("A.Lice+ladder@Example.org")
    'alice@example.org'
    """
    local, _, domain = email.strip().lower().rpartition("@")
    local = local.split("+", 1)[0].replace(".", "")
    return f"{local}@{domain}"


def _account(person: Person) -> LookAlikeAccount:
    return LookAlikeAccount(person.account_id, person.handle, person.team)


def _flag(rule: str, evidence: str, people: Iterable[Person]) -> LookAlike:
    unique = sorted({p.account_id: p for p in people}.values(), key=lambda p: p.account_id)
    teams = sorted({p.team for p in unique if p.team is not None})
    return LookAlike(rule, evidence, tuple(_account(p) for p in unique), tuple(teams))


def _by_address(people: Sequence[Person]) -> list[LookAlike]:
    """The flags of shared addresses: the accounts whose addresses (their
    own and their identities') reach one mailbox."""
    found: dict[str, list[tuple[Person, str, bool]]] = defaultdict(list)
    for person in people:
        own = {(person.email, False)} if person.email else set()
        own |= {(e.strip().lower(), True) for e in person.identity_emails}
        for address, of_identity in sorted(own):
            found[mailbox(address)].append((person, address, of_identity))
    flags = []
    for key in sorted(found):
        uses = found[key]
        if len({person.account_id for person, _, _ in uses}) < 2:
            continue
        addresses = sorted({address for _, address, _ in uses})
        if any(of_identity for _, _, of_identity in uses):
            rule, words = "same-identity-email", "an OpenID Connect identity's address"
        elif len(addresses) == 1:
            rule, words = "same-email", "the address"
        else:
            rule, words = "same-mailbox", "addresses of one mailbox (dots and +tags aside)"
        named = "; ".join(
            f"{person.handle}: {address}{' (identity)' if of_identity else ''}"
            for person, address, of_identity in uses
        )
        evidence = f"{words} {', '.join(addresses)} ({named})"
        flags.append(_flag(rule, evidence, (person for person, _, _ in uses)))
    return flags


def _created_together(people: Sequence[Person], window: timedelta) -> list[LookAlike]:
    """The flags of accounts created from one client address, each within
    ``window`` of the one created before it (an unknown address, empty,
    flags nothing)."""
    by_address: dict[str, list[Person]] = defaultdict(list)
    for person in people:
        if person.created_from:
            by_address[person.created_from].append(person)
    flags = []
    for address in sorted(by_address):
        ordered = sorted(by_address[address], key=lambda p: (p.created_at, p.account_id))
        run = ordered[:1]
        following: list[Person | None] = [*ordered[1:], None]
        for next_one in following:
            if next_one is not None and next_one.created_at - run[-1].created_at <= window:
                run.append(next_one)
                continue
            if len(run) > 1:
                minutes = (run[-1].created_at - run[0].created_at).total_seconds() / 60
                evidence = (
                    f"{len(run)} accounts created from {address} within {minutes:.0f} minutes, "
                    f"from {run[0].created_at:%Y-%m-%d %H:%M} UTC"
                )
                flags.append(_flag("created-together", evidence, run))
            run = [next_one] if next_one is not None else []
    return flags


def _duplicate_submissions(
    people: Sequence[Person], duplicates: Sequence[DuplicateFlag]
) -> list[LookAlike]:
    """The flags of teams that sent one another's predictions, one for each
    pair of teams, naming the member accounts of both (a pair with no
    account between them is on the desk's duplicate flags alone)."""
    members: dict[str, list[Person]] = defaultdict(list)
    for person in people:
        if person.team is not None:
            members[person.team].append(person)
    pairs: dict[tuple[str, str], list[DuplicateFlag]] = defaultdict(list)
    for flag in duplicates:
        if flag.team != flag.earlier_team:
            pair = (flag.team, flag.earlier_team)
            pairs[min(pair), max(pair)].append(flag)
    found = []
    for (first, second), repeated in sorted(pairs.items()):
        accounts = members[first] + members[second]
        if not accounts:
            continue
        repeats = ", ".join(
            f"{f.team} #{f.number} repeats {f.earlier_team} #{f.earlier_number}" for f in repeated
        )
        evidence = f"identical predictions from teams {first} and {second}: {repeats}"
        made = _flag("duplicate-submissions", evidence, accounts)
        found.append(LookAlike(made.rule, made.evidence, made.accounts, (first, second)))
    return found


def find_look_alikes(
    people: Sequence[Person],
    duplicates: Sequence[DuplicateFlag],
    *,
    window: timedelta = WINDOW,
) -> list[LookAlike]:
    """Every flag of :data:`RULES` over the accounts ``people`` of one
    competition and its ``duplicates`` (:meth:`Boards.flags`), by rule.
    Accounts that share nothing are not flagged."""
    if not isinstance(window, timedelta) or window < timedelta(0):
        raise ValueError(f"window must be a duration of zero or more, got {window!r}")
    flags = [
        *_by_address(people),
        *_created_together(people, window),
        *_duplicate_submissions(people, duplicates),
    ]
    return sorted(flags, key=lambda f: RULES.index(f.rule))


class LookAlikes:
    """The look-alike accounts of a competition, read from the store over
    ``context``; ``boards`` gives its duplicate flags."""

    def __init__(self, context: EngineContext, boards: Boards) -> None:
        self.context = context
        self._boards = boards

    def people(self, slug: str) -> list[Person]:
        """The accounts of competition ``slug``: its teams' members and the
        accounts registered in it."""
        with Session(self.context.reader) as session:
            competition = lookup.competition(session, slug)
            connection = session.connection()
            rows = queries.people(connection, competition.id)
            identities: dict[int, list[str]] = defaultdict(list)
            for account_id, _, email in queries.identity_emails(connection, [r.id for r in rows]):
                identities[account_id].append(email)
        return [
            Person(
                r.id,
                r.handle,
                r.team,
                r.email,
                tuple(identities[r.id]),
                aware(r.created_at),
                r.created_from,
            )
            for r in rows
        ]

    def find(self, slug: str) -> list[LookAlike]:
        """The flags of :func:`find_look_alikes` for competition ``slug``,
        those the organiser dismissed marked so."""
        flags = find_look_alikes(self.people(slug), self._boards.flags(slug))
        with Session(self.context.reader) as session:
            competition = lookup.competition(session, slug)
            dismissed = dismissals.dismissed_keys(session.connection(), competition.id)
        return [dataclasses.replace(f, dismissed=f.key in dismissed) for f in flags]

    def dismiss(self, slug: str, key: str, by: str) -> LookAlike:
        """Set the flag ``key`` of competition ``slug`` aside, recording ``by``
        whom; :class:`NotFound` when no flag of the competition has that key
        now (nothing is recorded)."""
        flag = self._current(slug, key)
        with self.context.transaction() as session:
            competition, _ = self.context.locked(session, slug)
            dismissals.dismiss(
                session.connection(), competition.id, key, self.context.clock(), str(by)[:120]
            )
        return dataclasses.replace(flag, dismissed=True)

    def restore(self, slug: str, key: str) -> LookAlike:
        """Show the dismissed flag ``key`` again; :class:`NotFound` when no
        dismissed flag of the competition has that key."""
        flag = self._current(slug, key)
        with self.context.transaction() as session:
            competition, _ = self.context.locked(session, slug)
            if not dismissals.restore(session.connection(), competition.id, key):
                raise NotFound(f"no dismissed look-alike flag {key[:70]!r} in {slug!r}")
        return dataclasses.replace(flag, dismissed=False)

    def _current(self, slug: str, key: str) -> LookAlike:
        for flag in self.find(slug):
            if flag.key == key:
                return flag
        raise NotFound(f"no look-alike flag {str(key)[:70]!r} in {slug!r}")
