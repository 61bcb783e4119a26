"""Registration per competition: how an account joins one, as its
``config.registration`` says.

- ``"list"``: the organiser's list. Teams get tokens from the organiser as
  always, and the organiser may put accounts into teams
  (:meth:`Registrations.add_member`); no account joins by itself.
- ``"open"``: any account joins, accepting the rules.
- ``"invitation"``: an account joins with a competition invitation's code
  (:class:`~ladderboard.store.invitations.Invitations`), accepting the rules.

Joining records the registration with the SHA-256 of the rules text the
account accepted and the time (:func:`rules_sha256`), so that a change of the
rules afterwards shows, and the account may accept the new text. A refused
join records nothing and counts no use of its code.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from ladderboard.engine.errors import (
    CompetitionClosed,
    Conflict,
    InvitationRefused,
    NotFound,
    RegistrationRefused,
)
from ladderboard.engine.lifecycle import Lifecycle
from ladderboard.engine.results import CompetitionInfo, TeamInfo
from ladderboard.rules.text import TEAM_NAME_CHARS, check_text
from ladderboard.store.invitations import InvitationInfo, Invitations

__all__ = [
    "INVITATION_LABEL_CHARS",
    "InvitationInfo",
    "Joined",
    "Registered",
    "Registrations",
    "rules_sha256",
]

INVITATION_LABEL_CHARS = 100


def rules_sha256(rules: str) -> str:
    """The SHA-256 of a competition's rules text, as an acceptance records it.

    >>> rules_sha256("")[:16]
    'e3b0c44298fc1c14'
    """
    return hashlib.sha256(rules.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class Registered:
    """An account's registration as the organisers and the account see it:
    its handle, its team (``None``: none yet), when it accepted the rules
    and whether they are the rules now, and how it joined (``via``, and the
    invitation's id and label when by invitation)."""

    account: str
    team: str | None
    accepted_rules_at: datetime
    rules_sha256: str
    rules_current: bool
    via: str
    invitation: int | None
    invitation_label: str | None


@dataclass(frozen=True)
class Joined:
    """An account's registration to a competition, as joining leaves it:
    ``new`` is false when the account was registered already (nothing was
    recorded again), ``team`` its team there, if any."""

    registration: Any
    team: TeamInfo | None
    new: bool


class Registrations:
    """Joining competitions, and the organiser's invitations and list, over
    the ``accounts`` and ``invitations`` of the store; ``lifecycle`` reads
    the competitions."""

    def __init__(self, lifecycle: Lifecycle, accounts: Any, invitations: Invitations) -> None:
        self.lifecycle = lifecycle
        self.accounts = accounts
        self.invitations = invitations

    # ------------------------------------------------------------- joining
    def join(
        self,
        slug: str,
        account_id: int,
        *,
        accept_rules: bool,
        code: str | None = None,
        team: str | None = None,
    ) -> Joined:
        """Register account ``account_id`` to competition ``slug``, which it
        accepts the rules of (``ValueError`` without ``accept_rules``), with
        an invitation's ``code`` when its registration is by invitation;
        with ``team``, the account's team is created at once, the account
        its captain. An account already registered is left as it is (and
        gets its team, if it has none and names one; if the rules changed
        since it accepted them, its acceptance of them now is recorded).
        Refusals: :class:`CompetitionClosed`, :class:`RegistrationRefused`
        (the list's competition, or a later phase, whose registration is its
        first phase's), :class:`InvitationRefused` (no code, or one
        that is not the competition's, revoked, expired or used up),
        ``ValueError`` (a team name not allowed), :class:`Conflict` (the name
        is taken, or the account is in a team already). Nothing is recorded
        on a refusal."""
        info = self.lifecycle.competition(slug)
        if info.config.phase_of is not None:
            raise RegistrationRefused(
                f"{slug!r} is a phase of {info.config.phase_of!r}, whose teams take part in it: "
                f"join {info.config.phase_of!r}"
            )
        if accept_rules is not True:
            raise ValueError("accept the competition's rules to join it (accept_rules: true)")
        if info.is_closed() and all(phase.is_closed() for phase in self.lifecycle.phases(slug)):
            # A series' teams form in its first phase while any phase is open.
            raise CompetitionClosed(f"competition {slug!r} is closed: no one joins it now")
        name = None if team is None else check_text("team", team, max_chars=TEAM_NAME_CHARS)
        existing = self.accounts.registration(slug, account_id)
        if existing is not None:
            if self.rules_differ(info, existing):
                existing = self.accept_rules(slug, account_id)
            joined_team = self._team_of(slug, account_id)
            if name is not None and joined_team is None:
                joined_team = self._create_team(slug, account_id, name)
            return Joined(existing, joined_team, new=False)
        mode = info.config.registration
        if mode == "list":
            raise RegistrationRefused(
                f"competition {slug!r} registers by the organiser's list: ask its organiser"
            )
        invitation = self._invitation(info, code) if mode == "invitation" else None
        if invitation is not None and not self.invitations.take(invitation.id):
            # Revoked, expired or used up between the read and the use.
            raise InvitationRefused(self._refusal(info, self.invitations.find(slug, code or "")))
        try:
            joined_team = None if name is None else self._create_team(slug, account_id, name)
            registration = self.accounts.register(
                slug,
                account_id,
                rules_sha256=rules_sha256(info.rules),
                via=mode,
                invitation=None if invitation is None else str(invitation.id),
            )
        except BaseException:
            if invitation is not None:
                self.invitations.give_back(invitation.id)
            raise
        return Joined(registration, joined_team, new=True)

    def accept_rules(self, slug: str, account_id: int) -> Any:
        """Record that a registered account accepts the competition's rules
        as they are now (after a change), keeping how it came in:
        :class:`NotFound` when it is not registered."""
        info = self.lifecycle.competition(slug)
        existing = self.accounts.registration(slug, account_id)
        if existing is None:
            raise NotFound(f"you have not joined competition {slug!r}")
        return self.accounts.register(
            slug,
            account_id,
            rules_sha256=rules_sha256(info.rules),
            via=existing.via,
            invitation=existing.invitation,
        )

    @staticmethod
    def rules_differ(info: CompetitionInfo, registration: Any) -> bool:
        """Whether ``registration`` accepted a rules text other than the
        competition's now."""
        return bool(registration.rules_sha256 != rules_sha256(info.rules))

    def code_admits(self, slug: str, code: str) -> bool:
        """Whether ``code`` is an invitation of competition ``slug`` that
        admits an account now (not revoked, not expired, a use left)."""
        invitation = self.invitations.find(slug, code.strip())
        return invitation is not None and invitation.state(self.lifecycle.context.now()) == "valid"

    def registered(self, slug: str) -> list[Registered]:
        """The competition's registrations, in the order they were made."""
        info = self.lifecycle.competition(slug)
        labels = {i.id: i.label for i in self.invitations.invitations(slug)}
        return [self._view(info, r, labels) for r in self.accounts.registrations(slug)]

    def view(self, slug: str, registration: Any) -> Registered:
        """``registration`` (of the accounts' store) as :class:`Registered`."""
        info = self.lifecycle.competition(slug)
        labels = {i.id: i.label for i in self.invitations.invitations(slug)}
        return self._view(info, registration, labels)

    def _view(self, info: CompetitionInfo, registration: Any, labels: dict[int, str]) -> Registered:
        invitation = None if registration.invitation is None else int(registration.invitation)
        return Registered(
            account=registration.handle,
            team=registration.team,
            accepted_rules_at=registration.accepted_rules_at,
            rules_sha256=registration.rules_sha256,
            rules_current=not self.rules_differ(info, registration),
            via=registration.via,
            invitation=invitation,
            invitation_label=None if invitation is None else labels.get(invitation),
        )

    def _invitation(self, info: CompetitionInfo, code: str | None) -> InvitationInfo:
        if not code or not code.strip():
            raise InvitationRefused(
                f"competition {info.slug!r} is by invitation: joining it needs an invitation code"
            )
        invitation = self.invitations.find(info.slug, code.strip())
        if invitation is None or invitation.state(self.lifecycle.context.now()) != "valid":
            raise InvitationRefused(self._refusal(info, invitation))
        return invitation

    def _refusal(self, info: CompetitionInfo, invitation: InvitationInfo | None) -> str:
        if invitation is None:
            return f"the invitation code is not one of competition {info.slug!r}"
        state = invitation.state(self.lifecycle.context.now())
        if state == "valid":  # taken by another account in the meantime
            state = "used up"
        return f"the invitation code of competition {info.slug!r} is {state}"

    def _team_of(self, slug: str, account_id: int) -> TeamInfo | None:
        return self.accounts.team_of_account(slug, account_id)

    def _create_team(self, slug: str, account_id: int, name: str) -> TeamInfo:
        return self.accounts.create_account_team(slug, account_id, name)

    # ------------------------------------------------------- the organiser
    def add_member(self, slug: str, team: str, handle: str) -> Any:
        """Put the account ``handle`` into ``team`` (the organiser's list)
        and register it, ``via`` ``"list"``: :class:`NotFound` for an
        unknown account or team, :class:`Conflict` when the account is in a
        team of the competition already. The registration records the rules
        in force then; the account has not accepted them itself, which its
        team page asks it to."""
        info = self.lifecycle.competition(slug)
        account = self.accounts.by_handle(handle)
        current = self._team_of(slug, account.id)
        if current is not None:
            raise Conflict(f"account {account.handle!r} is in team {current.name!r} already")
        self.accounts.add_member(slug, team, account.id)
        registration = self.accounts.registration(slug, account.id)
        if registration is None:
            registration = self.accounts.register(
                slug, account.id, rules_sha256=rules_sha256(info.rules), via="list"
            )
        return registration

    def create_invitation(
        self,
        slug: str,
        *,
        created_by: str,
        label: str = "",
        uses: int | None = None,
        days: float | None = None,
    ) -> tuple[InvitationInfo, str]:
        """A new invitation to ``slug`` and its code (shown once): valid for
        ``days`` (``None``: until revoked) and ``uses`` accounts (``None``:
        any number). ``ValueError`` names a value not allowed."""
        info = self.lifecycle.competition(slug)
        label = check_text("label", label, max_chars=INVITATION_LABEL_CHARS)
        if uses is not None and (isinstance(uses, bool) or not isinstance(uses, int) or uses < 1):
            raise ValueError(f"uses must be a whole number of at least 1, got {uses!r}")
        if days is not None and (
            isinstance(days, bool) or not isinstance(days, int | float) or not 0 < days <= 3660
        ):
            raise ValueError(f"days must be a number of days from 0 to 3660, got {days!r}")
        expires_at: datetime | None = None
        if days is not None:
            expires_at = self.lifecycle.context.now() + timedelta(days=days)
        try:
            return self.invitations.create(
                info.slug, label=label, created_by=created_by, expires_at=expires_at, max_uses=uses
            )
        except LookupError:
            raise NotFound(f"no competition {slug!r}") from None

    def revoke_invitation(self, slug: str, invitation_id: int) -> InvitationInfo:
        self.lifecycle.competition(slug)
        revoked = self.invitations.revoke(slug, invitation_id)
        if revoked is None:
            raise NotFound(f"competition {slug!r} has no invitation {invitation_id}")
        return revoked
