"""The organisers' changes to a competition, each recorded in its action log.

Every organiser entry point (an API route, a desk form) makes its change
through :class:`Acting`, which calls the engine and, once the change is
made, records who made it (``"administrator token"`` or ``"account
HANDLE"``), what (an action's name and a small JSON detail: names and
settings, never a token nor a file's contents), when and from which client
address (``competitions.accounts.record_action``). A refused change leaves
no entry. The log is read on the desk and at ``GET
/api/competitions/{slug}/actions``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ladderboard.engine import Competitions
from ladderboard.engine.archives import Sink
from ladderboard.engine.corrections import Correction
from ladderboard.engine.results import CompetitionInfo, FileInfo, TeamInfo
from ladderboard.files.solution import Solution
from ladderboard.rules.config import CompetitionConfig

__all__ = ["ACTIONS", "ADMINISTRATOR", "Acting", "Actor"]

ADMINISTRATOR = "administrator token"
"""Who an action with the administrator token (or its desk session) is recorded as."""

ACTIONS = (
    "competition.create",
    "competition.texts",
    "competition.settings",
    "competition.calendar",
    "competition.close",
    "competition.publish",
    "competition.export",
    "audit.publish",
    "solution.correct",
    "team.add",
    "teams.import",
    "team.disable",
    "team.enable",
    "team.token",
    "files.add",
    "file.remove",
    "organiser.add",
    "organiser.remove",
    "look-alike.dismiss",
    "look-alike.restore",
    "invitation.create",
    "invitation.revoke",
    "team.member.add",
)
"""Every action the log records, by its name."""

_TEXTS = ("title", "description", "rules")
_CALENDAR = ("deadline", "opens_at", "freeze_at")
_NAMES_SHOWN = 20
"""The most team or file names an entry's detail lists (with their count)."""


@dataclass(frozen=True)
class Actor:
    """Who acts: ``name`` as the log shows it, the account (``None`` for the
    administrator token) and the client address."""

    name: str
    account_id: int | None
    address: str

    @classmethod
    def administrator(cls, address: str) -> Actor:
        return cls(ADMINISTRATOR, None, address)

    @classmethod
    def account(cls, account_id: int, handle: str, address: str) -> Actor:
        return cls(f"account {handle}", account_id, address)


def _plain(value: Any) -> Any:
    """``value`` as JSON holds it (a time as ISO 8601)."""
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def _names(names: Sequence[str]) -> dict[str, Any]:
    return {"count": len(names), "names": list(names[:_NAMES_SHOWN])}


