"""Signing in with a link sent by email, through a real SMTP server
(aiosmtpd): the same answer for any address, the link used once, the
account made with its email verified, and the limits per address. On
SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
from account_helpers import sign_up


@pytest.fixture
def mailing(make_client, mailbox):
    """A client of a server that sends links through ``mailbox``."""

    def make(**overrides):
        return make_client(
            smtp_host=mailbox.host,
            smtp_port=mailbox.port,
            smtp_sender="board@example.org",
            smtp_starttls=False,
            public_url="http://testserver",
            **overrides,
        )

    return make


def _sign_in_with(client, link: str):
    landing = client.get(link)
    assert landing.status_code == 200 and "ladderboard_session" not in client.cookies
    token = landing.text.split('name="token" value="')[1].split('"')[0]
    return client.post("/account/email-link/sign-in", data={"token": token})


def test_a_link_signs_in_once_and_makes_the_account(mailing, mailbox, make_client):
    client = mailing()
    sent = client.post("/account/email-link", data={"email": "Ada@Example.org"})
    assert sent.status_code == 200 and "ada@example.org" in sent.text
    link = mailbox.link_to("ada@example.org")
    assert mailbox.to("ada@example.org")[0]["From"] == "board@example.org"
    page = _sign_in_with(client, link)
    assert page.url.path == "/account"
    assert "ada@example.org (verified)" in page.text and 'id="handle">ada</dd>' in page.text
    again = _sign_in_with(make_client(), link)
    assert again.status_code == 401 and "used already" in again.text


def test_a_link_to_a_verified_address_signs_in_as_its_account(mailing, mailbox):
    client = mailing(email_links_per_minute=0)
    client.post("/account/email-link", data={"email": "ada@example.org"})
    _sign_in_with(client, mailbox.link_to("ada@example.org"))
    client.cookies.clear()
    client.post("/account/email-link", data={"email": "ada@example.org"})
    page = _sign_in_with(client, mailbox.link_to("ada@example.org"))
    assert 'id="handle">ada</dd>' in page.text  # not ada-2


def test_an_unverified_address_is_not_entered_by_a_link(mailing, mailbox):
    """Someone who signs up with another's address does not get their sign-ins."""
    mallory = mailing()
    sign_up(mallory, "mallory", email="ada@example.org")
    client = mailing()
    client.post("/account/email-link", data={"email": "ada@example.org"})
    page = _sign_in_with(client, mailbox.link_to("ada@example.org"))
    assert 'id="handle">mallory</dd>' not in page.text
    assert "ada@example.org (verified)" in page.text


def test_the_answer_is_the_same_whether_or_not_the_address_has_an_account(mailing, mailbox):
    client = mailing()
    sign_up(mailing(), "ada", email="ada@example.org")
    known = client.post("/account/email-link", data={"email": "ada@example.org"})
    unknown = client.post("/account/email-link", data={"email": "nobody@example.org"})
    assert known.status_code == unknown.status_code == 200
    assert known.text.replace("ada@", "nobody@") == unknown.text
    assert len(mailbox.messages) == 2


def test_links_are_limited_per_address_and_refusals_send_nothing(mailing, mailbox):
    client = mailing(email_links_per_minute=1)
    assert client.post("/account/email-link", data={"email": "ada@example.org"}).status_code == 200
    second = client.post("/account/email-link", data={"email": "ada@example.org"})
    assert second.status_code == 429 and "to this email address" in second.text
    bad = client.post("/account/email-link", data={"email": "not-an-address"})
    assert bad.status_code == 422
    foreign = client.post(
        "/account/email-link",
        data={"email": "bob@example.org"},
        headers={"Origin": "https://evil.example"},
    )
    assert foreign.status_code == 403
    assert len(mailbox.messages) == 1


def test_without_a_mail_server_there_is_no_link_to_ask_for(make_client):
    client = make_client()
    assert 'action="/account/email-link"' not in client.get("/account/sign-in").text
    assert client.post("/account/email-link", data={"email": "a@example.org"}).status_code == 404


def test_a_wrong_or_empty_link_is_refused(mailing):
    client = mailing()
    assert client.post("/account/email-link/sign-in", data={"token": "x" * 43}).status_code == 401
    assert client.post("/account/email-link/sign-in", data={"token": ""}).status_code == 401
    assert "ladderboard_session" not in client.cookies
