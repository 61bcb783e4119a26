"""A command whose optional dependencies are not installed says, in one line,
which extra installs them, exits with the usage status (2) and creates
nothing. Each case runs ``ladderboard`` in a fresh interpreter in which the
packages of the extras cannot be imported, as after ``pip install ladderboard``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from ladderboard.cli import EXTRA_OF_MODULE, missing_extra_message

SCRIPT = textwrap.dedent(
    """
    import importlib.abc, sys

    BLOCKED = {blocked!r}

    class Block(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
            return None

    sys.meta_path.insert(0, Block())
    sys.argv = ["ladderboard", *{argv!r}]
    from ladderboard.cli import run
    run()
    """
)


def run_without(blocked: set[str], argv: list[str], cwd) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "200"}
    env.pop("LADDERBOARD_DATABASE_URL", None)
    return subprocess.run(
        [sys.executable, "-c", SCRIPT.format(blocked=sorted(blocked), argv=argv)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=120,
    )


EVERY_EXTRA = set(EXTRA_OF_MODULE)
NO_CLIENT = {m for m, extra in EXTRA_OF_MODULE.items() if extra != "client"}


@pytest.mark.parametrize(
    ("blocked", "argv", "extra"),
    [
        (EVERY_EXTRA, ["submit", "demo", "-f", "predictions.csv"], "client"),
        (EVERY_EXTRA, ["leaderboard", "demo"], "client"),
        (EVERY_EXTRA, ["team", "list", "demo"], "client"),
        # the bundle is read (YAML) before the server is asked
        (EVERY_EXTRA, ["competition", "create", "--from", "predictions.csv"], "client"),
        (EVERY_EXTRA, ["competition", "dump", "demo", "--out", "bundle"], "client"),
        (EVERY_EXTRA, ["init", "--db", "sqlite:///store.db"], "server"),
        (EVERY_EXTRA, ["serve", "--db", "sqlite:///store.db"], "server"),
        (EVERY_EXTRA, ["verify", "demo", "--db", "sqlite:///store.db"], "server"),
        (EVERY_EXTRA, ["verify", "--bundle", "demo-audit.zip"], "audit"),
        (EVERY_EXTRA, ["demo"], "server,experiments"),
        (EVERY_EXTRA, ["advise", "--n", "100", "-k", "10"], "experiments"),
        (EVERY_EXTRA, ["experiment", "run", "e1", "--quick", "--out", "out"], "experiments"),
        # a client install: the server's commands still need the server extra
        (NO_CLIENT, ["init", "--db", "sqlite:///store.db"], "server"),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, list) else None,
)
@pytest.mark.slow
def test_a_missing_extra_is_one_line_naming_it(blocked, argv, extra, tmp_path):
    (tmp_path / "predictions.csv").write_text("id,target\n1,0\n")
    before = sorted(p.name for p in tmp_path.iterdir())
    done = run_without(blocked, argv, tmp_path)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1, done.stderr
    assert f"pip install 'ladderboard[{extra}]'" in lines[0]
    assert lines[0].startswith(f"error: `ladderboard {argv[0]}` needs ")
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing created


def test_a_missing_module_of_the_project_itself_is_not_blamed_on_an_extra():
    exc = ModuleNotFoundError("No module named 'ladderboard.nowhere'", name="ladderboard.nowhere")
    assert missing_extra_message(exc, ["submit"]) is None


def test_postgres_is_named_whatever_the_command():
    exc = ModuleNotFoundError("No module named 'psycopg'", name="psycopg")
    message = missing_extra_message(exc, ["serve", "--db", "postgresql://x/y"])
    assert message is not None and "ladderboard[postgres]" in message


def test_verify_bundle_needs_only_the_audit_extra(tmp_path):
    """A published bundle is checked with pyarrow and the core alone: no
    SQLAlchemy, no web framework, no HTTP client."""
    from ladderboard.engine import Competitions
    from ladderboard.engine.archives import FolderSink
    from ladderboard.files.solution import Solution
    from ladderboard.rules.config import CompetitionConfig

    store = Competitions.open(f"sqlite:///{tmp_path / 'store.db'}")
    solution = Solution.from_labels([0, 1] * 50, public_fraction=0.5, random_state=0)
    store.create("c", solution, CompetitionConfig(score="zero_one", mechanism="ladder"))
    store.add_team("c", "a")
    for fill in (0.0, 1.0):
        store.submit("c", "a", solution.sample_submission_csv(fill=fill))
    store.close("c")
    store.publish("c")
    store.publish_audit("c", "full")
    store.audit_bundle("c", FolderSink(tmp_path / "bundle"))
    store.engine.dispose()
    done = run_without(EVERY_EXTRA - {"pyarrow"}, ["verify", "--bundle", "bundle"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert "verified the audit bundle of c" in done.stdout
