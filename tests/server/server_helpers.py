"""Requests the server tests make again and again."""

from __future__ import annotations

import numpy as np
from fastapi.testclient import TestClient

from ladderboard.files.solution import Solution

ADMIN = "organiser-token-for-the-tests-0123456789"
LABELS = [0, 1] * 100


def predictions(solution: Solution, seed: int) -> bytes:
    """A valid submission file of random 0/1 predictions, different per seed."""
    values = np.random.default_rng(seed).integers(0, 2, size=len(solution.ids))
    rows = "".join(f"{i},{v}\n" for i, v in zip(solution.ids, values, strict=True))
    return f"id,target\n{rows}".encode()


def flipped(solution: Solution, wrong: float, seed: int) -> bytes:
    """A submission file of the true 0/1 labels with a share ``wrong`` of them
    flipped at random: 0 is a perfect model, 0.5 random guesses."""
    labels = np.asarray(solution.targets, dtype=float).reshape(-1).astype(int)
    flip = np.random.default_rng(seed).random(labels.size) < wrong
    values = np.where(flip, 1 - labels, labels)
    rows = "".join(f"{i},{v}\n" for i, v in zip(solution.ids, values, strict=True))
    return f"id,target\n{rows}".encode()


def organiser() -> dict[str, str]:
    return {"Authorization": f"Bearer {ADMIN}"}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def create(client: TestClient, solution: Solution, slug: str = "demo", **fields) -> dict:
    form = {"slug": slug, "score": "zero_one", "mechanism": "parameter-free-ladder", **fields}
    response = client.post(
        "/api/competitions",
        data={k: str(v) for k, v in form.items()},
        files={"solution": ("solution.csv", solution.to_csv(), "text/csv")},
        headers=organiser(),
    )
    assert response.status_code == 201, response.text
    return response.json()


def add_team(client: TestClient, name: str, slug: str = "demo") -> str:
    response = client.post(
        f"/api/competitions/{slug}/teams", json={"name": name}, headers=organiser()
    )
    assert response.status_code == 201, response.text
    return response.json()["token"]


def submit(client: TestClient, token: str, content: bytes, slug: str = "demo", **kwargs):
    return client.post(
        f"/api/competitions/{slug}/submissions",
        files={"file": ("predictions.csv", content, "text/csv")},
        headers=bearer(token) | kwargs.pop("headers", {}),
        **kwargs,
    )


def send_file(
    client: TestClient,
    token: str,
    content: bytes,
    slug: str = "demo",
    *,
    content_type: str | None = "text/csv",
    message: str | None = None,
    headers: dict[str, str] | None = None,
):
    """A submission whose body is the file itself (as the ladderboard client
    sends it), the message in the query."""
    typed = {"Content-Type": content_type} if content_type else {}
    return client.post(
        f"/api/competitions/{slug}/submissions",
        content=content,
        params={"message": message} if message is not None else None,
        headers=bearer(token) | typed | (headers or {}),
    )


def assert_stored_once(database_url: str, acknowledged: dict, slug: str) -> None:
    """Every acknowledged submission, as ``(team number, the team's own
    submission number)`` of teams named ``team-N``, is stored exactly once,
    nothing else is, and ``verify`` replays the competition's boards."""
    from sqlalchemy import func, select
    from sqlalchemy.orm import Session

    from ladderboard.engine import Competitions
    from ladderboard.engine.audit import verify
    from ladderboard.store import SubmissionRow, TeamRow

    store = Competitions.open(database_url, create_schema=False)
    try:
        with Session(store.engine) as session:
            names = dict(session.execute(select(TeamRow.id, TeamRow.name)).all())
            stored = sorted(
                (int(names[team].removeprefix("team-")), number)
                for team, number in session.execute(
                    select(SubmissionRow.team_id, SubmissionRow.number)
                )
            )
            count = session.scalar(select(func.count()).select_from(SubmissionRow))
        assert stored == sorted(acknowledged.values())
        assert count == len(acknowledged)
        assert verify(store, slug).submissions == len(acknowledged)
    finally:
        store.dispose()
