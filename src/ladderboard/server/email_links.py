"""Signing in with a link sent by email.

The browser asks for a link to an address; the server makes a random
one-time token (kept as its hash, :class:`ladderboard.store.sign_ins.SignIns`,
for :data:`LINK_LIFETIME`) and mails ``{public_url}/account/email-link?token=...``
through the operator's SMTP server (``smtp_*`` settings). The answer is the
same whether or not the address has an account, so the form tells no one
who has one; what it costs is rate-limited per address and per client.

The link opens a page with one button: the sign-in itself is a POST from
that page, so that a mail scanner fetching links does not use it up. It
signs in as the account with that verified address (the oldest, if
several), or creates one, its email verified; an account whose address is
not verified is never entered by a link to it, so that nobody can sign up
with someone else's address and wait for them to sign in.
"""

from __future__ import annotations

import logging
import re
import smtplib
import ssl
from datetime import timedelta
from email.message import EmailMessage

from ladderboard.engine import Competitions
from ladderboard.engine.accounts import AccountInfo
from ladderboard.engine.errors import Conflict
from ladderboard.engine.sign_ins import EmailLink
from ladderboard.rules.text import check_text
from ladderboard.server.oidc import unique_handle
from ladderboard.server.settings import Settings

__all__ = [
    "EMAIL_CHARS",
    "LINK_LIFETIME",
    "NEW_ACCOUNT_LINK_LIFETIME",
    "account_of_email_link",
    "email_problem",
    "send_sign_in_link",
]

logger = logging.getLogger(__name__)

LINK_LIFETIME = timedelta(minutes=15)
NEW_ACCOUNT_LINK_LIFETIME = timedelta(days=7)
"""How long the link an administrator hands a new account's owner lasts."""
EMAIL_CHARS = 320
_EMAIL = re.compile(r"^[^@\s\x00-\x1f\x7f]{1,64}@[A-Za-z0-9.-]{1,253}\.[A-Za-z0-9-]{2,63}$")


def email_problem(email: str) -> str | None:
    """Why ``email`` is not an address to send a link to, or ``None``.

    >>> email_problem("ada@example.org") is None, email_problem("ada@localhost")
    (True, 'the email address must look like name@example.org')
    >>> email_problem("a\x80@example.org")
    'email contains the control character U+0080 at position 2; it is not allowed'
    """
    try:
        check_text("email", email, max_chars=EMAIL_CHARS)  # what the store refuses to keep
    except ValueError as exc:
        return str(exc)
    if not _EMAIL.match(email):
        return "the email address must look like name@example.org"
    return None


def send_sign_in_link(settings: Settings, to: str, link: str) -> bool:
    """Mail ``link`` to ``to``; whether the mail server took it (a failure is
    logged, not shown: the page answers the same either way)."""
    message = EmailMessage()
    message["From"] = settings.smtp_sender
    message["To"] = to
    message["Subject"] = "Your ladderboard sign-in link"
    minutes = int(LINK_LIFETIME.total_seconds() // 60)
    message.set_content(
        "Someone (we hope you) asked to sign in to ladderboard with this address.\n\n"
        f"Sign in: {link}\n\n"
        f"The link works once, for {minutes} minutes. If you did not ask for it, "
        "ignore this message: nothing happens without the link.\n"
    )
    try:
        with smtplib.SMTP(settings.smtp_host, settings.smtp_port, timeout=15) as smtp:
            if settings.smtp_starttls:
                smtp.starttls(context=ssl.create_default_context())
            if settings.smtp_user:
                smtp.login(settings.smtp_user, settings.smtp_password.get_secret_value())
            smtp.send_message(message)
    except (OSError, smtplib.SMTPException) as exc:
        logger.warning("the sign-in link to an address was not sent: %s", exc)
        return False
    return True


def account_of_email_link(
    competitions: Competitions, link: EmailLink, created_from: str
) -> AccountInfo:
    """The account a used link signs in as (see the module), its email now verified."""
    accounts = competitions.accounts
    if link.account_id is not None:
        account = accounts.by_id(link.account_id)  # NotFound: deleted meanwhile
        if account.email == link.email and not account.email_verified:
            account = accounts.verify_email(account.id)
        return account
    verified = [a for a in accounts.by_email(link.email) if a.email_verified]
    if verified:
        return min(verified, key=lambda a: a.created_at)
    for _ in range(5):  # another sign-in may take the same handle meanwhile
        try:
            return accounts.create(
                unique_handle(competitions, link.email.split("@")[0]),
                email=link.email,
                email_verified=True,
                created_from=created_from,
            )
        except Conflict:
            continue
    raise Conflict("no handle could be made for this account; try again")
