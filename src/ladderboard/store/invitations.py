"""Competition invitations (``competition_invitations``): the codes that
admit accounts to a competition whose registration is by invitation.

A code is random (256 bits) and stored only as its SHA-256; the organiser
sees it once, when it is made. Using a code counts one use with a single
conditional ``UPDATE`` (not revoked, not expired, a use left), so two
accounts racing for a code's last use cannot both have it, on SQLite or
PostgreSQL.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, or_, select, update

from ladderboard.store.database import writer_turn
from ladderboard.store.models import CompetitionInvitationRow, CompetitionRow, table_of

__all__ = ["InvitationInfo", "Invitations", "code_hash"]

_ROWS = table_of(CompetitionInvitationRow)
_COLUMNS = (
    _ROWS.c.id,
    _ROWS.c.label,
    _ROWS.c.created_at,
    _ROWS.c.created_by,
    _ROWS.c.expires_at,
    _ROWS.c.max_uses,
    _ROWS.c.uses,
    _ROWS.c.revoked_at,
)


def code_hash(code: str) -> str:
    """The SHA-256 under which an invitation's code is stored.

    >>> code_hash("abc")[:16]
    'ba7816bf8f01cfea'
    """
    return hashlib.sha256(code.encode("utf-8", "surrogatepass")).hexdigest()


def _aware(value: datetime | None) -> datetime | None:
    """SQLite returns naive datetimes: they are UTC."""
    if value is not None and value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value


@dataclass(frozen=True)
class InvitationInfo:
    """An invitation as the organiser sees it (never its code)."""

    id: int
    label: str
    created_at: datetime
    created_by: str
    expires_at: datetime | None
    max_uses: int | None
    uses: int
    revoked_at: datetime | None

    def state(self, now: datetime) -> str:
        """``"revoked"``, ``"expired"``, ``"used up"`` or ``"valid"`` at ``now``,
        in that order: what a refusal of the code says."""
        if self.revoked_at is not None:
            return "revoked"
        if self.expires_at is not None and now >= self.expires_at:
            return "expired"
        if self.max_uses is not None and self.uses >= self.max_uses:
            return "used up"
        return "valid"

    @classmethod
    def of(cls, row: Any) -> InvitationInfo:
        return cls(
            id=row.id,
            label=row.label,
            created_at=_aware(row.created_at),  # type: ignore[arg-type]
            created_by=row.created_by,
            expires_at=_aware(row.expires_at),
            max_uses=row.max_uses,
            uses=row.uses,
            revoked_at=_aware(row.revoked_at),
        )


def _competition_id(slug: str) -> Any:
    return select(CompetitionRow.id).where(CompetitionRow.slug == slug).scalar_subquery()


class Invitations:
    """The invitations of every competition of a store."""

    def __init__(self, engine: Engine, reader: Engine, clock: Callable[[], datetime]) -> None:
        self._engine = engine
        self._reader = reader
        self._clock = clock

    def create(
        self,
        slug: str,
        *,
        label: str,
        created_by: str,
        expires_at: datetime | None = None,
        max_uses: int | None = None,
    ) -> tuple[InvitationInfo, str]:
        """A new invitation to competition ``slug`` and its code, returned
        this once (only its hash is stored). ``LookupError`` when there is
        no such competition."""
        code = secrets.token_urlsafe(32)
        now = self._clock()
        with writer_turn(self._engine), self._engine.begin() as connection:
            competition_id = connection.execute(
                select(CompetitionRow.id).where(CompetitionRow.slug == slug)
            ).scalar()
            if competition_id is None:
                raise LookupError(f"no competition {slug!r}")
            row = connection.execute(
                _ROWS.insert()
                .values(
                    competition_id=competition_id,
                    code_hash=code_hash(code),
                    label=label,
                    created_at=now,
                    created_by=created_by,
                    expires_at=expires_at,
                    max_uses=max_uses,
                    uses=0,
                )
                .returning(*_COLUMNS)
            ).one()
        return InvitationInfo.of(row), code

    def invitations(self, slug: str) -> list[InvitationInfo]:
        """The competition's invitations, oldest first."""
        query = (
            select(*_COLUMNS)
            .where(_ROWS.c.competition_id == _competition_id(slug))
            .order_by(_ROWS.c.id)
        )
        with self._reader.connect() as connection:
            return [InvitationInfo.of(row) for row in connection.execute(query)]

    def find(self, slug: str, code: str) -> InvitationInfo | None:
        """The invitation to competition ``slug`` whose code is ``code``, in
        whatever state it is; ``None`` when the code is none of its own."""
        query = select(*_COLUMNS).where(
            _ROWS.c.competition_id == _competition_id(slug), _ROWS.c.code_hash == code_hash(code)
        )
        with self._reader.connect() as connection:
            row = connection.execute(query).first()
        return None if row is None else InvitationInfo.of(row)

    def revoke(self, slug: str, invitation_id: int) -> InvitationInfo | None:
        """Revoke the invitation (once: a second revocation keeps the first
        time); ``None`` when the competition has no such invitation."""
        mine = (_ROWS.c.competition_id == _competition_id(slug)) & (_ROWS.c.id == invitation_id)
        with writer_turn(self._engine), self._engine.begin() as connection:
            connection.execute(
                update(_ROWS)
                .where(mine, _ROWS.c.revoked_at.is_(None))
                .values(revoked_at=self._clock())
            )
            row = connection.execute(select(*_COLUMNS).where(mine)).first()
        return None if row is None else InvitationInfo.of(row)

    def take(self, invitation_id: int) -> bool:
        """Count one use of the invitation if it is valid now (not revoked,
        not expired, a use left): whether it was."""
        now = self._clock()
        with writer_turn(self._engine), self._engine.begin() as connection:
            taken = connection.execute(
                update(_ROWS)
                .where(
                    _ROWS.c.id == invitation_id,
                    _ROWS.c.revoked_at.is_(None),
                    or_(_ROWS.c.expires_at.is_(None), _ROWS.c.expires_at > now),
                    or_(_ROWS.c.max_uses.is_(None), _ROWS.c.uses < _ROWS.c.max_uses),
                )
                .values(uses=_ROWS.c.uses + 1)
            )
        return taken.rowcount == 1

    def give_back(self, invitation_id: int) -> None:
        """Undo one :meth:`take` whose registration did not happen."""
        with writer_turn(self._engine), self._engine.begin() as connection:
            connection.execute(
                update(_ROWS)
                .where(_ROWS.c.id == invitation_id, _ROWS.c.uses > 0)
                .values(uses=_ROWS.c.uses - 1)
            )
