"""The server's settings: one class, read from ``LADDERBOARD_*`` environment
variables, refusing an unsafe organiser token outside development.

There is no module-level instance: :func:`~ladderboard.server.app.create_app`
builds one when it is not given one.

>>> settings = Settings(admin_token="k3T-9vQx_Lw2Zr7mPa4e", database_url="sqlite://")
>>> settings.environment, settings.rate_limit_per_minute, settings.allow_self_registration
('production', 60, False)
>>> Settings(admin_token="changeme", database_url="sqlite://")  # doctest: +ELLIPSIS
Traceback (most recent call last):
pydantic_core._pydantic_core.ValidationError: 1 validation error for Settings
...
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from ladderboard.engine import DEFAULT_URL
from ladderboard.files import DEFAULT_MAX_BYTES

__all__ = [
    "MIN_ADMIN_TOKEN_BITS",
    "MIN_ADMIN_TOKEN_LENGTH",
    "OidcProvider",
    "Settings",
    "unsafe_token_problem",
]

MIN_ADMIN_TOKEN_LENGTH = 16
# The least a token's length times log2 of its distinct characters may be: an
# upper bound of its randomness, which a token of one repeated character or
# a short pattern (``"x" * 40``, ``"abab..."``) falls far below. A valid
# token is never refused for its address's failed authentications, so the
# organiser's must be hopeless to guess, not merely long.
MIN_ADMIN_TOKEN_BITS = 64
_UNSAFE_TOKENS = {"admin", "changeme", "change-me", "password", "secret", "token", "test"}


class OidcProvider(BaseModel):
    """An OpenID Connect provider accounts may sign in with.

    Parameters
    ----------
    name : str
        Its name in this server's URLs (``/account/oidc/{name}/start``):
        lower-case letters, digits and hyphens.
    label : str
        What the sign-in button says ("Sign in with ...").
    issuer : str
        The provider's issuer URL; its discovery document is
        ``{issuer}/.well-known/openid-configuration``.
    client_id, client_secret : str
        This server's client at the provider, whose redirect URI is
        ``{public_url}/account/oidc/{name}/callback``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]{0,39}$")
    label: str = Field(min_length=1, max_length=100)
    issuer: str = Field(pattern=r"^https?://")
    client_id: str = Field(min_length=1)
    client_secret: SecretStr = SecretStr("")


