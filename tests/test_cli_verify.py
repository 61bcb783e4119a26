"""``ladderboard verify`` against a real store file."""

from __future__ import annotations

import numpy as np
from sqlalchemy import select, update
from sqlalchemy.orm import Session
from typer.testing import CliRunner

from ladderboard.cli import app
from ladderboard.engine import Competitions
from ladderboard.files.solution import Solution
from ladderboard.rules.config import CompetitionConfig
from ladderboard.store import SubmissionRow


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
    key = store.reveal_key("c")
    runner = CliRunner()
    ok = runner.invoke(app, ["verify", "c", "--db", url, "--key", key])
    assert ok.exit_code == 0, ok.output
    assert "2 submissions" in ok.output and "bit for bit" in ok.output

    with Session(store.engine) as session, session.begin():
        first = session.scalars(select(SubmissionRow.id).order_by(SubmissionRow.id)).first()
        session.execute(
            update(SubmissionRow).where(SubmissionRow.id == first).values(public_score=0.123)
        )
    bad = runner.invoke(app, ["verify", "c", "--db", url, "--key", key])
    assert bad.exit_code == 1 and "released score" in bad.output
    wrong_key = runner.invoke(app, ["verify", "c", "--db", url, "--key", "1" * 32])
    assert wrong_key.exit_code == 1 and "commitment" in wrong_key.output
    store.engine.dispose()
