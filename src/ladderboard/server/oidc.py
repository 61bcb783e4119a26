"""Signing in with an OpenID Connect provider (OpenID Connect Core 1.0,
authorization code flow, with PKCE, RFC 7636), through authlib.

Authlib does the protocol: it reads the provider's discovery document,
builds the authorization URL with ``state``, ``nonce`` and the PKCE
challenge, trades the code for tokens, and validates the ID token (its
signature against the provider's JWKS, issuer, audience, expiry, nonce and
``at_hash``), and reads the UserInfo endpoint when the ID token leaves
the email or the name there. This module keeps each sign-in under way in the store
(:class:`ladderboard.store.sign_ins.SignIns`, one use, a few minutes) and
binds it to the browser that started it with a short-lived cookie holding
``state`` (HttpOnly, ``SameSite=Lax``): a callback that arrives in another
browser, twice, or late is refused.

The account is then the one linked to the provider's ``(issuer, subject)``;
else, when the provider says the email is verified, the account with that
verified email (linked from now on); else a new account, its handle from
``preferred_username`` (or ``name``, or the email's local part) made unique.
"""

from __future__ import annotations

import functools
import re
import secrets
import threading
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from ladderboard.engine import Competitions
from ladderboard.engine.accounts import AccountInfo
from ladderboard.engine.errors import Conflict, NotFound
from ladderboard.engine.sign_ins import OidcRequest
from ladderboard.server.settings import OidcProvider

__all__ = [
    "REQUEST_LIFETIME",
    "STATE_COOKIE",
    "STATE_PATH",
    "Identity",
    "OidcClients",
    "OidcFailed",
    "account_of_identity",
    "unique_handle",
]

REQUEST_LIFETIME = timedelta(minutes=10)
"""How long a browser has to come back from the provider."""
STATE_COOKIE = "ladderboard_oidc"
STATE_PATH = "/account/oidc"  # the cookie goes to the callbacks only
HANDLE_CHARS = 40
_NOT_HANDLE = re.compile(r"[^A-Za-z0-9_.-]+")


class OidcFailed(Exception):
    """The provider's answer could not sign anyone in (the sentence says why)."""


@dataclass(frozen=True)
class Identity:
    """Who the provider says signed in: its validated ID token's claims."""

    issuer: str
    subject: str
    email: str | None
    email_verified: bool
    preferred_handle: str


@functools.cache
def _client_class() -> type:
    """Authlib's OAuth 2 and OpenID Connect client over httpx2, without a web
    framework: the sign-ins under way are kept in the store, not in a
    framework's session. Imported on first use: a server without providers
    never loads authlib."""
    from authlib.integrations.base_client.sync_app import BaseApp, OAuth2Mixin
    from authlib.integrations.base_client.sync_openid import OpenIDMixin
    from authlib.integrations.httpx_client import OAuth2Client

    class Client(OAuth2Mixin, OpenIDMixin, BaseApp):
        client_cls = OAuth2Client

    return Client


