"""The real services the sign-in tests run against: an OpenID Connect
provider (npm's ``oidc-provider``, run with Node: ``tests/js/oidc_provider.mjs``)
and an SMTP server (aiosmtpd) that keeps every message it is sent.

A test that needs Node or the npm package and lacks them is skipped with the
instruction to install them (failed under ``CI=true``, see :mod:`system`).
"""

from __future__ import annotations

import contextlib
import email
import email.policy
import re
import shutil
import socket
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path

import httpx2
from aiosmtpd.controller import Controller

from system import require

JS = Path(__file__).resolve().parents[1] / "js"
OIDC_SCRIPT = JS / "oidc_provider.mjs"
CLIENT_ID = "ladderboard-test"
CLIENT_SECRET = "a-client-secret-for-the-tests-only"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass(frozen=True)
class OidcProviderProcess:
    """The provider's issuer URL and this server's client at it."""

    issuer: str
    client_id: str = CLIENT_ID
    client_secret: str = CLIENT_SECRET

    def setting(self, name: str = "test", label: str = "Test provider") -> dict:
        """The provider as ``Settings(oidc_providers=[...])`` takes it."""
        return {
            "name": name,
            "label": label,
            "issuer": self.issuer,
            "client_id": self.client_id,
            "client_secret": self.client_secret,
        }


@contextlib.contextmanager
def oidc_provider() -> Iterator[OidcProviderProcess]:
    """A running ``oidc-provider`` on a free loopback port; stopped on exit."""
    node = shutil.which("node")
    require(node is not None, "Node.js is missing (apt-get install nodejs), for the OIDC tests")
    require(
        (JS / "node_modules" / "oidc-provider").is_dir(),
        "oidc-provider is not installed, for the OIDC tests (cd tests/js && npm ci)",
    )
    assert node is not None
    port = free_port()
    process = subprocess.Popen(
        [node, str(OIDC_SCRIPT), str(port), CLIENT_ID, CLIENT_SECRET],
        cwd=JS,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()  # "listening ISSUER", or "" if it died
        assert line.startswith("listening "), f"oidc-provider did not start: {line!r}"
        yield OidcProviderProcess(line.split()[1])
    finally:
        process.terminate()
        process.wait(timeout=10)


def provider_login(authorization_url: str, login: str) -> str:
    """Sign in as ``login`` on the provider's own login page, as a browser
    would, from the authorization URL this server sent the browser to; the
    URL the provider then sends the browser back to (this server's callback)."""
    with httpx2.Client(follow_redirects=False, timeout=10) as browser:
        response = browser.get(authorization_url)
        while response.status_code in (302, 303) and response.headers["location"].startswith(
            ("/", "http://127.0.0.1")
        ):
            location = str(response.url.join(response.headers["location"]))
            if "/account/oidc/" in location:
                return location
            response = browser.get(location)
            form = re.search(r'<form[^>]*action="([^"]+)"[^>]*method="post"', response.text)
            if form and 'name="login"' in response.text:
                response = browser.post(
                    str(response.url.join(form.group(1))),
                    data={"prompt": "login", "login": login, "password": "anything"},
                )
        location = response.headers.get("location", "")
        assert "/account/oidc/" in location, (response.status_code, response.text[:500])
        return location


@dataclass
class Mailbox:
    """The messages an SMTP server received, in order."""

    host: str
    port: int
    messages: list[EmailMessage] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    async def handle_DATA(self, server, session, envelope) -> str:  # aiosmtpd's handler hook
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        with self._lock:
            self.messages.append(message)
        return "250 OK"

    def to(self, address: str) -> list[EmailMessage]:
        with self._lock:
            return [m for m in self.messages if m["To"] == address]

    def link_to(self, address: str) -> str:
        """The sign-in link of the last message to ``address``."""
        messages = self.to(address)
        assert messages, f"no message to {address}"
        body = messages[-1].get_content()
        found = re.search(r"https?://\S+/account/email-link\?token=[\w-]+", body)
        assert found, body
        return found.group(0)


@contextlib.contextmanager
def smtp_server() -> Iterator[Mailbox]:
    """An aiosmtpd server on a free loopback port that keeps what it receives."""
    port = free_port()
    mailbox = Mailbox("127.0.0.1", port)
    controller = Controller(mailbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield mailbox
    finally:
        controller.stop()
