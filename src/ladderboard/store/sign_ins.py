"""Sign-ins under way, kept in the store so that every worker and host sees
them: email sign-in links and OpenID Connect requests.

Both are random values the store keeps only as their SHA-256, valid once
until they expire: taking one deletes it in the same statement
(``DELETE ... RETURNING``), so two requests with the same link or ``state``,
on two hosts at once, cannot both succeed. Expired rows are deleted as new
ones are made.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine, delete

from ladderboard.store.database import writer_turn
from ladderboard.store.models import EmailLinkRow, OidcRequestRow, table_of

__all__ = ["EmailLink", "OidcRequest", "SignIns"]

_LINKS = table_of(EmailLinkRow)
_REQUESTS = table_of(OidcRequestRow)


@dataclass(frozen=True)
class EmailLink:
    """What a sign-in link, once taken, signs in as: the account
    ``account_id`` when the link names one, else the account of ``email``."""

    email: str
    account_id: int | None


@dataclass(frozen=True)
class OidcRequest:
    """An OpenID Connect sign-in under way, as its callback needs it."""

    provider: str
    nonce: str
    code_verifier: str
    next_path: str


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


class SignIns:
    """Email sign-in links and OpenID Connect requests over the store.

    >>> from ladderboard.store import make_engine, migrate
    >>> engine = make_engine("sqlite://"); migrate(engine)
    >>> now = datetime(2026, 1, 1, tzinfo=UTC)
    >>> sign_ins = SignIns(engine, engine, lambda: now)
    >>> token, _ = sign_ins.new_email_link("ada@example.org", timedelta(minutes=15))
    >>> sign_ins.take_email_link(token), sign_ins.take_email_link(token)
    (EmailLink(email='ada@example.org', account_id=None), None)
    """

    def __init__(self, engine: Engine, reader: Engine, clock: Callable[[], datetime]) -> None:
        self._engine = engine
        self._reader = reader
        self._clock = clock

    def new_email_link(
        self, email: str, lifetime: timedelta, *, account_id: int | None = None
    ) -> tuple[str, datetime]:
        """A new link's random token for ``email`` (only its hash is stored),
        and when it expires."""
        token = secrets.token_urlsafe(32)
        now = self._clock()
        with writer_turn(self._engine), self._engine.begin() as connection:
            connection.execute(delete(_LINKS).where(_LINKS.c.expires_at <= now))
            connection.execute(
                _LINKS.insert().values(
                    sha256=_digest(token),
                    email=email,
                    account_id=account_id,
                    created_at=now,
                    expires_at=now + lifetime,
                )
            )
        return token, now + lifetime

    def take_email_link(self, token: str) -> EmailLink | None:
        """The link of ``token``, deleted as it is read; ``None`` when there
        is none, it was used already, or it expired."""
        if not token:
            return None
        with writer_turn(self._engine), self._engine.begin() as connection:
            found = connection.execute(
                delete(_LINKS)
                .where(_LINKS.c.sha256 == _digest(token))
                .returning(_LINKS.c.email, _LINKS.c.account_id, _LINKS.c.expires_at)
            ).first()
        if found is None or self._clock() >= _aware(found.expires_at):
            return None
        return EmailLink(found.email, found.account_id)

    def new_oidc_request(
        self,
        state: str,
        request: OidcRequest,
        lifetime: timedelta,
    ) -> None:
        """Keep ``request`` under ``state`` (only its hash is stored)."""
        now = self._clock()
        with writer_turn(self._engine), self._engine.begin() as connection:
            connection.execute(delete(_REQUESTS).where(_REQUESTS.c.expires_at <= now))
            connection.execute(
                _REQUESTS.insert().values(
                    sha256=_digest(state),
                    provider=request.provider,
                    nonce=request.nonce,
                    code_verifier=request.code_verifier,
                    next_path=request.next_path,
                    created_at=now,
                    expires_at=now + lifetime,
                )
            )

    def take_oidc_request(self, state: str) -> OidcRequest | None:
        """The request of ``state``, deleted as it is read; ``None`` when
        there is none, it was used already, or it expired."""
        if not state:
            return None
        with writer_turn(self._engine), self._engine.begin() as connection:
            found = connection.execute(
                delete(_REQUESTS)
                .where(_REQUESTS.c.sha256 == _digest(state))
                .returning(
                    _REQUESTS.c.provider,
                    _REQUESTS.c.nonce,
                    _REQUESTS.c.code_verifier,
                    _REQUESTS.c.next_path,
                    _REQUESTS.c.expires_at,
                )
            ).first()
        if found is None or self._clock() >= _aware(found.expires_at):
            return None
        return OidcRequest(found.provider, found.nonce, found.code_verifier, found.next_path)
