"""Concurrent submissions through the HTTP layer: each acknowledged once, stored once."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from server_helpers import add_team, create, predictions, submit
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ladderboard.engine.audit import verify
from ladderboard.store import SubmissionRow


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