class OidcClients:
    """One authlib client per provider, made on first use (each keeps the
    provider's discovery document and keys it has read)."""

    def __init__(self) -> None:
        self._clients: dict[str, Any] = {}
        self._lock = threading.Lock()

    def client(self, provider: OidcProvider) -> Any:
        with self._lock:
            client = self._clients.get(provider.name)
            if client is None:
                from authlib.integrations.base_client import FrameworkIntegration

                client = _client_class()(
                    FrameworkIntegration(provider.name),
                    name=provider.name,
                    client_id=provider.client_id,
                    client_secret=provider.client_secret.get_secret_value(),
                    server_metadata_url=provider.issuer.rstrip("/")
                    + "/.well-known/openid-configuration",
                    client_kwargs={
                        "scope": "openid email profile",
                        "code_challenge_method": "S256",
                        "timeout": 10,
                    },
                )
                self._clients[provider.name] = client
            return client

    def start(
        self, provider: OidcProvider, redirect_uri: str, next_path: str
    ) -> tuple[str, str, OidcRequest]:
        """``(url, state, request)``: where to send the browser, the
        ``state`` to keep under ``request``."""
        client = self.client(provider)
        try:
            made = client.create_authorization_url(
                redirect_uri=redirect_uri,
                state=secrets.token_urlsafe(32),
                nonce=secrets.token_urlsafe(24),
            )
        except Exception as exc:  # the provider's discovery failed: network, JSON
            raise OidcFailed(f"the provider {provider.label!r} cannot be reached") from exc
        request = OidcRequest(provider.name, made["nonce"], made["code_verifier"], next_path)
        return made["url"], made["state"], request

    def finish(
        self, provider: OidcProvider, request: OidcRequest, redirect_uri: str, code: str
    ) -> Identity:
        """Trade ``code`` for the tokens and validate the ID token: who signed in."""
        client = self.client(provider)
        try:
            token = client.fetch_access_token(
                redirect_uri=redirect_uri, code=code, code_verifier=request.code_verifier
            )
            claims: Any = client.parse_id_token(token, nonce=request.nonce)
        except Exception as exc:  # authlib's refusals and the network's: one answer
            raise OidcFailed(
                f"the provider {provider.label!r} did not confirm the sign-in"
            ) from exc
        if claims is None:
            raise OidcFailed(f"the provider {provider.label!r} sent no ID token")
        claims = dict(claims)
        if not {"email", "preferred_username"} <= claims.keys():
            claims = {**self._userinfo(client, provider, token, str(claims["sub"])), **claims}
        issuer = str(claims["iss"])
        if issuer.rstrip("/") != provider.issuer.rstrip("/"):
            raise OidcFailed(f"the provider {provider.label!r} is not the issuer it claims")
        email = claims.get("email")
        email = email.strip().lower() if isinstance(email, str) and "@" in email else None
        handle = claims.get("preferred_username") or claims.get("name") or ""
        if not handle and email:
            handle = email.split("@")[0]
        return Identity(
            issuer=issuer,
            subject=str(claims["sub"]),
            email=email,
            email_verified=claims.get("email_verified") is True,
            preferred_handle=str(handle),
        )

    @staticmethod
    def _userinfo(client: Any, provider: OidcProvider, token: Any, subject: str) -> dict:
        """The UserInfo endpoint's claims (OpenID Connect Core 1.0, 5.3),
        where providers that keep the ID token small put the email and the
        name; nothing when it has none, or its subject is another's (5.3.2)."""
        if not client.load_server_metadata().get("userinfo_endpoint"):
            return {}
        try:
            info = dict(client.userinfo(token=token))
        except Exception as exc:  # the network's or the provider's refusal: one answer
            raise OidcFailed(f"the provider {provider.label!r} did not say who you are") from exc
        if str(info.get("sub")) != subject:
            return {}
        return {k: v for k, v in info.items() if k not in ("iss", "aud", "sub", "nonce")}


def unique_handle(competitions: Competitions, wanted: str) -> str:
    """A handle no account has, made from ``wanted``: its letters, digits,
    ``.``, ``_`` and ``-``, then ``-2``, ``-3``, ... until one is free.

    >>> _NOT_HANDLE.sub("-", "Ada Lovelace!").strip("-._")
    'Ada-Lovelace'
    """
    base = _NOT_HANDLE.sub("-", wanted).strip("-._")[:HANDLE_CHARS] or "participant"
    if len(base) < 2:
        base = f"{base}-participant"
    handle, number = base, 1
    while _taken(competitions, handle):
        number += 1
        handle = f"{base[: HANDLE_CHARS - len(str(number)) - 1]}-{number}"
    return handle


def _taken(competitions: Competitions, handle: str) -> bool:
    try:
        competitions.accounts.by_handle(handle)
    except NotFound:
        return False
    return True


def account_of_identity(
    competitions: Competitions, identity: Identity, created_from: str
) -> AccountInfo:
    """The account ``identity`` signs in as, linked or created as the module
    says. An email the provider does not say is verified is never taken."""
    accounts = competitions.accounts
    account = accounts.by_identity(identity.issuer, identity.subject)
    if account is not None:
        return account
    email = identity.email if identity.email_verified else None
    if email is not None:
        verified = [a for a in accounts.by_email(email) if a.email_verified]
        if verified:
            account = min(verified, key=lambda a: a.created_at)
            return _linked(competitions, account, identity)
    for _ in range(5):  # another sign-in may take the same handle meanwhile
        try:
            account = accounts.create(
                unique_handle(competitions, identity.preferred_handle),
                email=email,
                email_verified=email is not None,
                created_from=created_from,
            )
            break
        except Conflict:
            continue
    else:
        raise OidcFailed("no handle could be made for this account; try again")
    return _linked(competitions, account, identity)


def _linked(competitions: Competitions, account: AccountInfo, identity: Identity) -> AccountInfo:
    """``account``, now signing in with ``identity``; or the account that
    another sign-in with the same identity linked meanwhile."""
    email = identity.email if identity.email_verified else None
    try:
        competitions.accounts.link_identity(account.id, identity.issuer, identity.subject, email)
    except Conflict:
        linked = competitions.accounts.by_identity(identity.issuer, identity.subject)
        if linked is None:
            raise
        return linked
    return account
