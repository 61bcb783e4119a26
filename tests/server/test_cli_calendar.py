"""``ladderboard competition create`` and ``edit`` with the calendar's
options, against a live server: an opening time, a freeze given as a time
or as days before the deadline, late submissions; refusals change nothing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from server_helpers import LABELS
from typer.testing import CliRunner

from ladderboard.cli import app
from ladderboard.client import Client
from ladderboard.files.solution import Solution
from ladderboard.server.local import LocalServer

runner = CliRunner()
SOLUTION = Solution.from_labels(LABELS, public_fraction=0.5, random_state=0)
SOON = datetime.now(UTC).replace(microsecond=0) + timedelta(days=10)


@pytest.fixture(scope="module", autouse=True)
def no_stored_credentials(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))
        yield


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('calendar') / 'ladderboard.db'}"
    with LocalServer(url) as server:
        yield server


def run(server, *args):
    env = {"LADDERBOARD_SERVER": server.url, "LADDERBOARD_TOKEN": server.admin_token}
    return runner.invoke(app, [str(a) for a in args], env={**env, "COLUMNS": "200"})


def create(server, folder, slug, *extra):
    solution = folder / "solution.csv"
    solution.write_bytes(SOLUTION.to_csv())
    return run(
        server, "competition", "create", slug, "--solution", solution, "--score", "zero_one",
        "--mechanism", "parameter-free-ladder", *extra,
    )  # fmt: skip


@pytest.mark.slow
def test_cli_calendar_create_and_edit(live, tmp_path):
    deadline = SOON + timedelta(days=20)
    result = create(
        live, tmp_path, "cal", "--opens", SOON.isoformat(), "--deadline", deadline.isoformat(),
        "--freeze-days", "7", "--late-submissions",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    with Client(live.url, live.admin_token) as client:
        info = client.competition("cal")
        assert datetime.fromisoformat(info["opens_at"]) == SOON
        assert datetime.fromisoformat(info["freeze_at"]) == deadline - timedelta(days=7)
        assert info["late_submissions"] is True
        result = run(live, "competition", "edit", "cal", "--freeze-days", "2",
                     "--no-late-submissions")  # fmt: skip
        assert result.exit_code == 0, result.output
        info = client.competition("cal")
        assert datetime.fromisoformat(info["freeze_at"]) == deadline - timedelta(days=2)
        assert info["late_submissions"] is False
        result = run(live, "competition", "edit", "cal", "--opens", "none")
        assert result.exit_code == 0, result.output
        assert client.competition("cal")["opens_at"] is None
        # Open since: the opening can no longer change.
        result = run(live, "competition", "edit", "cal", "--opens", SOON.isoformat())
        assert result.exit_code == 1 and "is open, with no opening time" in result.output


def test_cli_calendar_refusals_change_nothing(live, tmp_path):
    for extra, words in (
        (("--freeze-days", "3"), "counts back from the deadline"),
        (("--opens", "2030-01-01T00:00"), "has no time zone"),
        (("--freeze", SOON.isoformat(), "--freeze-days", "1"), "not both"),
        (("--opens", SOON.isoformat(), "--deadline", (SOON - timedelta(days=1)).isoformat()),
         "must come before deadline"),
    ):  # fmt: skip
        result = create(live, tmp_path, "refused", *extra)
        assert result.exit_code in (1, 2), result.output
        assert words in result.output, result.output
    with Client(live.url, live.admin_token) as client:
        assert "refused" not in [c["slug"] for c in client.competitions()]
