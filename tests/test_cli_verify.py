"""``ladderboard verify`` against a real store file."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys

import numpy as np
import pytest
from sqlalchemy import select, update
from sqlalchemy.orm import Session
from typer.testing import CliRunner

from ladderboard.cli import app
from ladderboard.engine import Competitions
from ladderboard.files.solution import Solution
from ladderboard.rules.config import CompetitionConfig
from ladderboard.store import SubmissionRow, make_engine, migrate
from ladderboard.store.database import downgrade, schema_revisions

ORGANISER_TOKEN = "Zq7-vN2pXw8Lr4Ky9Tb3Hs6Jd1Fm5Gc0Ua"
"""A token of the kind ``ladderboard init`` prints: a production setting refuses a regular one."""


def test_verify_command(tmp_path):
    url = f"sqlite:///{tmp_path / 'store.db'}"
    store = Competitions.open(url)
    y = np.random.default_rng(0).integers(0, 2, 200)
    solution = Solution.from_labels(y, public_fraction=0.5, random_state=0)
    store.create("c", solution, CompetitionConfig(score="zero_one", mechanism="ladder-boot"))
    store.add_team("c", "a")
    for fill in (0.0, 1.0):
        store.submit("c", "a", solution.sample_submission_csv(fill=fill))
    store.close("c")
    store.publish("c")
    key = store.reveal_key("c")
    runner = CliRunner()
    ok = runner.invoke(app, ["verify", "c", "--db", url, "--key", key])
    assert ok.exit_code == 0, ok.output
    assert "2 submissions" in ok.output and "bit for bit" in ok.output
    as_json = runner.invoke(app, ["verify", "c", "--db", url, "--key", key, "--json"])
    assert as_json.exit_code == 0, as_json.output
    report = json.loads(as_json.stdout)
    assert report["verified"] is True and report["slug"] == "c"
    assert report["submissions"] == 2 and report["boards"] >= 1
    assert report["commitment"] in ok.output

    with Session(store.engine) as session, session.begin():
        first = session.scalars(select(SubmissionRow.id).order_by(SubmissionRow.id)).first()
        session.execute(
            update(SubmissionRow).where(SubmissionRow.id == first).values(public_score=0.123)
        )
    bad = runner.invoke(app, ["verify", "c", "--db", url, "--key", key])
    assert bad.exit_code == 1 and "released score" in bad.output
    bad_json = runner.invoke(app, ["verify", "c", "--db", url, "--key", key, "--json"])
    assert bad_json.exit_code == 1
    failure = json.loads(bad_json.stdout)
    assert failure["verified"] is False and "released score" in failure["error"]
    wrong_key = runner.invoke(app, ["verify", "c", "--db", url, "--key", "1" * 32])
    assert wrong_key.exit_code == 1 and "commitment" in wrong_key.output
    store.engine.dispose()


def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("LADDERBOARD_")}
    return subprocess.run(
        [sys.executable, "-m", "ladderboard", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=environment | (env or {}),
    )


@pytest.mark.slow
def test_verify_on_a_missing_store_says_so_in_one_line_and_creates_nothing(tmp_path):
    missing = tmp_path / "nowhere" / "store.db"
    done = _run("verify", "c", "--db", f"sqlite:///{missing}")
    assert done.returncode == 3
    assert done.stderr.strip().splitlines() == [
        f"error: no store at {missing} (ladderboard init creates one)"
    ]
    assert not missing.exists() and not missing.parent.exists()


@pytest.mark.slow
def test_a_url_that_is_not_a_database_url_is_a_usage_error(tmp_path):
    for command in (["init"], ["verify", "c"]):
        token = {"LADDERBOARD_ADMIN_TOKEN": ORGANISER_TOKEN}
        done = _run(*command, "--db", "bogus://x", env=token)
        assert done.returncode == 2, done.stderr
        (line,) = done.stderr.strip().splitlines()
        assert line.startswith("error: cannot open 'bogus://x': it is not a database URL")


@pytest.mark.slow
def test_a_database_that_does_not_answer_is_named_in_one_line():
    done = _run("verify", "c", "--db", "postgresql://postgres@127.0.0.1:1/test")
    assert done.returncode == 3
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("error: the database at postgresql+psycopg://postgres@127.0.0.1:1/test")
    assert "does not answer" in line


@pytest.mark.slow
def test_a_database_without_a_ladderboard_store_is_named_in_one_line_and_left_alone(tmp_path):
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    foreign = tmp_path / "foreign.db"
    with sqlite3.connect(foreign) as connection:
        connection.execute("create table notes (body text)")
    for path in (empty, foreign):
        before = path.read_bytes()
        done = _run("verify", "c", "--db", f"sqlite:///{path}")
        assert done.returncode == 3, done.stderr
        assert done.stderr.strip().splitlines() == [
            f"error: no ladderboard store at sqlite:///{path} (ladderboard init creates one)"
        ]
        assert path.read_bytes() == before


@pytest.mark.slow
def test_a_store_of_another_schema_revision_is_named_in_one_line(tmp_path):
    url = f"sqlite:///{tmp_path / 'old.db'}"
    engine = make_engine(url)
    migrate(engine)
    _, head = schema_revisions(engine)
    downgrade(engine, "-1")
    old, _ = schema_revisions(engine)
    engine.dispose()
    done = _run("verify", "c", "--db", url)
    assert done.returncode == 3, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert f"has schema revision {old}" in line and f"reads {head}" in line
    assert "ladderboard init brings a store up to date" in line


@pytest.mark.slow
def test_a_store_newer_than_this_ladderboard_says_to_upgrade(tmp_path):
    path = tmp_path / "new.db"
    engine = make_engine(f"sqlite:///{path}")
    migrate(engine)
    with engine.begin() as connection:
        connection.exec_driver_sql("update alembic_version set version_num = 'from_the_future'")
    engine.dispose()
    done = _run("verify", "c", "--db", f"sqlite:///{path}")
    assert done.returncode == 3, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert "revision from_the_future, newer than this version" in line
    assert "upgrade ladderboard" in line
