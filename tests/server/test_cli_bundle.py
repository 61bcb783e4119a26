"""A competition as a bundle through the CLI, against a live server:
``competition create --from`` and ``competition dump``, on both stores, and
each refusal of a bad bundle leaving the server as it was."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
import yaml
from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session
from typer.testing import CliRunner

from ladderboard.bundle import read_bundle
from ladderboard.cli import app
from ladderboard.files.solution import Solution
from ladderboard.server.local import LocalServer
from ladderboard.store import CompetitionRow

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "competition"
runner = CliRunner()


@pytest.fixture(scope="module", autouse=True)
def no_stored_credentials(tmp_path_factory):
    """A configuration folder of the tests' own: the user's stored tokens stay out."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))
        yield


def invoke(server: LocalServer, *args: str):
    env = {"LADDERBOARD_SERVER": server.url, "LADDERBOARD_TOKEN": server.admin_token}
    return runner.invoke(app, [str(arg) for arg in args], env=env | {"COLUMNS": "200"})


def slugs(server: LocalServer) -> list[str]:
    listed = invoke(server, "competitions", "--json")
    assert listed.exit_code == 0, listed.output
    return sorted(entry["slug"] for entry in json.loads(listed.stdout))


def bundle_copy(tmp_path: Path, **changes) -> Path:
    """The example bundle copied to ``tmp_path/bundle``, its YAML's keys set
    as in ``changes`` (``None``: removed)."""
    folder = tmp_path / "bundle"
    shutil.copytree(EXAMPLE, folder)
    document = yaml.safe_load((folder / "competition.yaml").read_text())
    for key, value in changes.items():
        if value is None:
            document.pop(key, None)
        else:
            document[key] = value
    (folder / "competition.yaml").write_text(yaml.safe_dump(document, sort_keys=False))
    return folder


def stored(url: str, slug: str) -> tuple[str, str, int, int]:
    """What the commitment is made of, as stored: the solution's and the
    split's SHA-256, and the public and private sizes."""
    engine = create_engine(url)
    try:
        with Session(engine) as session:
            row = session.scalars(select(CompetitionRow).where(CompetitionRow.slug == slug)).one()
            return row.solution_sha256, row.split_sha256, row.n_public, row.n_private
    finally:
        engine.dispose()


@pytest.mark.slow
def test_a_dumped_bundle_makes_the_same_competition_again(database_url, tmp_path):
    """Create from a bundle, dump, create again under another slug from the
    dump, dump again: the same settings, texts, data files and commitment
    inputs, and the two dumps the same bytes but for the slug."""
    source = bundle_copy(
        tmp_path,
        deadline="2099-01-31T23:59:00+01:00",
        board="per-rank",
        ranks=4,
        daily_quota=None,  # left out: the default, 5
        total_quota=50,
        auto_publish=True,
        mechanism_params={"eta": 0.05},
        score="log_loss",
        score_params={"clip": [0.01, 0.99]},
        precision=3,
        n_selections=1,
        visibility="private",  # the organiser's token dumps what only organisers see
    )
    with LocalServer(database_url) as server:
        created = invoke(server, "competition", "create", "--from", source, "--json")
        assert created.exit_code == 0, created.output
        first = tmp_path / "first"
        dumped = invoke(server, "competition", "dump", "simulated-logistic", "--out", first)
        assert dumped.exit_code == 0, dumped.output
        again = invoke(server, "competition", "create", "again", "--from", first, "--json")
        assert again.exit_code == 0, again.output
        second = tmp_path / "second"
        assert invoke(server, "competition", "dump", "again", "--out", second).exit_code == 0

        one, two = json.loads(created.stdout), json.loads(again.stdout)
        assert (one["precision"], one["score_params"], one["board"]) == (
            3,
            {"clip": [0.01, 0.99]},
            "per-rank",
        )
        different = {"slug", "created_at", "commitment"}  # the commitment holds a new key
        assert {k: v for k, v in one.items() if k not in different} == {
            k: v for k, v in two.items() if k not in different
        }
        assert stored(database_url, "simulated-logistic") == stored(database_url, "again")

    original, dump = read_bundle(source), read_bundle(first)
    assert dump.settings["deadline"] == "2099-01-31T22:59:00+00:00"
    assert dump.settings["daily_quota"] == 5 and dump.settings["total_quota"] == 50
    assert dump.config() == original.config()
    assert (dump.title, dump.overview, dump.rules) == (
        original.title,
        original.overview,
        original.rules,
    )
    assert sorted(dump.data_files) == sorted(original.data_files)
    sha256, split, n_public, n_private = stored(database_url, "again")
    assert hashlib.sha256(dump.solution).hexdigest() == sha256
    assert Solution.from_csv(dump.solution).split_sha256 == split
    assert (n_public, n_private) == (100, 100)

    files = sorted(p.relative_to(first).as_posix() for p in first.rglob("*") if p.is_file())
    assert files == sorted(
        p.relative_to(second).as_posix() for p in second.rglob("*") if p.is_file()
    )
    for name in files:
        ours, theirs = (first / name).read_bytes(), (second / name).read_bytes()
        if name == "competition.yaml":
            theirs = theirs.replace(b"slug: again\n", b"slug: simulated-logistic\n")
        assert ours == theirs, name


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('bundle') / 'ladderboard.db'}"
    with LocalServer(url) as live:
        yield live


