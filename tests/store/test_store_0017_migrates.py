"""A store written before accounts (schema revision 0017) migrates to the
current schema and keeps working, on SQLite and PostgreSQL: its teams'
tokens still submit and read their standing, a team's browser session and
the organiser's session still sign in, the competition's settings read back
with the new ones at the defaults that behave as before, and ``ladderboard
verify`` passes on it.

The store is the one ladderboard's engine of that revision wrote
(:mod:`store_0017` says how), loaded as it was into the schema of 0017
built by the migrations, then migrated; nothing of it is rewritten by the
current engine before the migration."""

from __future__ import annotations

import numpy as np
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import inspect
from typer.testing import CliRunner

from ladderboard.cli import app
from ladderboard.server.app import create_app
from ladderboard.server.organiser_session import COOKIE as ORGANISER_COOKIE
from ladderboard.server.settings import Settings
from ladderboard.server.team_pages import COOKIE as TEAM_COOKIE
from ladderboard.store import make_engine, migrate
from ladderboard.store.database import schema_revisions
from store_0017 import load

ADMIN = "Zq7-vN2pXw8Lr4Ky9Tb3Hs6Jd1Fm5Gc0Ua-legacy"
URL = "/api/competitions/legacy"


def _predictions(client: TestClient) -> bytes:
    """A file of the competition's ids, read from its sample submission."""
    sample = client.get(f"{URL}/files/sample_submission.csv").text.splitlines()
    header, ids = sample[0], [line.split(",")[0] for line in sample[1:]]
    values = np.random.default_rng(5).integers(0, 2, len(ids))
    return (
        header + "\n" + "".join(f"{i},{v}\n" for i, v in zip(ids, values, strict=True))
    ).encode()


@pytest.mark.slow
def test_a_store_of_revision_0017_migrates_and_keeps_working(empty_database_url):
    engine = make_engine(empty_database_url)
    secrets = load(engine)
    assert schema_revisions(engine)[0] == "0017"
    assert "accounts" not in inspect(engine).get_table_names()
    migrate(engine)
    assert schema_revisions(engine)[0] == schema_revisions(engine)[1]
    engine.dispose()

    settings = Settings(admin_token=ADMIN, database_url=empty_database_url, rate_limit_per_minute=0)
    with TestClient(create_app(settings)) as client:
        alpha, beta = (secrets["team_tokens"][name] for name in ("alpha", "beta"))
        sent = client.post(
            f"{URL}/submissions",
            content=_predictions(client),
            headers={"Authorization": f"Bearer {alpha}", "Content-Type": "text/csv"},
        )
        assert sent.status_code == 201, sent.text
        assert sent.json()["number"] == 3  # after alpha's two of revision 0017
        standing = client.get(f"{URL}/team", headers={"Authorization": f"Bearer {beta}"})
        assert standing.status_code == 200, standing.text
        assert standing.json()["name"] == "beta"
        assert standing.json()["quota"]["daily_quota"] == 3
        wrong = client.get(f"{URL}/team", headers={"Authorization": "Bearer not-a-token"})
        assert wrong.status_code == 401, wrong.text

        session = secrets["team_session"]
        team_page = client.get(
            "/c/legacy/team", headers={"Cookie": f"{TEAM_COOKIE}={session['cookie']}"}
        )
        assert team_page.status_code == 200, team_page.text
        assert 'action="/c/legacy/team/sign-out"' in team_page.text
        assert session["team"] in team_page.text
        signed_out = client.get("/c/legacy/team")
        assert 'action="/c/legacy/team/sign-out"' not in signed_out.text

        desk_cookie = {"Cookie": f"{ORGANISER_COOKIE}={secrets['organiser_session']}"}
        desk = client.get("/organiser/c/legacy", headers=desk_cookie)
        assert desk.status_code == 200, desk.text
        assert "Before accounts" in desk.text and "No two accounts" in desk.text
        assert client.get("/organiser/c/legacy").status_code == 401

        read = client.get(URL, headers={"Authorization": f"Bearer {ADMIN}"}).json()
        assert (read["visibility"], read["registration"]) == ("public", "list")
        assert (read["max_team_size"], read["merger_deadline"]) == (None, None)
        assert (read["daily_quota"], read["mechanism"], read["title"]) == (
            3,
            "ladder-boot",
            "Before accounts",
        )
        flags = client.get(f"{URL}/flags", headers={"Authorization": f"Bearer {ADMIN}"}).json()
        assert [(f["team"], f["earlier_team"]) for f in flags] == [("beta", "alpha")]
        board = client.get(f"{URL}/leaderboard").json()
        assert sorted(row["team"] for row in board["rows"]) == ["alpha", "beta"]
        assert client.get(f"{URL}/files/notes.md").content == b"# Notes\n"

    verified = CliRunner().invoke(app, ["verify", "legacy", "--db", empty_database_url])
    assert verified.exit_code == 0, verified.output
    assert "4 submissions" in verified.output
