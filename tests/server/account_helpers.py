"""What the account tests share: signing up through the pages, the CSRF
value of a page's forms, and a personal token made on the account page."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

PASSWORD = "a long enough passphrase"


def csrf_of(html: str) -> str:
    found = re.search(r'name="csrf" value="([0-9a-f]+)"', html)
    assert found, "the page has no form with a CSRF value"
    return found.group(1)


def sign_up(
    client: TestClient, handle: str = "ada", *, password: str = PASSWORD, email: str = ""
) -> str:
    """Sign ``client`` up as ``handle``; the account page's HTML."""
    response = client.post(
        "/account/sign-up", data={"handle": handle, "email": email, "password": password}
    )
    assert response.status_code == 200, response.text
    assert str(response.url).endswith("/account")
    return response.text


def sign_in(client: TestClient, login: str, password: str = PASSWORD):
    return client.post("/account/sign-in", data={"login": login, "password": password})


def new_token(client: TestClient, label: str = "laptop") -> str:
    """A personal token made on the signed-in account's page."""
    page = client.get("/account")
    response = client.post("/account/tokens", data={"csrf": csrf_of(page.text), "label": label})
    assert response.status_code == 201, response.text
    found = re.search(r'<code class="token" id="new-token">([\w-]+)</code>', response.text)
    assert found, response.text
    return found.group(1)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}