@pytest.mark.slow
def test_the_example_bundle_creates_its_competition(server, tmp_path):
    """``examples/competition`` as the README's organiser would send it; the
    dump says every setting the example gives, and its data files."""
    created = invoke(server, "competition", "create", "example", "--from", EXAMPLE, "--json")
    assert created.exit_code == 0, created.output
    info = json.loads(created.stdout)
    assert (info["slug"], info["title"]) == ("example", "Simulated logistic labels")
    assert (info["mechanism"], info["mechanism_params"], info["max_bytes"]) == (
        "ladder",
        {"eta": 0.1},
        2**20,
    )
    out = tmp_path / "dump"
    dumped = invoke(server, "competition", "dump", "example", "--out", out, "--json")
    assert dumped.exit_code == 0, dumped.output
    listed = json.loads(dumped.stdout)
    assert listed["bundle"] == str(out / "competition.yaml")
    assert [entry["file"] for entry in listed["files"]] == [
        "competition.yaml",
        "data/test.csv",
        "data/train.csv",
        "overview.md",
        "rules.md",
        "solution.csv",
    ]
    example, dump = read_bundle(EXAMPLE), read_bundle(out)
    assert dump.settings == example.settings
    assert sorted(dump.data_files) == sorted(example.data_files)
    assert (out / "data" / "train.csv").read_bytes() == (EXAMPLE / "data/train.csv").read_bytes()


def test_the_example_data_are_those_its_script_makes(tmp_path):
    copy = tmp_path / "example"
    shutil.copytree(EXAMPLE, copy)
    for path in [copy / "solution.csv", *(copy / "data").iterdir()]:
        path.unlink()
    namespace: dict = {"__file__": str(copy / "make_data.py"), "__name__": "example"}
    exec(compile((copy / "make_data.py").read_text(), "make_data.py", "exec"), namespace)
    namespace["main"]()
    for name in ("solution.csv", "data/train.csv", "data/test.csv"):
        assert (copy / name).read_bytes() == (EXAMPLE / name).read_bytes(), name


