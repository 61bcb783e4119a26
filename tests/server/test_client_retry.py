"""The client asks again after a 429 or a 503, as ``Retry-After`` says and
within its bounds, against a real HTTP server on a loopback port that
answers from a script (``http.server`` in a thread)."""

from __future__ import annotations

import gzip
import json
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from typer.testing import CliRunner

from ladderboard.cli import app
from ladderboard.client import Client, ServerError

BUSY = {"error": "rate_limited", "message": "too many requests; try again in 1 s"}
UNAVAILABLE = {"error": "database_unavailable", "message": "the database does not answer"}


class Scripted(ThreadingHTTPServer):
    """Answers each request with the next ``(status, headers, body)`` of
    ``script`` (the last one once the script is spent), and records what
    was asked: ``(method, path, Idempotency-Key, time)``."""

    def __init__(self, script: list[tuple[int, dict[str, str], object]]):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.script = list(script)
        self.seen: list[tuple[str, str, str | None, float]] = []
        self.authorizations: list[str | None] = []
        self.bodies: list[tuple[str | None, bytes]] = []  # (Content-Type, body)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    server: Scripted

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.server.bodies.append((self.headers.get("Content-Type"), self.rfile.read(length)))
        key = self.headers.get("Idempotency-Key")
        self.server.seen.append((self.command, self.path, key, time.monotonic()))
        self.server.authorizations.append(self.headers.get("Authorization"))
        script = self.server.script
        status, headers, body = script.pop(0) if len(script) > 1 else script[0]
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        for name, value in {"Content-Type": "application/json", **headers}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PUT = _answer

    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass


@pytest.fixture
def scripted() -> Iterator[Callable[[list], Scripted]]:
    """Start a :class:`Scripted` server for a script; stopped after the test."""
    started: list[Scripted] = []

    def start(script):
        server = Scripted(script)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.shutdown()
        server.server_close()


@pytest.mark.slow
def test_a_429_is_asked_again_after_its_retry_after(scripted):
    server = scripted([(429, {"Retry-After": "1"}, BUSY), (200, {}, [{"slug": "a"}])])
    waits = []
    with Client(server.url, "t", on_wait=lambda s, e, n: waits.append((s, e.status, n))) as c:
        assert c.competitions() == [{"slug": "a"}]
    assert waits == [(1.0, 429, 1)]
    (first, second) = server.seen
    assert second[3] - first[3] >= 0.9  # it did wait the second asked for


@pytest.mark.slow
def test_retry_after_as_an_http_date(scripted):
    when = format_datetime(datetime.now(UTC) + timedelta(seconds=1), usegmt=True)
    server = scripted([(503, {"Retry-After": when}, UNAVAILABLE), (200, {}, {"status": "ok"})])
    waits = []
    with Client(server.url, on_wait=lambda s, e, n: waits.append(s)) as client:
        assert client.health() == {"status": "ok"}
    assert len(waits) == 1 and 0 <= waits[0] <= 2


def test_the_retries_are_bounded_then_the_refusal_is_raised(scripted):
    server = scripted([(429, {"Retry-After": "0"}, BUSY)])  # busy for ever
    waits = []
    client = Client(server.url, retries=2, on_wait=lambda s, e, n: waits.append(n))
    with client, pytest.raises(ServerError) as caught:
        client.competitions()
    assert caught.value.status == 429 and caught.value.code == "rate_limited"
    assert waits == [1, 2] and len(server.seen) == 3  # the first request and two more

    server.seen.clear()
    with Client(server.url) as client, pytest.raises(ServerError):
        client.competitions()
    assert len(server.seen) == 4  # the default: three retries


@pytest.mark.slow
def test_a_wait_longer_than_the_bounds_is_not_waited(scripted):
    # A daily quota's 429 asks to come back at midnight: that is refused at once.
    server = scripted([(429, {"Retry-After": "30000"}, BUSY), (200, {}, [])])
    with Client(server.url, max_wait=5) as client, pytest.raises(ServerError) as caught:
        client.competitions()
    assert caught.value.status == 429 and len(server.seen) == 1

    # Waits of 1 s each, at most 1.5 s in all: one retry, not two.
    server = scripted([(429, {"Retry-After": "1"}, BUSY)])
    with Client(server.url, max_total_wait=1.5) as client, pytest.raises(ServerError):
        client.competitions()
    assert len(server.seen) == 2


