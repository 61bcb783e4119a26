"""What the organiser's page tests share: signing in, and reading a page's
refusal and message, and what a refused form must leave unchanged."""

from __future__ import annotations

import re
from html import unescape

from server_helpers import ADMIN


def sign_in(client) -> str:
    """Sign in as the organiser; the CSRF value of the organiser's forms."""
    response = client.post("/organiser/login", data={"token": ADMIN}, follow_redirects=False)
    assert response.status_code == 303
    page = client.get("/organiser")
    return re.search(r'name="csrf" value="([0-9a-f]+)"', page.text).group(1)


# What a refusal never says: Python's own words for a call gone wrong.
TECHNICAL = ("__init__", "Traceback", "keyword", "argument")


def alert(html: str) -> str:
    """The page's refusal, checked to be one plain sentence."""
    found = re.search(r'role="alert"><strong>Refused:</strong> (.*?)</div>', html, re.S)
    text = unescape(found.group(1)) if found else ""
    assert not any(word in text for word in TECHNICAL), text
    assert "\n" not in text and (not text or text.endswith(".")), text
    return text


def status(html: str) -> str:
    found = re.search(r'class="alert success" role="status"[^>]*>(.*?)</div>', html, re.S)
    return unescape(re.sub(r"<[^>]+>", "", found.group(1))).strip() if found else ""


def state(client) -> tuple:
    """What a refused form must leave unchanged: the competition and its teams and files."""
    competitions = client.app.state.competitions
    info = competitions.competition("demo")
    teams = [(t.name, t.disabled) for t in competitions.teams("demo")]
    files = [(f.name, f.sha256) for f in competitions.files("demo")]
    return info, teams, files