REFUSALS = [  # (changes to the example's YAML, words the refusal says)
    ({"rank": 3}, ["unknown key 'rank'", "known:", "ranks"]),
    ({"ranks": 0}, ["ranks must be an integer >= 1, got 0"]),
    ({"board": "per-day"}, ["board must be one of"]),
    ({"deadline": "2099-01-31T23:59:00"}, ["deadline must carry a time zone"]),
    ({"score_params": {"clip": 2}}, ["score_params:"]),
    ({"mechanism": "no-such"}, ["unknown mechanism 'no-such'"]),
    ({"mechanism": None}, ["mechanism_params", "give mechanism too"]),
    ({"format": 2}, ["format must be 1"]),
    ({"solution": "../solution.csv"}, ["solution", "leads out of the folder"]),
    ({"solution": "/etc/hostname"}, ["solution", "is absolute"]),
    ({"solution": "missing.csv"}, ["solution", "no file 'missing.csv'"]),
    ({"data_files": ["data/train.csv", "data/../../x.csv"]}, ["data_files", "leads out"]),
    ({"overview": "inline"}, ["overview (the text) or overview_file"]),
]


@pytest.mark.parametrize(("changes", "words"), REFUSALS)
def test_a_bad_bundle_is_refused_naming_its_key_and_nothing_is_created(
    server, tmp_path, changes, words
):
    before = slugs(server)
    folder = bundle_copy(tmp_path, **changes)
    refused = invoke(server, "competition", "create", "--from", folder)
    assert refused.exit_code == 2, refused.output
    for word in words:
        assert word in refused.output, (word, refused.output)
    assert slugs(server) == before


def test_a_symbolic_link_out_of_the_folder_is_refused(server, tmp_path):
    before = slugs(server)
    folder = bundle_copy(tmp_path, solution="outside.csv")
    (tmp_path / "elsewhere.csv").write_bytes((EXAMPLE / "solution.csv").read_bytes())
    (folder / "outside.csv").symlink_to(tmp_path / "elsewhere.csv")
    refused = invoke(server, "competition", "create", "--from", folder / "competition.yaml")
    assert refused.exit_code == 2 and "a symbolic link" in refused.output, refused.output
    assert slugs(server) == before


def test_what_the_server_refuses_creates_nothing(server, tmp_path):
    """A bundle that reads but a server refuses (a Ladder step of zero): the
    server's message, exit status 1, and no competition."""
    before = slugs(server)
    refused = invoke(
        server,
        "competition",
        "create",
        "--from",
        bundle_copy(tmp_path, mechanism_params={"eta": 0}),
    )
    assert refused.exit_code == 1 and "eta" in refused.output, refused.output
    assert slugs(server) == before


def test_options_beside_from_are_refused(server):
    before = slugs(server)
    refused = invoke(
        server, "competition", "create", "--from", EXAMPLE, "--score", "log_loss", "--auto-publish"
    )
    assert refused.exit_code == 2, refused.output
    assert "--score, --auto-publish cannot be given beside it" in refused.output
    assert slugs(server) == before


def test_dump_writes_only_into_a_new_or_empty_folder(server, tmp_path):
    assert invoke(server, "competition", "create", "kept", "--from", EXAMPLE).exit_code == 0
    (tmp_path / "notes.txt").write_text("mine")
    refused = invoke(server, "competition", "dump", "kept", "--out", tmp_path)
    assert refused.exit_code == 2 and "new or empty folder" in refused.output, refused.output
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def test_dump_needs_the_organiser(server, tmp_path):
    assert invoke(server, "competition", "create", "private", "--from", EXAMPLE).exit_code == 0
    added = invoke(server, "team", "add", "private", "alpha", "--json")
    token = json.loads(added.stdout)["token"]
    env = {"LADDERBOARD_SERVER": server.url, "LADDERBOARD_TOKEN": token}
    refused = runner.invoke(
        app, ["competition", "dump", "private", "--out", str(tmp_path / "x")], env=env
    )
    assert refused.exit_code == 1 and "organiser" in refused.output, refused.output
    assert not (tmp_path / "x").exists()


def test_without_from_the_slug_solution_and_score_are_needed(server):
    before = slugs(server)
    refused = invoke(
        server, "competition", "create", "lonely", "--solution", EXAMPLE / "solution.csv"
    )
    assert refused.exit_code == 2, refused.output
    assert "give SLUG, --solution and --score, or a bundle with --from" in refused.output
    assert slugs(server) == before
