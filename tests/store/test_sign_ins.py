"""Sign-ins under way in the store: each link and OpenID Connect request
is taken once, not after it expires, and is kept only as a hash. On SQLite
and PostgreSQL."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from ladderboard.store import make_engine, migrate
from ladderboard.store.models import EmailLinkRow, OidcRequestRow
from ladderboard.store.sign_ins import EmailLink, OidcRequest, SignIns

START = datetime(2026, 3, 1, 12, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


def _sign_ins(database_url):
    engine = make_engine(database_url)
    migrate(engine)
    clock = Clock()
    return SignIns(engine, engine, clock), clock, engine


def test_a_link_is_taken_once_and_kept_as_a_hash(database_url):
    sign_ins, _, engine = _sign_ins(database_url)
    token, expires = sign_ins.new_email_link("ada@example.org", timedelta(minutes=15))
    assert expires == START + timedelta(minutes=15)
    with engine.connect() as connection:
        (stored,) = connection.execute(select(EmailLinkRow.sha256)).scalars()
    assert token not in stored and len(stored) == 64
    assert sign_ins.take_email_link(token) == EmailLink("ada@example.org", None)
    assert sign_ins.take_email_link(token) is None
    assert sign_ins.take_email_link("") is None
    engine.dispose()


def test_an_expired_link_or_request_is_refused(database_url):
    sign_ins, clock, engine = _sign_ins(database_url)
    token, _ = sign_ins.new_email_link("ada@example.org", timedelta(minutes=15))
    request = OidcRequest("uni", "n" * 20, "v" * 50, "/account")
    sign_ins.new_oidc_request("state-1", request, timedelta(minutes=10))
    clock.now = START + timedelta(minutes=15)
    assert sign_ins.take_email_link(token) is None
    assert sign_ins.take_oidc_request("state-1") is None
    engine.dispose()


def test_a_request_is_taken_once_even_by_two_at_once(database_url):
    sign_ins, _, engine = _sign_ins(database_url)
    request = OidcRequest("uni", "n" * 20, "v" * 50, "/c/demo")
    sign_ins.new_oidc_request("state-2", request, timedelta(minutes=10))
    with ThreadPoolExecutor(4) as pool:
        taken = list(pool.map(sign_ins.take_oidc_request, ["state-2"] * 4))
    assert taken.count(request) == 1 and taken.count(None) == 3
    with engine.connect() as connection:
        assert connection.execute(select(OidcRequestRow)).first() is None
    engine.dispose()