def test_a_daily_quota_spent_just_before_midnight_is_not_sent_into_the_next_day(scripted):
    # Thirty seconds before midnight the daily quota's Retry-After is short
    # enough to wait, but asking again would spend the next day's quota
    # without the participant choosing to: a spent quota is always final.
    daily = {"error": "quota", "message": "team 'alpha' has used its 5 submissions for today"}
    answer = {"number": 6, "public_score": 0.5, "previous_score": None, "explanation": "",
              "status": "scored", "remaining_today": 4}  # fmt: skip
    server = scripted([(429, {"Retry-After": "1"}, daily), (201, {}, answer)])
    with Client(server.url, "t") as client, pytest.raises(ServerError) as caught:
        client.submit("demo", b"id,target\n1,0\n")
    assert caught.value.code == "quota" and len(server.seen) == 1


def test_a_spent_quota_without_retry_after_is_final(scripted, tmp_path):
    # The total quota and the invalid-file cap never reset: asking again is no help.
    final = {"error": "quota", "message": "team 'alpha' has used all 5 submissions"}
    answer = {"id": 1, "public_score": 0.5, "previous_score": None, "explanation": "",
              "status": "scored", "remaining_today": None}  # fmt: skip
    server = scripted([(429, {}, final), (201, {}, answer)])
    with Client(server.url, "t") as client, pytest.raises(ServerError) as caught:
        client.submit("demo", b"id,target\n1,0\n")
    assert caught.value.code == "quota" and len(server.seen) == 1
    predictions = tmp_path / "p.csv"
    predictions.write_bytes(b"id,target\n1,0\n")
    server = scripted([(429, {}, final), (201, {}, answer)])
    result = CliRunner().invoke(
        app,
        ["submit", "demo", "-f", str(predictions)],
        env={"LADDERBOARD_SERVER": server.url, "LADDERBOARD_TOKEN": "t",
             "XDG_CONFIG_HOME": str(tmp_path)},
    )  # fmt: skip
    assert result.exit_code == 1 and "429 quota" in result.stderr, result.output
    assert "asking again" not in result.stderr and len(server.seen) == 1


def test_a_post_is_retried_after_a_429_and_a_503_only_with_an_idempotency_key(scripted):
    created = {"id": 1, "public_score": 0.5}
    server = scripted([(429, {"Retry-After": "0"}, BUSY), (201, {}, created)])
    with Client(server.url, "t") as client:
        assert client.submit("demo", b"id,target\n") == created
    assert [s[0] for s in server.seen] == ["POST", "POST"]

    server = scripted([(503, {"Retry-After": "0"}, UNAVAILABLE), (201, {}, created)])
    with Client(server.url, "t") as client, pytest.raises(ServerError) as caught:
        client.submit("demo", b"id,target\n")  # a proxy's 503: it may have been stored
    assert caught.value.status == 503 and len(server.seen) == 1
    with Client(server.url, "t") as client:
        assert client.submit("demo", b"id,target\n", idempotency_key="k1") == created
    assert [s[2] for s in server.seen] == [None, "k1"]


def test_a_submission_sent_again_is_the_whole_file_again(scripted):
    """The client sends the file as the body (its type from its first bytes,
    the message in the query); a retry, which re-reads the body that
    reported its progress, sends all of it again."""
    created = {"id": 1, "public_score": 0.5}
    data = b"id,target\n" + b"".join(b"%d,1\n" % i for i in range(50_000))
    told: list[tuple[int, int]] = []
    for body, kind in ((data, "text/csv"), (gzip.compress(data), "application/gzip")):
        server = scripted([(503, {"Retry-After": "0"}, UNAVAILABLE), (201, {}, created)])
        told.clear()
        with Client(server.url, "t") as client:
            answer = client.submit(
                "demo",
                body,
                message="a b",
                idempotency_key="k",
                progress=lambda done, total: told.append((done, total)),
            )
        assert answer == created
        assert server.bodies == [(kind, body), (kind, body)]
        assert [path for _, path, _, _ in server.seen] == [
            "/api/competitions/demo/submissions?message=a+b"
        ] * 2
        assert told[-1] == (len(body), len(body))


def test_a_message_too_long_for_a_url_goes_in_a_form(scripted):
    created = {"id": 1, "public_score": 0.5}
    server = scripted([(201, {}, created)])
    message = "é" * 600  # 7,200 characters percent-encoded
    with Client(server.url, "t") as client:
        assert client.submit("demo", b"id,target\n0,1\n", message=message) == created
    ((kind, body),) = server.bodies
    assert kind.startswith("multipart/form-data") and message.encode() in body
    assert server.seen[0][1] == "/api/competitions/demo/submissions"


def test_a_download_is_retried_before_its_body_is_read(scripted, tmp_path):
    server = scripted([(503, {"Retry-After": "0"}, UNAVAILABLE), (200, {}, {"x": 1})])
    out = tmp_path / "f"
    with Client(server.url) as client, out.open("wb") as file:
        client.download_file("demo", "f.csv", file)
    assert out.read_bytes() == b'{"x": 1}' and len(server.seen) == 2