class Settings(BaseSettings):
    """Everything the server reads from its environment.

    Parameters
    ----------
    database_url : str
        The store (``LADDERBOARD_DATABASE_URL``); a SQLite file by default.
    admin_token : str
        The organiser's bearer token (``LADDERBOARD_ADMIN_TOKEN``). Required,
        at least 16 characters and not a well-known word, unless
        ``environment`` is ``"development"``; when it is empty in development,
        every organiser request is refused.
    environment : {"production", "development"}
    rate_limit_per_minute : int
        Requests per minute per bearer token (and per client address for
        anonymous writes), in bursts of up to this many. The limits live in
        the store, so every worker and host shares them; 0 turns them off.
    auth_failures_per_minute : int
        Failed authentications (unknown tokens, wrong organiser token) per
        minute per client address, in bursts of up to this many; once spent,
        an unknown token from the address gets 429 rather than 401 until it
        has waited. A valid token is never refused for them. 0 turns the
        limit off.
    anonymous_reads_per_minute : int
        GET and HEAD requests per minute per client address without valid
        credentials, in bursts of up to this many; counted in each worker's
        memory, not the store (a read writes nothing). Requests with a valid
        token or session are never counted nor refused by it. 0 turns it off.
    organiser_session_hours : float
        How long an organiser's sign-in lasts in the browser.
    max_upload_bytes : int
        The largest solution or submission file accepted (HTTP 413 above it;
        by default :data:`ladderboard.files.DEFAULT_MAX_BYTES`).
    allow_self_registration : bool
        Whether anyone may register a team (and receive its token) without
        the organiser's token.
    submission_slots : int
        Submissions one worker process scores at once through the API; the
        others wait, their admission checked and their files received (to a
        temporary file past 1 MiB). Scoring is CPU work that
        Python threads share one core for, so on a SQLite store one slot
        per worker gives the most submissions a second and the most even
        latency (more workers use more cores); on a PostgreSQL server
        across a network, two or more slots overlap one submission's round
        trips with another's work. ``benchmarks/load_http.py`` measures it.
    upload_slots : int
        Bodies larger than 64 KiB (files, mostly) one worker process receives
        at once; another is refused with 503 and ``Retry-After`` before it is
        read, so that slow or hostile senders cannot fill the temporary disk.
    body_timeout_seconds : float
        The longest a body may pause between two of its pieces (408, and the
        connection closes).
    limit_concurrency : int
        Connections one worker process (``ladderboard serve``) keeps open;
        past them, uvicorn answers 503.
    header_timeout_seconds : float
        The longest ``ladderboard serve`` waits for a request's headers to
        end, on a new connection or a kept-alive one, before closing it.
    public_url : str
        This server's address as participants reach it (``https://host``,
        no trailing slash): the base of the sign-in links sent by email and
        of the OpenID Connect redirect URI. Email sign-in links are off
        without it outside development (in development the request's own
        address is used), so that a forged ``Host`` header cannot send a
        link to another site.
    account_session_hours : float
        How long an account's sign-in lasts in the browser.
    password_sign_in : bool
        Whether accounts may sign up and sign in with a password.
    oidc_providers : list of OidcProvider
        The OpenID Connect providers accounts may sign in with
        (``LADDERBOARD_OIDC_PROVIDERS``, a JSON list of objects with
        ``name``, ``label``, ``issuer``, ``client_id``, ``client_secret``).
    smtp_host : str
        The mail server that sends email sign-in links. Without it and
        ``smtp_sender`` the method is off.
    smtp_port : int
        Its port (587, submission with STARTTLS, by default).
    smtp_sender : str
        The From address of the links.
    smtp_starttls : bool
        Whether to switch the connection to TLS (STARTTLS) before sending.
    smtp_user : str
        The user to log in to the mail server as (none: no login).
    smtp_password : str
        That user's password.
    email_links_per_minute : int
        Sign-in links one email address may be sent a minute (five times
        as many per client address), in bursts of up to this many. 0 turns
        the limit off.
    metrics_token : str
        The bearer token a Prometheus scraper sends for ``GET /metrics``
        (:mod:`ladderboard.server.metrics`); without it the route is off.
        Held to the organiser token's standard outside development.
    log_format : {"text", "json"}
        How ``ladderboard serve`` writes its log lines: plain text, or one
        JSON object a line with the request's id, route, status, time,
        competition and team (:mod:`ladderboard.server.logs`).
    """

    model_config = SettingsConfigDict(env_prefix="LADDERBOARD_", extra="ignore")

    database_url: str = DEFAULT_URL
    admin_token: SecretStr = SecretStr("")
    environment: Literal["production", "development"] = "production"
    rate_limit_per_minute: int = Field(default=60, ge=0)
    auth_failures_per_minute: int = Field(default=10, ge=0)
    anonymous_reads_per_minute: int = Field(default=600, ge=0)
    organiser_session_hours: float = Field(default=12.0, gt=0, le=24 * 30)
    max_upload_bytes: int = Field(default=DEFAULT_MAX_BYTES, ge=1)
    allow_self_registration: bool = False
    submission_slots: int = Field(default=1, ge=1, le=1000)
    upload_slots: int = Field(default=16, ge=1, le=10_000)
    body_timeout_seconds: float = Field(default=30.0, gt=0, le=3600)
    limit_concurrency: int = Field(default=1000, ge=1)
    header_timeout_seconds: float = Field(default=10.0, gt=0, le=3600)
    public_url: str = Field(default="", pattern=r"^(https?://[^/?#]+)?$")
    account_session_hours: float = Field(default=24.0 * 14, gt=0, le=24 * 90)
    password_sign_in: bool = True
    oidc_providers: list[OidcProvider] = Field(default_factory=list)
    smtp_host: str = ""
    smtp_port: int = Field(default=587, ge=1, le=65535)
    smtp_sender: str = ""
    smtp_starttls: bool = True
    smtp_user: str = ""
    smtp_password: SecretStr = SecretStr("")
    email_links_per_minute: int = Field(default=1, ge=0)
    metrics_token: SecretStr = SecretStr("")
    log_format: Literal["text", "json"] = "text"

    @model_validator(mode="after")
    def _refuse_unsafe_token(self) -> Settings:
        if self.environment == "development":
            return self
        problem = unsafe_token_problem(self.admin_token.get_secret_value())
        if problem:
            raise ValueError(
                f"LADDERBOARD_ADMIN_TOKEN {problem}; set a long random one (`ladderboard init` "
                "prints one) or LADDERBOARD_ENVIRONMENT=development"
            )
        return self

    @model_validator(mode="after")
    def _refuse_unsafe_metrics_token(self) -> Settings:
        token = self.metrics_token.get_secret_value()
        if self.environment == "development" or not token:
            return self
        problem = unsafe_token_problem(token)
        if problem:
            raise ValueError(f"LADDERBOARD_METRICS_TOKEN {problem}; set a long random one")
        return self

    @model_validator(mode="after")
    def _refuse_duplicate_providers(self) -> Settings:
        names = [provider.name for provider in self.oidc_providers]
        for name in names:
            if names.count(name) > 1:
                raise ValueError(f"oidc_providers: the name {name!r} is given twice")
        return self

    @property
    def development(self) -> bool:
        return self.environment == "development"

    @property
    def email_sign_in(self) -> bool:
        """Whether accounts may ask for a sign-in link by email."""
        return bool(self.smtp_host and self.smtp_sender and (self.public_url or self.development))

    def oidc_provider(self, name: str) -> OidcProvider | None:
        return next((p for p in self.oidc_providers if p.name == name), None)


def unsafe_token_problem(token: str) -> str | None:
    """Why ``token`` is not a safe organiser token, or ``None``.

    >>> unsafe_token_problem("")
    'is empty'
    >>> unsafe_token_problem("s3cr3t-but-long-enough") is None
    True
    >>> unsafe_token_problem("ab" * 20)
    'is too regular to be random (2 distinct characters)'

    """
    if not token.strip():
        return "is empty"
    if token.strip().lower() in _UNSAFE_TOKENS:
        return "is a well-known word"
    if len(token) < MIN_ADMIN_TOKEN_LENGTH:
        return f"is shorter than {MIN_ADMIN_TOKEN_LENGTH} characters"
    distinct = len(set(token))
    if len(token) * math.log2(distinct) < MIN_ADMIN_TOKEN_BITS:
        return f"is too regular to be random ({distinct} distinct characters)"
    return None
