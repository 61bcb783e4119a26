"""Signing in with OpenID Connect against a real provider (npm's
``oidc-provider``, its own login page): the account found by the provider's
subject, created on first sign-in, an email taken only when verified, and
a callback refused in another browser, twice, or with a forged state. The
in-process tests run on SQLite and PostgreSQL; the browser test drives
Chromium through the provider's login page."""

from __future__ import annotations

import pytest
from browser_helpers import serve
from server_helpers import ADMIN
from sign_in_services import provider_login

from ladderboard.server.settings import Settings


@pytest.fixture
def oidc_client(make_client, oidc):
    return make_client(oidc_providers=[oidc.setting()])


def _start(client) -> str:
    response = client.get("/account/oidc/test/start", follow_redirects=False)
    assert response.status_code == 303, response.text
    location = response.headers["location"]
    assert location.startswith(client.app.state.settings.oidc_providers[0].issuer)
    assert "code_challenge_method=S256" in location and "nonce=" in location
    return location


def _sign_in(client, login: str):
    callback = provider_login(_start(client), login)
    return client.get(callback), callback


def test_first_sign_in_makes_the_account_and_the_next_finds_it(oidc_client):
    page, _ = _sign_in(oidc_client, "grace")
    assert page.url.path == "/account", page.text
    assert 'id="handle">grace</dd>' in page.text
    assert "grace@example.org (verified)" in page.text
    assert "ladderboard_oidc" not in oidc_client.cookies
    oidc_client.cookies.clear()
    page, _ = _sign_in(oidc_client, "grace")
    assert 'id="handle">grace</dd>' in page.text  # the same account, not grace-2


def test_a_callback_is_used_once_and_only_by_the_browser_that_started_it(
    oidc_client, make_client, oidc
):
    callback = provider_login(_start(oidc_client), "grace")
    elsewhere = make_client(oidc_providers=[oidc.setting()])
    stolen = elsewhere.get(callback)
    assert stolen.status_code == 400 and "ladderboard_session" not in elsewhere.cookies
    assert oidc_client.get(callback).url.path == "/account"
    oidc_client.cookies.clear()
    replayed = oidc_client.get(callback)
    assert replayed.status_code == 400 and "ladderboard_session" not in oidc_client.cookies


def test_a_forged_state_or_code_signs_nobody_in(oidc_client):
    _start(oidc_client)
    state = oidc_client.cookies.get("ladderboard_oidc")
    forged = oidc_client.get(f"/account/oidc/test/callback?state={state}&code=forged")
    assert forged.status_code == 502 and "did not confirm" in forged.text
    assert "ladderboard_session" not in oidc_client.cookies
    other = oidc_client.get("/account/oidc/test/callback?state=guessed&code=x")
    assert other.status_code == 400
    unknown = oidc_client.get("/account/oidc/nope/start")
    assert unknown.status_code == 404


def test_an_unverified_email_is_not_taken_nor_linked(oidc_client, make_client):
    page, _ = _sign_in(oidc_client, "eve-unverified")
    assert 'id="handle">eve-unverified</dd>' in page.text
    assert "<dt>Email</dt><dd>none</dd>" in page.text


def test_a_verified_email_links_the_account_that_has_it_verified(
    oidc_client, make_client, mailbox, oidc
):
    mailing = make_client(
        smtp_host=mailbox.host,
        smtp_port=mailbox.port,
        smtp_sender="board@example.org",
        smtp_starttls=False,
        public_url="http://testserver",
        oidc_providers=[oidc.setting()],
    )
    mailing.post("/account/email-link", data={"email": "hopper@example.org"})
    landing = mailing.get(mailbox.link_to("hopper@example.org"))
    token = landing.text.split('name="token" value="')[1].split('"')[0]
    mailing.post("/account/email-link/sign-in", data={"token": token})
    mailing.cookies.clear()
    page, _ = _sign_in(mailing, "hopper")
    assert 'id="handle">hopper</dd>' in page.text and "hopper-2" not in page.text


def test_the_state_cookie_is_short_lived_and_goes_to_the_callbacks_only(oidc_client):
    response = oidc_client.get("/account/oidc/test/start", follow_redirects=False)
    cookie = response.headers["set-cookie"].lower()
    assert "ladderboard_oidc=" in cookie and "httponly" in cookie and "samesite=lax" in cookie
    assert "path=/account/oidc" in cookie and "max-age=600" in cookie


@pytest.mark.slow
def test_a_browser_signs_in_through_the_providers_own_login_page(tmp_path, oidc, browser):
    settings = Settings(
        admin_token=ADMIN,
        database_url=f"sqlite:///{tmp_path / 'oidc.db'}",
        rate_limit_per_minute=0,
        oidc_providers=[oidc.setting(label="University")],
    )
    with serve(settings) as url:
        page = browser.new_page()
        try:
            page.goto(f"{url}/")
            page.get_by_role("link", name="Sign in").click()
            page.get_by_role("link", name="Sign in with University").click()
            page.wait_for_url(f"{oidc.issuer}/**")
            page.fill("input[name=login]", "ada")
            page.fill("input[name=password]", "any password")
            page.click("button[type=submit]")
            page.wait_for_url(f"{url}/account")
            assert page.locator("#handle").inner_text() == "ada"
            assert page.get_by_role("link", name="ada (your account)").count() == 1
            page.get_by_role("button", name="Sign out").click()
            page.wait_for_url(f"{url}/account/sign-in")
            page.goto(f"{url}/account")
            assert page.url == f"{url}/account/sign-in?next=/account"
        finally:
            page.close()