class Acting:
    """The engine's organiser changes made by ``actor``, each recorded.

    Each method takes what the engine's method of the same name takes and
    returns what it returns."""

    def __init__(self, competitions: Competitions, actor: Actor) -> None:
        self.competitions = competitions
        self.actor = actor

    def record(self, slug: str | None, action: str, detail: dict[str, Any] | None = None) -> None:
        """One entry of the log: ``action`` (one of :data:`ACTIONS`) on ``slug``."""
        self.competitions.accounts.record_action(
            slug,
            self.actor.name,
            self.actor.account_id,
            action,
            detail or {},
            self.actor.address,
        )

    # ------------------------------------------------------- the competition
    def create(
        self, slug: str, solution: Solution, config: CompetitionConfig, **options: Any
    ) -> CompetitionInfo:
        """Create the competition; an account creating it becomes its owner."""
        info = self.competitions.create(slug, solution, config, **options)
        if self.actor.account_id is not None:
            self.competitions.accounts.add_organiser(
                info.slug, self.actor.account_id, "owner", self.actor.name
            )
        files = [name for name, _ in options.get("files", ())]
        detail = {"score": config.score, "mechanism": config.mechanism, "files": files}
        self.record(info.slug, "competition.create", detail)
        return info

    def update(self, slug: str, *, actor: str | None = None, **changes: Any) -> CompetitionInfo:
        """Change texts, settings or the calendar: one entry for each of the
        three that the change touches (a text by its name only); ``actor``
        is who the competition's public history names."""
        info = self.competitions.update(slug, actor=actor, **changes)
        texts = sorted(name for name in changes if name in _TEXTS)
        calendar = {k: _plain(v) for k, v in changes.items() if k in _CALENDAR}
        rest = {k: _plain(v) for k, v in changes.items() if k not in _TEXTS and k not in _CALENDAR}
        if texts:
            self.record(slug, "competition.texts", {"changed": texts})
        if calendar:
            self.record(slug, "competition.calendar", calendar)
        if rest:
            self.record(slug, "competition.settings", rest)
        return info

    def close(self, slug: str) -> CompetitionInfo:
        info = self.competitions.close(slug)
        self.record(slug, "competition.close")
        return info

    def publish(self, slug: str) -> CompetitionInfo:
        info = self.competitions.publish(slug)
        self.record(slug, "competition.publish")
        return info

    def publish_audit(self, slug: str, files: Any) -> Any:
        published = self.competitions.publish_audit(slug, files)
        self.record(slug, "audit.publish", {"files": published.files})
        return published

    def correct_solution(
        self, slug: str, solution: Solution, reason: str, *, actor: str | None = None
    ) -> Correction:
        correction = self.competitions.correct_solution(slug, solution, reason, actor=actor)
        detail = {"reason": reason[:200], "changed": correction.changed}
        self.record(slug, "solution.correct", detail)
        return correction

    def export(self, slug: str) -> Callable[[Sink], list[str]]:
        """What writes the export into a sink, the export recorded now."""
        self.competitions.competition(slug)  # a slug with no competition is refused unrecorded
        self.record(slug, "competition.export")
        return lambda sink: self.competitions.export(slug, sink)

    # ------------------------------------------------------------- the teams
    def add_team(self, slug: str, name: str, *, token_hash: str | None = None) -> TeamInfo:
        team = self.competitions.add_team(slug, name, token_hash=token_hash)
        self.record(slug, "team.add", {"team": team.name})
        return team

    def add_teams(
        self, slug: str, names: Sequence[str], token_hashes: Sequence[str | None]
    ) -> list[TeamInfo]:
        teams = self.competitions.add_teams(slug, names, token_hashes)
        self.record(slug, "teams.import", _names([t.name for t in teams]))
        return teams

    def set_team_disabled(self, slug: str, name: str, disabled: bool) -> TeamInfo:
        team = self.competitions.set_team_disabled(slug, name, disabled)
        self.record(slug, "team.disable" if disabled else "team.enable", {"team": team.name})
        return team

    def reissue_token(self, slug: str, name: str, token_hash: str) -> TeamInfo:
        team = self.competitions.reissue_token(slug, name, token_hash)
        self.record(slug, "team.token", {"team": team.name})
        return team

    # ------------------------------------------------------------- the files
    def add_file(self, slug: str, name: str, data: bytes, *, replace: bool = False) -> FileInfo:
        info = self.competitions.add_file(slug, name, data, replace=replace)
        detail = {**_names([info.name]), "replace": replace, "sha256": [info.sha256]}
        self.record(slug, "files.add", detail)
        return info

    def add_files(
        self, slug: str, files: Sequence[tuple[str, bytes]], *, replace: bool = False
    ) -> list[FileInfo]:
        added = self.competitions.add_files(slug, files, replace=replace)
        detail = {**_names([f.name for f in added]), "replace": replace}
        self.record(slug, "files.add", detail)
        return added

    def remove_file(self, slug: str, name: str) -> None:
        self.competitions.remove_file(slug, name)
        self.record(slug, "file.remove", {"name": name})

    # -------------------------------------------------------- the organisers
    def add_organiser(self, slug: str, handle: str, role: str) -> None:
        """Make account ``handle`` an organiser of ``slug`` in ``role``, or
        give an organiser another role: refused (:class:`NotFound`) for a
        handle no account has, and by the store (a conflict) when it would
        leave the competition without an owner. A role it holds already is
        no action."""
        accounts = self.competitions.accounts
        account = accounts.by_handle(handle)
        if accounts.organiser_role(slug, account.id) == role:
            return
        accounts.add_organiser(slug, account.id, role, self.actor.name)
        self.record(slug, "organiser.add", {"account": account.handle, "role": role})

    def remove_organiser(self, slug: str, handle: str) -> None:
        """Remove account ``handle`` from the organisers of ``slug``; the
        store keeps the last owner (a conflict)."""
        accounts = self.competitions.accounts
        account = accounts.by_handle(handle)
        accounts.remove_organiser(slug, account.id)
        self.record(slug, "organiser.remove", {"account": account.handle})

    # ---------------------------------------------------- look-alike accounts
    def set_look_alike_aside(self, slug: str, key: str, dismissed: bool) -> Any:
        """Dismiss a look-alike flag (``dismissed``) or show it again; the
        entry names the flag's rule and accounts."""
        if dismissed:
            flag = self.competitions.dismiss_look_alike(slug, key, self.actor.name)
        else:
            flag = self.competitions.restore_look_alike(slug, key)
        action = "look-alike.dismiss" if dismissed else "look-alike.restore"
        self.record(
            slug, action, {"rule": flag.rule, "accounts": [a.handle for a in flag.accounts]}
        )
        return flag

    # ---------------------------------------------------------- registration
    def create_invitation(
        self, slug: str, *, label: str, uses: int | None, days: float | None
    ) -> tuple[Any, str]:
        """A competition invitation and its code (the entry keeps no code)."""
        invitation, code = self.competitions.registrations.create_invitation(
            slug, created_by=self.actor.name, label=label, uses=uses, days=days
        )
        self.record(slug, "invitation.create", _invitation(invitation))
        return invitation, code

    def revoke_invitation(self, slug: str, invitation_id: int) -> Any:
        revoked = self.competitions.registrations.revoke_invitation(slug, invitation_id)
        self.record(slug, "invitation.revoke", _invitation(revoked))
        return revoked

    def add_member(self, slug: str, team: str, handle: str) -> Any:
        """Put an account on the organiser's list, into ``team``."""
        registration = self.competitions.registrations.add_member(slug, team, handle)
        detail = {"account": registration.handle, "team": registration.team}
        self.record(slug, "team.member.add", detail)
        return registration


def _invitation(invitation: Any) -> dict[str, Any]:
    """What the action log keeps of an invitation: never its code."""
    expires = None if invitation.expires_at is None else invitation.expires_at.isoformat()
    return {
        "invitation": invitation.id,
        "label": invitation.label,
        "max_uses": invitation.max_uses,
        "expires_at": expires,
    }
