"""Concurrent submissions through the HTTP layer: each acknowledged once, stored once."""

from __future__ import annotations

import socket
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import pytest
from server_helpers import ADMIN, add_team, create, predictions, submit
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ladderboard.client import Client
from ladderboard.engine.audit import verify
from ladderboard.store import SubmissionRow


@pytest.mark.slow
def test_concurrent_submissions_are_each_stored_once(client, solution):
    create(client, solution, daily_quota="none", mechanism="ladder-boot")
    tokens = [add_team(client, name) for name in ("alpha", "beta", "gamma")]
    jobs = [(tokens[i % 3], i) for i in range(24)]

    def send(job):
        token, seed = job
        return submit(
            client, token, predictions(solution, seed), headers={"Idempotency-Key": f"job-{seed}"}
        )

    with ThreadPoolExecutor(max_workers=8) as pool:
        responses = list(pool.map(send, jobs))
    assert [r.status_code for r in responses] == [201] * len(jobs), [
        r.text for r in responses if r.status_code != 201
    ]
    # Each team numbers its own submissions 1, 2, ...
    ids = {(token, r.json()["id"]) for (token, _), r in zip(jobs, responses, strict=True)}
    assert len(ids) == len(jobs)
    for token in {token for token, _ in jobs}:
        own = sorted(number for t, number in ids if t == token)
        assert own == list(range(1, len(own) + 1))
    store = client.app.state.competitions
    with Session(store.engine) as session:
        assert session.scalar(select(func.count()).select_from(SubmissionRow)) == len(jobs)
    # Retrying every job with its idempotency key stores nothing new.
    with ThreadPoolExecutor(max_workers=8) as pool:
        again = list(pool.map(send, jobs))
    assert [r.json()["id"] for r in again] == [r.json()["id"] for r in responses]
    assert verify(store, "demo").submissions == len(jobs)


def test_a_stalled_upload_holds_up_no_other_submission(live_server, solution):
    """With one submission slot a worker, a team whose upload stalls half-way
    keeps no other team waiting: its body is received apart from the slot,
    which only scoring takes; and once its connection drops, the server goes on."""
    address = urlsplit(live_server)
    with Client(live_server, ADMIN) as organiser_client:
        organiser_client.create_competition(
            "demo", solution.to_csv(), score="zero_one", mechanism="parameter-free-ladder"
        )
        slow = organiser_client.add_team("demo", "slow")["token"]
        quick = organiser_client.add_team("demo", "quick")["token"]
    data = predictions(solution, 1)
    boundary = "stalled-upload-boundary"
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
        f'filename="p.csv"\r\nContent-Type: text/csv\r\n\r\n'
    ).encode()
    body = head + data + f"\r\n--{boundary}--\r\n".encode()
    stalled = socket.create_connection((address.hostname, address.port))
    try:
        stalled.sendall(
            (
                f"POST /api/competitions/demo/submissions HTTP/1.1\r\n"
                f"Host: {address.netloc}\r\nAuthorization: Bearer {slow}\r\n"
                f"Content-Type: multipart/form-data; boundary={boundary}\r\n"
                f"Content-Length: {len(body)}\r\n\r\n"
            ).encode()
            + body[: len(body) // 2]
        )
        time.sleep(0.3)  # the server has the first half and waits for the rest
        with Client(live_server, quick, timeout=20) as team:
            answered = team.submit("demo", predictions(solution, 2))
        assert answered["status"] == "scored"
    finally:
        stalled.close()
    with Client(live_server, slow) as team:  # the server still answers the dropped team
        assert team.submissions("demo") == []