def test_the_cli_notes_each_wait_on_stderr_and_sends_an_idempotency_key(scripted, tmp_path):
    answer = {"id": 1, "public_score": 0.5, "previous_score": None, "explanation": "",
              "status": "scored", "remaining_today": None}  # fmt: skip
    server = scripted([(503, {"Retry-After": "0"}, UNAVAILABLE), (201, {}, answer)])
    predictions = tmp_path / "p.csv"
    predictions.write_bytes(b"id,target\n1,0\n")
    result = CliRunner().invoke(
        app,
        ["submit", "demo", "-f", str(predictions), "--json"],
        env={"LADDERBOARD_SERVER": server.url, "LADDERBOARD_TOKEN": "t",
             "XDG_CONFIG_HOME": str(tmp_path)},
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == answer
    assert "503" in result.stderr and "asking again in 0 s" in result.stderr
    keys = [s[2] for s in server.seen]
    assert len(keys) == 2 and keys[0] and keys[0] == keys[1]

    busy = scripted([(429, {"Retry-After": "0"}, BUSY)])
    refused = CliRunner().invoke(
        app,
        ["competitions"],
        env={"LADDERBOARD_SERVER": busy.url, "XDG_CONFIG_HOME": str(tmp_path)},
    )
    assert refused.exit_code == 1 and "429 rate_limited" in refused.stderr
    assert refused.stderr.count("asking again in") == 3 and len(busy.seen) == 4


# ------------------------------------------------------- answers of no server
def test_a_redirect_is_not_followed_and_names_where_it_goes(scripted):
    """The token would go along to wherever the redirect points."""
    server = scripted([(301, {"Location": "https://board.example.org/api/whoami"}, b"")])
    with Client(server.url, "t") as client, pytest.raises(ServerError) as refused:
        client.whoami()
    assert refused.value.code == "redirect" and len(server.seen) == 1
    assert "redirects to https://board.example.org/api/whoami" in refused.value.message
    result = CliRunner().invoke(app, ["login", "--server", server.url, "--token", "t" * 20])
    assert result.exit_code == 1
    (line,) = result.output.strip().splitlines()
    assert "give that address as the server" in line


def test_an_answer_that_is_not_json_is_one_line_not_a_traceback(scripted):
    page = b"<html><body>Welcome to nginx!</body></html>"
    server = scripted([(200, {"Content-Type": "text/html"}, page)])
    with Client(server.url) as client, pytest.raises(ServerError) as refused:
        client.competitions()
    assert refused.value.code == "not_json" and "text/html" in refused.value.message
    result = CliRunner().invoke(app, ["competitions", "--server", server.url])
    assert result.exit_code == 1, result.output
    (line,) = result.output.strip().splitlines()
    assert line.startswith("error: ") and "not the JSON of a ladderboard server" in line


def test_a_stored_token_is_not_sent_to_another_server(scripted, tmp_path, monkeypatch):
    from ladderboard.client.credentials import Credentials, ServerTokens, TeamToken, save

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    monkeypatch.delenv("LADDERBOARD_SERVER", raising=False)
    monkeypatch.delenv("LADDERBOARD_TOKEN", raising=False)
    stored = ServerTokens("s" * 40, {"demo": TeamToken("alpha", "a" * 40)}, "o" * 40)
    save(Credentials({"http://127.0.0.1:1": stored}, default="http://127.0.0.1:1"))
    other = scripted([(200, {}, [])] * 2)
    result = CliRunner().invoke(app, ["competitions", "--server", other.url, "--json"])
    assert result.exit_code == 0, result.output
    named = CliRunner().invoke(app, ["leaderboard", "demo", "--server", other.url, "--json"])
    assert named.exit_code == 0, named.output
    assert other.authorizations == [None, None]
    same = CliRunner().invoke(app, ["competitions", "--server", other.url, "--token", "t" * 20])
    assert same.exit_code == 0 and other.authorizations[-1] == "Bearer " + "t" * 20


def test_a_given_connection_keeps_its_timeout_unless_one_is_asked_for():
    import httpx2

    read: list[float] = []

    def answer(request: httpx2.Request) -> httpx2.Response:
        read.append(request.extensions["timeout"]["read"])
        return httpx2.Response(200, json=[])

    with httpx2.Client(transport=httpx2.MockTransport(answer), timeout=7.0) as given:
        Client("http://server", "token", http=given).competitions()
        Client("http://server", "token", http=given, timeout=300).competitions()
        Client("http://server", "token", http=given, timeout=300).with_token("t").competitions()
    assert read == [7.0, 300, 300]
    with Client("http://server", "token", timeout=2.5) as own:  # its own connection carries it
        assert own._http.timeout.read == 2.5
